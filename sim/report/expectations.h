// The verdicts of a scenario's `spec.expect` assertions, for `apfsim check` (the paths
// themselves are parsed by sim/scenario/expectation_paths.h).
//
// Over the whole run the measured value is the summary.json field itself. Over a window
// it is computed from the report rows whose interval starts within the window, the same
// rows timeline.csv and clients.csv hold: counts are summed (over intervals and
// replicas), peaks and limits take the largest row, and a percentile is the largest of the
// per-interval percentiles (an upper bound of the window's own percentile, since the rows
// carry percentiles and not histograms). Fields the rows do not carry (maxima, mean
// limits, peak request seats) cannot be windowed; the loader refuses them.
// Tested by tests/sim/report/expectations_test.cc.
#ifndef SIM_REPORT_EXPECTATIONS_H_
#define SIM_REPORT_EXPECTATIONS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/expectation_paths.h"
#include "sim/world/world.h"

namespace sim {

// Folds the report rows into the values of the windowed expectations. RunReport forwards
// its rows here (RunReport::set_forward).
class ExpectationWindows : public WorldObserver {
 public:
  explicit ExpectationWindows(const std::vector<Expectation>& expectations);
  ExpectationWindows(const ExpectationWindows&) = delete;
  ExpectationWindows& operator=(const ExpectationWindows&) = delete;

  void OnLevelRow(apf::Nanos start, int replica, const std::string& level,
                  const LevelRow& row) override;
  void OnClientRow(apf::Nanos start, const std::string& client, const ClientRow& row) override;
  void OnDump(apf::Nanos, int) override {}

  // The value of expectations[i] over its window (0 when no row fell in it).
  double value(std::size_t i) const { return values_[i]; }

 private:
  void Fold(std::size_t i, double v);

  const std::vector<Expectation>& expectations_;
  std::vector<double> values_;
};

struct ExpectationResult {
  Expectation expectation;
  std::optional<double> measured;  // nullopt: summary.json has null there (maxSeats of an
                                   // exempt level); over seeds, the mean of the seeds' values
                                   // (nullopt when any seed measured null)
  bool passed = false;
  // Over seeds (CombineSeedVerdicts): every seed in order with its own measured value, and
  // the seeds in which the assertion on its own failed. Empty for one run.
  std::vector<std::uint64_t> seeds;
  std::vector<std::optional<double>> seed_measured;
  std::vector<std::uint64_t> failed_seeds;
};

// The verdict of each expectation, from the run's summary and, for windowed ones, the
// windows (which may be null when no expectation is windowed). A level the summary does
// not have is bad input: an InputError at the expectation.
std::vector<ExpectationResult> EvaluateExpectations(const std::vector<Expectation>& expectations,
                                                    const nlohmann::json& summary,
                                                    const ExpectationWindows* windows);

// One verdict per assertion from the verdicts of several seeds' runs of a scenario
// (`apfsim check --seeds`): per_seed[i] is EvaluateExpectations' answer for seeds[i]. An
// assertion holds when it holds in every seed, or as its `seeds:` says: its mean over the
// seeds satisfies it (a seed that measured null makes the mean null, which fails), or it
// holds in at least that share of the seeds.
std::vector<ExpectationResult> CombineSeedVerdicts(
    const std::vector<std::vector<ExpectationResult>>& per_seed,
    const std::vector<std::uint64_t>& seeds);

// What the seeds say, for the terminal and JUnit: "mean over seeds 1..10, holds in 7 of 10
// (every seed needed), failed in seeds 2, 4, 9"; "" for one run.
std::string DescribeSeedVerdict(const ExpectationResult& r);

// The measured value as printed: "1234", "0.25", "null".
std::string FormatMeasured(const std::optional<double>& measured);
// The measured value as `e` is written: to as many decimals as its value has ("< 600":
// 576.3333 prints "576"), with more where that rounding would read as the other verdict
// (0.4 against "== 0" prints "0.4", not "0"); as FormatMeasured when written with an
// exponent.
std::string FormatMeasured(const std::optional<double>& measured, const Expectation& e);

}  // namespace sim

#endif  // SIM_REPORT_EXPECTATIONS_H_

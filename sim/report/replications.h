// The statistics of replications: one scenario run on several seeds (`apfsim run --seeds`,
// and through it `compare`, `sweep` and `check`), each figure summarised over the seeds by
// its mean, sample standard deviation, extremes and a 95% confidence interval for the mean
// from Student's t distribution. One seed is one sample of the clients' random traffic; a
// finding is what holds across them.
//
// replications.json is summary.json (sim/report/run_report.h) with every number replaced
// by {"mean", "stddev", "ci95": [lo, hi], "min", "max", "values": [...]}, the values in
// seed order, and `seed` replaced by `seeds`. Where the seeds' summaries differ in shape:
// - a key present in some seeds only counts as 0 in the others when its values are
//   numbers. Only count maps have keys that come and go with the seed (a client's
//   `errors` by message, `replay.auditLog.reasons` and `recordedCodes`), and a count that
//   is not there is a count of 0;
// - null (a percentile of nothing, `maxSeats` of an exempt level) is left out of the
//   statistics and kept as null in `values`; a figure null in every seed stays null;
// - strings, booleans and null that are equal in every seed are kept as they are;
//   otherwise they become {"values": [...]} in seed order;
// - arrays of the same length in every seed (`replicas`, `marks`) are merged element by
//   element.
//
// Tested by tests/sim/report/replications_test.cc.
#ifndef SIM_REPORT_REPLICATIONS_H_
#define SIM_REPORT_REPLICATIONS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sim {

// The 0.975 quantile of Student's t distribution with `dof` degrees of freedom (at least
// 1): the factor of a two-sided 95% interval. Computed by bisection on the exact
// distribution function for integer degrees of freedom (Abramowitz and Stegun 26.7.3 and
// 26.7.4), so it needs no table and no special functions.
double StudentT975(int dof);

struct SampleStatistics {
  std::size_t n = 0;
  double mean = 0;
  double stddev = 0;                // sample standard deviation (n - 1); 0 for one value
  double ci95_lo = 0, ci95_hi = 0;  // mean -/+ t(0.975, n-1) s / sqrt(n); the mean for n = 1
  double min = 0, max = 0;
};

// The statistics of `values` (at least one).
SampleStatistics Summarize(const std::vector<double>& values);

// {"mean", "stddev", "ci95": [lo, hi], "min", "max", "values"}: the statistics of the
// numbers of `values` (null ones left out), rounded to six decimals as summary.json's
// seconds are; `values` is kept as given. Null when no value is a number.
nlohmann::json StatisticsJson(const std::vector<nlohmann::json>& values);

// replications.json from the seeds' summaries (summaries[i] is seeds[i]'s).
nlohmann::json ReplicationsJson(const std::vector<nlohmann::json>& summaries,
                                const std::vector<std::uint64_t>& seeds);

// "1..5,9" from {1,2,3,4,5,9}: runs of consecutive seeds as ranges, as --seeds takes them.
std::string FormatSeeds(const std::vector<std::uint64_t>& seeds);

// The terminal table of replications.json: RunReport::SummaryTable's rows and columns, each
// figure as its mean and, when the seeds disagree, "±" half its 95% interval.
std::string ReplicationsTable(const nlohmann::json& replications, bool colour);

// "1983±41" (or "1983" when the interval is a point): a statistics object as a table cell;
// `seconds` prints three decimals and an "s". Without `interval` only the mean. "-" for
// null.
std::string MeanAndInterval(const nlohmann::json& statistics, bool seconds, bool interval = true);

}  // namespace sim

#endif  // SIM_REPORT_REPLICATIONS_H_

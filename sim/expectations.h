// The assertions of a scenario's `spec.expect` and their verdicts, for `apfsim check`: a
// path into summary.json (priorityLevels.NAME.FIELD, clients.NAME.FIELD,
// gateway.FIELD), a comparison with a number, and optionally a time window of the run.
//
// Over the whole run the measured value is the summary.json field itself. Over a window
// it is computed from the report rows whose interval starts within the window, the same
// rows timeline.csv and clients.csv hold: counts are summed (over intervals and
// replicas), peaks and limits take the largest row, and a percentile is the largest of the
// per-interval percentiles (an upper bound of the window's own percentile, since the rows
// carry percentiles and not histograms). Fields the rows do not carry (maxima, mean
// limits, peak request seats) cannot be windowed; the loader refuses them.
#ifndef SIM_EXPECTATIONS_H_
#define SIM_EXPECTATIONS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario.h"
#include "sim/world.h"

namespace sim {

// Splits `path` into e->section, e->subject and e->field and checks that it names a
// number of summary.json (one the rows carry when `windowed`). Level and client names
// may contain dots: the field is matched at the end. Returns "" or what is wrong.
std::string ParseExpectationPath(const std::string& path, bool windowed, Expectation* e);

// "==", "!=", "<", "<=", ">", ">=".
std::optional<Expectation::Op> ParseExpectationOp(std::string_view text);
const char* ExpectationOpText(Expectation::Op op);
bool CompareExpectation(double measured, Expectation::Op op, double value);

// "clients.argocd.http429 == 0", with " in [1m, 2m)" for a window.
std::string DescribeExpectation(const Expectation& e);

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
                                   // exempt level)
  bool passed = false;
};

// The verdict of each expectation, from the run's summary and, for windowed ones, the
// windows (which may be null when no expectation is windowed). A level the summary does
// not have is bad input: an InputError at the expectation.
// Fails, as an InputError at the assertion, when one names a priority level that a run of
// `scenario` with `config` will not have (the levels of `config`, or with priority and
// fairness off the MaxInFlight pools readonly and mutating). Called before the simulation,
// so that a misspelt level costs no run and leaves no outputs.
void CheckExpectationLevels(const Scenario& scenario, const apf::FlowControlConfig& config);

std::vector<ExpectationResult> EvaluateExpectations(const std::vector<Expectation>& expectations,
                                                    const nlohmann::json& summary,
                                                    const ExpectationWindows* windows);

// The measured value as printed: "1234", "0.25", "null".
std::string FormatMeasured(const std::optional<double>& measured);

// One scenario's check, for the JUnit report.
struct ScenarioCheck {
  std::string name;  // metadata.name
  std::string file;  // the scenario file as given
  double wall_seconds = 0;
  std::vector<ExpectationResult> results;
};

// JUnit XML: <testsuites> with a <testsuite> per scenario and a <testcase> per assertion,
// failed ones with a <failure> saying what was measured. Text is XML-escaped.
std::string JunitXml(const std::vector<ScenarioCheck>& checks);

// Escapes text for XML content and attribute values; characters XML 1.0 cannot carry
// (control characters other than tab, newline, carriage return) become U+FFFD.
std::string XmlEscape(std::string_view text);

}  // namespace sim

#endif  // SIM_EXPECTATIONS_H_

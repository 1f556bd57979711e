// The paths of a scenario's `spec.expect` assertions: which summary.json number each names
// (priorityLevels.NAME.FIELD, clients.NAME.FIELD, gateway.FIELD), the comparison, and how a
// field folds over the report rows of a window. The loader parses assertions with these
// before any run; their verdicts are sim/report/expectations.h's.
// Tested by tests/sim/report/expectations_test.cc.
#ifndef SIM_SCENARIO_EXPECTATION_PATHS_H_
#define SIM_SCENARIO_EXPECTATION_PATHS_H_

#include <optional>
#include <string>
#include <string_view>

#include "apf/config/flow_control_config.h"
#include "sim/scenario/scenario.h"

namespace sim {

// How a field folds over the rows of a window: summed (counts, over intervals and
// replicas), the largest row (peaks, limits, per-interval percentiles), or not at all
// (kNone: the rows do not carry it, so it cannot be windowed).
enum class ExpectationFold { kNone, kSum, kMax };

// Splits `path` into e->section, e->subject and e->field and checks that it names a
// number of summary.json (one the rows carry when `windowed`). Level and client names
// may contain dots: the field is matched at the end. Returns "" or what is wrong.
std::string ParseExpectationPath(const std::string& path, bool windowed, Expectation* e);

// Whether `field` is one of summary.json's numbers below a priority level (`section`
// "priorityLevels") or a client ("clients"), as ParseExpectationPath knows them, and those
// names for a message ("nominalCL, meanCurrentCL, ..."). With `windowed`, only the fields
// the report rows carry (those a window can fold).
bool IsSummaryField(const std::string& section, std::string_view field, bool windowed = false);
std::string SummaryFieldNames(const std::string& section, bool windowed = false);

// How the field of a parsed expectation folds over a window's rows.
ExpectationFold FoldOf(const Expectation& e);

// "==", "!=", "<", "<=", ">", ">=".
std::optional<Expectation::Op> ParseExpectationOp(std::string_view text);
const char* ExpectationOpText(Expectation::Op op);
bool CompareExpectation(double measured, Expectation::Op op, double value);

// "clients.argocd.http429 == 0", with " in [1m, 2m)" for a window.
std::string DescribeExpectation(const Expectation& e);

// Fails, as an InputError at the assertion, when one names a priority level that a run of
// `scenario` with `config` will not have (the levels of `config`, or with priority and
// fairness off the MaxInFlight pools readonly and mutating). Called before the simulation,
// so that a misspelt level costs no run and leaves no outputs.
void CheckExpectationLevels(const Scenario& scenario, const apf::FlowControlConfig& config,
                            const std::vector<apf::FlowControlConfig>& event_configs = {});

}  // namespace sim

#endif  // SIM_SCENARIO_EXPECTATION_PATHS_H_

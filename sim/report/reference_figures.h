// A run beside the figures its incident's write-up states (a scenario's spec.reference):
// for each figure, the run's own value of it and whether the run differs, and for those
// that differ one line that says so with the reason the scenario gives. `apfsim run` puts
// these in summary.json ("reference") and its table, `run --seeds` in replications.json,
// and `compare` in compare.json and its table for each side.
//
// A run differs from a figure when its value is further from the stated one than the
// figure's tolerance, a percentage of the stated value: |measured - value| >
// tolerancePercent / 100 * |value| (10% by default, 25% for an `approx` figure; a stated 0
// is met by 0 only). Over seeds the measured value is the mean of the seeds'; the line
// gives their range too. A figure the run has no value for (a level the configuration
// lacks, a percentile of nothing) differs.
//
// Tested by tests/sim/report/reference_figures_test.cc.
#ifndef SIM_REPORT_REFERENCE_FIGURES_H_
#define SIM_REPORT_REFERENCE_FIGURES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/report/expectations.h"
#include "sim/scenario/scenario.h"

namespace sim {

// The windowed figures as spec.expect assertions for ExpectationWindows to fold, in figure
// order (a level's "rejected" as its three reasons). The run appends them to the
// scenario's own expectations, so that one ExpectationWindows folds both, and hands
// ReferenceJson the windows with the index of the first.
std::vector<Expectation> ReferenceProbes(const ScenarioReference& reference);

// summary.json's "reference": {"source", "figures": [{"level" or "client", "metric",
// "value", "approx", "tolerancePercent", "reason", "window" (seconds, when windowed),
// "measured", "differs", "line"}]}; "line" only where the run differs. Each figure is the
// run's from `summary` (its whole run, not a --window), or for a windowed one from
// `windows` (ReferenceProbes' values from `first_probe` on; no value without windows).
// Null when the scenario states no figure.
nlohmann::json ReferenceJson(const ScenarioReference& reference, const nlohmann::json& summary,
                             const ExpectationWindows* windows = nullptr,
                             std::size_t first_probe = 0);

// The same over seeds, from the seeds' summaries' "reference" (ReferenceJson's): each
// figure's "measured" is the mean of the seeds' and "seeds" holds {"n", "min", "max"} of
// those that had one. Null when the summaries have no "reference".
nlohmann::json ReferenceOverSeeds(const std::vector<const nlohmann::json*>& summaries);

// The lines of the figures the run differs from, in the order the scenario gives them:
// "seeds/000 reports ~1,400 rejected in workload-low; this run 449, outside ±25%: other
// service accounts keep workload-low above its floor". Empty for null.
std::vector<std::string> ReferenceDifferences(const nlohmann::json& reference);

}  // namespace sim

#endif  // SIM_REPORT_REFERENCE_FIGURES_H_

// `apfsim compare`: the same traffic under two configurations. The "before" run is the
// scenario as given; the "after" run is another scenario (`--with`, normally the same
// traffic with a fix), or the scenario with an overlay (sim/scenario/overlay.h) and/or extra
// `--set` values. Both runs use the before run's seed, and client random streams are keyed by
// client name (sim/world/world.cc), so the clients send the same requests at the same instants
// in both, and every difference comes from the configuration.
#ifndef SIM_WORKFLOWS_COMPARE_H_
#define SIM_WORKFLOWS_COMPARE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/openmetrics.h"
#include "sim/scenario/run_budget.h"

namespace sim {

struct CompareRequest {
  std::string scenario_file;
  std::string with_file;                      // --with: the after scenario ("" = the same)
  std::vector<std::string> overlay_files;     // --overlay: applied to the after run
  std::vector<std::string> overrides;         // --set: both runs
  std::vector<std::string> before_overrides;  // --before-set: the before run only
  std::vector<std::string> after_overrides;   // --after-set: the after run only
  std::optional<std::uint64_t> seed;          // default: the before scenario's
  std::optional<std::string> interval;        // --interval: both runs' report interval
  std::string out_dir;  // "": the runs go to a temporary folder, removed at the end
  RunBudget budget;     // for each of the two runs
  // --openmetrics: each run writes its metrics.om, its series labelled side="before" or
  // side="after" so that both can be backfilled into one Prometheus.
  std::optional<OpenMetricsOptions> openmetrics;
};

struct CompareOutcome {
  nlohmann::json comparison;  // compare.json's content
  std::string out_dir;        // "" when not kept
};

// Runs both and compares them; with an out_dir, writes DIR/before, DIR/after and
// DIR/compare.json. Throws InputError on bad input.
CompareOutcome RunCompare(const CompareRequest& request);

// compare.json from two summaries: for each priority level and client of either run, its
// figures before and after and the change (after - before; null when one side lacks it).
nlohmann::json CompareSummaries(const nlohmann::json& before, const nlohmann::json& after);

// The comparison as a terminal table; `colour` marks changes for the better green and for
// the worse red (fewer rejections, failures and 429s and shorter waits are better).
std::string CompareTable(const nlohmann::json& comparison, bool colour);

}  // namespace sim

#endif  // SIM_WORKFLOWS_COMPARE_H_

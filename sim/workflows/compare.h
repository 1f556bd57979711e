// `apfsim compare`: the same traffic under two configurations. The "before" run is the
// scenario as given; the "after" run is another scenario (`--with`, normally the same
// traffic with a fix), or the scenario with an overlay (sim/scenario/overlay.h) and/or extra
// `--set` values. Both runs use the before run's seed, and client random streams are keyed by
// client name (sim/world/world.cc), so the clients send the same requests at the same instants
// in both, and every difference comes from the configuration.
//
// With --seeds both run on each seed (sim/workflows/replicate.h) and each figure's change is
// paired by seed: the statistics of the per-seed differences after - before
// (sim/report/replications.h) and, for a figure with a better direction, in how many seeds
// it got better (`betterIn`) and worse (`worseIn`). Lower is better for rejections,
// failures, 429s, attempts, waits and latencies; higher for dispatched and succeeded;
// limits, peaks and calls have no direction (no betterIn or worseIn).
//
// Each side also has its verdict (sim/report/verdict.h: the levels that rejected, the worst
// wait) and, where its scenario has spec.reference, the run beside those figures
// (sim/report/reference_figures.h); compare.json's "verdictLine" is the line the table,
// the page and compare.png open with.
#ifndef SIM_WORKFLOWS_COMPARE_H_
#define SIM_WORKFLOWS_COMPARE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/interval_figures.h"
#include "sim/report/openmetrics.h"
#include "sim/report/recovery.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"

namespace sim {

struct CompareRequest {
  std::string scenario_file;
  std::string with_file;                      // --with: the after scenario ("" = the same)
  std::vector<std::string> overlay_files;     // --overlay: applied to the after run
  std::vector<std::string> overrides;         // --set: both runs
  std::vector<std::string> before_overrides;  // --before-set: the before run only
  std::vector<std::string> after_overrides;   // --after-set: the after run only
  std::optional<std::uint64_t> seed;          // default: the before scenario's
  std::vector<std::uint64_t> seeds;           // --seeds: both runs on each of these
  int jobs = 0;                               // --jobs: runs at once (0: one per core)
  std::optional<std::string> interval;        // --interval: both runs' report interval
  std::optional<ReportWindow> window;         // --window: compare both runs over it
  // --recovered-when: the bounds of both runs' recovery (sim/report/recovery.h).
  std::optional<RecoveryBounds> recovered_when;
  std::optional<int> recovered_from;  // --recovered-from N: both runs' recovery from event N
  std::string out_dir;                // "": the runs go to a temporary folder, removed at the end
  RunBudget budget;                   // for each of the two runs
  // --openmetrics: each run writes its metrics.om, its series labelled side="before" or
  // side="after" so that both can be backfilled into one Prometheus.
  std::optional<OpenMetricsOptions> openmetrics;
  ProgressMode progress = ProgressMode::kNever;  // --progress: both runs on one line
};

struct CompareOutcome {
  nlohmann::json comparison;  // compare.json's content
  std::string out_dir;        // "" when not kept
};

// Runs both and compares them; with an out_dir, writes DIR/before, DIR/after (with --seeds
// each as `apfsim run --seeds` writes, DIR/before/seed-N/ and replications.json) and
// DIR/compare.json. The comparison also holds "clientMoves": what the change does to each
// client's requests at t=0 (sim/report/client_moves.h), from the two resolved runs, the
// same whatever the seeds. Throws InputError on bad input.
CompareOutcome RunCompare(const CompareRequest& request);

// compare.json from two summaries: for each priority level and client of either run, its
// figures before and after and the change (after - before; null when one side lacks it).
nlohmann::json CompareSummaries(const nlohmann::json& before, const nlohmann::json& after);

// compare.json over seeds: befores[i] and afters[i] are the summaries of seeds[i]. Each
// figure is {before, after, change} as statistics objects, `change` those of the per-seed
// differences, with betterIn and worseIn where the figure has a better direction.
nlohmann::json CompareReplications(const std::vector<nlohmann::json>& befores,
                                   const std::vector<nlohmann::json>& afters,
                                   const std::vector<std::uint64_t>& seeds);

// The comparison as a terminal table (of either form), after the verdict line, the lines of
// each side's reference figures it differs from and the client moves where the
// comparison has them (FormatClientMoves); over seeds each figure is its mean
// before and after and its change as the mean ± half its 95% interval, or "no clear
// change" when that interval spans zero; `colour` marks changes for the better green and for
// the worse red (fewer rejections, failures and 429s and shorter waits are better).
std::string CompareTable(const nlohmann::json& comparison, bool colour);

}  // namespace sim

#endif  // SIM_WORKFLOWS_COMPARE_H_

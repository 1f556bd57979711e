// One run of a scenario from file to outputs, shared by `apfsim run`, `compare`, `sweep`
// and `check`: load and override the scenario, build its flow-control configuration, run
// the world, and write the report.
#ifndef SIM_WORKFLOWS_RUN_H_
#define SIM_WORKFLOWS_RUN_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/expectations.h"
#include "sim/scenario/run_budget.h"

namespace sim {

struct RunRequest {
  std::string scenario_file;
  std::vector<std::string> overrides;  // --set PATH=VALUE
  std::optional<std::uint64_t> seed;
  std::optional<std::string> interval;
  std::string out_dir;  // "" : out/<scenario name>
  std::string trace;
  bool quiet = false;
  bool progress = false;  // show progress on stderr
  // Overlay files (sim/scenario/overlay.h) applied on top of the scenario, in order: their `set`
  // values after `overrides`, their flow-control manifests after the scenario's own.
  std::vector<std::string> overlay_files;
  // False writes only summary.json and metrics.prom, not timeline.csv and clients.csv
  // (a sweep's many runs need only their summaries).
  bool write_timelines = true;
  // --max-events and --max-wall-time. A run that reaches either throws InputError naming
  // the client that issued the most calls; a SIGINT or SIGTERM (sim/workflows/interrupt.h) throws
  // RunInterrupted. Either way no output file of the run is left behind.
  RunBudget budget;
};

struct RunOutcome {
  std::string out_dir;
  nlohmann::json summary;
  std::string table;  // the summary as a terminal table
  std::string scenario_name;
  // The verdicts of the scenario's spec.expect, in order (empty when it has none).
  std::vector<ExpectationResult> expectations;
};

RunOutcome RunScenario(const RunRequest& request);

}  // namespace sim

#endif  // SIM_WORKFLOWS_RUN_H_

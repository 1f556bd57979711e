// One run of a scenario from file to outputs, shared by `apfsim run`, `compare`, `sweep`
// and `check`: resolve its inputs (sim/workflows/run_inputs.h: the scenario with its
// overrides, its flow-control configuration), run the world, and write the report.
#ifndef SIM_WORKFLOWS_RUN_H_
#define SIM_WORKFLOWS_RUN_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/expectations.h"
#include "sim/report/interval_figures.h"
#include "sim/report/openmetrics.h"
#include "sim/report/recovery.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"
#include "sim/workflows/run_inputs.h"
#include "sim/workflows/trace_size.h"
#include "sim/world/trace_filter.h"

namespace sim {

// The run's inputs (sim/workflows/run_inputs.h) and where and how it writes its outputs.
struct RunRequest : RunInputs {
  std::string out_dir;  // "" : out/<scenario name>
  // --trace NAME: trace.jsonl for this client or priority level ("": none), narrowed
  // (sim/world/trace_filter.h) to the calls arriving in --trace-window (FROM..TO or an event
  // window, as --window), a --trace-sample of the calls (a fraction in (0, 1]) and the flows
  // of --trace-flow. A trace estimated (sim/workflows/trace_size.h) above --trace-max-bytes
  // (0: no limit) is refused before the run starts.
  std::string trace;
  std::optional<ReportWindow> trace_window;
  double trace_sample = 1;
  std::vector<std::string> trace_flows;
  std::uint64_t trace_max_bytes = kDefaultTraceMaxBytes;
  // --openmetrics: also write metrics.om (sim/report/openmetrics.h).
  std::optional<OpenMetricsOptions> openmetrics;
  // --window FROM..TO (sim/report/interval_figures.h): the summary's "window" and the
  // table over that part of the run; nullopt for the whole run only.
  std::optional<ReportWindow> window;
  // --recovered-when (sim/report/recovery.h): the bounds of every level's recovery; nullopt:
  // each level's from spec.expect, or no rejection.
  std::optional<RecoveryBounds> recovered_when;
  // --recovered-from N: recovery is measured from spec.events[N]; nullopt: the first.
  std::optional<int> recovered_from;
  // The instant to measure recovery from in a scenario without spec.events (compare's run
  // without the event, measured from the other run's); nullopt: none.
  std::optional<apf::Nanos> recovery_at;
  bool quiet = false;
  // --progress: the meter this run advances (none: no progress), in `progress_slot`, or in
  // a slot the run plans itself when the command did not plan it ahead.
  ProgressMeter* progress = nullptr;
  std::optional<std::size_t> progress_slot;
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

// What the request's --trace-window, --trace-sample and --trace-flow keep of a run of
// `scenario` (its spec.events and seed after --set and overlays). Throws InputError naming
// --trace-window when the window is not within the run.
TraceFilter TraceFilterOf(const RunRequest& request, const Scenario& scenario);

// With --trace: estimates trace.jsonl's size for the run of `resolved`, refuses it above
// --trace-max-bytes (InputError) and returns the line that tells the estimate (`note`
// appended: "for each of the 20 seeds"); "" without --trace or a name the world will refuse.
std::string CheckTraceSize(const ResolvedRun& resolved, const RunRequest& request,
                           const std::string& note = "");

// Resolves the request's inputs (ResolveRunInputs) and runs them.
RunOutcome RunScenario(const RunRequest& request);
// Runs inputs already resolved from `request` (its RunInputs are not read again), for a
// command that resolves them first to fail before anything runs.
RunOutcome RunScenario(const ResolvedRun& resolved, const RunRequest& request);

}  // namespace sim

#endif  // SIM_WORKFLOWS_RUN_H_

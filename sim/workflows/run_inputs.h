// A run's inputs, resolved the one way every command that runs a scenario resolves them
// (`apfsim run`, `check`, `compare`, `sweep`): the overlays' `set` values after the
// command line's --set values, the scenario loaded with them, --seed and --interval put
// over the scenario's own, the flow-control configuration built with the overlays'
// manifests after the scenario's, and spec.expect's priority levels checked against it.
// Commands resolve first so that bad input fails with exit code 2 before anything runs.
//
// Tested by tests/sim/workflows/run_inputs_test.cc.
#ifndef SIM_WORKFLOWS_RUN_INPUTS_H_
#define SIM_WORKFLOWS_RUN_INPUTS_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/flowcontrol/loader.h"
#include "sim/scenario/scenario.h"

namespace sim {

struct RunInputs {
  std::string scenario_file;
  std::vector<std::string> overrides;  // --set PATH=VALUE
  // Overlay files (sim/scenario/overlay.h) applied on top of the scenario, in order: their
  // `set` values after `overrides`, their flow-control manifests after the scenario's own.
  std::vector<std::string> overlay_files;
  std::optional<std::uint64_t> seed;    // --seed: replaces the scenario's
  std::optional<std::string> interval;  // --interval: the report interval, at least 1ms
  // {staging, final}: a file under the folder `staging` is named in the provenance as the
  // same file under `final`, where it will be once the output set is swapped in, or, when
  // `final` is "", by its path inside the folder (tune's candidates, whose overlays are
  // written into the search's staging folder: "candidates/0001/overlay.yaml"), so that the
  // outputs depend neither on the staging folder's process id nor on where the folder is.
  // Empty: names as given.
  std::pair<std::string, std::string> provenance_folder;
};

struct ResolvedRun {
  Scenario scenario;
  FlowControlSetup flow_control;
  // Every PATH=VALUE applied, in order: the --set values, then the overlays' (provenance).
  std::vector<std::string> sets;
  // Inputs that are valid but can do nothing in this run ("FILE:LINE:COLUMN: FIELD:
  // warning: ..."): traffic that starts at or after the run's end, a FlowSchema whose
  // priority level does not exist. `apfsim run` prints them before running.
  std::vector<std::string> warnings;
};

// Throws InputError on bad input (the field of an --interval error is "--interval").
ResolvedRun ResolveRunInputs(const RunInputs& inputs);

// Writes `run.warnings` to standard error, one a line, skipping those already in `shown`
// (and adding the rest): what `apfsim run` prints before it starts, for the commands that
// resolve several runs quietly (check, compare, sweep, tune), so that an edit the config
// producer puts back is named once per command, not once per seed or grid point, and
// never silently.
void PrintRunWarnings(const ResolvedRun& run, std::set<std::string>* shown);

}  // namespace sim

#endif  // SIM_WORKFLOWS_RUN_INPUTS_H_

#include "sim/workflows/run_inputs.h"

#include <utility>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/scenario/expectation_paths.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/overlay.h"

namespace sim {

ResolvedRun ResolveRunInputs(const RunInputs& inputs) {
  std::vector<std::string> overrides = inputs.overrides;
  FlowControlManifests overlay_manifests;
  for (const std::string& file : inputs.overlay_files) {
    Overlay overlay = LoadOverlay(file);
    overrides.insert(overrides.end(), overlay.sets.begin(), overlay.sets.end());
    overlay_manifests.Append(std::move(overlay.manifests));
  }
  ResolvedRun run;
  run.scenario = LoadScenario(inputs.scenario_file, overrides);
  run.sets = overrides;
  if (inputs.seed) run.scenario.seed = *inputs.seed;
  if (inputs.interval) {
    std::string why;
    auto interval = ParseDuration(*inputs.interval, &why);
    if (!interval || *interval < apf::kMillisecond) {
      throw InputError({"--interval", 0, 0}, "", interval ? "must be at least 1ms" : why);
    }
    run.scenario.interval = *interval;
  }
  run.flow_control = BuildScenarioFlowControl(run.scenario, &overlay_manifests);
  CheckExpectationLevels(run.scenario, run.flow_control.config);
  return run;
}

}  // namespace sim

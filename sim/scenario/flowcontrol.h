// The flow-control configuration a scenario's apiservers run with: the Kubernetes
// version's default objects (unless turned off), the scenario's files and inline
// manifests applied on top in order, then its `--set flowControl...` overrides, all
// validated, then digested as the apiserver digests them (sim/flowcontrol/loader.h).
#ifndef SIM_SCENARIO_FLOWCONTROL_H_
#define SIM_SCENARIO_FLOWCONTROL_H_

#include <string>
#include <vector>

#include "sim/flowcontrol/loader.h"
#include "sim/scenario/scenario.h"

namespace sim {

// The manifests a scenario names: its files, then its inline objects.
FlowControlManifests ScenarioManifests(const Scenario& scenario);

// Applies `overrides` (priorityLevels/flowSchemas NAME FIELD VALUE) to `manifests`,
// copying an object from the version's defaults first when the scenario did not give it.
void ApplyObjectOverrides(const std::vector<Scenario::ObjectOverride>& overrides,
                          apf::KubernetesVersion version, FlowControlManifests* manifests);

// Everything above, validated and digested. `extra` (an overlay's manifests, may be null)
// is applied after the scenario's own manifests and before the overrides.
FlowControlSetup BuildScenarioFlowControl(const Scenario& scenario,
                                          const FlowControlManifests* extra = nullptr);

// Fills setup->event_configs: from the objects the cluster holds at the start, each
// `apply` (create, or replace by kind and name) and `delete` of spec.events in order, the
// config producer run after each (a deleted mandatory or suggested object comes back, with
// a warning in reset_warnings), digested. Deleting an object the cluster does not hold at
// that instant is an InputError at the delete's item.
void BuildEventConfigs(const Scenario& scenario, FlowControlSetup* setup);

}  // namespace sim

#endif  // SIM_SCENARIO_FLOWCONTROL_H_

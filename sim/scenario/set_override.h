// The command line's `--set PATH=VALUE` overrides (scenarios/README.md#overrides): each
// one edits the scenario's YAML tree below `spec` before it is read, so that the value is
// validated as if the file held it; a path into flowControl.priorityLevels or
// flowControl.flowSchemas names an object by name and is kept for the flow-control
// loader, which applies it to the object wherever it was defined.
// Tested by tests/sim/scenario/set_paths_test.cc.
#ifndef SIM_SCENARIO_SET_OVERRIDE_H_
#define SIM_SCENARIO_SET_OVERRIDE_H_

#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/scenario/scenario.h"

namespace sim {

// Applies one override "PATH=VALUE" to `spec` (the scenario's spec mapping), or records it
// in scenario->flow_control_overrides. Throws InputError naming "--set" and the override.
void ApplySetOverride(YAML::Node spec, const std::string& text, Scenario* scenario);

}  // namespace sim

#endif  // SIM_SCENARIO_SET_OVERRIDE_H_

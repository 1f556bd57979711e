// spec.resources and spec.resourcesFromMetrics: the objects the store holds, by resource
// and namespace (scenarios/README.md#resources).
// Tested through the loader: tests/sim/scenario/fuzz_findings_test.cc, the bad-input
// catalogue (tests/bad-inputs/catalogue.yaml) and tests/fuzz/scenario_loader.cc.
#ifndef SIM_SCENARIO_RESOURCE_READER_H_
#define SIM_SCENARIO_RESOURCE_READER_H_

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One item of spec.resources.
ResourceSpec ReadResource(const YamlValue& v);

// spec.resourcesFromMetrics: the object counts of a /metrics scrape, under the explicit
// spec.resources entries (which win).
void ReadResourcesFromMetrics(const YamlValue& v, Scenario* s);

}  // namespace sim

#endif  // SIM_SCENARIO_RESOURCE_READER_H_

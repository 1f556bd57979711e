// spec.apiservers: the replicas, their flow-control settings, feature gates, load
// balancing and the service-time rules (scenarios/README.md#apiservers).
// Tested through the loader: tests/sim/scenario/fuzz_findings_test.cc, the bad-input
// catalogue (tests/bad-inputs/catalogue.yaml) and tests/fuzz/scenario_loader.cc.
#ifndef SIM_SCENARIO_APISERVER_READER_H_
#define SIM_SCENARIO_APISERVER_READER_H_

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

void ReadApiservers(const YamlValue& v, ApiserverSpec* a);

}  // namespace sim

#endif  // SIM_SCENARIO_APISERVER_READER_H_

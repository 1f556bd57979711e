// spec.expect: the assertions `apfsim check` verifies (sim/report/expectations.h).
// Tested by tests/sim/report/expectations_test.cc and the bad-input catalogue.
#ifndef SIM_SCENARIO_EXPECTATION_READER_H_
#define SIM_SCENARIO_EXPECTATION_READER_H_

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One item: {path: P, OP: NUMBER, window: {from, to}, description: TEXT}, with exactly one
// of the comparison keys ==, !=, <, <=, >, >=.
// `s` gives the sections read before (clients, gateway, duration).
Expectation ReadExpectation(const YamlValue& v, const Scenario& s);

}  // namespace sim

#endif  // SIM_SCENARIO_EXPECTATION_READER_H_

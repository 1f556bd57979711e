// spec.events: timed changes to a running scenario (scenarios/README.md#events).
// Tested through the loader: tests/sim/scenario/event_reader_test.cc and the bad-input
// catalogue (tests/bad-inputs/catalogue.yaml).
#ifndef SIM_SCENARIO_EVENT_READER_H_
#define SIM_SCENARIO_EVENT_READER_H_

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// spec.events, read after spec.duration, spec.apiservers and spec.resources (the checks
// name them). Every entry is validated in full; an action the world does not model yet is
// then refused at its line, so that no event is ever accepted and silently not done.
void ReadEvents(const YamlValue& v, Scenario* s);

}  // namespace sim

#endif  // SIM_SCENARIO_EVENT_READER_H_

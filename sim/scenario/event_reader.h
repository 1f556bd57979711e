// spec.events: timed changes to a running scenario (scenarios/README.md#events).
// Tested through the loader: tests/sim/scenario/event_reader_test.cc and the bad-input
// catalogue (tests/bad-inputs/catalogue.yaml).
#ifndef SIM_SCENARIO_EVENT_READER_H_
#define SIM_SCENARIO_EVENT_READER_H_

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// spec.events, read after spec.duration, spec.apiservers, spec.resources and
// spec.restartDelay (the checks name them). Every entry is validated in full, and the
// replica events together: a stop of a replica that is down then, a start of one that is
// up and a stop of the last one up are refused at their action's line.
void ReadEvents(const YamlValue& v, Scenario* s);

}  // namespace sim

#endif  // SIM_SCENARIO_EVENT_READER_H_

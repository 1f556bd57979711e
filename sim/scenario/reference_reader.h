// spec.reference: the figures an incident's own write-up states, which a run is set beside
// (sim/report/reference_figures.h). The loader reads it with this, refusing an unknown key
// or metric at its file, line and column as every other section does.
// Tested by tests/sim/scenario/reference_reader_test.cc and the bad-input catalogue.
#ifndef SIM_SCENARIO_REFERENCE_READER_H_
#define SIM_SCENARIO_REFERENCE_READER_H_

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// {source: TEXT, figures: [{level | client: NAME, metric: FIELD, value: NUMBER,
// approx: BOOL, tolerancePercent: NUMBER, reason: TEXT}, ...]}. `s` gives the clients read
// before, so that a figure naming a client the scenario lacks fails at its line; a level is
// known only once the flow-control objects are built, so a level the run lacks is said in
// the figure's line instead (ReferenceJson).
ScenarioReference ReadReference(const YamlValue& v, const Scenario& s);

}  // namespace sim

#endif  // SIM_SCENARIO_REFERENCE_READER_H_

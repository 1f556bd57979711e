// spec.clients and spec.auditLog: the clients of a scenario, each with its identity, its
// client-go settings and its traffic patterns (scenarios/README.md#clients).
// Tested through the loader: tests/sim/scenario/fuzz_findings_test.cc, the bad-input
// catalogue (tests/bad-inputs/catalogue.yaml) and tests/fuzz/scenario_loader.cc.
#ifndef SIM_SCENARIO_CLIENT_READER_H_
#define SIM_SCENARIO_CLIENT_READER_H_

#include <set>
#include <string>

#include "sim/io/yaml_input.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One item of spec.clients. `scenario` gives the sections read before (resources, file).
ClientSpec ReadClient(const YamlValue& v, const Scenario& scenario);

// spec.auditLog: scans the log once and makes a client of each identity it replays, named
// by its user (with "~2", "~3" when one user comes with several sets of groups or the name
// is taken).
// `names` holds the names taken so far and receives the new ones.
void ReadAuditLog(const YamlValue& v, Scenario* s, std::set<std::string>* names);

}  // namespace sim

#endif  // SIM_SCENARIO_CLIENT_READER_H_

// Every call a scenario's clients can make, as the apiserver sees it: who makes it and the
// apf::RequestInfo it arrives as, one entry per process whose user is its own
// ("{process}" in the user) and, for a request that draws its namespace ("{each}",
// "{random}"), per namespace of its resource, since a flow distinguished by namespace is
// one flow per namespace. Requests replayed from a file (trace, audit log) are not here:
// the file, not the scenario, holds them.
//
// Used by `apfsim explain --collisions` (sim/cli/explain.cc) and by compare's per-client
// description (sim/report/client_moves.h). Tested by tests/sim/world/scenario_calls_test.cc.
#ifndef SIM_WORLD_SCENARIO_CALLS_H_
#define SIM_WORLD_SCENARIO_CALLS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "apf/classification/request_info.h"
#include "apf/classification/user_info.h"
#include "sim/scenario/scenario.h"

namespace sim {

struct ScenarioCall {
  std::size_t client = 0;  // index into Scenario::clients
  int process = 0;         // 0 unless each process is its own user
  // The client, or "client[N]" (N from 0, as in the run) where each process is its own user.
  std::string sender;
  const RequestTemplate* tmpl = nullptr;  // points into the scenario
  int resource = -1;                      // index into Scenario::resources, -1 when none matches
  apf::UserInfo user;
  apf::RequestInfo request;
};

// In the order of the clients, their traffic, its calls, then processes, then namespaces.
std::vector<ScenarioCall> ScenarioCalls(const Scenario& scenario);

}  // namespace sim

#endif  // SIM_WORLD_SCENARIO_CALLS_H_

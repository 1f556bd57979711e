#include "sim/world/scenario_calls.h"

#include "sim/world/compiled_request.h"
#include "sim/world/service_time.h"

namespace sim {

std::vector<ScenarioCall> ScenarioCalls(const Scenario& scenario) {
  const ServiceTimeModel service_time(scenario.apiservers.service_time);
  std::vector<ScenarioCall> calls;
  for (std::size_t c = 0; c < scenario.clients.size(); ++c) {
    const ClientSpec& client = scenario.clients[c];
    const bool per_process =
        client.processes > 1 && client.user.find(kProcessKey) != std::string::npos;
    for (const TrafficSpec& traffic : client.traffic) {
      for (const RequestTemplate& t : traffic.calls) {
        CompiledRequest compiled;
        CompileRequest(t, scenario, service_time, &compiled);
        const std::size_t namespaces =
            DrawsNamespace(compiled, scenario)
                ? scenario.resources[compiled.resource].namespace_names.size()
                : 1;
        for (int p = 0; p < (per_process ? client.processes : 1); ++p) {
          ScenarioCall call;
          call.client = c;
          call.process = p;
          call.sender = per_process ? client.name + "[" + std::to_string(p) + "]" : client.name;
          call.tmpl = &t;
          call.resource = compiled.resource;
          call.user.name = Substitute(client.user, p);
          call.user.groups = client.groups;
          for (std::size_t n = 0; n < namespaces; ++n) {
            call.request = compiled.info;
            WriteCallRequest(compiled, scenario, p, static_cast<std::uint32_t>(n), &call.request);
            calls.push_back(call);
          }
        }
      }
    }
  }
  return calls;
}

}  // namespace sim

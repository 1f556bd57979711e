// A request template of the scenario compiled once for the many calls that send it: the
// apf::RequestInfo as sent, client-go's call options, and what the apiserver asks of every
// call (the verb's kind, the resource, the service-time rule), so that nothing is parsed
// or looked up per call. Tested through the world's parts (tests/sim/world/apiserver_test.cc).
#ifndef SIM_WORLD_COMPILED_REQUEST_H_
#define SIM_WORLD_COMPILED_REQUEST_H_

#include <optional>
#include <string>
#include <string_view>

#include "apf/request_info.h"
#include "apf/virtual_time.h"
#include "sim/clients/client_call.h"
#include "sim/scenario/scenario.h"
#include "sim/world/service_time.h"

namespace sim {

// What a name or namespace holds to be written per process.
inline constexpr std::string_view kProcessKey = "{process}";

struct CompiledRequest {
  int id = -1;  // the world's index of the request; -1 for a replayed row's request
  const RequestTemplate* tmpl = nullptr;
  // The name or a fixed namespace holds "{process}": it is written for every call.
  bool name_per_process = false;
  bool namespace_per_process = false;
  int resource = -1;  // index into the scenario's resources, -1 when none matches
  apf::RequestInfo info;
  ClientCallOptions call_options;
  bool is_watch = false;
  bool is_list = false;  // the verb, read per request, compared once here
  bool is_create = false;
  bool long_running = false;
  std::optional<apf::Nanos> query_timeout;  // an explicit ?timeout= in the template
  // The service-time rule of every call of this request (the verb, resource and
  // subresource are the template's), by whether a LIST is served from the cache.
  int service_rule[2] = {-1, -1};
};

// Compiles `t` into `c` (whose id is left -1) against the scenario's resources and
// service-time rules.
void CompileRequest(const RequestTemplate& t, const Scenario& scenario,
                    const ServiceTimeModel& service_time, CompiledRequest* c);

}  // namespace sim

#endif  // SIM_WORLD_COMPILED_REQUEST_H_

// A request template of the scenario compiled once for the many calls that send it: the
// apf::RequestInfo as sent, client-go's call options, and what the apiserver asks of every
// call (the verb's kind, the resource, the service-time rule), so that nothing is parsed
// or looked up per call. Tested through the world's parts (tests/sim/world/apiserver_test.cc) and
// by tests/sim/world/compiled_request_test.cc.
#ifndef SIM_WORLD_COMPILED_REQUEST_H_
#define SIM_WORLD_COMPILED_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apf/base/virtual_time.h"
#include "apf/classification/request_info.h"
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
  // The ?timeout= is not a Go duration: WithRequestDeadline answers 400 (info.query.timeout
  // holds the value).
  bool query_timeout_malformed = false;
  // The service-time rule of every call of this request (the verb, resource and
  // subresource are the template's), by whether a LIST is served from the cache.
  int service_rule[2] = {-1, -1};
  // A replayed shape (sim/world/world.cc, ReplayShapeOf): each call's namespace and name
  // are its row's, written per call.
  bool names_per_call = false;
};

// `text` with every "{process}" replaced by the process number, written into `out` (whose
// capacity is reused: no allocation once a call slot has held the name).
void SubstituteInto(std::string_view text, int process, std::string* out);
std::string Substitute(const std::string& text, int process);

// Whether a call of `request` goes to one of its resource's namespaces, drawn per call
// (then its namespace is namespace_names[NamespaceIndexOf(...)]).
inline bool DrawsNamespace(const CompiledRequest& request, const Scenario& scenario) {
  return request.resource >= 0 &&
         request.tmpl->namespace_choice != RequestTemplate::NamespaceChoice::kFixed &&
         !scenario.resources[request.resource].namespace_names.empty();
}

// Which of the resource's namespaces a call of `request` goes to, for a traffic pattern's
// draw: the draw modulo their number (0 when the request does not draw one).
inline std::uint32_t NamespaceIndexOf(const CompiledRequest& request, const Scenario& scenario,
                                      std::uint64_t namespace_draw) {
  if (!DrawsNamespace(request, scenario)) return 0;
  const auto& names = scenario.resources[request.resource].namespace_names;
  return static_cast<std::uint32_t>(namespace_draw % names.size());
}

// Writes into `info`, which holds `request.info` already, only what differs between calls
// of one request: the namespace NamespaceIndexOf chose, and what "{process}" makes for
// process `process` (its index in its client).
inline void WriteCallRequest(const CompiledRequest& request, const Scenario& scenario, int process,
                             std::uint32_t namespace_index, apf::RequestInfo* info) {
  const RequestTemplate& t = *request.tmpl;
  if (request.resource >= 0 && t.namespace_choice != RequestTemplate::NamespaceChoice::kFixed) {
    const auto& names = scenario.resources[request.resource].namespace_names;
    if (!names.empty()) info->namespace_name = names[namespace_index];
  } else if (request.namespace_per_process) {
    SubstituteInto(t.namespace_, process, &info->namespace_name);
  }
  if (request.name_per_process) SubstituteInto(t.name, process, &info->name);
  info->query.timeout_seconds = request.info.query.timeout_seconds;
}

// Compiles `t` into `c` (whose id is left -1) against the scenario's resources and
// service-time rules. `c->info` is what requestinfo.go NewRequestInfo derives from the URL
// the template stands for: a LIST or WATCH without a name takes it from a `fieldSelector`
// of `metadata.name=X` (apf::CollectionRequestName), a get or delete without a name is a
// list, watch or deletecollection (apf::ResolveCollectionVerb). "{process}" is written in
// the name and namespace only, never in the query.
void CompileRequest(const RequestTemplate& t, const Scenario& scenario,
                    const ServiceTimeModel& service_time, CompiledRequest* c);

}  // namespace sim

#endif  // SIM_WORLD_COMPILED_REQUEST_H_

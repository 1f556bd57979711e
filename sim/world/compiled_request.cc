#include "sim/world/compiled_request.h"

#include <charconv>

#include "apf/classification/long_running.h"
#include "sim/io/duration.h"

namespace sim {
namespace {

HttpMethod MethodOf(const std::string& verb) {
  if (verb == "create" || verb == "post") return HttpMethod::kPost;
  if (verb == "update" || verb == "put") return HttpMethod::kPut;
  if (verb == "patch") return HttpMethod::kPatch;
  if (verb == "delete" || verb == "deletecollection") return HttpMethod::kDelete;
  return HttpMethod::kGet;
}

}  // namespace

void SubstituteInto(std::string_view text, int process, std::string* out) {
  char digits[16];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, process);
  (void)ec;
  const std::string_view number(digits, static_cast<size_t>(end - digits));
  out->clear();
  for (size_t at = text.find(kProcessKey); at != std::string_view::npos;
       at = text.find(kProcessKey)) {
    out->append(text.substr(0, at)).append(number);
    text.remove_prefix(at + kProcessKey.size());
  }
  out->append(text);
}

std::string Substitute(const std::string& text, int process) {
  std::string out;
  SubstituteInto(text, process, &out);
  return out;
}

void CompileRequest(const RequestTemplate& t, const Scenario& scenario,
                    const ServiceTimeModel& service_time, CompiledRequest* c) {
  *c = CompiledRequest{};
  c->tmpl = &t;
  c->name_per_process = t.name.find(kProcessKey) != std::string::npos;
  c->namespace_per_process = t.namespace_.find(kProcessKey) != std::string::npos;
  for (size_t i = 0; i < scenario.resources.size(); ++i) {
    if (scenario.resources[i].resource == t.resource &&
        scenario.resources[i].api_group == t.api_group) {
      c->resource = static_cast<int>(i);
    }
  }
  apf::RequestInfo& info = c->info;
  info.is_resource_request = t.path.empty();
  info.path = t.path;
  info.verb = t.verb;
  info.api_prefix = t.api_group.empty() ? "api" : "apis";
  info.api_group = t.api_group;
  info.api_version = t.api_version.empty() ? "v1" : t.api_version;
  info.namespace_name = t.namespace_;
  info.resource = t.resource;
  info.subresource = t.subresource;
  info.name = t.name;
  info.query = apf::ParseRequestQuery(t.query);
  if (info.is_resource_request) {
    // The template's list and watch are GETs of the collection (client-go's Watch sends
    // ?watch=true), and its get and delete without a name are too: all take the verb and
    // the name that requestinfo.go NewRequestInfo gives such a URL. A name the template
    // gives (the path's) wins, as the factory reads the selector only when there is none.
    if (info.verb == "list" && info.query.watch) info.verb = "watch";
    if (info.name.empty() && (info.verb == "list" || info.verb == "watch")) {
      info.name = apf::CollectionRequestName(info.query);
    }
    apf::ResolveCollectionVerb(&info);
  }
  c->is_watch = info.verb == "watch";
  c->is_list = info.verb == "list";
  c->is_create = info.verb == "create";
  c->long_running = apf::IsLongRunningRequest(info);
  c->call_options.kind = c->is_watch ? CallKind::kWatch : CallKind::kDo;
  c->call_options.method = MethodOf(t.verb);
  if (!info.query.timeout.empty()) {
    c->query_timeout = ParseDuration(info.query.timeout);
    c->query_timeout_malformed = !c->query_timeout.has_value();
  }
  c->service_rule[0] = service_time.RuleIndex(info, false);
  c->service_rule[1] = service_time.RuleIndex(info, true);
}

}  // namespace sim

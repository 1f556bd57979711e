#include "sim/scenario/loader.h"

#include <set>

#include "sim/io/duration.h"
#include "sim/io/yaml_input.h"
#include "sim/scenario/apiserver_reader.h"
#include "sim/scenario/client_reader.h"
#include "sim/scenario/event_reader.h"
#include "sim/scenario/expectation_reader.h"
#include "sim/scenario/reference_reader.h"
#include "sim/scenario/resource_reader.h"
#include "sim/scenario/set_override.h"
#include "sim/scenario/spec_values.h"

namespace sim {
namespace {

// The most `dumps` instants a scenario may ask for (see ReadScenarioDocuments).
constexpr std::size_t kMaxDumpInstants = 1000;

}  // namespace

Scenario LoadScenario(const std::string& path, const std::vector<std::string>& overrides) {
  return ReadScenarioDocuments(LoadYamlFile(path), InputSourceName(path), overrides);
}

Scenario ParseScenarioText(std::string_view text, const std::string& path,
                           const std::vector<std::string>& overrides) {
  return ReadScenarioDocuments(ParseYamlDocuments(text, path), path, overrides);
}

Scenario ReadScenarioDocuments(std::vector<YAML::Node> docs, const std::string& path,
                               const std::vector<std::string>& overrides) {
  if (docs.size() != 1) {
    throw InputError({path, docs.empty() ? 0 : 1, 0}, "",
                     docs.empty()
                         ? "the file is empty: expected one Scenario"
                         : "expected one Scenario document, found " + std::to_string(docs.size()));
  }
  Scenario s;
  s.file = path;
  YamlValue root(docs[0], path, "");
  if (!root.IsMap())
    root.Fail("expected a Scenario (a mapping with apiVersion, kind, metadata, spec)");
  if (docs[0]["spec"] && docs[0]["spec"].IsMap()) {
    for (const std::string& o : overrides) ApplySetOverride(docs[0]["spec"], o, &s);
  } else if (!overrides.empty()) {
    root.Fail("--set needs a `spec` mapping");
  }
  YamlMap top = root.Map();
  YamlValue api_version = top.Required("apiVersion");
  if (api_version.String() != "apfsim/v1alpha1") api_version.Fail("must be apfsim/v1alpha1");
  YamlValue kind = top.Required("kind");
  if (kind.String() != "Scenario") kind.Fail("must be Scenario");
  {
    YamlMap meta = top.Required("metadata").Map();
    YamlValue name = meta.Required("name");
    s.name = name.String();
    if (s.name.empty() || s.name.find_first_of("/\\ ") != std::string::npos || s.name == "." ||
        s.name == "..") {
      name.Fail("must be a plain name (it names the output folder)");
    }
    s.description = meta.StringOr("description", "");
    meta.Ignore({"labels", "annotations"});
    meta.Finish();
  }
  YamlMap spec = top.Required("spec").Map();
  top.Finish();

  YamlValue duration = spec.Required("duration");
  s.duration = duration.Duration();
  if (s.duration <= 0) duration.Fail("must be positive");
  if (auto seed = spec.Optional("seed")) s.seed = seed->Uint64();
  s.interval = spec.DurationOr("interval", apf::kSecond);
  if (s.interval < apf::kMillisecond) spec.Required("interval").Fail("must be at least 1ms");
  if (auto marks = spec.Optional("marks")) {
    for (const YamlValue& mv : marks->Items()) {
      YamlMap mm = mv.Map();
      Mark mark;
      mark.at = mm.Required("at").Duration();
      mark.where = mm.Required("at").where();
      // A mark after the end is only a warning (sim/workflows/run_inputs.cc): cutting a run
      // short with --set duration=2m must not make the scenario's later marks an error.
      if (mark.at < 0)
        mm.Required("at").Fail("must not be negative: a mark before the run marks nothing");
      mark.label = mm.StringOr("label", "");
      mm.Finish();
      s.marks.push_back(mark);
    }
  }
  if (auto dumps = spec.Optional("dumps")) {
    // Each instant's dumps (three files per replica, the requests one as long as the
    // queues) are held in memory until the run's outputs are written together.
    if (dumps->size() > kMaxDumpInstants) {
      dumps->Fail("at most " + std::to_string(kMaxDumpInstants) +
                  " instants (each one's dumps are held until the run ends), got " +
                  std::to_string(dumps->size()));
    }
    for (const YamlValue& dv : dumps->Items()) {
      const apf::Nanos at = dv.Duration();
      if (at < 0 || at >= s.duration) dv.Fail("must be within the run's duration");
      s.dumps.push_back(at);
    }
  }
  if (auto api = spec.Optional("apiservers")) ReadApiservers(*api, &s.apiservers);
  if (auto gw = spec.Optional("gateway")) {
    YamlMap g = gw->Map();
    GatewaySpec& gs = s.gateway;
    gs.enabled = true;
    gs.session_request_rate = g.NumberOr("sessionRequestRate", gs.session_request_rate);
    if (!(gs.session_request_rate > 0)) g.Required("sessionRequestRate").Fail("must be positive");
    if (g.Has("sessionRequestRate")) {
      CheckRateNotTiny(g.Required("sessionRequestRate"), gs.session_request_rate);
    }
    auto positive = [&](const char* key, int* out) {
      if (auto v = g.Optional(key)) {
        const std::int64_t n = v->Int64();
        if (n < 1 || n > 100000000) v->Fail("must be between 1 and 100000000");
        *out = static_cast<int>(n);
      }
    };
    positive("sessionRequestBurst", &gs.session_request_burst);
    positive("maxSessionConcurrentRequests", &gs.max_session_concurrent_requests);
    positive("maxConcurrentRequests", &gs.max_concurrent_requests);
    positive("maxSessionStreams", &gs.max_session_streams);
    positive("maxStreams", &gs.max_streams);
    auto duration = [&](const char* key, apf::Nanos* out) {
      if (auto v = g.Optional(key)) {
        const apf::Nanos d = v->Duration();
        if (d <= 0) v->Fail("must be positive");
        *out = d;
      }
    };
    duration("maxResponseDuration", &gs.max_response_duration);
    if (auto v = g.Optional("maxResponseBytes")) {
      // Decoded bytes, a whole number (-max-response-bytes); up to 1 TiB.
      const std::int64_t n = v->Int64();
      if (n < 1 || n > (std::int64_t{1} << 40)) v->Fail("must be between 1 and 1099511627776");
      gs.max_response_bytes = n;
    }
    duration("sessionCheckInterval", &gs.session_check_interval);
    duration("streamWriteTimeout", &gs.stream_write_timeout);
    g.Finish();
  }
  if (auto fc = spec.Optional("flowControl")) {
    YamlMap fm = fc->Map();
    s.flow_control_defaults = fm.BoolOr("defaults", true);
    if (auto files = fm.Optional("files")) {
      for (const YamlValue& f : files->Items()) {
        s.flow_control_files.push_back(ResolveScenarioFile(f, path));
      }
    }
    if (auto objects = fm.Optional("objects")) {
      for (size_t i = 0; i < objects->size(); ++i) {
        const YamlValue o = (*objects)[i];
        s.flow_control_objects.push_back({o.node(), path, o.path()});
      }
    }
    fm.Finish();
  }
  if (auto resources = spec.Optional("resources")) {
    std::set<std::string> seen;
    for (const YamlValue& rv : resources->Items()) {
      ResourceSpec r = ReadResource(rv);
      const std::string key = r.resource + "." + r.api_group;
      if (!seen.insert(key).second) rv.Fail("resource " + key + " is listed twice");
      s.resources.push_back(std::move(r));
    }
  }
  if (auto metrics = spec.Optional("resourcesFromMetrics")) ReadResourcesFromMetrics(*metrics, &s);
  if (auto delay = spec.Optional("restartDelay")) {
    s.restart_delay = delay->Duration();
    if (s.restart_delay <= 0)
      delay->Fail("must be positive: a restarted apiserver takes time to serve again");
  }
  if (auto events = spec.Optional("events")) ReadEvents(*events, &s);
  std::set<std::string> names;
  if (auto clients = spec.Optional("clients")) {
    for (const YamlValue& cv : clients->Items()) {
      ClientSpec c = ReadClient(cv, s);
      if (!names.insert(c.name).second) cv.Fail("client name \"" + c.name + "\" is used twice");
      s.clients.push_back(std::move(c));
    }
  }
  if (auto audit = spec.Optional("auditLog")) ReadAuditLog(*audit, &s, &names);
  if (auto expect = spec.Optional("expect")) {
    for (const YamlValue& ev : expect->Items()) s.expectations.push_back(ReadExpectation(ev, s));
  }
  if (auto reference = spec.Optional("reference")) s.reference = ReadReference(*reference, s);
  spec.Finish();  // before the check below, so that a misspelt "clients" is named as such
  if (s.clients.empty()) {
    spec.value().Fail("needs at least one client (spec.clients, or identities from spec.auditLog)");
  }

  // Requests that draw a namespace from a resource need that resource to have some.
  for (const ClientSpec& c : s.clients) {
    for (const TrafficSpec& t : c.traffic) {
      for (const RequestTemplate& r : t.calls) {
        if (r.namespace_choice == RequestTemplate::NamespaceChoice::kFixed) continue;
        bool found = false;
        for (const ResourceSpec& res : s.resources) {
          found = found || (res.resource == r.resource && res.api_group == r.api_group &&
                            !res.namespace_names.empty());
        }
        if (!found) {
          throw InputError(r.where, "namespace",
                           "\"" + r.namespace_ + "\" needs a namespaced resource " + r.resource +
                               (r.api_group.empty() ? "" : "." + r.api_group) +
                               " in spec.resources");
        }
      }
    }
  }
  return s;
}

}  // namespace sim

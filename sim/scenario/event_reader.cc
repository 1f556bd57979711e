#include "sim/scenario/event_reader.h"

#include <algorithm>
#include <array>
#include <deque>
#include <set>
#include <string_view>

#include "sim/io/duration.h"
#include "sim/scenario/resource_reader.h"
#include "sim/scenario/spec_values.h"

namespace sim {
namespace {

constexpr std::array<std::string_view, 6> kActions = {"apply", "delete", "restart",
                                                      "stop",  "start",  "resources"};

// The replica an action names must be one of apiserver-0 .. apiserver-(replicas-1), the
// names the outputs use (sim/report/run_report.cc). Returns its index.
int CheckReplica(const YamlValue& v, const Scenario& s) {
  const std::string name = v.String();
  for (int r = 0; r < s.apiservers.replicas; ++r) {
    if (name == "apiserver-" + std::to_string(r)) return r;
  }
  const int n = s.apiservers.replicas;
  v.Fail("no replica \"" + name + "\": the scenario has " +
         (n == 1 ? std::string("one, apiserver-0")
                 : "apiserver-0 .. apiserver-" + std::to_string(n - 1)));
}

// A replica's stops and starts in time order, as the world will run them: a `restart` is
// a stop at `at` and a start at `at` + spec.restartDelay. Refused: stopping a replica that
// is down then, starting one that is up, and stopping the last one up (the world models
// no cluster without a server: every client would only see connection refused).
struct ReplicaChange {
  apf::Nanos at = 0;
  bool stop = false;
  bool restart_start = false;  // the second half of a restart
  const YamlValue* body = nullptr;
};

void CheckReplicaChanges(std::vector<ReplicaChange> changes, const Scenario& s) {
  // In time order; at one instant the written events first, then the restarts' starts.
  std::stable_sort(changes.begin(), changes.end(),
                   [](const ReplicaChange& a, const ReplicaChange& b) {
                     if (a.at != b.at) return a.at < b.at;
                     return a.restart_start < b.restart_start;
                   });
  std::vector<bool> up(static_cast<std::size_t>(s.apiservers.replicas), true);
  int up_count = s.apiservers.replicas;
  for (const ReplicaChange& c : changes) {
    const int r = CheckReplica(*c.body, s);
    const std::string name = "apiserver-" + std::to_string(r);
    const std::string when = FormatDuration(c.at);
    if (c.stop) {
      if (!up[r]) c.body->Fail(name + " is already stopped at " + when);
      if (up_count == 1) {
        c.body->Fail("stops " + name + ", the last replica up at " + when +
                     ": the simulator models no cluster without an apiserver");
      }
      up[r] = false;
      --up_count;
    } else {
      if (up[r]) {
        c.body->Fail(c.restart_start ? "restarts " + name + " at " + when +
                                           " (after spec.restartDelay), when it is already up"
                                     : name + " is already up at " + when);
      }
      up[r] = true;
      ++up_count;
    }
  }
}

// "configmaps" or "tenantbindings.platform.example.com", as kubectl names a resource.
std::string ResourceName(const ResourceSpec& r) {
  return r.api_group.empty() ? r.resource : r.resource + "." + r.api_group;
}

// `apply`: each item is a manifest (an object, a List, or a sequence of them) or
// {file: PATH}, PATH relative to the scenario's folder. The objects are validated as the
// apiserver validates them, each error at its own line.
FlowControlManifests ReadApply(const YamlValue& body) {
  FlowControlManifests manifests;
  const std::vector<YamlValue> items = body.Items();
  if (items.empty()) body.Fail("lists no objects: give manifests or {file: PATH}");
  for (const YamlValue& item : items) {
    if (item.IsMap() && item.node()["file"]) {
      YamlMap m = item.Map();
      const std::string path = ResolveScenarioFile(m.Required("file"), item.source());
      m.Finish();  // {file: PATH} and nothing else
      manifests.Append(LoadFlowControlFile(path));
    } else {
      manifests.Append(ReadFlowControlObjects(item));
    }
  }
  ThrowIfInvalid(manifests);
  return manifests;
}

// `delete`: {kind: FlowSchema|PriorityLevelConfiguration, name: N}. Whether the object is
// there at `at` is checked once the configuration is built (sim/scenario/flowcontrol.cc).
std::vector<DeletedObject> ReadDelete(const YamlValue& body) {
  std::vector<DeletedObject> out;
  const std::vector<YamlValue> items = body.Items();
  if (items.empty()) body.Fail("lists no objects: give {kind: ..., name: ...}");
  for (const YamlValue& item : items) {
    YamlMap m = item.Map();
    YamlValue kind = m.Required("kind");
    DeletedObject d;
    d.kind = kind.String();
    if (d.kind != "FlowSchema" && d.kind != "PriorityLevelConfiguration") {
      kind.Fail("must be FlowSchema or PriorityLevelConfiguration" +
                DidYouMean(d.kind, {"FlowSchema", "PriorityLevelConfiguration"}));
    }
    d.name = m.Required("name").String();
    m.Finish();
    d.where = item.where();
    d.path = item.path();
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

void ReadEvents(const YamlValue& v, Scenario* s) {
  std::vector<ScenarioEvent> events;
  std::deque<YamlValue> bodies;  // each replica event's action, for the checks below
  std::vector<ReplicaChange> changes;
  for (const YamlValue& ev : v.Items()) {
    ScenarioEvent event;
    YamlMap m = ev.Map();
    YamlValue at_value = m.Required("at");
    const apf::Nanos at = at_value.Duration();
    if (at < 0) at_value.Fail("must not be negative: an event before the run changes nothing");
    if (at >= s->duration) {
      at_value.Fail("must be within the run's duration (before " + FormatDuration(s->duration) +
                    ")");
    }
    std::vector<std::string> present;
    for (std::string_view a : kActions) {
      if (m.Has(a)) present.emplace_back(a);
    }
    if (present.size() > 1) {
      m.Required(present[1])
          .Fail("an event has exactly one action; this one also has `" + present[0] + "`");
    }
    // An unknown key (a misspelt action among them) is named by Finish, with did-you-mean.
    if (present.empty()) {
      m.Finish();
      ev.Fail("needs one action: apply, delete, restart, stop, start or resources");
    }
    const std::string& action = present[0];
    YamlValue body = m.Required(action);
    m.Finish();
    if (action == "restart" || action == "stop" || action == "start") {
      event.replica = CheckReplica(body, *s);
      bodies.push_back(body);
      changes.push_back({at, action != "start", false, &bodies.back()});
      // The world runs a restart's start after every event of that instant
      // (World::Build); one past the end never runs.
      if (action == "restart" && at + s->restart_delay < s->duration)
        changes.push_back({at + s->restart_delay, false, true, &bodies.back()});
      s->has_replica_events = true;
    } else if (action == "resources") {
      std::set<std::string> seen;
      for (const YamlValue& rv : body.Items()) {
        ResourceSpec r = ReadResource(rv);
        const std::string key = ResourceName(r);
        if (!seen.insert(key).second) rv.Fail("resource " + key + " is listed twice");
        const ResourceSpec* before = nullptr;
        for (const ResourceSpec& old : s->resources) {
          if (old.resource == r.resource && old.api_group == r.api_group) before = &old;
        }
        if (!before)
          rv.Fail("resource " + key + " is not in spec.resources: an event replaces one");
        // The clients' namespace draws and the per-namespace notes are laid out once, from
        // spec.resources; an event changes what the store holds, not where.
        if (r.namespaces != before->namespaces || r.namespace_prefix != before->namespace_prefix ||
            r.namespace_names != before->namespace_names) {
          rv.Fail("an event changes objects and averageBytes only; the namespaces of " + key +
                  " must stay as spec.resources gives them");
        }
        event.resources.push_back(std::move(r));
      }
    } else if (action == "apply") {
      event.apply = ReadApply(body);
    } else if (action == "delete") {
      event.deletes = ReadDelete(body);
    }
    event.at = at;
    event.action = action;
    event.where = ev.where();
    events.push_back(std::move(event));
  }
  // In the order of `at`; events at the same instant in the order they are written.
  std::stable_sort(events.begin(), events.end(),
                   [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
  CheckReplicaChanges(std::move(changes), *s);
  for (const ScenarioEvent& e : events) {
    std::string label = "event: " + e.action;
    for (const ResourceSpec& r : e.resources) {
      label += " " + ResourceName(r) + "=" + std::to_string(r.objects);
    }
    // The objects by name: "event: apply tenant-sweep, tenant-operator-lists".
    std::string sep = " ";
    for (const LoadedPriorityLevel& pl : e.apply.priority_levels) {
      label += sep + pl.object.metadata.name;
      sep = ", ";
    }
    for (const LoadedFlowSchema& fs : e.apply.flow_schemas) {
      label += sep + fs.object.metadata.name;
      sep = ", ";
    }
    for (const DeletedObject& d : e.deletes) {
      label += sep + d.name;
      sep = ", ";
    }
    if (e.changes_replicas()) label += " apiserver-" + std::to_string(e.replica);
    s->marks.push_back(Mark{e.at, label, e.where});
    // A restart's second half, when it falls within the run.
    if (e.action == "restart" && e.at + s->restart_delay < s->duration) {
      s->marks.push_back(Mark{e.at + s->restart_delay,
                              "event: restart apiserver-" + std::to_string(e.replica) + " up",
                              e.where});
    }
  }
  s->events = std::move(events);
}

}  // namespace sim

#include "sim/report/client_moves.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "apf/classification/classifier.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/estimation/watch_tracker.h"
#include "apf/estimation/work_estimator.h"
#include "sim/flowcontrol/explain.h"
#include "sim/flowcontrol/summary.h"
#include "sim/io/duration.h"
#include "sim/scenario/feature_gates.h"
#include "sim/world/scenario_calls.h"

namespace sim {
namespace {

using nlohmann::json;

// "LIST tenantbindings", "UPDATE tenantbindings/status", "GET /healthz": the shape of a
// request, the query kept because the estimator reads it (limit, resourceVersion).
std::string ShapeOf(const apf::RequestInfo& r) {
  std::string verb = r.verb;
  for (char& ch : verb) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (!r.is_resource_request) return verb + " " + r.path;
  std::string out = verb + " " + r.resource;
  if (!r.subresource.empty()) out += "/" + r.subresource;
  return out;
}

std::string ShapeOf(const ScenarioCall& call) {
  std::string shape = ShapeOf(call.request);
  if (!call.tmpl->query.empty()) shape += "?" + call.tmpl->query;
  return shape;
}

// Where one call lands on one side. `core` is what every call of an entry shares.
struct Landing {
  struct Core {
    std::string flow_schema, priority_level;  // "" where APF is off
    apf::WorkEstimate seats;
    bool seats_from_template = false;
    std::string hand_note;  // NoHandReason, or why there is no APF
    auto Tie() const {
      return std::tie(flow_schema, priority_level, seats.initial_seats, seats.final_seats,
                      seats.additional_latency, seats_from_template, hand_note);
    }
    bool operator<(const Core& o) const { return Tie() < o.Tie(); }
    bool operator==(const Core& o) const { return Tie() == o.Tie(); }
  } core;
  std::string distinguisher;
  std::vector<int> hand;
};

// A call, as the two sides' calls are matched: the same client, shape and process (its
// user) sending to the same namespace and name.
using CallKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;

struct SideCalls {
  std::map<CallKey, Landing> landings;
  std::vector<CallKey> order;
  // The first call of each key, for the request's fields: into `calls`, which is filled once
  // and never changed after (moving the vector keeps its elements where they are).
  std::map<CallKey, const ScenarioCall*> call;
  std::vector<ScenarioCall> calls;
};

SideCalls Land(const ChangeSide& side) {
  const Scenario& scenario = *side.scenario;
  const apf::FlowControlConfig& config = side.flow_control->config;
  SideCalls out;
  out.calls = ScenarioCalls(scenario);
  const apf::Classifier classifier(config);
  const int server_cl = scenario.apiservers.max_requests_inflight +
                        scenario.apiservers.max_mutating_requests_inflight;
  const std::vector<LevelLimits> limits = StaticLevelLimits(config, server_cl);
  // The estimator each replica starts with (sim/world/apiserver.cc): the scenario's object
  // counts polled at 0, no watch registered yet.
  apf::ObjectCountTracker objects;
  for (const ResourceSpec& r : scenario.resources) {
    objects.Set(r.api_group, r.resource, apf::ObjectStats{r.objects, r.average_bytes}, 0);
  }
  const apf::FixedWatchCount no_watches(0);
  const apf::WorkEstimator estimator(WorkEstimatorConfigOf(scenario.apiservers), &objects,
                                     &no_watches);
  std::map<std::pair<int, std::string>, std::vector<int>> hands;  // by (schema, distinguisher)
  for (const ScenarioCall& call : out.calls) {
    const ClientSpec& client = scenario.clients[call.client];
    CallKey key{client.name, ShapeOf(call), call.sender, call.request.namespace_name,
                call.request.name};
    if (out.landings.count(key)) continue;  // a closedLoop that sends it twice
    out.call.emplace(key, &call);
    Landing l;
    if (!scenario.apiservers.enable_priority_and_fairness) {
      l.core.seats = {1, 0, 0};
      l.core.hand_note = "APF is off: the max-in-flight limits apply";
    } else {
      const apf::Classification c =
          classifier.Classify(apf::MakeRequestDigest(call.user, call.request));
      const apf::PriorityLevel& pl = classifier.priority_level(c.priority_level);
      l.core.flow_schema = classifier.flow_schema(c.flow_schema).metadata.name;
      l.core.priority_level = pl.name;
      if (call.tmpl->seats) {
        l.core.seats = *call.tmpl->seats;  // replaces the estimator (sim/world/world.cc)
        l.core.seats_from_template = true;
      } else {
        l.core.seats = estimator.Estimate(&call.request, limits[c.priority_level].max_seats, 0);
      }
      l.distinguisher = std::string(c.distinguisher);
      if (c.uses_flow_hash) {
        auto [at, added] = hands.try_emplace({c.flow_schema, l.distinguisher});
        if (added) at->second = FlowHand(classifier, c);
        l.hand = at->second;
      } else {
        l.core.hand_note = NoHandReason(pl);
      }
    }
    out.landings.emplace(key, std::move(l));
    out.order.push_back(key);
  }
  return out;
}

// One entry under construction: the calls of a client's shape that land alike on both sides.
struct Entry {
  std::string client, shape;
  std::optional<Landing::Core> before, after;
  const ScenarioCall* call = nullptr;
  std::int64_t calls = 0;
  // Distinct flows, in call order: (distinguisher, hand).
  std::vector<std::pair<std::string, std::vector<int>>> flows_before, flows_after;
};

void AddFlow(const Landing& l, std::vector<std::pair<std::string, std::vector<int>>>* flows) {
  for (const auto& f : *flows) {
    if (f.first == l.distinguisher) return;
  }
  flows->emplace_back(l.distinguisher, l.hand);
}

json SideJson(const std::optional<Landing::Core>& core,
              const std::vector<std::pair<std::string, std::vector<int>>>& flows) {
  if (!core) return nullptr;
  json side;
  const bool apf = !core->flow_schema.empty();
  side["flowSchema"] = apf ? json(core->flow_schema) : json(nullptr);
  side["priorityLevel"] = apf ? json(core->priority_level) : json(nullptr);
  side["initialSeats"] = core->seats.initial_seats;
  side["finalSeats"] = core->seats.final_seats;
  side["additionalLatencySeconds"] = apf::ToSeconds(core->seats.additional_latency);
  side["seatsFromTemplate"] = core->seats_from_template;
  const bool one = flows.size() == 1;
  side["flowDistinguisher"] = one && apf ? json(flows[0].first) : json(nullptr);
  const bool dealt = core->hand_note.empty();
  side["hand"] = one && dealt ? json(flows[0].second) : json(nullptr);
  side["handNote"] = dealt ? json(nullptr) : json(core->hand_note);
  side["flows"] = flows.size();
  json hands = json::array();
  for (const auto& [distinguisher, hand] : flows) {
    hands.push_back(
        {{"flowDistinguisher", distinguisher}, {"hand", dealt ? json(hand) : json(nullptr)}});
  }
  side["flowHands"] = hands;
  return side;
}

std::string Place(const json& side) {
  if (side.is_null()) return "(not sent)";
  if (side["flowSchema"].is_null()) return "APF off";
  return side["flowSchema"].get<std::string>() + "/" + side["priorityLevel"].get<std::string>();
}

std::string Seats(const json& side) {
  if (side.is_null()) return "-";
  std::string out = side["initialSeats"].dump();
  if (side["finalSeats"].get<std::uint64_t>() > 0) {
    out += ", then " + side["finalSeats"].dump() + " for " +
           FormatDuration(static_cast<apf::Nanos>(
               std::llround(side["additionalLatencySeconds"].get<double>() * 1e9)));
  }
  return out;
}

std::string Hand(const json& side) {
  if (side.is_null()) return "-";
  if (side["flows"].get<std::size_t>() > 1) return "of " + side["flows"].dump() + " flows";
  if (side["hand"].is_array()) {
    std::string out;
    for (const json& card : side["hand"]) out += (out.empty() ? "" : ",") + card.dump();
    return out;
  }
  const std::string note = side["handNote"].get<std::string>();
  return "none (" + note.substr(0, note.find(':')) + ")";
}

std::string Both(const std::string& before, const std::string& after) {
  return before == after ? before : before + " -> " + after;
}

std::string Line(const json& e, bool split) {
  const json& b = e["before"];
  const json& a = e["after"];
  std::string line = e["client"].get<std::string>() + " " + e["request"].get<std::string>();
  if (split) line += " (" + e["calls"].dump() + " of its calls)";
  line += ": " + Both(Place(b), Place(a));
  if (!b.is_null() && !a.is_null() && b["flowDistinguisher"] != a["flowDistinguisher"] &&
      b["flows"] == 1 && a["flows"] == 1) {
    line +=
        ", distinguisher " + b["flowDistinguisher"].dump() + " -> " + a["flowDistinguisher"].dump();
  }
  const std::string seats = Both(Seats(b), Seats(a));
  line += ", " + seats + (seats == "1" ? " seat" : " seats");
  const std::string hb = Hand(b), ha = Hand(a);
  if (hb == ha && b.is_object() && a.is_object() && b["flowHands"] != a["flowHands"]) {
    line += ", hands " + hb + " changed";
  } else {
    line += ", hand" + std::string(hb.rfind("of ", 0) == 0 ? "s " : " ") + Both(hb, ha);
  }
  return line;
}

// "at 2m (resources), 5m (apply)": what the side's spec.events change, "" when nothing.
std::string EventsOf(const Scenario& s) {
  std::string out;
  for (const ScenarioEvent& e : s.events) {
    out += (out.empty() ? "" : ", ") + FormatDuration(e.at) + " (" +
           (e.action == "resources" ? std::string("object counts") : e.action) + ")";
  }
  return out;
}

bool OpensWatches(const Scenario& s) {
  for (const ClientSpec& c : s.clients) {
    for (const TrafficSpec& t : c.traffic) {
      if (t.kind == TrafficSpec::Kind::kInformer || t.kind == TrafficSpec::Kind::kWatch) {
        return true;
      }
    }
  }
  return false;
}

// Clients whose requests come from a file: a trace, or spec.auditLog's identities.
std::vector<std::string> Replayed(const Scenario& s) {
  std::vector<std::string> out;
  for (const ClientSpec& c : s.clients) {
    for (const TrafficSpec& t : c.traffic) {
      if (t.kind == TrafficSpec::Kind::kTrace) {
        out.push_back(c.name);
        break;
      }
    }
  }
  for (const auto& [unused, client] : s.audit_log.identity_clients) {
    out.push_back(s.clients[client].name);
  }
  return out;
}

json Notes(const ChangeSide& before, const ChangeSide& after, bool any_write) {
  json notes = json::array();
  const std::string eb = EventsOf(*before.scenario), ea = EventsOf(*after.scenario);
  if (!eb.empty() && eb == ea) {
    notes.push_back("spec.events change the run at " + eb +
                    ": requests after those instants may land or be charged otherwise");
  } else {
    for (const auto& [name, events] : {std::pair{"before", eb}, std::pair{"after", ea}}) {
      if (!events.empty()) {
        notes.push_back(std::string("the ") + name + " run's spec.events change it at " + events +
                        ": requests after those instants may land or be charged "
                        "otherwise");
      }
    }
  }
  if (any_write && (OpensWatches(*before.scenario) || OpensWatches(*after.scenario))) {
    notes.push_back(
        "writes are priced with no watch open, as at t=0: each watch the scenario's "
        "informers and watches open later that a write fans out to adds to its final "
        "seats (doc/model.md#mutating-estimate)");
  }
  std::set<std::string> replayed;
  for (const ChangeSide* side : {&before, &after}) {
    for (const std::string& name : Replayed(*side->scenario)) replayed.insert(name);
  }
  if (!replayed.empty()) {
    std::string names;
    for (const std::string& n : replayed) names += (names.empty() ? "" : ", ") + n;
    notes.push_back("not described: " + names +
                    " (requests replayed from a file, not the scenario's templates)");
  }
  for (const auto& [name, side] : {std::pair{"before", &before}, std::pair{"after", &after}}) {
    if (!side->scenario->apiservers.enable_priority_and_fairness) {
      notes.push_back(std::string("APF is off in the ") + name +
                      " run (apiservers.enablePriorityAndFairness: false): no FlowSchema, "
                      "level or hand, one in-flight slot per request");
    }
  }
  return notes;
}

}  // namespace

json DescribeClientMoves(const ChangeSide& before, const ChangeSide& after) {
  const SideCalls b = Land(before), a = Land(after);
  std::vector<CallKey> order = b.order;
  for (const CallKey& k : a.order) {
    if (!b.landings.count(k)) order.push_back(k);
  }
  // Entries keyed by (client, shape, before core, after core), in order of first call.
  using EntryKey = std::tuple<std::string, std::string, std::optional<Landing::Core>,
                              std::optional<Landing::Core>>;
  std::map<EntryKey, std::size_t> index;
  std::vector<Entry> entries;
  std::map<std::pair<std::string, std::string>, int> ways;  // entries per (client, shape)
  for (const CallKey& k : order) {
    const auto lb = b.landings.find(k), la = a.landings.find(k);
    std::optional<Landing::Core> cb, ca;
    if (lb != b.landings.end()) cb = lb->second.core;
    if (la != a.landings.end()) ca = la->second.core;
    const EntryKey ek{std::get<0>(k), std::get<1>(k), cb, ca};
    auto [at, added] = index.emplace(ek, entries.size());
    if (added) {
      Entry e;
      e.client = std::get<0>(k);
      e.shape = std::get<1>(k);
      e.before = cb;
      e.after = ca;
      e.call = lb != b.landings.end() ? b.call.at(k) : a.call.at(k);
      ++ways[{e.client, e.shape}];
      entries.push_back(std::move(e));
    }
    Entry& e = entries[at->second];
    ++e.calls;
    if (lb != b.landings.end()) AddFlow(lb->second, &e.flows_before);
    if (la != a.landings.end()) AddFlow(la->second, &e.flows_after);
  }
  json moved = json::array(), unmoved = json::array();
  bool any_write = false;
  for (const Entry& e : entries) {
    const apf::RequestInfo& r = e.call->request;
    any_write = any_write || r.verb == "create" || r.verb == "update" || r.verb == "patch" ||
                r.verb == "delete";
    json j = {{"client", e.client},      {"request", e.shape},     {"verb", r.verb},
              {"apiGroup", r.api_group}, {"resource", r.resource}, {"subresource", r.subresource},
              {"path", r.path},          {"calls", e.calls}};
    j["before"] = SideJson(e.before, e.flows_before);
    j["after"] = SideJson(e.after, e.flows_after);
    const bool is_moved = j["before"] != j["after"];
    j["moved"] = is_moved;
    j["line"] = Line(j, ways[{e.client, e.shape}] > 1);
    (is_moved ? moved : unmoved).push_back(std::move(j));
  }
  json out;
  out["asOf"] = "t=0";
  for (json& j : unmoved) moved.push_back(std::move(j));
  out["requests"] = moved;
  out["notes"] = Notes(before, after, any_write);
  return out;
}

std::string FormatClientMoves(const json& moves) {
  if (!moves.contains("requests")) return "";
  if (moves["requests"].empty() && moves["notes"].empty()) return "";
  std::size_t n = 0;
  for (const json& e : moves["requests"]) n += e["moved"].get<bool>();
  std::string out =
      "what the change moves, per client request (as at t=0: FlowSchema/level, "
      "seats, hand of queues; " +
      std::to_string(n) + " of " + std::to_string(moves["requests"].size()) + " moved):\n";
  bool unmoved_heading = false;
  for (const json& e : moves["requests"]) {
    if (!e["moved"].get<bool>() && !unmoved_heading) {
      out += "unchanged:\n";
      unmoved_heading = true;
    }
    out += "  " + e["line"].get<std::string>() + "\n";
  }
  for (const json& note : moves["notes"]) out += "note: " + note.get<std::string>() + "\n";
  return out;
}

}  // namespace sim

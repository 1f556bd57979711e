#include "sim/flowcontrol/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "apf/classification/classifier.h"
#include "apf/queueing/shuffle_sharding.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"

namespace sim {
namespace {

using nlohmann::json;

std::string Hex(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string JoinStrings(const json& list, const char* sep) {
  std::string out;
  for (const json& s : list) {
    if (!out.empty()) out += sep;
    out += s.get<std::string>();
  }
  return out;
}

std::string Plural(std::uint64_t n, const char* one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

// The work estimator's answer for the request on `level_max_seats` (0: Exempt and Reject
// levels, where only the global limits apply), and its reasoning in words. The numbers
// are apf::WorkEstimator's; the words name the branch it takes (doc/model.md#work-estimation).
json EstimateWork(const apf::RequestInfo& request, std::uint64_t level_max_seats,
                  const ExplainOptions& options) {
  const apf::FixedObjectStats stats(apf::ObjectStatsResult{options.object_stats});
  const apf::FixedWatchCount watches(options.watch_count);
  const apf::WorkEstimator estimator(options.estimator, &stats, &watches);
  const apf::WorkEstimate w = estimator.Estimate(&request, level_max_seats, 0);
  const apf::WorkEstimatorConfig& config = options.estimator;
  json out;
  out["initialSeats"] = w.initial_seats;
  out["finalSeats"] = w.final_seats;
  out["additionalLatencySeconds"] = apf::ToSeconds(w.additional_latency);
  const std::string& verb = request.verb;
  const bool list_like =
      request.is_resource_request && (verb == "list" || (verb == "watch" && config.watch_list));
  const bool mutating = request.is_resource_request && (verb == "create" || verb == "update" ||
                                                        verb == "patch" || verb == "delete");
  std::string why;
  if (list_like) {
    out["estimator"] = "list";
    const bool from_cache = apf::ListServedFromCache(request, config.consistent_read_from_cache);
    // The global limit alone (no level cap), to show what the level's cap took away.
    const apf::WorkEstimate uncapped = estimator.Estimate(&request, 0, 0);
    why = (verb == "watch" ? std::string("a WATCH with WatchList on is priced as the LIST of its "
                                         "initial events; ")
                           : std::string()) +
          (options.object_stats_given
               ? std::to_string(options.object_stats.object_count) + " objects of about " +
                     std::to_string(options.object_stats.estimated_average_object_size_bytes) +
                     " bytes"
               : std::string("no object count given (--objects or --scenario): priced as an "
                             "empty resource")) +
          "; served from " + (from_cache ? "the watch cache" : "etcd") + "; " +
          (config.size_based_list_cost_estimate
               ? "SizeBasedListCostEstimate prices the bytes it holds"
               : "SizeBasedListCostEstimate is off: priced by object count, " +
                     std::to_string(static_cast<int>(config.objects_per_seat)) + " per seat") +
          ": " + Plural(uncapped.initial_seats, "seat");
    if (w.initial_seats < uncapped.initial_seats) {
      why += ", capped at this level's " + Plural(level_max_seats, "seat") + " per request";
    }
  } else if (mutating) {
    out["estimator"] = "mutating";
    why = "a write: 1 seat while it runs";
    if (w.final_seats > 0) {
      why += ", then " + Plural(w.final_seats, "seat") + " for " +
             FormatDuration(w.additional_latency) +
             " after it finishes, for the events it sends "
             "to " +
             std::to_string(options.watch_count) + " interested watches";
    } else {
      why += "; " + std::to_string(options.watch_count) + " interested watches are fewer than " +
             std::to_string(static_cast<int>(config.watches_per_seat)) + ", so no seats after it";
    }
  } else {
    out["estimator"] = "other";
    why = "neither a LIST, a WATCH priced as one, nor a write: " + Plural(w.initial_seats, "seat");
  }
  out["why"] = why;
  return out;
}

}  // namespace

std::vector<int> FlowHand(const apf::Classifier& classifier, const apf::Classification& c) {
  if (!c.uses_flow_hash) return {};
  const apf::PriorityLevel& pl = classifier.priority_level(c.priority_level);
  const apf::Hand hand =
      apf::Dealer(pl.queuing.queues, pl.queuing.hand_size).Deal(classifier.FlowHash(c));
  return std::vector<int>(hand.begin(), hand.end());
}

std::string NoHandReason(const apf::PriorityLevel& pl) {
  if (pl.exempt()) return "exempt: requests are not queued";
  if (!pl.queues_requests()) return "Reject: the level has no queues";
  if (pl.queuing.queues <= 1) return "one queue: every flow shares it";
  return "";
}

json ExplainRequest(const FlowControlSetup& setup, const apf::UserInfo& user,
                    const apf::RequestInfo& request, const ExplainOptions& options) {
  const apf::Classifier classifier(setup.config);
  const apf::RequestDigest digest = apf::MakeRequestDigest(user, request);
  const apf::Classification c = classifier.Classify(digest);
  const apf::FlowSchema& fs = classifier.flow_schema(c.flow_schema);
  const apf::PriorityLevel& pl = classifier.priority_level(c.priority_level);
  const std::uint64_t hash = classifier.FlowHash(c);

  json out;
  out["kubernetesVersion"] = setup.version.ToString();
  out["request"] = {{"user", user.name},
                    {"groups", user.groups},
                    {"isResourceRequest", request.is_resource_request},
                    {"verb", request.verb},
                    {"apiGroup", request.api_group},
                    {"resource", request.resource},
                    {"subresource", request.subresource},
                    {"namespace", request.namespace_name},
                    {"name", request.name},
                    {"path", request.path}};
  json tried = json::array();
  for (const apf::SchemaMatchTrace& t : classifier.Explain(digest)) {
    const int index = setup.config.FindFlowSchema(t.flow_schema);
    tried.push_back(
        {{"flowSchema", t.flow_schema},
         {"matchingPrecedence", setup.config.flow_schemas[index].spec.matching_precedence},
         {"matched", t.matched},
         {"why", t.why}});
  }
  out["tried"] = tried;
  out["flowSchema"] = fs.metadata.name;
  out["fellBackToCatchAll"] = c.fell_back_to_catch_all;
  out["priorityLevel"] = pl.name;
  out["distinguisherMethod"] =
      fs.spec.distinguisher_method ? fs.spec.distinguisher_method->type : std::string();
  out["distinguisher"] = std::string(c.distinguisher);
  out["usesFlowHash"] = c.uses_flow_hash;
  out["hash"] = std::to_string(hash);

  json level;
  level["type"] = pl.exempt() ? "Exempt" : "Limited";
  if (!pl.exempt()) {
    level["limitResponse"] = pl.queues_requests() ? "Queue" : "Reject";
  }
  if (pl.queues_requests()) {
    level["queues"] = pl.queuing.queues;
    level["handSize"] = pl.queuing.hand_size;
    level["queueLengthLimit"] = pl.queuing.queue_length_limit;
  }
  const std::vector<LevelLimits> limits =
      StaticLevelLimits(setup.config, options.server_concurrency_limit);
  const LevelLimits& l = limits[c.priority_level];
  level["nominalConcurrencyShares"] = pl.nominal_concurrency_shares;
  level["shareSum"] = static_cast<std::int64_t>(ShareSum(setup.config));
  level["lendablePercent"] = pl.lendable_percent;
  level["borrowingLimitPercent"] =
      pl.borrowing_limit_percent ? json(*pl.borrowing_limit_percent) : json(nullptr);
  level["serverConcurrencyLimit"] = options.server_concurrency_limit;
  level["nominalSeats"] = l.nominal_cl;
  level["lendableSeats"] = l.lendable_cl;
  level["minSeats"] = l.min_cl;
  level["maxCL"] = l.max_cl;
  level["maxSeats"] = l.max_cl;  // deprecated: maxCL (see explain.h)
  if (pl.queues_requests()) level["maxSeatsPerRequest"] = l.max_seats;
  out["level"] = level;
  out["workEstimate"] = EstimateWork(request, pl.queues_requests() ? l.max_seats : 0, options);

  if (c.uses_flow_hash) {
    out["hand"] = FlowHand(classifier, c);
  } else {
    out["hand"] = nullptr;
    out["handNote"] = NoHandReason(pl);
  }
  return out;
}

namespace {

// The level's bounds in words. Without a borrowingLimitPercent the controller's maxCL is
// nominalCL + serverCL (apf_controller.go, finishQueueSetReconfigsLocked), a figure no
// level can reach: the seats it borrows come out of the server's, so that is the bound
// stated. An exempt level's requests are never held back by seats at all.
std::string SeatBounds(const json& level) {
  if (level["type"] == "Exempt") {
    return "no bounds apply (exempt requests are never held back by seats)";
  }
  if (level["borrowingLimitPercent"].is_null()) {
    return "so at least " + level["minSeats"].dump() +
           " seats; upper bound: no limit set (at most the server's " +
           level["serverConcurrencyLimit"].dump() + " seats)";
  }
  return "so between " + level["minSeats"].dump() + " and " + level["maxSeats"].dump() +
         " seats (borrowing " + level["borrowingLimitPercent"].dump() + "%)";
}

}  // namespace

std::string FormatExplanation(const json& e) {
  std::string out;
  const json& r = e["request"];
  out += "request:  user \"" + r["user"].get<std::string>() + "\", groups [" +
         JoinStrings(r["groups"], ", ") + "]\n";
  if (r["isResourceRequest"].get<bool>()) {
    std::string what = r["verb"].get<std::string>() + " ";
    const std::string group = r["apiGroup"].get<std::string>();
    what += (group.empty() ? "" : group + "/") + r["resource"].get<std::string>();
    if (!r["subresource"].get<std::string>().empty()) {
      what += "/" + r["subresource"].get<std::string>();
    }
    if (!r["name"].get<std::string>().empty()) what += " " + r["name"].get<std::string>();
    const std::string ns = r["namespace"].get<std::string>();
    what += ns.empty() ? " (no namespace)" : " in namespace " + ns;
    out += "          " + what + "\n";
  } else {
    out += "          " + r["verb"].get<std::string>() + " " + r["path"].get<std::string>() +
           " (non-resource)\n";
  }
  out += "\nFlowSchemas tried in matching order (Kubernetes " +
         e["kubernetesVersion"].get<std::string>() + "):\n";
  for (const json& t : e["tried"]) {
    char prec[16];
    std::snprintf(prec, sizeof prec, "%6d", t["matchingPrecedence"].get<int>());
    out += std::string("  ") + prec + "  " + t["flowSchema"].get<std::string>() + ": " +
           (t["matched"].get<bool>() ? "MATCH, " : "no, ") + t["why"].get<std::string>() + "\n";
  }
  if (e["fellBackToCatchAll"].get<bool>()) {
    out += "  (nothing matched; the apiserver falls back to catch-all)\n";
  }
  const json& level = e["level"];
  out += "\nflow schema:     " + e["flowSchema"].get<std::string>() + "\n";
  out += "priority level:  " + e["priorityLevel"].get<std::string>() + " (" +
         level["type"].get<std::string>();
  if (level.contains("limitResponse")) out += ", " + level["limitResponse"].get<std::string>();
  if (level.contains("queues")) {
    out += ": " + std::to_string(level["queues"].get<int>()) + " queues, hand size " +
           std::to_string(level["handSize"].get<int>()) + ", queue length limit " +
           std::to_string(level["queueLengthLimit"].get<int>());
  }
  out += ")\n";
  const std::string method = e["distinguisherMethod"].get<std::string>();
  if (e["usesFlowHash"].get<bool>()) {
    out += "distinguisher:   " + (method.empty() ? std::string("none") : method) + " -> \"" +
           e["distinguisher"].get<std::string>() + "\"\n";
    const std::uint64_t hash = std::stoull(e["hash"].get<std::string>());
    out += "flow hash:       " + e["hash"].get<std::string>() + " (" + Hex(hash) + ")\n";
  } else {
    out += "distinguisher:   \"\" (" + (method.empty() ? std::string("none") : method) +
           " is not computed: the level does not have more than one queue)\n";
    out += "flow hash:       0\n";
  }
  if (e["hand"].is_array()) {
    std::string cards;
    for (const json& card : e["hand"]) cards += (cards.empty() ? "" : ", ") + card.dump();
    out += "hand of queues:  " + cards + "\n";
  } else {
    out += "hand of queues:  " + e["handNote"].get<std::string>() + "\n";
  }
  out += "nominal seats:   " + level["nominalSeats"].dump() + " of " +
         level["serverConcurrencyLimit"].dump() + " (" + level["nominalConcurrencyShares"].dump() +
         " of " + level["shareSum"].dump() + " shares); lendable " + level["lendableSeats"].dump() +
         ", " + SeatBounds(level) + "\n";
  if (level.contains("maxSeatsPerRequest")) {
    out += "max seats/request: " + level["maxSeatsPerRequest"].dump() + "\n";
  }
  const json& w = e["workEstimate"];
  out += "work estimate:   " + w["initialSeats"].dump() + " seat(s)";
  if (w["finalSeats"].get<std::uint64_t>() > 0) {
    out += ", then " + w["finalSeats"].dump() + " for " +
           FormatDuration(static_cast<apf::Nanos>(
               std::llround(w["additionalLatencySeconds"].get<double>() * 1e9))) +
           " after it finishes";
  }
  out += "\n                 " + w["why"].get<std::string>() + "\n";
  return out;
}

json ExplainCollisions(const FlowControlSetup& setup, const std::string& level,
                       const std::vector<CollisionCall>& calls) {
  const int pl_index = setup.config.FindPriorityLevel(level);
  if (pl_index < 0) {
    std::string names;
    for (const apf::PriorityLevel& pl : setup.config.priority_levels) {
      names += (names.empty() ? "" : ", ") + pl.name;
    }
    throw InputError({}, "--collisions",
                     "no priority level \"" + level + "\"; the levels are " + names);
  }
  const apf::Classifier classifier(setup.config);
  const apf::PriorityLevel& pl = classifier.priority_level(pl_index);
  json out;
  out["priorityLevel"] = pl.name;
  const bool queues = pl.queues_requests();
  out["queues"] = queues ? json(pl.queuing.queues) : json(nullptr);
  out["handSize"] = queues ? json(pl.queuing.hand_size) : json(nullptr);
  // The hash is computed only where the level has more than one queue (flow_hash.h).
  const bool hashed = queues && pl.queuing.queues > 1;
  out["usesFlowHash"] = hashed;
  if (!hashed) out["note"] = NoHandReason(pl);
  json flows = json::array();
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (schema, distinguisher)
  std::vector<std::vector<int>> hands;
  for (const CollisionCall& call : calls) {
    const apf::Classification c =
        classifier.Classify(apf::MakeRequestDigest(call.user, call.request));
    if (c.priority_level != pl_index) continue;
    const std::string schema = classifier.flow_schema(c.flow_schema).metadata.name;
    const std::string distinguisher(c.distinguisher);
    auto [at, added] = index.emplace(std::pair{schema, distinguisher}, flows.size());
    if (added) {
      json flow = {
          {"flowSchema", schema}, {"distinguisher", distinguisher}, {"clients", json::array()}};
      std::vector<int> hand;
      if (hashed) {
        hand = FlowHand(classifier, c);
        flow["hash"] = std::to_string(classifier.FlowHash(c));
        flow["hand"] = hand;
      } else {
        flow["hash"] = "0";
        flow["hand"] = nullptr;
      }
      flows.push_back(flow);
      hands.push_back(std::move(hand));
    }
    json& clients = flows[at->second]["clients"];
    if (std::find(clients.begin(), clients.end(), call.client) == clients.end()) {
      clients.push_back(call.client);
    }
  }
  json shared = json::array();
  for (std::size_t i = 0; i < hands.size(); ++i) {
    for (std::size_t j = i + 1; j < hands.size(); ++j) {
      std::vector<int> a = hands[i], b = hands[j], both;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
      if (!both.empty()) shared.push_back({{"flows", {i, j}}, {"queues", both}});
    }
  }
  out["flows"] = flows;
  out["shared"] = shared;
  return out;
}

namespace {

std::string Cards(const json& list) {
  std::string out;
  for (const json& card : list) out += (out.empty() ? "" : ", ") + card.dump();
  return out;
}

// "argocd" or "other-operators[3], other-operators[4]": who sends the flow.
std::string FlowName(const json& flow) {
  std::string out;
  for (const json& c : flow["clients"]) out += (out.empty() ? "" : ", ") + c.get<std::string>();
  return out;
}

}  // namespace

std::string FormatCollisions(const json& e) {
  const json& flows = e["flows"];
  std::string out = "priority level " + e["priorityLevel"].get<std::string>() + ": ";
  if (e["usesFlowHash"].get<bool>()) {
    out += e["queues"].dump() + " queues, hand size " + e["handSize"].dump();
  } else {
    out += e["note"].get<std::string>();
  }
  out += "; " + std::to_string(flows.size()) + " flow" + (flows.size() == 1 ? "" : "s") +
         " of the scenario's clients land here\n";
  if (flows.empty()) return out;
  std::size_t width = 0;
  for (const json& f : flows) width = std::max(width, FlowName(f).size());
  out += "\nflows (client: FlowSchema / distinguisher, then the hand in deal order):\n";
  for (const json& f : flows) {
    const std::string name = FlowName(f);
    out += "  " + name + std::string(width - name.size(), ' ') + "  " +
           f["flowSchema"].get<std::string>() + " / \"" + f["distinguisher"].get<std::string>() +
           "\"";
    if (f["hand"].is_array()) out += "  hand " + Cards(f["hand"]);
    out += "\n";
  }
  if (!e["usesFlowHash"].get<bool>()) return out;
  const std::size_t pairs = flows.size() * (flows.size() - 1) / 2;
  out += "\nflows that share queues (" + std::to_string(e["shared"].size()) + " of " +
         std::to_string(pairs) + " pairs):\n";
  if (e["shared"].empty()) out += "  none: every hand is disjoint from the others\n";
  for (const json& s : e["shared"]) {
    const json& queues = s["queues"];
    out += "  " + FlowName(flows[s["flows"][0].get<std::size_t>()]) + " & " +
           FlowName(flows[s["flows"][1].get<std::size_t>()]) + ": queue" +
           (queues.size() == 1 ? " " : "s ") + Cards(queues) + "\n";
  }
  return out;
}

}  // namespace sim

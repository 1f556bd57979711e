#include "sim/world/trace_record.h"

#include <nlohmann/json.hpp>

#include "apf/queueing/shuffle_sharding.h"

namespace sim {
namespace {
double Seconds(apf::Nanos ns) { return static_cast<double>(ns) / 1e9; }
nlohmann::ordered_json SecondsOrNull(apf::Nanos ns) {
  return ns >= 0 ? nlohmann::ordered_json(Seconds(ns)) : nullptr;
}
}  // namespace

void DescribeFlow(const apf::FlowControlConfig& config, int flow_schema, std::uint64_t flow_hash,
                  std::string_view distinguisher, TraceRecord* r) {
  const apf::PriorityLevel& level = config.priority_levels[config.flow_schema_level[flow_schema]];
  r->flow_schema = config.flow_schemas[flow_schema].metadata.name;
  r->priority_level = level.name;
  r->distinguisher = distinguisher;
  r->flow_hash = flow_hash;
  if (level.uses_flow_hash() &&
      apf::Dealer::Check(level.queuing.queues, level.queuing.hand_size).ok()) {
    const apf::Hand hand =
        apf::Dealer(level.queuing.queues, level.queuing.hand_size).Deal(flow_hash);
    r->hand = std::vector<int>(hand.begin(), hand.end());
  }
}

std::string TraceJsonLine(const TraceRecord& r) {
  const apf::RequestInfo& info = *r.request;
  nlohmann::ordered_json line;
  line["call"] = r.call;
  line["try"] = r.try_number;
  line["client"] = r.client;
  line["process"] = r.process;
  line["user"] = r.user;
  line["verb"] = info.verb;
  if (info.is_resource_request) {
    line["resource"] =
        info.api_group.empty() ? info.resource : info.resource + "." + info.api_group;
    if (!info.subresource.empty()) line["subresource"] = info.subresource;
    line["namespace"] = info.namespace_name;
    line["name"] = info.name;
  } else {
    line["path"] = info.path;
  }
  line["replica"] = r.replica;
  if (r.flow_schema) {
    line["flowSchema"] = *r.flow_schema;
    line["priorityLevel"] = r.priority_level.value_or("");
    line["distinguisher"] = r.distinguisher;
    line["flowHash"] = r.flow_hash;
    if (r.hand) line["hand"] = *r.hand;
  } else if (r.priority_level) {
    line["priorityLevel"] = *r.priority_level;
  }
  line["queue"] = r.queue;
  line["seats"] = {{"initial", r.estimate.initial_seats},
                   {"final", r.estimate.final_seats},
                   {"additionalLatency", Seconds(r.estimate.additional_latency)}};
  line["arrival"] = Seconds(r.arrived);
  const apf::Nanos left_queue = r.dispatched >= 0 ? r.dispatched : r.answered;
  line["wait"] = left_queue >= 0 ? Seconds(left_queue - r.arrived) : 0.0;
  line["dispatch"] = SecondsOrNull(r.dispatched);
  line["finish"] = SecondsOrNull(r.finished);
  line["answered"] = SecondsOrNull(r.answered);
  line["released"] = Seconds(r.released);
  line["outcome"] = r.outcome.empty() ? std::string_view("completed") : r.outcome;
  line["reason"] = r.reason;
  line["status"] = r.status;
  line["retryAfter"] = r.retry_after;
  return line.dump();
}

}  // namespace sim

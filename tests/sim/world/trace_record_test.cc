// One trace.jsonl line written from a plain record (sim/world/trace_record.h): the keys in
// the documented order (scenarios/README.md, "--trace"), nulls for what did not happen,
// and the FlowSchema part only for a classified request.
#include "sim/world/trace_record.h"

#include <catch2/catch.hpp>

using apf::kMillisecond;
using apf::kSecond;

namespace {

apf::RequestInfo Pods() {
  apf::RequestInfo info;
  info.is_resource_request = true;
  info.verb = "list";
  info.api_group = "apps";
  info.resource = "deployments";
  info.namespace_name = "ns-1";
  return info;
}

}  // namespace

TEST_CASE("a classified request that completed", "[trace-record]") {
  const apf::RequestInfo info = Pods();
  sim::TraceRecord r;
  r.call = 7;
  r.try_number = 2;
  r.client = "web";
  r.process = 3;
  r.user = "alice";
  r.request = &info;
  r.replica = 1;
  r.flow_schema = "fs";
  r.priority_level = "pl";
  r.distinguisher = "ns-1";
  r.flow_hash = 42;
  r.hand = std::vector<int>{5, 2};
  r.queue = 2;
  r.estimate.initial_seats = 1;
  r.estimate.final_seats = 0;
  r.arrived = 1 * kSecond;
  r.dispatched = 1250 * kMillisecond;  // waited 0.25 s
  r.finished = 2 * kSecond;
  r.answered = 2 * kSecond;
  r.released = 2 * kSecond;
  r.status = 200;
  // The resource is "deployments.apps" (group appended); no subresource key when empty;
  // an empty outcome is written "completed".
  CHECK(sim::TraceJsonLine(r) ==
        R"({"call":7,"try":2,"client":"web","process":3,"user":"alice","verb":"list",)"
        R"("resource":"deployments.apps","namespace":"ns-1","name":"","replica":1,)"
        R"("flowSchema":"fs","priorityLevel":"pl","distinguisher":"ns-1","flowHash":42,)"
        R"("hand":[5,2],"queue":2,"seats":{"initial":1,"final":0,"additionalLatency":0.0},)"
        R"("arrival":1.0,"wait":0.25,"dispatch":1.25,"finish":2.0,"answered":2.0,)"
        R"("released":2.0,"outcome":"completed","reason":"","status":200,"retryAfter":0})");
}

TEST_CASE("a request refused before any level: no FlowSchema, nulls", "[trace-record]") {
  apf::RequestInfo info;
  info.is_resource_request = false;
  info.verb = "get";
  info.path = "/healthz";
  sim::TraceRecord r;
  r.call = 1;
  r.try_number = 1;
  r.client = "probe";
  r.user = "u";
  r.request = &info;
  r.arrived = 3 * kSecond;
  r.answered = 3 * kSecond;  // answered at once: waited 0 s
  r.released = 3 * kSecond;
  r.outcome = "rejected";
  r.reason = "gateway: TooManyConcurrentRequests";
  r.status = 429;
  // A non-resource request names its path; without a FlowSchema or a level neither key is
  // written; dispatch and finish did not happen: null.
  CHECK(sim::TraceJsonLine(r) ==
        R"({"call":1,"try":1,"client":"probe","process":0,"user":"u","verb":"get",)"
        R"("path":"/healthz","replica":0,"queue":-1,)"
        R"("seats":{"initial":0,"final":0,"additionalLatency":0.0},"arrival":3.0,"wait":0.0,)"
        R"("dispatch":null,"finish":null,"answered":3.0,"released":3.0,"outcome":"rejected",)"
        R"("reason":"gateway: TooManyConcurrentRequests","status":429,"retryAfter":0})");
  // A MaxInFlight pool names only its level.
  r.priority_level = "readonly";
  CHECK(sim::TraceJsonLine(r).find(R"("replica":0,"priorityLevel":"readonly","queue":-1)") !=
        std::string::npos);
}

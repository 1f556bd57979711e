// The `model estimate` and `model retry-after` replays: the documented field names,
// defaults and errors, on cases whose answers come from doc/model.md#list-estimate,
// #mutating-estimate, #retry-after.
#include "sim/model/estimate.h"

#include <catch2/catch.hpp>

#include "sim/io/input_error.h"
#include "sim/io/json_input.h"
#include "sim/model/retry_after.h"

TEST_CASE("model estimate replays list, write and missing-RequestInfo cases", "[replay]") {
  auto cases = sim::ParseJsonText(R"([
    {"request": {"verb": "list", "apiGroup": "", "apiVersion": "v1", "resource": "pods",
                 "subresource": "", "namespace": "", "name": "",
                 "query": "limit=500&continue=abc", "isResourceRequest": true,
                 "path": "/api/v1/pods"},
     "objectCount": 5000, "avgObjectSizeBytes": 10000, "statsError": "", "watchCount": 0,
     "maxSeats": 37, "featureGates": {"SizeBasedListCostEstimate": true, "WatchList": true},
     "consistentReadFromCache": true},
    {"request": {"verb": "create", "resource": "configmaps", "namespace": "kube-system"},
     "watchCount": 1000, "maxSeats": 4},
    {"request": {"verb": "list", "resource": "pods"}, "objectCount": 5000,
     "avgObjectSizeBytes": 10000, "featureGates": {"SizeBasedListCostEstimate": false}},
    {"request": {"verb": "list", "resource": "pods"}, "statsError": "notFound"},
    {"request": null, "maxSeats": 0}
  ])",
                                  "cases.json");
  auto out = sim::ReplayEstimateCases(cases, "cases.json");
  REQUIRE(out.size() == 5);
  // 6.2: 5000 × 10 KB page of 500 from etcd = 50, capped at 37 in workload-low.
  CHECK(out[0] ==
        nlohmann::json{{"initialSeats", 37}, {"finalSeats", 0}, {"additionalLatencyNs", 0}});
  // 6.3: W = 1000 in leader-election (cap 4) → {1, 4, 125 ms}.
  CHECK(out[1] ==
        nlohmann::json{{"initialSeats", 1}, {"finalSeats", 4}, {"additionalLatencyNs", 125000000}});
  // 6.2: count-based from the cache, 50 capped at 10.
  CHECK(out[2]["initialSeats"] == 10);
  CHECK(out[3]["initialSeats"] == 1);
  CHECK(out[4]["initialSeats"] == 100);
}

TEST_CASE("model estimate rejects unknown fields and values with their path", "[replay]") {
  auto bad_field = sim::ParseJsonText(R"([{"request": {"verb": "list", "group": "apps"}}])", "x");
  CHECK_THROWS_AS(sim::ReplayEstimateCases(bad_field, "x"), sim::InputError);
  auto bad_error = sim::ParseJsonText(R"([{"request": null, "statsError": "gone"}])", "x");
  try {
    sim::ReplayEstimateCases(bad_error, "x");
    FAIL("expected an InputError");
  } catch (const sim::InputError& e) {
    CHECK(e.field_path() == "[0].statsError");
  }
  auto no_request = sim::ParseJsonText(R"([{"objectCount": 1}])", "x");
  CHECK_THROWS_AS(sim::ReplayEstimateCases(no_request, "x"), sim::InputError);
}

TEST_CASE("model retry-after gives each drop's header value", "[replay]") {
  // 3 drops in each of 4 seconds: 1,1,1, 2,2,2, 2,2,2, 4,4,4 (doc/model.md#retry-after).
  auto cases = sim::ParseJsonText(R"([
    {"drops": [1700000000, 1700000000.25, 1700000000.9, 1700000001, 1700000001.5,
               1700000001.6, 1700000002, 1700000002, 1700000002, 1700000003, 1700000003.1,
               1700000003.999]},
    {"drops": []}
  ])",
                                  "x");
  auto out = sim::ReplayRetryAfterCases(cases, "x");
  CHECK(out[0]["retryAfter"] == nlohmann::json{1, 1, 1, 2, 2, 2, 2, 2, 2, 4, 4, 4});
  CHECK(out[1]["retryAfter"] == nlohmann::json::array());
  auto bad = sim::ParseJsonText(R"([{"drops": ["soon"]}])", "x");
  CHECK_THROWS_AS(sim::ReplayRetryAfterCases(bad, "x"), sim::InputError);
}

// The work estimator's configuration a scenario's apiservers run with: each gate's default
// follows the scenario's kubernetesVersion, as pkg/features/kube_features.go's versioned
// specs give it, and `featureGates` overrides any of them.
#include "sim/scenario/feature_gates.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "sim/io/input_error.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"
#include "tests/support/request_support.h"
#include "tests/support/test_support.h"

namespace {

sim::ApiserverSpec At(const std::string& version) {
  sim::ApiserverSpec api;
  api.kubernetes_version = version;
  return api;
}

// One object count and size for every resource.
struct FixedStats final : apf::ObjectStatsSource {
  apf::ObjectStats stats;
  apf::ObjectStatsResult GetStats(std::string_view, std::string_view, apf::Nanos) const override {
    return {stats, apf::ObjectStatsError::kNone};
  }
};
struct NoWatches final : apf::WatchCountSource {
  std::int64_t InterestedWatchCount(const apf::RequestInfo&) const override { return 0; }
};

std::uint64_t ListSeats(const sim::ApiserverSpec& api, std::int64_t objects, std::int64_t bytes,
                        const std::string& verb = "list", const std::string& query = "") {
  FixedStats stats;
  stats.stats = {objects, bytes};
  NoWatches watches;
  const apf::WorkEstimator estimator(sim::WorkEstimatorConfigOf(api), &stats, &watches);
  apf::RequestInfo r = test_support::ResourceRequest(verb, "", "configmaps", "default");
  r.query = apf::ParseRequestQuery(query);
  return estimator.Estimate(&r, 0, 0).initial_seats;
}

}  // namespace

TEST_CASE("feature gates default on and follow the scenario's featureGates", "[scenario]") {
  sim::ApiserverSpec api;  // 1.36
  CHECK(sim::FeatureGateEnabled(api, "SizeBasedListCostEstimate"));
  CHECK(sim::FeatureGateEnabled(api, "WatchList"));
  CHECK(sim::FeatureGateEnabled(api, "ConsistentListFromCache"));
  CHECK(sim::WorkEstimatorConfigOf(api).maximum_list_seats_limit == 100);
  api.feature_gates["SizeBasedListCostEstimate"] = false;
  api.consistent_list_from_cache = false;
  const apf::WorkEstimatorConfig c = sim::WorkEstimatorConfigOf(api);
  CHECK_FALSE(c.size_based_list_cost_estimate);
  CHECK(c.maximum_list_seats_limit == 10);  // DefaultWorkEstimatorConfig with the gate off
  CHECK(c.watch_list);
  CHECK_FALSE(c.consistent_read_from_cache);
}

TEST_CASE("each version's gate defaults, as kube_features.go's versioned specs give them",
          "[scenario][versions]") {
  // SizeBasedListCostEstimate: {1.34, true, Beta}. WatchList: {1.27 false Alpha}, {1.32
  // true Beta}, {1.33 false Beta}, {1.34 true Beta}. ConsistentListFromCache: {1.28 false
  // Alpha}, {1.31 true Beta}, {1.34 true GA}.
  struct Row {
    const char* version;
    bool size_based, watch_list, consistent;
  };
  for (const Row& r : {Row{"1.29", false, false, false}, Row{"1.30", false, false, false},
                       Row{"1.31", false, false, true}, Row{"1.32", false, true, true},
                       Row{"1.33", false, false, true}, Row{"1.34", true, true, true},
                       Row{"1.35", true, true, true}, Row{"1.37", true, true, true}}) {
    INFO(r.version);
    const sim::ApiserverSpec api = At(r.version);
    CHECK(sim::FeatureGateEnabled(api, "SizeBasedListCostEstimate") == r.size_based);
    CHECK(sim::FeatureGateEnabled(api, "WatchList") == r.watch_list);
    CHECK(sim::FeatureGateEnabled(api, "ConsistentListFromCache") == r.consistent);
    CHECK(sim::WorkEstimatorConfigOf(api).maximum_list_seats_limit == (r.size_based ? 100 : 10));
  }
  // A scenario's featureGates still wins over the version's default.
  sim::ApiserverSpec api = At("1.33");
  api.feature_gates["SizeBasedListCostEstimate"] = true;
  api.feature_gates["WatchList"] = true;
  CHECK(sim::WorkEstimatorConfigOf(api).size_based_list_cost_estimate);
  CHECK(sim::WorkEstimatorConfigOf(api).watch_list);
}

TEST_CASE("450 ConfigMaps of 100 bytes: 5 seats at 1.33, 1 at 1.36", "[scenario][versions]") {
  // 1.33 has no SizeBasedListCostEstimate: the list estimator charges one seat per 100
  // objects, ceil(450 / 100) = 5 (doc/model.md#list-estimate, by count). 1.36 charges one seat per
  // 100,000 bytes: 450 x 100 = 45,000 bytes, ceil(0.45) = 1.
  CHECK(ListSeats(At("1.33"), 450, 100) == 5);
  CHECK(ListSeats(At("1.36"), 450, 100) == 1);
  // The count-based estimate is capped at 10 seats (maximumListSeatsLimit with the gate
  // off): 100,000 objects would be 1,000.
  CHECK(ListSeats(At("1.33"), 100000, 100) == 10);
}

TEST_CASE("a watch at resourceVersion 0 is priced as its initial LIST from 1.35",
          "[scenario][versions]") {
  // list_work_estimator.go at 1.35 (doc/model.md#list-estimate step 3): with WatchList on, a
  // "legacy" watch at resourceVersion "" or "0" computes its initial events and is priced as that
  // LIST even without sendInitialEvents; at 1.34 only sendInitialEvents=true watches
  // were. 5,000 objects of 10 KB from the cache: 50 MB, capped at the 1 MB of a streamed
  // cache LIST, 10 seats.
  CHECK(ListSeats(At("1.34"), 5000, 10000, "watch", "resourceVersion=0") == 1);
  CHECK(ListSeats(At("1.35"), 5000, 10000, "watch", "resourceVersion=0") == 10);
  CHECK(ListSeats(At("1.34"), 5000, 10000, "watch",
                  "resourceVersion=0&sendInitialEvents=true&resourceVersionMatch=NotOlderThan") ==
        10);
  // At 1.33 WatchList is off: every watch is 1 seat.
  CHECK(ListSeats(At("1.33"), 5000, 10000, "watch",
                  "resourceVersion=0&sendInitialEvents=true&resourceVersionMatch=NotOlderThan") ==
        1);
}

TEST_CASE("v1beta3 objects are served up to 1.31 and refused from 1.32", "[scenario][versions]") {
  // kubernetes#127017: flowcontrol.apiserver.k8s.io/v1beta3 is no longer served in 1.32;
  // a scenario of 1.32 or later refuses such an object as `kubectl apply` would.
  const test_support::ScratchDir scratch("apfsim-v1beta3");
  const std::filesystem::path file = scratch.path() / "scenario.yaml";
  std::ofstream(file) << R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: beta}
spec:
  duration: 1s
  apiservers: {kubernetesVersion: "1.31"}
  flowControl:
    objects:
    - apiVersion: flowcontrol.apiserver.k8s.io/v1beta3
      kind: PriorityLevelConfiguration
      metadata: {name: old}
      spec: {type: Limited, limited: {nominalConcurrencyShares: 5, limitResponse: {type: Reject}}}
  clients:
  - {name: c, user: u, traffic: [{constant: {rate: 1, request: {verb: get, resource: pods, namespace: a, name: p}}}]}
)";
  sim::Scenario s = sim::LoadScenario(file.string());
  CHECK(sim::BuildScenarioFlowControl(s).config.FindPriorityLevel("old") >= 0);
  s.apiservers.kubernetes_version = "1.32";
  try {
    sim::BuildScenarioFlowControl(s);
    FAIL("expected an InputError");
  } catch (const sim::InputError& e) {
    CHECK(std::string(e.what()).find("is not served by Kubernetes 1.32") != std::string::npos);
  }
}

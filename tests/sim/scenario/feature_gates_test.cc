// The work estimator's configuration a scenario's apiservers run with: both gates on by
// default (Beta since 1.34, APF-SPEC 6), each overridable by `featureGates`.
#include "sim/scenario/feature_gates.h"

#include <catch2/catch.hpp>

TEST_CASE("feature gates default on and follow the scenario's featureGates", "[scenario]") {
  sim::ApiserverSpec api;
  CHECK(sim::FeatureGateEnabled(api, "SizeBasedListCostEstimate"));
  CHECK(sim::FeatureGateEnabled(api, "WatchList"));
  CHECK(sim::WorkEstimatorConfigOf(api).maximum_list_seats_limit == 100);
  api.feature_gates["SizeBasedListCostEstimate"] = false;
  api.consistent_list_from_cache = false;
  const apf::WorkEstimatorConfig c = sim::WorkEstimatorConfigOf(api);
  CHECK_FALSE(c.size_based_list_cost_estimate);
  CHECK(c.maximum_list_seats_limit == 10);  // DefaultWorkEstimatorConfig with the gate off
  CHECK(c.watch_list);
  CHECK_FALSE(c.consistent_read_from_cache);
}

#include "sim/scenario/feature_gates.h"

#include <string>

namespace sim {

bool FeatureGateEnabled(const ApiserverSpec& apiservers, std::string_view gate) {
  const auto it = apiservers.feature_gates.find(std::string(gate));
  if (it != apiservers.feature_gates.end()) return it->second;
  // Both gates the scenario format knows are Beta and on by default (APF-SPEC 6).
  return gate == "SizeBasedListCostEstimate" || gate == "WatchList";
}

apf::WorkEstimatorConfig WorkEstimatorConfigOf(const ApiserverSpec& apiservers) {
  return apf::DefaultWorkEstimatorConfig(
      FeatureGateEnabled(apiservers, "SizeBasedListCostEstimate"),
      FeatureGateEnabled(apiservers, "WatchList"), apiservers.consistent_list_from_cache);
}

}  // namespace sim

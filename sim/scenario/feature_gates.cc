#include "sim/scenario/feature_gates.h"

#include <string>

namespace sim {

bool FeatureGateDefault(apf::KubernetesVersion version, std::string_view gate) {
  const int minor = version.major == 1 ? version.minor : 99;
  if (gate == "SizeBasedListCostEstimate") return minor >= 34;  // kubernetes#132233
  if (gate == "WatchList") return minor == 32 || minor >= 34;   // Beta 1.32, off in 1.33
  if (gate == "ConsistentListFromCache") return minor >= 31;    // Beta 1.31
  return false;
}

apf::KubernetesVersion KubernetesVersionOf(const ApiserverSpec& apiservers) {
  return apf::ParseKubernetesVersion(apiservers.kubernetes_version)
      .value_or(apf::kNewestKubernetesVersion);
}

bool FeatureGateEnabled(const ApiserverSpec& apiservers, std::string_view gate) {
  const auto it = apiservers.feature_gates.find(std::string(gate));
  if (it != apiservers.feature_gates.end()) return it->second;
  return FeatureGateDefault(KubernetesVersionOf(apiservers), gate);
}

bool ConsistentReadsFromCache(const ApiserverSpec& apiservers) {
  return apiservers.consistent_list_from_cache &&
         FeatureGateEnabled(apiservers, "ConsistentListFromCache");
}

namespace {

apf::WorkEstimatorConfig ConfigOf(apf::KubernetesVersion version, bool size_based, bool watch_list,
                                  bool consistent_reads) {
  apf::WorkEstimatorConfig c =
      apf::DefaultWorkEstimatorConfig(size_based, watch_list, consistent_reads);
  // A legacy watch (resourceVersion "" or "0") computes its initial events; since 1.35
  // the list estimator prices it like that LIST even without sendInitialEvents.
  c.legacy_watch_priced_as_list = version >= apf::KubernetesVersion{1, 35};
  return c;
}

}  // namespace

apf::WorkEstimatorConfig WorkEstimatorConfigOf(const ApiserverSpec& apiservers) {
  return ConfigOf(
      KubernetesVersionOf(apiservers), FeatureGateEnabled(apiservers, "SizeBasedListCostEstimate"),
      FeatureGateEnabled(apiservers, "WatchList"), ConsistentReadsFromCache(apiservers));
}

apf::WorkEstimatorConfig WorkEstimatorConfigOf(apf::KubernetesVersion version) {
  return ConfigOf(version, FeatureGateDefault(version, "SizeBasedListCostEstimate"),
                  FeatureGateDefault(version, "WatchList"),
                  FeatureGateDefault(version, "ConsistentListFromCache"));
}

}  // namespace sim

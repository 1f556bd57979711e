// What a scenario's Kubernetes version decides beyond its default objects: the defaults of
// the feature gates APF depends on, and the work-estimator configuration they and the
// version select (doc/model.md#work-estimation; doc/versions.md):
//   SizeBasedListCostEstimate  Beta, on from 1.34; absent before (a LIST is priced by
//                              object count with a 10-seat cap)
//   WatchList                  off to 1.31, on in 1.32, off again in 1.33, on from 1.34
//   ConsistentListFromCache    off to 1.30, on from 1.31 (GA 1.34)
// as k8s.io/apiserver pkg/features/kube_features.go's versioned specs give them. A
// scenario's `featureGates` overrides any default; a consistent LIST is served from the
// watch cache when ConsistentListFromCache is on and etcd supports it
// (`consistentListFromCache`). The world and `apfsim explain` price requests with the
// same configuration. Tested by tests/sim/scenario/feature_gates_test.cc.
#ifndef SIM_SCENARIO_FEATURE_GATES_H_
#define SIM_SCENARIO_FEATURE_GATES_H_

#include <string_view>

#include "apf/config/bootstrap.h"
#include "apf/estimation/work_estimator.h"
#include "sim/scenario/scenario.h"

namespace sim {

// The gates a scenario's `featureGates` may name.
inline constexpr std::string_view kKnownFeatureGates[] = {"ConsistentListFromCache",
                                                          "SizeBasedListCostEstimate", "WatchList"};

// A gate's default on `version`.
bool FeatureGateDefault(apf::KubernetesVersion version, std::string_view gate);

// The apiservers' Kubernetes version (the newest supported when it does not parse; the
// loader refuses such a scenario before anything runs).
apf::KubernetesVersion KubernetesVersionOf(const ApiserverSpec& apiservers);

// The gate's value on these apiservers: the scenario's `featureGates` entry, else the
// version's default.
bool FeatureGateEnabled(const ApiserverSpec& apiservers, std::string_view gate);

// Whether a consistent LIST (no resourceVersion) is served from the watch cache.
bool ConsistentReadsFromCache(const ApiserverSpec& apiservers);

// The work estimator's configuration on these apiservers.
apf::WorkEstimatorConfig WorkEstimatorConfigOf(const ApiserverSpec& apiservers);

// The work estimator's configuration of `version` with every gate at its default and an
// etcd that supports consistent reads from the cache.
apf::WorkEstimatorConfig WorkEstimatorConfigOf(apf::KubernetesVersion version);

}  // namespace sim

#endif  // SIM_SCENARIO_FEATURE_GATES_H_

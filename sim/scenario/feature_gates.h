// The feature gates of a scenario's apiservers and the work-estimator configuration they
// select (APF-SPEC 6): SizeBasedListCostEstimate and WatchList, Beta and on by default
// since 1.34, unless the scenario's `featureGates` says otherwise, and whether a
// consistent LIST is served from the watch cache (`consistentListFromCache`). The world
// and `apfsim explain --scenario` price requests with the same configuration.
// Tested by tests/sim/scenario/feature_gates_test.cc.
#ifndef SIM_SCENARIO_FEATURE_GATES_H_
#define SIM_SCENARIO_FEATURE_GATES_H_

#include <string_view>

#include "apf/work_estimator.h"
#include "sim/scenario/scenario.h"

namespace sim {

// The gate's value on these apiservers: the scenario's `featureGates` entry, else the default.
bool FeatureGateEnabled(const ApiserverSpec& apiservers, std::string_view gate);

// The work estimator's configuration on these apiservers.
apf::WorkEstimatorConfig WorkEstimatorConfigOf(const ApiserverSpec& apiservers);

}  // namespace sim

#endif  // SIM_SCENARIO_FEATURE_GATES_H_

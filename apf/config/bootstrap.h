// The flow-control objects every kube-apiserver brings with it, per Kubernetes version:
// the mandatory ones (exempt and catch-all, which the apiserver will not let anyone
// change) and the suggested ones (system, node-high, leader-election, workload-high,
// workload-low, global-default and their FlowSchemas), as data
// (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap/default.go at each release).
//
// Versions 1.29 to 1.33 share one set; 1.34 removed the two FlowSchemas for leader
// election through endpoints and configmaps (endpoint-controller, workload-leader-election);
// 1.34 to 1.37 share the rest. doc/model.md#default-objects.
#ifndef APF_CONFIG_BOOTSTRAP_H_
#define APF_CONFIG_BOOTSTRAP_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apf/config/flow_schema.h"
#include "apf/config/priority_level_configuration.h"

namespace apf {

struct KubernetesVersion {
  int major = 1;
  int minor = 36;

  auto operator<=>(const KubernetesVersion&) const = default;
  std::string ToString() const;  // "1.36"
};

inline constexpr KubernetesVersion kDefaultKubernetesVersion{1, 36};
inline constexpr KubernetesVersion kOldestKubernetesVersion{1, 29};
inline constexpr KubernetesVersion kNewestKubernetesVersion{1, 37};

// Accepts "1.36", "v1.36" and "1.36.3" (the patch release does not change APF's objects
// within a minor release). Versions outside 1.29..1.37 are refused with a message.
std::optional<KubernetesVersion> ParseKubernetesVersion(std::string_view text,
                                                        std::string* error = nullptr);

struct BootstrapObjects {
  std::vector<PriorityLevelConfiguration> mandatory_priority_levels;  // catch-all, exempt
  std::vector<FlowSchema> mandatory_flow_schemas;                     // exempt, catch-all
  std::vector<PriorityLevelConfiguration> suggested_priority_levels;
  std::vector<FlowSchema> suggested_flow_schemas;
};

// The objects of `version`, in the order default.go lists them. Every field is set, so
// defaulting does not change them (the apiserver's own unit tests check the same).
BootstrapObjects Bootstrap(KubernetesVersion version);

// The mandatory objects, which are the same in every supported version; nullptr for
// other names. Validation compares user objects of these names with them.
const FlowSchema* MandatoryFlowSchema(std::string_view name);
const PriorityLevelConfiguration* MandatoryPriorityLevel(std::string_view name);

// Whether `name` is one of the version's suggested objects.
bool IsSuggestedFlowSchema(KubernetesVersion version, std::string_view name);
bool IsSuggestedPriorityLevel(KubernetesVersion version, std::string_view name);

}  // namespace apf

#endif  // APF_CONFIG_BOOTSTRAP_H_

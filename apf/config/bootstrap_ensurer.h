// What kube-apiserver's config producer does to the flow-control objects of a cluster
// (k/k pkg/registry/flowcontrol/ensurer: EnsureConfigurations, RemoveUnwantedObjects;
// doc/model.md#mandatory-objects), so that "these objects applied to a cluster of version V" gives
// the objects the APF filter ends up with:
//   - a missing mandatory or suggested object is created from the version's bootstrap;
//   - a mandatory object's spec is forced back to the fixed value, except the exempt
//     level's `spec.exempt` (its shares and lendable percent), which the admin may tune;
//   - a suggested object's spec is forced back when auto-update is on: the annotation
//     apf.kubernetes.io/autoupdate-spec parses as true, or it is missing or unparsable and
//     the object's generation is 1;
//   - an object that is not (or no longer) in the version's bootstrap but carries the
//     annotation with a true value is deleted (an upgrade drops retired suggestions).
//
// Objects read from files usually have no generation. Such an object is taken as the live
// object the user wants the cluster to have: its spec stays unless it is annotated
// autoupdate-spec "true" (as objects dumped from a cluster are). On a real cluster,
// `kubectl apply` of an edited suggested object keeps the live annotation ("true") unless
// the file sets it, and the producer reverts the spec within a minute; `apfsim lint`
// warns about that instead of simulating the revert.
#ifndef APF_CONFIG_BOOTSTRAP_ENSURER_H_
#define APF_CONFIG_BOOTSTRAP_ENSURER_H_

#include <vector>

#include "apf/config/bootstrap.h"
#include "apf/config/flow_control_config.h"

namespace apf {

// Go's strconv.ParseBool: 1 t T TRUE true True 0 f F FALSE false False.
std::optional<bool> ParseGoBool(std::string_view s);

// The cluster's objects after the config producer has run on `applied` (the user's
// defaulted, valid objects with unique names). `notes` (may be null) says what changed.
FlowControlObjects EnsureBootstrapObjects(KubernetesVersion version,
                                          const FlowControlObjects& applied,
                                          std::vector<ConfigNote>* notes);

// The mandatory objects only (exempt and catch-all, levels and FlowSchemas) ensured on
// `applied` as the producer does for every cluster, whatever else it suggests: for a
// scenario's `defaults: false`, where no suggested object exists but a FlowSchema may
// still name the exempt level.
FlowControlObjects EnsureMandatoryObjects(KubernetesVersion version,
                                          const FlowControlObjects& applied,
                                          std::vector<ConfigNote>* notes);

}  // namespace apf

#endif  // APF_CONFIG_BOOTSTRAP_ENSURER_H_

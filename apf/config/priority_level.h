// A priority level as the rest of APF uses it once the configuration is digested: the
// numbers the concurrency allocation (doc/model.md#nominal-seats) and the queue set
// (doc/model.md#queue-set) need, with the API's optional fields already defaulted and the union
// already resolved (k8s.io/apiserver pkg/util/flowcontrol/apf_controller.go: priorityLevelState and
// plSpecCommons).
#ifndef APF_CONFIG_PRIORITY_LEVEL_H_
#define APF_CONFIG_PRIORITY_LEVEL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "apf/allocation/priority_level_limits.h"  // PriorityLevelType, PriorityLevelAllocationSpec
#include "apf/config/priority_level_configuration.h"

namespace apf {

enum class LimitResponseType { kQueue, kReject };

struct PriorityLevel {
  std::string name;
  PriorityLevelType type = PriorityLevelType::kLimited;
  // Exempt levels have shares too (default 0); they count in the share sum
  // (doc/model.md#nominal-seats).
  std::int32_t nominal_concurrency_shares = 0;
  std::int32_t lendable_percent = 0;
  // nullopt: unlimited borrowing (borrowingCL = serverCL). Always nullopt for Exempt.
  std::optional<std::int32_t> borrowing_limit_percent;
  // Meaningful for Limited levels only.
  LimitResponseType limit_response = LimitResponseType::kReject;
  // Meaningful when limit_response is kQueue.
  QueuingConfiguration queuing;
  // True when the level was supplied from the built-in prototype because no object of
  // that name was usable (apf_controller.go imaginePL).
  bool imagined = false;

  bool exempt() const { return type == PriorityLevelType::kExempt; }
  bool queues_requests() const { return !exempt() && limit_response == LimitResponseType::kQueue; }
  // The queue set's DesiredNumQueues: -1 for Exempt, 0 for Reject, else queues.
  int DesiredNumQueues() const {
    if (exempt()) return -1;
    return queues_requests() ? queuing.queues : 0;
  }
  // Whether the filter computes a distinguisher and a flow hash for this level
  // (apf_controller.go startRequest: only when numQueues > 1).
  bool uses_flow_hash() const { return queues_requests() && queuing.queues > 1; }

  // What the concurrency allocation reads of this level (apf/allocation/priority_level_limits.h).
  PriorityLevelAllocationSpec AllocationSpec() const;
};

// The view of a defaulted, valid object. The caller checks validity first.
PriorityLevel MakePriorityLevel(const PriorityLevelConfiguration& pl);

}  // namespace apf

#endif  // APF_CONFIG_PRIORITY_LEVEL_H_

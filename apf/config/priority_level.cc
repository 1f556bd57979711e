#include "apf/config/priority_level.h"

namespace apf {

PriorityLevelAllocationSpec PriorityLevel::AllocationSpec() const {
  PriorityLevelAllocationSpec spec;
  spec.name = name;
  spec.type = type;
  spec.nominal_concurrency_shares = nominal_concurrency_shares;
  spec.lendable_percent = lendable_percent;
  if (!exempt()) spec.borrowing_limit_percent = borrowing_limit_percent;
  if (queues_requests()) spec.queuing_hand_size = queuing.hand_size;
  return spec;
}

PriorityLevel MakePriorityLevel(const PriorityLevelConfiguration& pl) {
  PriorityLevel level;
  level.name = pl.metadata.name;
  // plSpecCommons: the Limited fields when `limited` is set, else the Exempt ones.
  if (const auto& limited = pl.spec.limited) {
    level.type = PriorityLevelType::kLimited;
    level.nominal_concurrency_shares = limited->nominal_concurrency_shares.value_or(0);
    level.lendable_percent = limited->lendable_percent.value_or(0);
    level.borrowing_limit_percent = limited->borrowing_limit_percent;
    if (limited->limit_response.type == kLimitResponseQueue && limited->limit_response.queuing) {
      level.limit_response = LimitResponseType::kQueue;
      level.queuing = *limited->limit_response.queuing;
    } else {
      level.limit_response = LimitResponseType::kReject;
    }
  } else {
    level.type = PriorityLevelType::kExempt;
    if (const auto& exempt = pl.spec.exempt) {
      level.nominal_concurrency_shares = exempt->nominal_concurrency_shares.value_or(0);
      level.lendable_percent = exempt->lendable_percent.value_or(0);
    }
  }
  return level;
}

}  // namespace apf

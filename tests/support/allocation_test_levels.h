// The suggested and mandatory priority levels of Kubernetes 1.34-1.37 as allocation
// specs, written out from the table in doc/model.md#default-objects (bootstrap/default.go), for the
// allocation tests. Kept here rather than taken from the bootstrap model so that these
// tests check the allocation against the spec's table on their own.
#ifndef TESTS_ALLOCATION_TEST_LEVELS_H_
#define TESTS_ALLOCATION_TEST_LEVELS_H_

#include <optional>
#include <string>
#include <vector>

#include "apf/allocation/priority_level_limits.h"

namespace allocation_test {

inline apf::PriorityLevelAllocationSpec Level(std::string name, int shares, int lendable_percent,
                                              std::optional<int> hand_size,
                                              std::optional<int> borrowing_percent = {}) {
  apf::PriorityLevelAllocationSpec spec;
  spec.name = std::move(name);
  spec.nominal_concurrency_shares = shares;
  spec.lendable_percent = lendable_percent;
  spec.borrowing_limit_percent = borrowing_percent;
  spec.queuing_hand_size = hand_size;
  return spec;
}

inline apf::PriorityLevelAllocationSpec ExemptLevel() {
  apf::PriorityLevelAllocationSpec spec = Level("exempt", 0, 0, std::nullopt);
  spec.type = apf::PriorityLevelType::kExempt;
  return spec;
}

// doc/model.md#default-objects: name, shares, lendable%, handSize (none for Reject and Exempt); no
// level sets borrowingLimitPercent.
inline std::vector<apf::PriorityLevelAllocationSpec> DefaultLevels() {
  return {
      ExemptLevel(),
      Level("catch-all", 5, 0, std::nullopt),
      Level("system", 30, 33, 6),
      Level("node-high", 40, 25, 6),
      Level("leader-election", 10, 0, 4),
      Level("workload-high", 40, 50, 6),
      Level("workload-low", 100, 90, 6),
      Level("global-default", 20, 50, 6),
  };
}

}  // namespace allocation_test

#endif  // TESTS_ALLOCATION_TEST_LEVELS_H_

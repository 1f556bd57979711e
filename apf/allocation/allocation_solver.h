// The fair-proportion solver of APF borrowing (doc/model.md#allocation-solver), mirroring
// computeConcurrencyAllocation in k8s.io/apiserver pkg/util/flowcontrol/conc_alloc.go.
//
// Given a required total and, per priority level, a lower bound, an upper bound and a
// target, it finds the one "fair proportion" p such that the allocations
// clamp(p * target, lower, upper) add up to the total. The periodic re-division
// (concurrency_allocation.h) calls it with the sum of the nominal limits.
#ifndef APF_ALLOCATION_ALLOCATION_SOLVER_H_
#define APF_ALLOCATION_ALLOCATION_SOLVER_H_

#include <cstdint>
#include <vector>

#include "apf/base/status.h"

namespace apf {

// One class (priority level) of the allocation problem. The solver requires
// target >= lower_bound >= 0 and upper_bound >= lower_bound.
struct AllocProblemItem {
  double target = 0;
  double lower_bound = 0;
  double upper_bound = 0;
};

// A target below this is treated as this, so that no target is zero (conc_alloc.go
// MinTarget): a class with no demand still gets a sliver in proportion to the others.
inline constexpr double kAllocMinTarget = 0.001;

struct ConcurrencyAllocation {
  std::vector<double> allocs;  // one per item, in the items' order
  double fair_prop = 0;        // the solution's proportion (the fair_frac metric)
};

// Solves the problem for `required_sum` seats. Errors, as in the Go code, when an item's
// bounds or target are inconsistent, when the lower bounds sum to more than
// `required_sum` (by more than 1e-7), or the upper bounds to less. When a bound leaves no
// room, every item gets that bound and fair_prop is the smallest relative lower bound
// (or the largest relative upper bound); a zero total gives all zeros and fair_prop 0.
Status ComputeConcurrencyAllocation(std::int64_t required_sum,
                                    const std::vector<AllocProblemItem>& items,
                                    ConcurrencyAllocation* result);

}  // namespace apf

#endif  // APF_ALLOCATION_ALLOCATION_SOLVER_H_

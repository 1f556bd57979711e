#include "apf/allocation/allocation_solver.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>

namespace apf {
namespace {

// Slack for "no room left" and for the impossibility checks (conc_alloc.go epsilon).
constexpr double kEpsilon = 1e-7;

template <typename... Args>
std::string Format(const char* fmt, Args... args) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// One end of one item's range, divided by the item's target: the proportion at which
// the item starts (lower) or stops (upper) following the fair proportion.
struct RelativeBound {
  double proportion;
  int item;
  bool lower;
};

}  // namespace

Status ComputeConcurrencyAllocation(std::int64_t required_sum,
                                    const std::vector<AllocProblemItem>& items,
                                    ConcurrencyAllocation* result) {
  if (required_sum < 0) return Status::Invalid("negative sums are not supported");
  const double required = static_cast<double>(required_sum);
  const size_t n = items.size();

  // Targets raised to kAllocMinTarget, and the bounds relative to them. The sums are
  // accumulated in item order, as the Go code does.
  std::vector<double> targets(n);
  std::vector<RelativeBound> bounds;
  bounds.reserve(2 * n);
  double low_sum = 0, high_sum = 0, target_sum = 0;
  // As in Go, the minima start at MaxFloat32 and the maxima at 0.
  double rel_lower_min = FLT_MAX, rel_lower_max = 0;
  double rel_upper_min = FLT_MAX, rel_upper_max = 0;
  for (size_t i = 0; i < n; ++i) {
    const AllocProblemItem& item = items[i];
    if (item.lower_bound < 0) {
      return Status::Invalid(Format(
          "lower bound %zu is %g but negative lower bounds are not allowed", i, item.lower_bound));
    }
    if (item.target < item.lower_bound) {
      return Status::Invalid(Format("target %zu is %g, which is below its lower bound of %g", i,
                                    item.target, item.lower_bound));
    }
    if (item.upper_bound < item.lower_bound) {
      return Status::Invalid(
          Format("upper bound %zu is %g but should not be less than the lower bound %g", i,
                 item.upper_bound, item.lower_bound));
    }
    const double target = std::max(item.target, kAllocMinTarget);
    targets[i] = target;
    low_sum += item.lower_bound;
    high_sum += item.upper_bound;
    target_sum += target;
    const double rel_lower = item.lower_bound / target;
    const double rel_upper = item.upper_bound / target;
    rel_lower_min = std::min(rel_lower_min, rel_lower);
    rel_lower_max = std::max(rel_lower_max, rel_lower);
    rel_upper_min = std::min(rel_upper_min, rel_upper);
    rel_upper_max = std::max(rel_upper_max, rel_upper);
    bounds.push_back({rel_lower, static_cast<int>(i), true});
    bounds.push_back({rel_upper, static_cast<int>(i), false});
  }
  if (rel_lower_max > 1) {
    return Status::Invalid(
        Format("the largest relative lower bound exceeds 1 by %g", rel_lower_max - 1));
  }
  if (low_sum - required > kEpsilon) {
    return Status::Invalid(
        Format("lower bounds sum to %g, which is higher than the required sum of %lld", low_sum,
               static_cast<long long>(required_sum)));
  }
  if (required - high_sum > kEpsilon) {
    return Status::Invalid(
        Format("upper bounds sum to %g, which is lower than the required sum of %lld", high_sum,
               static_cast<long long>(required_sum)));
  }

  result->allocs.assign(n, 0.0);
  result->fair_prop = 0;
  if (required_sum == 0) return Status::OK();
  if (low_sum - required > -kEpsilon) {  // no room: everyone at the lower bound
    for (size_t i = 0; i < n; ++i) result->allocs[i] = items[i].lower_bound;
    result->fair_prop = rel_lower_min;
    return Status::OK();
  }
  if (required - high_sum > -kEpsilon) {  // no room: everyone at the upper bound
    for (size_t i = 0; i < n; ++i) result->allocs[i] = items[i].upper_bound;
    result->fair_prop = rel_upper_max;
    return Status::OK();
  }

  // The answer is one proportion in [rel_lower_min, rel_upper_max]. If plain
  // proportionality stays inside every item's range, that is it.
  double fair_prop = required / target_sum;
  if (rel_lower_max <= fair_prop && fair_prop <= rel_upper_min) {
    for (size_t i = 0; i < n; ++i) result->allocs[i] = targets[i] * fair_prop;
    result->fair_prop = fair_prop;
    return Status::OK();
  }

  // Otherwise sweep the proportion upwards from the smallest relative lower bound,
  // crossing the relative bounds in ascending order. Between two bounds the total grows
  // linearly with slope "the targets of the items currently proportional" (sensitive),
  // so the answer is found in the first stretch that reaches `required`. Ties are broken
  // by position; the Go code's unstable sort may order equal bounds differently, which
  // changes only the order in which equal amounts are added.
  std::sort(bounds.begin(), bounds.end(), [](const RelativeBound& a, const RelativeBound& b) {
    if (a.proportion != b.proportion) return a.proportion < b.proportion;
    if (a.item != b.item) return a.item < b.item;
    return a.lower && !b.lower;
  });
  double sum = low_sum;
  fair_prop = rel_lower_min;
  double sensitive_target_sum = 0, pending_target_delta = 0;
  int sensitive_count = 0, pending_count_delta = 0;
  size_t next = 0;
  while (sum < required) {
    // Take in every bound at or below the current proportion; stop at the first bound
    // above it, whose effect is held back until the proportion passes it.
    double next_bound;
    for (;;) {
      sensitive_target_sum += pending_target_delta;
      sensitive_count += pending_count_delta;
      if (next >= bounds.size()) {
        return Status::Invalid(
            "impossible: ran out of bounds to consider in bound-constrained problem");
      }
      const RelativeBound& b = bounds[next++];
      next_bound = b.proportion;
      pending_count_delta = b.lower ? 1 : -1;
      pending_target_delta = b.lower ? targets[b.item] : -targets[b.item];
      if (next_bound > fair_prop) break;
    }
    if (sensitive_count == 0) {  // nothing moves in this stretch: skip it
      fair_prop = next_bound;
      continue;
    }
    const double candidate = fair_prop + (required - sum) / sensitive_target_sum;
    if (candidate <= next_bound) {
      fair_prop = candidate;
      break;
    }
    sum += (next_bound - fair_prop) * sensitive_target_sum;
    fair_prop = next_bound;
  }
  for (size_t i = 0; i < n; ++i) {
    result->allocs[i] =
        std::max(items[i].lower_bound, std::min(items[i].upper_bound, fair_prop * targets[i]));
  }
  result->fair_prop = fair_prop;
  return Status::OK();
}

}  // namespace apf

#include "apf/allocation/concurrency_allocator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "apf/allocation/allocation_solver.h"
#include "apf/base/go_numeric.h"

namespace apf {
namespace {

bool IsMandatoryLevelName(std::string_view name) {
  return name == kExemptLevelName || name == kCatchAllLevelName;
}

// What a fresh integrator reports when reset at the instant it was created.
SeatDemandResults ZeroLengthReading() {
  SeatDemandResults r;
  r.average = r.std_dev = std::numeric_limits<double>::quiet_NaN();
  return r;
}

// The least a level's current limit may be this period (updateBorrowingLocked): never
// below minCL; for a Limited level, up to its recent peak demand but not beyond its
// nominal limit; an Exempt level may claim its whole peak.
std::int64_t MinCurrentCL(const PriorityLevelAllocation& level) {
  const std::int64_t high_watermark = level.seat_demand.high_watermark;
  if (level.spec.exempt()) return std::max(level.limits.min_cl, high_watermark);
  return std::max(level.limits.min_cl, std::min(level.limits.nominal_cl, high_watermark));
}

}  // namespace

ConcurrencyAllocator::ConcurrencyAllocator(int server_concurrency_limit)
    : server_concurrency_limit_(server_concurrency_limit) {}

const PriorityLevelAllocation* ConcurrencyAllocator::Find(std::string_view name) const {
  for (const PriorityLevelAllocation& level : levels_) {
    if (level.spec.name == name) return &level;
  }
  return nullptr;
}

std::uint64_t ConcurrencyAllocator::GetMaxSeats(std::string_view level) const {
  auto it = max_seats_.find(level);
  return it == max_seats_.end() ? 0 : it->second;
}

Status ConcurrencyAllocator::Digest(const std::vector<PriorityLevelAllocationSpec>& levels,
                                    const SeatDemandReset& reset_demand, const LevelIdle& is_idle,
                                    DigestOutcome* outcome) {
  std::set<std::string, std::less<>> configured;
  for (const PriorityLevelAllocationSpec& spec : levels) {
    if (Status s = ValidatePriorityLevelAllocationSpec(spec); !s.ok()) return s;
    if (!configured.insert(spec.name).second) {
      return Status::Invalid("two priority levels named \"" + spec.name + "\"");
    }
  }
  DigestOutcome result;

  // digestNewPLsLocked: the configured levels, keeping the state of those that existed.
  std::vector<PriorityLevelAllocation> next;
  std::set<std::string, std::less<>> introduced;
  next.reserve(levels.size() + 2);
  for (const PriorityLevelAllocationSpec& spec : levels) {
    if (const PriorityLevelAllocation* old = Find(spec.name)) {
      next.push_back(*old);
      next.back().quiescing = false;  // it may have been undesired and is desired again
    } else {
      next.emplace_back();
      introduced.insert(spec.name);
    }
    next.back().spec = spec;
  }

  // processOldPLsLocked: the levels no longer configured.
  for (const PriorityLevelAllocation& old : levels_) {
    if (configured.count(old.spec.name)) continue;
    if (!IsMandatoryLevelName(old.spec.name)) {
      // numPending, the other half of the Go condition, is never incremented (3.7).
      if (is_idle(old.spec.name)) {
        result.removed.push_back(old.spec.name);
        continue;
      }
      next.push_back(old);
      next.back().quiescing = true;
      result.quiescing.push_back(old.spec.name);
      continue;
    }
    // A mandatory level without an object keeps its state and its last spec.
    next.push_back(old);
  }

  // imaginePL: the mandatory levels nobody supplied.
  for (PriorityLevelAllocationSpec proto : {MandatoryExemptLevel(), MandatoryCatchAllLevel()}) {
    bool present = false;
    for (const PriorityLevelAllocation& level : next)
      present = present || level.spec.name == proto.name;
    if (present) continue;
    next.emplace_back();
    next.back().spec = std::move(proto);
    introduced.insert(next.back().spec.name);
  }

  // finishQueueSetReconfigsLocked: every level kept, quiescing ones included, takes part
  // in dividing the server limit. Shares are integers, so their float sum is exact.
  double share_sum = 0;
  for (const PriorityLevelAllocation& level : next) {
    share_sum += static_cast<double>(level.spec.nominal_concurrency_shares);
  }
  // Go would divide 0 by 0 and convert NaN to an int, which is platform-dependent. No
  // apiserver gets here: the config producer keeps the mandatory catch-all at 5 shares.
  if (share_sum == 0) return Status::Invalid("the priority levels' shares add up to 0");

  // From here on the digestion cannot fail.
  for (const std::string& name : result.removed) max_seats_.erase(name);
  std::int64_t nominal_cl_sum = 0;
  for (PriorityLevelAllocation& level : next) {
    level.limits = ComputePriorityLevelLimits(level.spec, server_concurrency_limit_, share_sum);
    nominal_cl_sum += level.limits.nominal_cl;
    if (level.spec.queuing()) {
      max_seats_[level.spec.name] =
          PriorityLevelMaxSeats(level.limits.nominal_cl, *level.spec.queuing_hand_size);
    }
    if (introduced.count(level.spec.name)) {
      level.seat_demand = SeatDemandStats();
      level.current_cl = level.limits.nominal_cl - level.limits.lendable_cl / 2;
    }
  }
  levels_ = std::move(next);
  nominal_cl_sum_ = nominal_cl_sum;
  for (const PriorityLevelAllocation& level : levels_) {
    if (introduced.count(level.spec.name)) result.introduced.push_back(level.spec.name);
  }
  *outcome = std::move(result);

  // The digestion ends with a re-division (updateBorrowingLocked(false, ...)). A new
  // level's integrator was created in this same instant, so its reading is empty.
  Adjust([&](const std::string& name) {
    return introduced.count(name) ? ZeroLengthReading() : reset_demand(name);
  });
  return Status::OK();
}

void ConcurrencyAllocator::Adjust(const SeatDemandReset& reset_demand) {
  // Pass 1: fold in each level's seat demand. Exempt levels take their peak off the top
  // of what is left; every other level becomes one item of the allocation problem.
  std::vector<AllocProblemItem> items;
  std::vector<int> item_of_level(levels_.size(), -1);
  std::int64_t remaining = nominal_cl_sum_;
  std::int64_t min_cl_sum = 0, min_current_cl_sum = 0;  // over non-Exempt levels
  for (size_t i = 0; i < levels_.size(); ++i) {
    PriorityLevelAllocation& level = levels_[i];
    level.seat_demand.Update(reset_demand(level.spec.name));
    const std::int64_t min_current_cl = MinCurrentCL(level);
    if (level.spec.exempt()) {
      remaining -= min_current_cl;
      continue;
    }
    item_of_level[i] = static_cast<int>(items.size());
    AllocProblemItem item;
    item.lower_bound = static_cast<double>(min_current_cl);
    item.upper_bound = static_cast<double>(level.limits.max_cl);
    item.target = std::max(static_cast<double>(min_current_cl), level.seat_demand.smoothed);
    items.push_back(item);
    min_cl_sum += level.limits.min_cl;
    min_current_cl_sum += min_current_cl;
  }
  if (items.empty() && nominal_cl_sum_ > 0) return;  // "Impossible: no priority levels"

  // Pass 2: choose the regime. When what is left cannot cover the lower limits, every
  // Limited level gets its minCL; when it covers those but not every level's
  // minCurrentCL, each gets minCL plus the same fraction of its way to minCurrentCL;
  // otherwise the fair-proportion solver divides the whole nominal sum, not just what the
  // Exempt levels left (as the Go code does; the KEP says otherwise, doc/model.md#docs-vs-code).
  enum class Regime { kMinimum, kShareOfPeaks, kFairProportion } regime;
  double share_frac = 0;
  ConcurrencyAllocation solved;
  fair_frac_ = 0;
  last_solver_status_ = Status::OK();
  if (remaining <= min_cl_sum) {
    regime = Regime::kMinimum;
  } else if (remaining <= min_current_cl_sum) {
    regime = Regime::kShareOfPeaks;
    share_frac = static_cast<double>(remaining - min_cl_sum) /
                 static_cast<double>(min_current_cl_sum - min_cl_sum);
  } else {
    regime = Regime::kFairProportion;
    last_solver_status_ = ComputeConcurrencyAllocation(nominal_cl_sum_, items, &solved);
    if (last_solver_status_.ok()) {
      fair_frac_ = solved.fair_prop;
    } else {
      // Every level keeps the limit it had (for a level new in this digestion, the
      // initial nominalCL - lendableCL/2).
      solved.allocs.assign(items.size(), 0.0);
      for (size_t i = 0; i < levels_.size(); ++i) {
        if (item_of_level[i] >= 0) solved.allocs[item_of_level[i]] = levels_[i].current_cl;
      }
    }
  }

  // Pass 3: the new limits.
  for (size_t i = 0; i < levels_.size(); ++i) {
    PriorityLevelAllocation& level = levels_[i];
    const int item = item_of_level[i];
    if (item < 0) {
      level.current_cl = MinCurrentCL(level);
    } else if (regime == Regime::kMinimum) {
      level.current_cl = level.limits.min_cl;
    } else if (regime == Regime::kShareOfPeaks) {
      level.current_cl =
          level.limits.min_cl +
          GoRoundToInt(static_cast<double>(MinCurrentCL(level) - level.limits.min_cl) * share_frac);
    } else {
      level.current_cl = GoRoundToInt(solved.allocs[item]);
    }
    // The Go code reads items[idx] with idx 0 for an Exempt level (a missing map key).
    level.target_seats = items.empty() ? 0 : items[item < 0 ? 0 : item].target;
    level.concurrency_denominator =
        level.current_cl > 0
            ? level.current_cl
            : std::max<std::int64_t>(
                  1, GoRoundToInt(static_cast<double>(server_concurrency_limit_) / 10));
  }
}

}  // namespace apf

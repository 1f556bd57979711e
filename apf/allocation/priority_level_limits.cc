#include "apf/allocation/priority_level_limits.h"

#include <algorithm>
#include <cmath>

#include "apf/base/go_numeric.h"

namespace apf {
namespace {

// apf_controller.go priorityLevelMaxSeatsPercent.
constexpr double kPriorityLevelMaxSeatsFraction = 0.15;

}  // namespace

PriorityLevelAllocationSpec MandatoryExemptLevel() {
  PriorityLevelAllocationSpec spec;
  spec.name = kExemptLevelName;
  spec.type = PriorityLevelType::kExempt;
  spec.nominal_concurrency_shares = 0;
  spec.lendable_percent = 0;
  return spec;
}

PriorityLevelAllocationSpec MandatoryCatchAllLevel() {
  PriorityLevelAllocationSpec spec;
  spec.name = kCatchAllLevelName;
  spec.type = PriorityLevelType::kLimited;
  spec.nominal_concurrency_shares = 5;
  spec.lendable_percent = 0;
  return spec;
}

Status ValidatePriorityLevelAllocationSpec(const PriorityLevelAllocationSpec& spec) {
  const std::string where = "priority level \"" + spec.name + "\": ";
  if (spec.name.empty()) return Status::Invalid("priority level with an empty name");
  if (spec.exempt() != (spec.name == kExemptLevelName)) {
    return Status::Invalid(
        where + "type Exempt is for the level named \"exempt\" only, and it must be Exempt");
  }
  if (spec.nominal_concurrency_shares < 0) {
    return Status::Invalid(where + "nominalConcurrencyShares must be >= 0");
  }
  if (spec.lendable_percent && (*spec.lendable_percent < 0 || *spec.lendable_percent > 100)) {
    return Status::Invalid(where + "lendablePercent must be between 0 and 100");
  }
  if (spec.borrowing_limit_percent) {
    if (spec.exempt())
      return Status::Invalid(where + "an Exempt level has no borrowingLimitPercent");
    if (*spec.borrowing_limit_percent < 0) {
      return Status::Invalid(where + "borrowingLimitPercent must be >= 0");
    }
  }
  if (spec.queuing_hand_size) {
    if (spec.exempt()) return Status::Invalid(where + "an Exempt level has no queuing");
    if (*spec.queuing_hand_size < 1) return Status::Invalid(where + "handSize must be >= 1");
  }
  return Status::OK();
}

PriorityLevelLimits ComputePriorityLevelLimits(const PriorityLevelAllocationSpec& spec,
                                               int server_concurrency_limit, double share_sum) {
  PriorityLevelLimits limits;
  // The ceiling makes the nominal limits add up to a little more than the server limit;
  // the controller keeps that sum (nominalCLSum) as the total to re-divide (3.4).
  limits.nominal_cl =
      GoFloatToInt64(std::ceil(static_cast<double>(server_concurrency_limit) *
                               static_cast<double>(spec.nominal_concurrency_shares) / share_sum));
  const double nominal = static_cast<double>(limits.nominal_cl);
  if (spec.lendable_percent) {
    limits.lendable_cl = GoRoundToInt(nominal * static_cast<double>(*spec.lendable_percent) / 100);
  }
  // plSpecCommons gives Exempt levels no borrowing limit, so they may borrow everything.
  if (spec.borrowing_limit_percent && !spec.exempt()) {
    limits.borrowing_cl =
        GoRoundToInt(nominal * static_cast<double>(*spec.borrowing_limit_percent) / 100);
  } else {
    limits.borrowing_cl = server_concurrency_limit;
  }
  limits.min_cl = limits.nominal_cl - limits.lendable_cl;
  limits.max_cl = limits.nominal_cl + limits.borrowing_cl;
  return limits;
}

std::uint64_t PriorityLevelMaxSeats(std::int64_t nominal_cl, std::int32_t hand_size) {
  const double by_fraction =
      std::ceil(static_cast<double>(nominal_cl) * kPriorityLevelMaxSeatsFraction);
  const double by_hand = static_cast<double>(static_cast<std::int32_t>(nominal_cl) / hand_size);
  return static_cast<std::uint64_t>(std::max(1.0, std::min(by_fraction, by_hand)));
}

}  // namespace apf

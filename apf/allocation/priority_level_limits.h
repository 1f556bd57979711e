// The static concurrency limits of one priority level, fixed at each configuration
// digestion (doc/model.md#nominal-seats, #max-seats; apf_controller.go
// finishQueueSetReconfigsLocked and plSpecCommons): its nominal limit (its share of the server's
// seats), how many of those it may lend (minCL is what it keeps) and how many it may borrow (maxCL
// is the most it can get), and the most seats the work estimator may charge one of its requests.
//
// The input is PriorityLevelAllocationSpec: the part of a PriorityLevelConfiguration
// (flowcontrol.apiserver.k8s.io/v1, after defaulting) that the allocation reads.
#ifndef APF_ALLOCATION_PRIORITY_LEVEL_LIMITS_H_
#define APF_ALLOCATION_PRIORITY_LEVEL_LIMITS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "apf/base/status.h"

namespace apf {

enum class PriorityLevelType { kLimited, kExempt };

struct PriorityLevelAllocationSpec {
  std::string name;
  PriorityLevelType type = PriorityLevelType::kLimited;
  std::int32_t nominal_concurrency_shares = 0;
  // Unset means 0 (for Limited and Exempt alike).
  std::optional<std::int32_t> lendable_percent;
  // Unset means "may borrow up to the server concurrency limit". Limited levels only: the
  // Exempt union member has no such field.
  std::optional<std::int32_t> borrowing_limit_percent;
  // Set exactly when the level is Limited with limitResponse Queue; Reject and Exempt
  // levels have no queues. Only the hand size matters to the allocation (3.2).
  std::optional<std::int32_t> queuing_hand_size;

  bool exempt() const { return type == PriorityLevelType::kExempt; }
  bool queuing() const { return queuing_hand_size.has_value(); }
};

// The spec of the mandatory levels the controller imagines when no object supplies them
// (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap/default.go, doc/model.md#mandatory-objects).
PriorityLevelAllocationSpec MandatoryExemptLevel();    // "exempt": Exempt, 0 shares, 0% lendable
PriorityLevelAllocationSpec MandatoryCatchAllLevel();  // "catch-all": 5 shares, 0% lendable, Reject
inline constexpr char kExemptLevelName[] = "exempt";
inline constexpr char kCatchAllLevelName[] = "catch-all";

// Checks what API validation guarantees of a PriorityLevelConfiguration and the
// controller relies on: type Exempt exactly for the level named "exempt", shares >= 0,
// lendablePercent in [0, 100], borrowingLimitPercent >= 0 and only on Limited levels,
// hand size >= 1 and only on Limited levels.
Status ValidatePriorityLevelAllocationSpec(const PriorityLevelAllocationSpec& spec);

// The server concurrency limit: --max-requests-inflight plus
// --max-mutating-requests-inflight (600 by default).
inline int ServerConcurrencyLimit(int max_requests_inflight, int max_mutating_requests_inflight) {
  return max_requests_inflight + max_mutating_requests_inflight;
}

// Seat counts are Go ints (64 bits) as in the controller; a borrowing percent may be any
// int32, so maxCL can exceed the int32 range.
struct PriorityLevelLimits {
  std::int64_t nominal_cl = 0;    // ceil(serverCL * shares / shareSum)
  std::int64_t lendable_cl = 0;   // round(nominalCL * lendablePercent / 100)
  std::int64_t borrowing_cl = 0;  // round(nominalCL * borrowingLimitPercent / 100), or serverCL
  std::int64_t min_cl = 0;        // nominalCL - lendableCL
  std::int64_t max_cl = 0;        // nominalCL + borrowingCL
};

// The limits of `spec` when the shares of all levels (quiescing ones included) add up to
// `share_sum`, in float64 with Go's operation order, ceiling and round-half-away.
PriorityLevelLimits ComputePriorityLevelLimits(const PriorityLevelAllocationSpec& spec,
                                               int server_concurrency_limit, double share_sum);

// The most seats the work estimator may charge one request of a queuing level (3.2):
// max(1, min(ceil(nominalCL * 0.15), nominalCL / handSize)), the division in int32.
// The product is an ordinary float64 product: 20 * 0.15 rounds to exactly 3.0, so 20
// seats give 3 (as Kubernetes' max_seats_test.go expects 15 for 100 seats).
std::uint64_t PriorityLevelMaxSeats(std::int64_t nominal_cl, std::int32_t hand_size);

}  // namespace apf

#endif  // APF_ALLOCATION_PRIORITY_LEVEL_LIMITS_H_

// The concurrency filter kube-apiserver uses instead of APF when
// --enable-priority-and-fairness=false (doc/model.md#max-in-flight): k8s.io/apiserver
// pkg/server/filters/maxinflight.go WithMaxInFlightLimit. Two counting semaphores,
// read-only (get, list, watch) of --max-requests-inflight and mutating (every other verb)
// of --max-mutating-requests-inflight, taken with a non-blocking try: there is no
// queue. Long-running requests, watches included, bypass it; when a semaphore is full a
// member of system:masters is served anyway without a slot, and anyone else gets a 429
// with the constant `Retry-After: 1`. A limit of 0 leaves that class unlimited, and both
// at 0 removes the filter.
#ifndef APF_FILTER_MAX_IN_FLIGHT_H_
#define APF_FILTER_MAX_IN_FLIGHT_H_

#include <cstdint>
#include <span>
#include <string>

#include "apf/classification/request_info.h"

namespace apf {

enum class InFlightKind { kReadOnly, kMutating };

// nonMutatingRequestVerbs = {get, list, watch}; everything else, non-resource verbs such
// as post and put included, is mutating.
InFlightKind InFlightKindOf(const RequestInfo& request);

class MaxInFlightFilter {
 public:
  static constexpr std::int64_t kRetryAfterSeconds = 1;

  enum class Decision {
    kServedUntracked,  // long-running: no slot taken, not counted
    // No filter (both limits 0) or an unlimited class (its limit 0, a nil channel in
    // maxinflight.go): served without a slot, but counted in in_flight() so that the
    // pool's figures show what it serves; call Release(kind) when it finishes. Go's
    // watermark does not see it (no channel to measure).
    kServedUnlimited,
    kServed,            // took a slot of its kind: call Release(kind) when it finishes
    kServedPrivileged,  // the class is full but the user is in system:masters: no slot
    kRejected,          // 429, Retry-After: 1
  };
  struct Outcome {
    Decision decision;
    InFlightKind kind;
  };

  MaxInFlightFilter(std::int64_t max_requests_in_flight,
                    std::int64_t max_mutating_requests_in_flight)
      : limit_{max_requests_in_flight, max_mutating_requests_in_flight} {}
  MaxInFlightFilter(const MaxInFlightFilter&) = delete;
  MaxInFlightFilter& operator=(const MaxInFlightFilter&) = delete;

  // `long_running` from IsLongRunningRequest; `user_groups` are the authenticated
  // (after impersonation) user's groups.
  Outcome Admit(const RequestInfo& request, bool long_running,
                std::span<const std::string> user_groups);
  void Release(InFlightKind kind);

  std::int64_t in_flight(InFlightKind kind) const { return in_use_[Index(kind)]; }
  std::int64_t limit(InFlightKind kind) const { return limit_[Index(kind)]; }

  // apiserver_current_inflight_requests{request_kind}: the highest in-flight count seen
  // since the last call (the filter resets it every second), counts taken both when a
  // slot is taken and when it is released.
  std::int64_t TakeWatermark(InFlightKind kind);

 private:
  static int Index(InFlightKind kind) { return kind == InFlightKind::kReadOnly ? 0 : 1; }
  std::int64_t limit_[2];
  std::int64_t in_use_[2] = {0, 0};
  std::int64_t watermark_[2] = {0, 0};
};

}  // namespace apf

#endif  // APF_FILTER_MAX_IN_FLIGHT_H_

// The rate limiter of a controller's work queue (client-go util/workqueue
// default_rate_limiters.go as controller-runtime picks it, CLIENT-SPEC 5.2): how long a
// failed reconcile waits before its item is processed again. Clock-free: When() returns
// the delay and the caller schedules the re-add.
//
// controller-runtime >= v0.23 uses its priority queue with only the per-item exponential
// limiter (5 ms * 2^failures, capped at 1000 s); older releases, or UsePriorityQueue=false,
// use DefaultTypedControllerRateLimiter: the larger of that and one 10 QPS / 100 burst
// token bucket shared by all items of the queue.
#ifndef SIM_CLIENTS_WORKQUEUE_RATE_LIMITER_H_
#define SIM_CLIENTS_WORKQUEUE_RATE_LIMITER_H_

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "apf/rate_limiter.h"
#include "apf/virtual_time.h"

namespace sim {

inline constexpr apf::Nanos kWorkqueueBaseDelay = 5 * apf::kMillisecond;
inline constexpr apf::Nanos kWorkqueueMaxDelay = 1000 * apf::kSecond;
inline constexpr double kWorkqueueBucketQps = 10;
inline constexpr int kWorkqueueBucketBurst = 100;

enum class WorkqueueRateLimiterKind {
  kItemExponential,    // controller-runtime >= v0.23 (priority queue) default
  kDefaultController,  // MaxOf(item exponential, bucket 10/100): controller-runtime <= v0.22
};

class WorkqueueRateLimiter {
 public:
  explicit WorkqueueRateLimiter(WorkqueueRateLimiterKind kind);
  WorkqueueRateLimiter(const WorkqueueRateLimiter&) = delete;
  WorkqueueRateLimiter& operator=(const WorkqueueRateLimiter&) = delete;

  // RateLimiter.When(item) at `now`: the delay before the item's rate-limited re-add. It
  // counts one more failure for the item and, for kDefaultController, takes a token from
  // the shared bucket (which never refuses: tokens go negative, FIFO spacing 100 ms).
  apf::Nanos When(std::uint64_t item, apf::Nanos now);
  // Forget(item): the item succeeded (or was re-queued with RequeueAfter); its failure
  // count restarts.
  void Forget(std::uint64_t item) { failures_.erase(item); }
  // NumRequeues(item): failures counted since the last Forget.
  int NumRequeues(std::uint64_t item) const;

 private:
  // Looked up by item only, never iterated, so the hash order cannot reach any output.
  std::unordered_map<std::uint64_t, int> failures_;
  std::optional<apf::RateLimiter> bucket_;
};

// TypedItemExponentialFailureRateLimiter's delay after `failures` earlier failures:
// Duration(float64(base) * 2^failures), capped at `max`.
apf::Nanos ItemExponentialFailureDelay(int failures, apf::Nanos base = kWorkqueueBaseDelay,
                                       apf::Nanos max = kWorkqueueMaxDelay);

}  // namespace sim

#endif  // SIM_CLIENTS_WORKQUEUE_RATE_LIMITER_H_

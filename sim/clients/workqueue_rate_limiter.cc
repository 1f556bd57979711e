#include "sim/clients/workqueue_rate_limiter.h"

#include <algorithm>
#include <cmath>

#include "apf/go_numeric.h"

namespace sim {

apf::Nanos ItemExponentialFailureDelay(int failures, apf::Nanos base, apf::Nanos max) {
  // backoff := float64(baseDelay.Nanoseconds()) * math.Pow(2, float64(exp)); past
  // MaxInt64 it is maxDelay. ldexp is exact where math.Pow(2, n) is.
  const double backoff = std::ldexp(static_cast<double>(base), failures);
  if (backoff > 9223372036854775807.0) return max;
  const apf::Nanos calculated = apf::GoFloatToInt64(backoff);
  return calculated > max ? max : calculated;
}

WorkqueueRateLimiter::WorkqueueRateLimiter(WorkqueueRateLimiterKind kind) {
  if (kind == WorkqueueRateLimiterKind::kDefaultController) {
    bucket_.emplace(kWorkqueueBucketQps, kWorkqueueBucketBurst);
  }
}

apf::Nanos WorkqueueRateLimiter::When(std::uint64_t item, apf::Nanos now) {
  int& failures = failures_[item];
  const apf::Nanos item_delay = ItemExponentialFailureDelay(failures);
  ++failures;
  if (!bucket_) return item_delay;
  // MaxOfRateLimiter asks every limiter, so the bucket is spent even when the item's own
  // delay is longer. BucketRateLimiter.When is Reserve().Delay().
  const apf::Nanos bucket_delay = bucket_->Reserve(now).DelayFrom(now);
  return std::max(item_delay, bucket_delay);
}

int WorkqueueRateLimiter::NumRequeues(std::uint64_t item) const {
  const auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace sim

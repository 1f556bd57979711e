#include "apf/token_bucket_rate_limiter.h"

#include <limits>

#include "apf/go_numeric.h"

namespace apf {
double TokenBucketRateLimiter::Advance(Nanos now) const {
  Nanos elapsed;
  if (!has_last_) {
    elapsed = std::numeric_limits<Nanos>::max();  // now.Sub(time.Time{}) saturates
  } else {
    elapsed = now < last_ ? 0 : now - last_;  // a time before `last` counts from itself
  }
  // Limit.tokensFromDuration: nothing accrues at a non-positive rate.
  const double delta = limit_ <= 0 ? 0 : GoDurationSeconds(elapsed) * limit_;
  double tokens = tokens_ + delta;
  if (const double burst = static_cast<double>(burst_); tokens > burst) tokens = burst;
  return tokens;
}

bool TokenBucketRateLimiter::TryAccept(Nanos now) {
  const double tokens = Advance(now) - 1;
  bool ok = 1 <= burst_;
  if (tokens < 0) {
    // Limit.durationFromTokens, then compared with the zero maxFutureReserve.
    if (limit_ <= 0) {
      ok = false;
    } else {
      const double wait_ns = (-tokens / limit_) * 1e9;
      if (wait_ns > static_cast<double>(std::numeric_limits<Nanos>::max()) ||
          static_cast<Nanos>(wait_ns) > 0) {
        ok = false;
      }
    }
  }
  if (ok) {
    last_ = now;
    has_last_ = true;
    tokens_ = tokens;
  }
  return ok;
}

}  // namespace apf

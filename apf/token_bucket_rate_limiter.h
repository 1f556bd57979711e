// A token bucket exactly as client-go's flowcontrol.NewTokenBucketRateLimiter builds it:
// golang.org/x/time/rate.Limiter with limit float64(float32(qps)) and the given burst,
// starting full, refilled continuously and lazily in float64 tokens from nanosecond time
// differences. TryAccept is AllowN(now, 1): it takes a token if one is available now
// and otherwise changes nothing.
//
// The EventRateLimit admission plugin uses one per bucket (apf/event_rate_limit.h).
#ifndef APF_TOKEN_BUCKET_RATE_LIMITER_H_
#define APF_TOKEN_BUCKET_RATE_LIMITER_H_

#include <cstdint>

#include "apf/virtual_time.h"

namespace apf {

class TokenBucketRateLimiter {
 public:
  TokenBucketRateLimiter(float qps, int burst)
      : limit_(static_cast<double>(qps)), burst_(burst), tokens_(static_cast<double>(burst)) {}

  // rate.Limiter.AllowN(now, 1) (reserveN with no future reservation allowed). A token
  // deficit too small to wait a whole nanosecond for still admits, as in Go, leaving the
  // bucket slightly negative.
  bool TryAccept(Nanos now);

  // rate.Limiter.TokensAt(now): the tokens available at `now`, without taking any.
  double TokensAt(Nanos now) const { return Advance(now); }

  double qps() const { return limit_; }
  int burst() const { return burst_; }

 private:
  double Advance(Nanos now) const;

  double limit_;
  int burst_;
  double tokens_;
  Nanos last_ = 0;
  bool has_last_ = false;  // a new Limiter's `last` is the zero Time: it refills to burst
};

}  // namespace apf

#endif  // APF_TOKEN_BUCKET_RATE_LIMITER_H_

// golang.org/x/time/rate's Limiter: a token bucket of `burst` tokens that starts full and
// refills continuously at `limit` tokens per second. One model for every bucket of the
// simulation: the EventRateLimit admission plugin's (apf/filter/event_rate_limit.h, TryAccept is
// Allow), client-go's RESTClient throttle (Wait, one token per HTTP attempt, retries
// included; doc/model.md#client-rate-limiter) and the workqueue's BucketRateLimiter (Reserve).
//
// Clock-free: every method takes the virtual time and returns what the caller must do
// (wait this long, or fail); the caller schedules the events. The arithmetic is rate.go's,
// in its order and in float64, with times in integer nanoseconds exactly as Go's
// time.Duration, so admissions and delays match the real limiter to the nanosecond:
// tokens are refilled lazily by Duration.Seconds() * limit, and a shortfall becomes a
// wait of Duration((tokens / limit) * 1e9), truncated toward zero, so a deficit too small
// to wait a whole nanosecond for costs no wait at all (and Allow admits).
// Differences, none reachable from the callers: rate.Inf (an unlimited Limiter) is not
// modelled, since client-go expresses "no limiter" by having none; only n = 1 is
// reserved at a time; and an instant past the end of time saturates at kNever where Go's
// time.Time.Add would overflow.
//
// Tested by tests/apf/base/rate_limiter_test.cc.
#ifndef APF_BASE_RATE_LIMITER_H_
#define APF_BASE_RATE_LIMITER_H_

#include "apf/base/go_numeric.h"
#include "apf/base/virtual_time.h"

namespace apf {

class RateLimiter {
 public:
  // A token reserved (or refused): rate.Reservation for n = 1.
  struct Reservation {
    bool ok = false;
    Nanos time_to_act_ns = 0;  // when the token may be used (only when ok)
    double limit = 0;          // the limiter's limit when reserved (CancelAt uses it)

    // rate.Reservation.DelayFrom: how long from `now` until the token may be used; 0 when
    // that time has passed; kNever when the reservation is not ok (InfDuration).
    Nanos DelayFrom(Nanos now) const {
      if (!ok) return kNever;
      const Nanos delay = time_to_act_ns - now;
      return delay < 0 ? 0 : delay;
    }
  };

  // What Limiter.Wait(ctx) does for one token, in the order rate.go's wait checks.
  enum class WaitStatus {
    kGranted,              // a token is reserved; proceed after delay_ns
    kExceedsBurst,         // "rate: Wait(n=1) exceeds limiter's burst <b>" (burst < 1)
    kContextDone,          // ctx already done (now >= deadline): ctx.Err(), nothing reserved
    kWouldExceedDeadline,  // "rate: Wait(n=1) would exceed context deadline", nothing reserved
  };
  struct WaitResult {
    WaitStatus status = WaitStatus::kGranted;
    Nanos delay_ns = 0;  // kGranted: sleep this long first (0: at once)
    // kGranted: hand back to CancelAt if the caller's context ends during the delay.
    Reservation reservation;
  };

  // rate.NewLimiter(limit, burst): starts full (burst tokens), refills at `limit` tokens
  // per second up to `burst`. A limit <= 0 never refills.
  RateLimiter(double limit, int burst)
      : limit_(limit), burst_(burst), tokens_(static_cast<double>(burst)) {}
  RateLimiter(RateLimiter&&) = default;
  RateLimiter& operator=(RateLimiter&&) = default;
  // A limiter is shared state (one per RESTClient, doc/model.md#retry-storm): share it by pointer.
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  // Limiter.Wait(ctx) at `now` with the context's deadline (kNever: none). On kGranted the
  // token is already taken; the caller sleeps delay_ns and then proceeds. A refusal
  // changes nothing. Deadline semantics as Go's context: done once now >= deadline.
  // Inline, as are the steps below it: every client-go attempt takes a token.
  WaitResult Wait(Nanos now, Nanos deadline_ns) {
    WaitResult w;
    // rate.Limiter.wait: the burst check comes before the context check.
    if (1 > burst_) {
      w.status = WaitStatus::kExceedsBurst;
      return w;
    }
    if (now >= deadline_ns) {
      w.status = WaitStatus::kContextDone;
      return w;
    }
    const Nanos wait_limit_ns = deadline_ns == kNever ? kInfDuration : deadline_ns - now;
    w.reservation = ReserveOne(now, wait_limit_ns);
    if (!w.reservation.ok) {
      w.status = WaitStatus::kWouldExceedDeadline;
      return w;
    }
    w.status = WaitStatus::kGranted;
    w.delay_ns = w.reservation.DelayFrom(now);
    return w;
  }

  // Limiter.Reserve() at `now`: always reserves (tokens may go far negative) unless the
  // burst is below 1. The workqueue's BucketRateLimiter.When uses Reserve().Delay().
  Reservation Reserve(Nanos now) { return ReserveOne(now, kNever); }

  // Limiter.AllowN(now, 1) (flowcontrol's TryAccept): a token now or nothing. A refusal
  // changes nothing.
  bool Allow(Nanos now) { return ReserveOne(now, 0).ok; }

  // Reservation.CancelAt(now): gives back what later reservations have not built on,
  // capped at the burst. For a caller whose context ended while it waited for its token.
  void CancelAt(const Reservation& reservation, Nanos now);

  // Limiter.TokensAt(now): the tokens available at `now` (negative while others wait),
  // without taking any.
  double TokensAt(Nanos now) const { return Advance(now); }

  double limit() const { return limit_; }
  int burst() const { return burst_; }

 private:
  // rate.InfDuration, the Duration that means "never" (math.MaxInt64).
  static constexpr Nanos kInfDuration = kNever;

  // Limit.durationFromTokens: (tokens / limit) seconds as a Duration, truncated; infinite
  // for a limit <= 0 or a duration past MaxInt64.
  static Nanos DurationFromTokens(double limit, double tokens) {
    if (limit <= 0) return kInfDuration;
    const double duration = (tokens / limit) * 1e9;
    if (duration > 9223372036854775807.0) return kInfDuration;
    return GoFloatToInt64(duration);
  }
  // Limit.tokensFromDuration: Duration.Seconds() * limit; nothing for a limit <= 0.
  static double TokensFromDuration(double limit, Nanos d) {
    if (limit <= 0) return 0;
    return GoDurationSeconds(d) * limit;
  }

  // Limiter.reserveN for n = 1.
  Reservation ReserveOne(Nanos now, Nanos max_future_reserve_ns) {
    double tokens = Advance(now);
    tokens -= 1.0;
    Nanos wait_ns = 0;
    if (tokens < 0) wait_ns = DurationFromTokens(limit_, -tokens);

    Reservation r;
    r.ok = 1 <= burst_ && wait_ns <= max_future_reserve_ns;
    r.limit = limit_;
    if (r.ok) {
      r.time_to_act_ns = AddSaturating(now, wait_ns);
      has_last_ = true;
      last_ns_ = now;
      tokens_ = tokens;
      last_event_ns_ = r.time_to_act_ns;
    }
    return r;
  }
  // Limiter.advance: the tokens at `now`, without changing the limiter.
  double Advance(Nanos now) const {
    Nanos elapsed = kInfDuration;  // now.Sub(time.Time{}) saturates at the largest Duration
    if (has_last_)
      elapsed = now < last_ns_ ? 0 : now - last_ns_;  // an earlier now counts from itself
    double tokens = tokens_ + TokensFromDuration(limit_, elapsed);
    if (const double burst = static_cast<double>(burst_); tokens > burst) tokens = burst;
    return tokens;
  }

  double limit_;
  int burst_;
  double tokens_;
  // Go's zero time.Time before the first reservation: now.Sub(last) saturates, so the
  // first refill fills the bucket.
  bool has_last_ = false;
  Nanos last_ns_ = 0;        // when tokens_ was last updated
  Nanos last_event_ns_ = 0;  // the latest time_to_act handed out
};

// client-go's flowcontrol.NewTokenBucketRateLimiter(qps float32, burst int):
// rate.NewLimiter(rate.Limit(qps), burst). The float32 QPS is widened to float64, so a
// QPS of 0.1 refills at 0.10000000149011612 tokens per second, as in Go. Both the
// EventRateLimit plugin (float32(config.QPS)) and rest.Config (a float32 QPS) build their
// buckets this way.
inline RateLimiter NewTokenBucketRateLimiter(float qps, int burst) {
  return RateLimiter(static_cast<double>(qps), burst);
}

}  // namespace apf

#endif  // APF_BASE_RATE_LIMITER_H_

#include "apf/rate_limiter.h"

#include "apf/go_numeric.h"

namespace apf {
namespace {

// rate.InfDuration, the Duration that means "never" (math.MaxInt64).
constexpr Nanos kInfDuration = kNever;

// Limit.durationFromTokens: (tokens / limit) seconds as a Duration, truncated; infinite
// for a limit <= 0 or a duration past MaxInt64.
Nanos DurationFromTokens(double limit, double tokens) {
  if (limit <= 0) return kInfDuration;
  const double duration = (tokens / limit) * 1e9;
  if (duration > 9223372036854775807.0) return kInfDuration;
  return GoFloatToInt64(duration);
}

// Limit.tokensFromDuration: Duration.Seconds() * limit; nothing for a limit <= 0.
double TokensFromDuration(double limit, Nanos d) {
  if (limit <= 0) return 0;
  return GoDurationSeconds(d) * limit;
}

}  // namespace

Nanos RateLimiter::Reservation::DelayFrom(Nanos now) const {
  if (!ok) return kInfDuration;
  const Nanos delay = time_to_act_ns - now;
  return delay < 0 ? 0 : delay;
}

double RateLimiter::Advance(Nanos now) const {
  Nanos elapsed = kInfDuration;  // now.Sub(time.Time{}) saturates at the largest Duration
  if (has_last_)
    elapsed = now < last_ns_ ? 0 : now - last_ns_;  // an earlier now counts from itself
  double tokens = tokens_ + TokensFromDuration(limit_, elapsed);
  if (const double burst = static_cast<double>(burst_); tokens > burst) tokens = burst;
  return tokens;
}

RateLimiter::Reservation RateLimiter::ReserveOne(Nanos now, Nanos max_future_reserve_ns) {
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

RateLimiter::WaitResult RateLimiter::Wait(Nanos now, Nanos deadline_ns) {
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

void RateLimiter::CancelAt(const Reservation& r, Nanos now) {
  if (!r.ok || r.time_to_act_ns < now) return;
  // Tokens reserved after r (up to last_event_ns_) are not restored.
  const double restore = 1.0 - TokensFromDuration(r.limit, last_event_ns_ - r.time_to_act_ns);
  if (restore <= 0) return;
  double tokens = Advance(now);
  tokens += restore;
  if (const double burst = static_cast<double>(burst_); tokens > burst) tokens = burst;
  has_last_ = true;
  last_ns_ = now;
  tokens_ = tokens;
  if (r.time_to_act_ns == last_event_ns_) {
    const Nanos prev_event = AddSaturating(r.time_to_act_ns, DurationFromTokens(r.limit, -1.0));
    if (prev_event >= now) last_event_ns_ = prev_event;
  }
}

}  // namespace apf

#include "sim/clients/token_bucket.h"

#include <limits>

#include "apf/go_numeric.h"

namespace sim {
namespace {

using apf::kNever;
using apf::Nanos;

// rate.InfDuration, the Duration that means "never" (math.MaxInt64).
constexpr Nanos kInfDuration = std::numeric_limits<Nanos>::max();

// Limit.durationFromTokens: (tokens / limit) seconds as a Duration, truncated; infinite
// for a limit <= 0 or a duration past MaxInt64.
Nanos DurationFromTokens(double limit, double tokens) {
  if (limit <= 0) return kInfDuration;
  const double duration = (tokens / limit) * 1e9;
  if (duration > 9223372036854775807.0) return kInfDuration;
  return apf::GoFloatToInt64(duration);
}

// Limit.tokensFromDuration: Duration.Seconds() * limit; nothing for a limit <= 0.
double TokensFromDuration(double limit, Nanos d) {
  if (limit <= 0) return 0;
  return apf::GoDurationSeconds(d) * limit;
}

}  // namespace

Nanos TokenReservation::DelayFrom(Nanos now) const {
  if (!ok) return kInfDuration;
  const Nanos delay = time_to_act_ns - now;
  return delay < 0 ? 0 : delay;
}

TokenBucket::TokenBucket(double limit_per_second, int burst)
    : limit_(limit_per_second), burst_(burst), tokens_(static_cast<double>(burst)) {}

double TokenBucket::Advance(Nanos now) const {
  // Before the first reservation Go's `last` is the zero time, so the elapsed time is
  // enormous and the bucket is full (tokens_ still holds the initial burst; a limit <= 0
  // adds nothing to it).
  if (!has_last_) return tokens_;
  const Nanos last = now < last_ns_ ? now : last_ns_;
  const double delta = TokensFromDuration(limit_, now - last);
  double tokens = tokens_ + delta;
  const double burst = static_cast<double>(burst_);
  if (tokens > burst) tokens = burst;
  return tokens;
}

TokenReservation TokenBucket::ReserveOne(Nanos now, Nanos max_future_reserve_ns) {
  double tokens = Advance(now);
  tokens -= 1.0;
  Nanos wait_ns = 0;
  if (tokens < 0) wait_ns = DurationFromTokens(limit_, -tokens);

  TokenReservation r;
  r.ok = 1 <= burst_ && wait_ns <= max_future_reserve_ns;
  r.limit = limit_;
  if (r.ok) {
    r.time_to_act_ns = apf::AddSaturating(now, wait_ns);
    has_last_ = true;
    last_ns_ = now;
    tokens_ = tokens;
    last_event_ns_ = r.time_to_act_ns;
  }
  return r;
}

TokenWait TokenBucket::Wait(Nanos now, Nanos deadline_ns) {
  TokenWait w;
  // rate.Limiter.wait: the burst check comes before the context check.
  if (1 > burst_) {
    w.status = TokenWaitStatus::kExceedsBurst;
    return w;
  }
  if (now >= deadline_ns) {
    w.status = TokenWaitStatus::kContextDone;
    return w;
  }
  const Nanos wait_limit_ns = deadline_ns == kNever ? kInfDuration : deadline_ns - now;
  w.reservation = ReserveOne(now, wait_limit_ns);
  if (!w.reservation.ok) {
    w.status = TokenWaitStatus::kWouldExceedDeadline;
    return w;
  }
  w.status = TokenWaitStatus::kGranted;
  w.delay_ns = w.reservation.DelayFrom(now);
  return w;
}

TokenReservation TokenBucket::Reserve(Nanos now) { return ReserveOne(now, kInfDuration); }

bool TokenBucket::Allow(Nanos now) { return ReserveOne(now, 0).ok; }

void TokenBucket::CancelAt(const TokenReservation& r, Nanos now) {
  if (!r.ok || r.time_to_act_ns < now) return;
  // Tokens reserved after r (up to last_event_ns_) are not restored.
  const double restore = 1.0 - TokensFromDuration(r.limit, last_event_ns_ - r.time_to_act_ns);
  if (restore <= 0) return;
  double tokens = Advance(now);
  tokens += restore;
  const double burst = static_cast<double>(burst_);
  if (tokens > burst) tokens = burst;
  has_last_ = true;
  last_ns_ = now;
  tokens_ = tokens;
  if (r.time_to_act_ns == last_event_ns_) {
    const Nanos prev_event =
        apf::AddSaturating(r.time_to_act_ns, DurationFromTokens(r.limit, -1.0));
    if (prev_event >= now) last_event_ns_ = prev_event;
  }
}

std::optional<TokenBucket> NewRestClientRateLimiter(float qps, int burst) {
  if (qps == 0.0f) qps = kDefaultClientQps;
  if (burst == 0) burst = kDefaultClientBurst;
  if (!(qps > 0)) return std::nullopt;
  return TokenBucket(static_cast<double>(qps), burst);
}

}  // namespace sim

#include "apf/base/rate_limiter.h"

namespace apf {

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

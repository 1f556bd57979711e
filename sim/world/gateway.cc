#include "sim/world/gateway.h"

#include <algorithm>
#include <cmath>

namespace sim {

GatewayVerdict Gateway::Enter(apf::Nanos now, apf::RateLimiter& session_bucket,
                              GatewaySession& session) {
  GatewayVerdict v;
  v.refusal.status_code = 429;
  v.refusal.body_is_status = true;
  if (!session_bucket.Allow(now)) {
    // RequestRateExceeded carries the time until the session's next token, rounded up.
    const double missing = 1.0 - session_bucket.TokensAt(now);
    v.refusal.has_retry_after = true;
    v.refusal.retry_after_seconds =
        std::max(1, static_cast<int>(std::ceil(missing / spec_.session_request_rate)));
    v.refusal.body_message = "RequestRateExceeded";
    v.reason = "gateway: RequestRateExceeded";
    ++counts_.request_rate_exceeded;
  } else if (session.in_flight >= spec_.max_session_concurrent_requests ||
             counts_.in_flight >= spec_.max_concurrent_requests) {
    // A concurrency slot frees when another request ends: no Retry-After.
    v.refusal.body_message = "TooManyConcurrentRequests";
    v.reason = "gateway: TooManyConcurrentRequests";
    ++counts_.too_many_concurrent_requests;
  } else {
    v.passed = true;
    ++session.in_flight;
    ++counts_.in_flight;
  }
  return v;
}

}  // namespace sim

// The browser gateway's bounds per session and in total (sim/world/gateway.h), with the
// 429s it answers.
#include "sim/world/gateway.h"

#include <catch2/catch.hpp>

using apf::kMillisecond;
using apf::kSecond;

namespace {

sim::GatewaySpec Spec(double rate, int burst, int per_session, int total) {
  sim::GatewaySpec spec;
  spec.enabled = true;
  spec.session_request_rate = rate;
  spec.session_request_burst = burst;
  spec.max_session_concurrent_requests = per_session;
  spec.max_concurrent_requests = total;
  return spec;
}

}  // namespace

TEST_CASE("a session's rate bucket refuses with the wait for its next token", "[gateway]") {
  const sim::GatewaySpec spec = Spec(0.25, 1, 10, 10);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  CHECK(gateway.Enter(0, bucket, session).passed);  // the burst's one token
  gateway.Leave(session);
  // One second later the bucket holds 0.25 tokens: 0.75 missing at 0.25 per second is
  // 3 s, the Retry-After.
  const sim::GatewayVerdict v = gateway.Enter(1 * kSecond, bucket, session);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.status_code == 429);
  CHECK(v.refusal.has_retry_after);
  CHECK(v.refusal.retry_after_seconds == 3);
  CHECK(v.refusal.body_is_status);
  CHECK(v.refusal.body_message == "RequestRateExceeded");
  CHECK(std::string(v.reason) == "gateway: RequestRateExceeded");
  CHECK(gateway.counts().request_rate_exceeded == 1);
  CHECK(session.in_flight == 0);
  // At 4 s a whole token is back.
  CHECK(gateway.Enter(4 * kSecond, bucket, session).passed);
}

TEST_CASE("the Retry-After is at least one second", "[gateway]") {
  // 20 per second: a missing token comes back in 50 ms, rounded up to 1 s.
  const sim::GatewaySpec spec = Spec(20, 1, 10, 10);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  CHECK(gateway.Enter(0, bucket, session).passed);
  const sim::GatewayVerdict v = gateway.Enter(10 * kMillisecond, bucket, session);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.retry_after_seconds == 1);
}

TEST_CASE("a session's concurrency bound refuses without Retry-After", "[gateway]") {
  const sim::GatewaySpec spec = Spec(100, 100, 2, 10);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  CHECK(gateway.Enter(0, bucket, session).passed);
  CHECK(gateway.Enter(0, bucket, session).passed);
  CHECK(session.in_flight == 2);
  const sim::GatewayVerdict v = gateway.Enter(0, bucket, session);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.status_code == 429);
  CHECK_FALSE(v.refusal.has_retry_after);
  CHECK(v.refusal.body_message == "TooManyConcurrentRequests");
  CHECK(std::string(v.reason) == "gateway: TooManyConcurrentRequests");
  CHECK(gateway.counts().too_many_concurrent_requests == 1);
  // The refused attempt spent its token (the bucket is asked first): 100 - 3 are left.
  CHECK(bucket.TokensAt(0) == Approx(97));
  gateway.Leave(session);
  CHECK(gateway.Enter(0, bucket, session).passed);
}

TEST_CASE("the gateway's total bound spans sessions", "[gateway]") {
  const sim::GatewaySpec spec = Spec(100, 100, 5, 3);
  sim::Gateway gateway(spec);
  apf::RateLimiter a_bucket(100, 100), b_bucket(100, 100);
  sim::GatewaySession a, b;
  CHECK(gateway.Enter(0, a_bucket, a).passed);
  CHECK(gateway.Enter(0, a_bucket, a).passed);
  CHECK(gateway.Enter(0, b_bucket, b).passed);
  CHECK(gateway.counts().in_flight == 3);
  // Session b holds one of its five, but the gateway holds its three.
  const sim::GatewayVerdict v = gateway.Enter(0, b_bucket, b);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.body_message == "TooManyConcurrentRequests");
  gateway.Leave(a);
  CHECK(gateway.counts().in_flight == 2);
  CHECK(gateway.Enter(0, b_bucket, b).passed);
  CHECK(b.in_flight == 2);
}

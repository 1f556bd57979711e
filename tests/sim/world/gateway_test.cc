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
  CHECK(gateway.Enter(0, bucket, session, false).passed);  // the burst's one token
  gateway.Leave(session, false);
  // One second later the bucket holds 0.25 tokens: 0.75 missing at 0.25 per second is
  // 3 s, the Retry-After.
  const sim::GatewayVerdict v = gateway.Enter(1 * kSecond, bucket, session, false);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.status_code == 429);
  CHECK(v.refusal.has_retry_after);
  CHECK(v.refusal.retry_after_seconds == 3);
  CHECK(v.refusal.body_is_status);
  CHECK(v.refusal.body_message == "RequestRateExceeded");
  CHECK(std::string(v.reason) == "gateway: RequestRateExceeded (session_request_burst)");
  CHECK(gateway.counts().session_request_burst == 1);
  CHECK(session.in_flight == 0);
  // At 4 s a whole token is back.
  CHECK(gateway.Enter(4 * kSecond, bucket, session, false).passed);
}

TEST_CASE("the Retry-After is at least one second", "[gateway]") {
  // 20 per second: a missing token comes back in 50 ms, rounded up to 1 s.
  const sim::GatewaySpec spec = Spec(20, 1, 10, 10);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  CHECK(gateway.Enter(0, bucket, session, false).passed);
  const sim::GatewayVerdict v = gateway.Enter(10 * kMillisecond, bucket, session, false);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.retry_after_seconds == 1);
}

TEST_CASE("a session's concurrency bound refuses without Retry-After", "[gateway]") {
  const sim::GatewaySpec spec = Spec(100, 100, 2, 10);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  CHECK(gateway.Enter(0, bucket, session, false).passed);
  CHECK(gateway.Enter(0, bucket, session, false).passed);
  CHECK(session.in_flight == 2);
  const sim::GatewayVerdict v = gateway.Enter(0, bucket, session, false);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.status_code == 429);
  CHECK_FALSE(v.refusal.has_retry_after);
  CHECK(v.refusal.body_message == "TooManyConcurrentRequests");
  CHECK(std::string(v.reason) ==
        "gateway: TooManyConcurrentRequests (session_concurrent_requests)");
  CHECK(gateway.counts().session_concurrent_requests == 1);
  // The refused attempt spent its token (the bucket is asked first): 100 - 3 are left.
  CHECK(bucket.TokensAt(0) == Approx(97));
  gateway.Leave(session, false);
  CHECK(gateway.Enter(0, bucket, session, false).passed);
}

TEST_CASE("the gateway's total bound spans sessions", "[gateway]") {
  const sim::GatewaySpec spec = Spec(100, 100, 5, 3);
  sim::Gateway gateway(spec);
  apf::RateLimiter a_bucket(100, 100), b_bucket(100, 100);
  sim::GatewaySession a, b;
  CHECK(gateway.Enter(0, a_bucket, a, false).passed);
  CHECK(gateway.Enter(0, a_bucket, a, false).passed);
  CHECK(gateway.Enter(0, b_bucket, b, false).passed);
  CHECK(gateway.counts().in_flight == 3);
  // Session b holds one of its five, but the gateway holds its three.
  const sim::GatewayVerdict v = gateway.Enter(0, b_bucket, b, false);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.body_message == "TooManyConcurrentRequests");
  gateway.Leave(a, false);
  CHECK(gateway.counts().in_flight == 2);
  CHECK(gateway.Enter(0, b_bucket, b, false).passed);
  CHECK(b.in_flight == 2);
}

TEST_CASE("a leaked watch page meets the session's 64 and is refused from then on", "[gateway]") {
  // Seed 003, "Why these defaults": 64 per session; a page that leaks watches meets it,
  // and every later request of the session is refused. 70 watches held open: 64 pass,
  // 6 are refused TooManyConcurrentRequests, and so is the next plain request.
  sim::GatewaySpec spec;  // the seed's defaults
  spec.enabled = true;
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  int passed = 0;
  for (int i = 0; i < 70; ++i) passed += gateway.Enter(0, bucket, session, false).passed;
  CHECK(passed == 64);
  CHECK(gateway.counts().session_concurrent_requests == 6);
  CHECK(gateway.counts().peak_session_in_flight == 64);
  const sim::GatewayVerdict v = gateway.Enter(60 * kSecond, bucket, session, false);
  CHECK_FALSE(v.passed);
  CHECK_FALSE(v.refusal.has_retry_after);
  CHECK(v.refusal.body_message == "TooManyConcurrentRequests");
}

TEST_CASE("streams have bounds of their own and draw on the request rate", "[gateway]") {
  // Seed 003, "Streams": 32 per session, 429 TooManyStreams, counted apart from /k8s.
  sim::GatewaySpec spec = Spec(20, 100, 64, 2000);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  for (int i = 0; i < 32; ++i) CHECK(gateway.Enter(0, bucket, session, true).passed);
  const sim::GatewayVerdict v = gateway.Enter(0, bucket, session, true);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.status_code == 429);
  CHECK_FALSE(v.refusal.has_retry_after);
  CHECK(v.refusal.body_message == "TooManyStreams");
  CHECK(gateway.counts().session_streams == 1);
  // A /k8s request still has its room; the 33 stream openings and it spent 34 tokens.
  CHECK(gateway.Enter(0, bucket, session, false).passed);
  CHECK(bucket.TokensAt(0) == Approx(100 - 34));
  gateway.Leave(session, true);
  CHECK(session.streams == 31);
  CHECK(gateway.Enter(0, bucket, session, true).passed);
}

TEST_CASE("an ended session is answered 401 and spends nothing", "[gateway]") {
  sim::GatewaySpec spec = Spec(20, 100, 64, 2000);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  session.ends_at = 10 * kSecond;
  const sim::GatewayVerdict v = gateway.Enter(10 * kSecond, bucket, session, false);
  CHECK_FALSE(v.passed);
  CHECK(v.refusal.status_code == 401);
  CHECK(gateway.counts().session_ended_refused == 1);
  CHECK(bucket.TokensAt(10 * kSecond) == Approx(100));
}

TEST_CASE("a response is cut short at the session check after its session ends", "[gateway]") {
  // Seed 003, "The session check": checks every 5 s from the response's opening. Opened at
  // 2 s, session ended at 13 s: checks at 7, 12, 17 s; the one at 17 s finds it ended.
  sim::GatewaySpec spec;
  sim::Gateway gateway(spec);
  sim::GatewaySession session;
  session.ends_at = 13 * kSecond;
  sim::GatewayCutAt cut = gateway.CutOf(2 * kSecond, session, false);
  CHECK(cut.at == 17 * kSecond);
  CHECK(std::string(sim::GatewayCutName(cut.cut)) == "session_ended");
  // Ended exactly at a check (12 s): that check sees it.
  session.ends_at = 12 * kSecond;
  CHECK(gateway.CutOf(2 * kSecond, session, false).at == 12 * kSecond);
  // Checks hang from 13 s: the check at 17 s does not answer and fails closed at 22 s,
  // two intervals after the end at worst (seed: "10 at worst").
  session.ends_at = 13 * kSecond;
  session.checks_hang_from = 13 * kSecond;
  CHECK(gateway.CutOf(2 * kSecond, session, false).at == 22 * kSecond);
}

TEST_CASE("a response is cut at 30 minutes, a stream at its write timeout", "[gateway]") {
  sim::GatewaySpec spec;
  sim::Gateway gateway(spec);
  sim::GatewaySession session;
  // No session end: the response duration, 1800 s after it opened at 5 s.
  sim::GatewayCutAt cut = gateway.CutOf(5 * kSecond, session, false);
  CHECK(cut.at == 1805 * kSecond);
  CHECK(std::string(sim::GatewayCutName(cut.cut)) == "response_duration");
  // The browser stops reading at 60 s: a stream ends 10 s later; a native watch is not
  // held by the write timeout (seed: "not bounded yet").
  session.stops_reading_at = 60 * kSecond;
  cut = gateway.CutOf(5 * kSecond, session, true);
  CHECK(cut.at == 70 * kSecond);
  CHECK(std::string(sim::GatewayCutName(cut.cut)) == "stream_write_timeout");
  CHECK(gateway.CutOf(5 * kSecond, session, false).at == 1805 * kSecond);
}

TEST_CASE("the response-byte bound: L passes, L + 1 is a 502 or a cut", "[gateway]") {
  // Seed 003, "Response bytes": for a limit of L bytes, a response of up to L decoded bytes
  // passes; over L it is a 502 ResponseTooLarge when known in advance, else cut short; the
  // bound does not apply to a stream. L = 32 MiB = 33,554,432 by default.
  sim::GatewaySpec spec;
  spec.enabled = true;
  CHECK(spec.max_response_bytes == 33554432);
  sim::Gateway gateway(spec);
  CHECK_FALSE(gateway.OverResponseBytes(33554431, false));
  CHECK_FALSE(gateway.OverResponseBytes(33554432, false));
  CHECK(gateway.OverResponseBytes(33554433, false));
  CHECK_FALSE(gateway.OverResponseBytes(33554433, true));  // a stream
  CHECK_FALSE(gateway.OverResponseBytes(-1, false));       // nothing known
  const sim::HttpResponse r = gateway.ResponseTooLarge();
  CHECK(r.status_code == 502);
  CHECK_FALSE(r.has_retry_after);  // "Retry-After comes only where waiting is known to help"
  CHECK(r.body_message == "ResponseTooLarge");
  CHECK(gateway.counts().response_too_large == 1);
  gateway.CountCut(sim::GatewayCut::kResponseBytes);
  CHECK(gateway.counts().cut_response_bytes == 1);
  CHECK(std::string(sim::GatewayCutName(sim::GatewayCut::kResponseBytes)) == "response_bytes");
}

TEST_CASE("the size the world knows before a response starts", "[gateway]") {
  // A LIST returns its objects times their average size: 40,000 x 1,000 = 40,000,000
  // bytes, over 32 MiB; a GET returns one object, 1,000 bytes; a write's size is not known.
  sim::Scenario scenario;
  sim::ResourceSpec pods;
  pods.resource = "pods";
  pods.objects = 40000;
  pods.average_bytes = 1000;
  scenario.resources.push_back(pods);
  sim::CompiledRequest request;
  request.resource = 0;
  apf::RequestInfo info;
  sim::ListResult list;
  list.objects = 40000;
  list.bytes = 40000 * 1000;
  request.is_list = true;
  info.verb = "list";
  CHECK(sim::KnownResponseBytes(request, info, list, scenario) == 40000000);
  request.is_list = false;
  info.verb = "get";
  CHECK(sim::KnownResponseBytes(request, info, sim::ListResult{}, scenario) == 1000);
  info.subresource = "log";
  CHECK(sim::KnownResponseBytes(request, info, sim::ListResult{}, scenario) == -1);
  info.subresource.clear();
  info.verb = "update";
  CHECK(sim::KnownResponseBytes(request, info, sim::ListResult{}, scenario) == -1);
}

// krm_foyer_bound_usage_ratio (seed 003, "What is measured"): observed for what a bound let
// through, at the buckets 0.1, 0.25, 0.5, 0.75, 0.9 and 1; refusals are not observed.
TEST_CASE("the usage ratio of each bound, at the seed's buckets", "[gateway]") {
  // Burst 4, 2 per session, 4 in all; the rate (0.001/s) refills nothing within the test.
  const sim::GatewaySpec spec = Spec(0.001, 4, 2, 4);
  sim::Gateway gateway(spec);
  apf::RateLimiter bucket(spec.session_request_rate, spec.session_request_burst);
  sim::GatewaySession session;
  REQUIRE(gateway.Enter(0, bucket, session, false).passed);  // 1 of 2, 1 of 4, 1 of 4 tokens
  REQUIRE(gateway.Enter(0, bucket, session, false).passed);  // 2 of 2, 2 of 4, 2 of 4 tokens
  // The third spends a token (3 of 4) but the session's bound refuses it: not observed.
  REQUIRE_FALSE(gateway.Enter(0, bucket, session, false).passed);
  using B = sim::GatewayBound;
  const auto& usage = gateway.counts().usage;
  const sim::GatewayUsage& per_session = usage[static_cast<int>(B::kSessionConcurrentRequests)];
  CHECK(per_session.count == 2);
  CHECK(per_session.sum == Approx(1.5));  // 1/2 + 2/2
  // 0.5 falls in le=0.5 and above; 1 only in le=1.
  CHECK(per_session.le == std::array<std::uint64_t, 6>{0, 0, 1, 1, 1, 2});
  const sim::GatewayUsage& total = usage[static_cast<int>(B::kConcurrentRequests)];
  CHECK(total.sum == Approx(0.75));  // 1/4 + 2/4
  CHECK(total.le == std::array<std::uint64_t, 6>{0, 1, 2, 2, 2, 2});
  const sim::GatewayUsage& burst = usage[static_cast<int>(B::kSessionRequestBurst)];
  CHECK(burst.count == 2);
  CHECK(burst.sum == Approx(0.75));  // 1/4 + 2/4 of the burst spent
  // A 15-minute response of 48 MiB: half its duration, and over its byte bound, seen as 1.
  gateway.ObserveDuration(15 * 60 * kSecond);
  gateway.ObserveBytes(48 * 1024 * 1024);
  CHECK(usage[static_cast<int>(B::kResponseDuration)].le ==
        std::array<std::uint64_t, 6>{0, 0, 1, 1, 1, 1});
  CHECK(usage[static_cast<int>(B::kResponseBytes)].le ==
        std::array<std::uint64_t, 6>{0, 0, 0, 0, 0, 1});
  CHECK(usage[static_cast<int>(B::kResponseBytes)].sum == 1.0);
}

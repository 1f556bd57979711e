// golang.org/x/time/rate's Limiter (apf/base/rate_limiter.h) as client-go's RESTClient throttle
// (doc/model.md#client-rate-limiter, #token-bucket), the workqueue's bucket and the EventRateLimit
// plugin use it: delays on sequences worked out by hand in the comments. Every number here also
// agrees with golang.org/x/time/rate's rate.go (commit 2b4e439) run on the same sequence under Go.
#include "apf/base/rate_limiter.h"

#include <catch2/catch.hpp>
#include <vector>

#include "apf/base/virtual_time.h"
#include "sim/engine/random.h"

using apf::kMillisecond;
using apf::kNever;
using apf::kSecond;
using apf::RateLimiter;
using WaitStatus = apf::RateLimiter::WaitStatus;

namespace {

apf::Nanos WaitDelay(RateLimiter& bucket, apf::Nanos now) {
  const RateLimiter::WaitResult w = bucket.Wait(now, kNever);
  REQUIRE(w.status == WaitStatus::kGranted);
  return w.delay_ns;
}

}  // namespace

TEST_CASE("a full bucket grants the burst at once, then one token per 1/qps", "[rate_limiter]") {
  // client-go's default 5 QPS / 10 burst (doc/model.md#client-rate-limiter). Twelve Waits at t=0:
  // the bucket starts full, so ten go at once; the 11th finds 10-10-1 = -1 tokens and waits 1/5 s =
  // 200 ms; the 12th finds -2 and waits 400 ms (FIFO spacing of 1/r, 1.3).
  RateLimiter bucket(5, 10);
  for (int i = 0; i < 10; ++i) CHECK(WaitDelay(bucket, 0) == 0);
  CHECK(WaitDelay(bucket, 0) == 200 * kMillisecond);
  CHECK(WaitDelay(bucket, 0) == 400 * kMillisecond);
  CHECK(bucket.TokensAt(0) == -2.0);
}

TEST_CASE("an idle bucket refills only up to its burst", "[rate_limiter]") {
  // After draining to -2 at t=0, 10 s of idling would add 5*10 = 50 tokens, but advance()
  // caps the bucket at the burst: 10 tokens, so ten more go at once and the 11th waits
  // 200 ms again.
  RateLimiter bucket(5, 10);
  for (int i = 0; i < 12; ++i) bucket.Wait(0, kNever);
  CHECK(bucket.TokensAt(10 * kSecond) == 10.0);
  for (int i = 0; i < 10; ++i) CHECK(WaitDelay(bucket, 10 * kSecond) == 0);
  CHECK(WaitDelay(bucket, 10 * kSecond) == 200 * kMillisecond);
}

TEST_CASE("steady arrivals pay for the refill they missed", "[rate_limiter]") {
  // 3 QPS, burst 1. t=0: 1-1 = 0, no wait. t=0: 0-1 = -1, wait 1/3 s = 333333333.3 ns,
  // truncated. t=100ms: -1 + 0.1*3 = -0.7, minus 1 = -1.7, wait 1.7/3 s = 566666666.6 ns
  // -> 566666666. t=1s: -1.7 + 0.9*3 = 1.0 (capped at 1), minus 1 = 0, no wait.
  RateLimiter bucket(3, 1);
  CHECK(WaitDelay(bucket, 0) == 0);
  CHECK(WaitDelay(bucket, 0) == 333333333);
  CHECK(WaitDelay(bucket, 100 * kMillisecond) == 566666666);
  CHECK(bucket.TokensAt(100 * kMillisecond) == Approx(-1.7));
  CHECK(WaitDelay(bucket, kSecond) == 0);
  CHECK(WaitDelay(bucket, kSecond) == 333333333);
}

TEST_CASE("waits are truncated nanoseconds of (tokens / limit) * 1e9", "[rate_limiter]") {
  // 7 QPS, burst 3: ten Waits at t=0 wait k/7 s for k = 0..7, truncated. Then at
  // t = 123456789 ns the bucket holds -7 + 0.123456789*7 = -6.135802477 tokens; one more
  // leaves -7.135802477, a wait of 7.135802477/7 s = 1.0194003538... s -> 1019400353 ns.
  RateLimiter bucket(7, 3);
  std::vector<apf::Nanos> delays;
  for (int i = 0; i < 10; ++i) delays.push_back(WaitDelay(bucket, 0));
  CHECK(delays == std::vector<apf::Nanos>{0, 0, 0, 142857142, 285714285, 428571428, 571428571,
                                          714285714, 857142857, 1000000000});
  CHECK(WaitDelay(bucket, 123456789) == 1019400353);
}

TEST_CASE("a Wait that cannot be granted before the deadline fails at once and takes nothing",
          "[rate_limiter]") {
  // 5 QPS, burst 1, drained at t=0: the next token needs 200 ms (doc/model.md#token-bucket step 4).
  RateLimiter bucket(5, 1);
  CHECK(WaitDelay(bucket, 0) == 0);
  RateLimiter::WaitResult w = bucket.Wait(0, 199999999);
  CHECK(w.status == WaitStatus::kWouldExceedDeadline);
  CHECK(bucket.TokensAt(0) == 0.0);        // unchanged
  w = bucket.Wait(0, 200 * kMillisecond);  // wait == deadline - now is allowed (<=)
  CHECK(w.status == WaitStatus::kGranted);
  CHECK(w.delay_ns == 200 * kMillisecond);
  CHECK(bucket.TokensAt(0) == -1.0);
  // A context already past its deadline: ctx.Err(), nothing reserved.
  CHECK(bucket.Wait(300 * kMillisecond, 300 * kMillisecond).status == WaitStatus::kContextDone);
  CHECK(bucket.TokensAt(300 * kMillisecond) == Approx(-1.0 + 0.3 * 5));
}

TEST_CASE("a burst below one fails every Wait", "[rate_limiter]") {
  // rate.wait: n=1 > burst -> "exceeds limiter's burst" (doc/model.md#client-rate-limiter, negative
  // Burst).
  RateLimiter bucket(5, -1);
  CHECK(bucket.Wait(0, kNever).status == WaitStatus::kExceedsBurst);
  CHECK_FALSE(bucket.Allow(0));
}

TEST_CASE("cancelling the last reservation gives its token back", "[rate_limiter]") {
  // 1 QPS, burst 1. At t=0: r1 no wait (0 tokens), r2 waits 1 s (-1), r3 waits 2 s (-2).
  // r3 cancelled at 0.5 s: restore = 1 - (lastEvent 2s - r3 2s)*1 = 1; tokens at 0.5 s are
  // -2 + 0.5 = -1.5, +1 = -0.5, and lastEvent moves back to 2s - 1s = 1s. A new Wait at
  // 0.5 s then needs 1.5 tokens: 1.5 s. Cancelling r2 afterwards restores 1 - (2s - 1s)*1
  // = 0 tokens: later reservations have built on it.
  RateLimiter bucket(1, 1);
  bucket.Wait(0, kNever);
  const RateLimiter::WaitResult r2 = bucket.Wait(0, kNever);
  const RateLimiter::WaitResult r3 = bucket.Wait(0, kNever);
  CHECK(r2.delay_ns == kSecond);
  CHECK(r3.delay_ns == 2 * kSecond);
  bucket.CancelAt(r3.reservation, 500 * kMillisecond);
  CHECK(bucket.TokensAt(500 * kMillisecond) == -0.5);
  CHECK(WaitDelay(bucket, 500 * kMillisecond) == 1500 * kMillisecond);
  bucket.CancelAt(r2.reservation, 500 * kMillisecond);
  CHECK(bucket.TokensAt(500 * kMillisecond) == -1.5);
}

TEST_CASE("Reserve always succeeds and spaces a drained bucket by 1/r", "[rate_limiter]") {
  // The workqueue's overall 10 QPS / 100 burst bucket (doc/model.md#work-queue): 100 at once,
  // then 100 ms, 200 ms, ... for the 101st, 102nd, ...
  RateLimiter bucket(10, 100);
  for (int i = 0; i < 100; ++i) CHECK(bucket.Reserve(0).DelayFrom(0) == 0);
  CHECK(bucket.Reserve(0).DelayFrom(0) == 100 * kMillisecond);
  CHECK(bucket.Reserve(0).DelayFrom(0) == 200 * kMillisecond);
  CHECK(bucket.Reserve(0).DelayFrom(0) == 300 * kMillisecond);
}

TEST_CASE("Allow takes a token only when one is there", "[rate_limiter]") {
  RateLimiter bucket(2, 2);
  CHECK(bucket.Allow(0));
  CHECK(bucket.Allow(0));
  CHECK_FALSE(bucket.Allow(0));
  CHECK(bucket.TokensAt(0) == 0.0);         // a refusal changes nothing
  CHECK(bucket.Allow(500 * kMillisecond));  // 0.5 s * 2 = 1 token
}

TEST_CASE("property: grants are FIFO, never faster than burst + rate allows", "[rate_limiter]") {
  // Invariant of a token bucket: in any window [a, b] at most burst + r*(b - a) tokens are
  // used, and with one waiter at a time the grant times never go backwards.
  sim::Random rng(7, "token-bucket-property");
  for (int trial = 0; trial < 50; ++trial) {
    const double qps = 0.5 + rng.Uniform01() * 50;
    const int burst = 1 + static_cast<int>(rng.UniformInt(20));
    RateLimiter bucket(qps, burst);
    apf::Nanos now = 0;
    std::vector<apf::Nanos> grants;
    for (int i = 0; i < 300; ++i) {
      now += static_cast<apf::Nanos>(rng.Exponential(qps * 1.5) * 1e9);
      grants.push_back(now + WaitDelay(bucket, now));
    }
    bool fifo = true, within_rate = true;
    for (size_t i = 1; i < grants.size(); ++i) fifo = fifo && grants[i] >= grants[i - 1];
    for (size_t i = 0; i < grants.size(); i += 7) {
      for (size_t j = i; j < grants.size(); ++j) {
        const double window_s = apf::ToSeconds(grants[j] - grants[i]);
        within_rate =
            within_rate && static_cast<double>(j - i + 1) <= burst + qps * window_s + 1e-6;
      }
    }
    REQUIRE(fifo);
    REQUIRE(within_rate);
  }
}

TEST_CASE("Allow: starts full, refills lazily, never refills backwards", "[rate_limiter]") {
  RateLimiter bucket(2, 3);
  const apf::Nanos t0 = 42 * kSecond;
  CHECK(bucket.TokensAt(t0) == 3);
  for (int i = 0; i < 3; ++i) CHECK(bucket.Allow(t0));
  CHECK_FALSE(bucket.Allow(t0));
  CHECK(bucket.TokensAt(t0 + 250 * kMillisecond) == Approx(0.5));
  CHECK(bucket.Allow(t0 + 500 * kMillisecond));
  // A time before the last grant counts from itself: no tokens appear or vanish.
  CHECK(bucket.TokensAt(t0) == 0);
  CHECK_FALSE(bucket.Allow(t0));
  // A rejection changes nothing: the next grant is still at t0 + 1 s.
  CHECK_FALSE(bucket.Allow(t0 + 999 * kMillisecond));
  CHECK(bucket.Allow(t0 + kSecond));
  // Refill stops at the burst.
  CHECK(bucket.TokensAt(t0 + 3600 * kSecond) == 3);
}

TEST_CASE("Allow: a deficit under one nanosecond's worth still admits", "[rate_limiter]") {
  // qps 3, burst 1. 333,333,333 ns refill 0.999999999 tokens; the missing 1e-9 token
  // would take 1/3 ns, which time.Duration truncates to 0, so AllowN admits (and leaves
  // the bucket at −1e-9). One nanosecond earlier the wait would be 1.33 ns: rejected.
  RateLimiter bucket(3, 1);
  REQUIRE(bucket.Allow(0));
  CHECK_FALSE(bucket.Allow(333'333'332));
  CHECK(bucket.Allow(333'333'333));
  CHECK(bucket.TokensAt(333'333'333) < 0);
  // Burst 0 admits nothing.
  RateLimiter none(100, 0);
  CHECK_FALSE(none.Allow(0));
}

// The work queue's re-queue delays (CLIENT-SPEC 5.2, client-go default_rate_limiters.go).
#include "sim/clients/workqueue_rate_limiter.h"

#include <catch2/catch.hpp>

using apf::kMillisecond;
using apf::kSecond;
using sim::WorkqueueRateLimiter;
using sim::WorkqueueRateLimiterKind;

TEST_CASE("per-item delays double from 5 ms and stop at 1000 s", "[workqueue]") {
  // CLIENT-SPEC 5.2: 5 ms * 2^failures (counted before the increment): 5, 10, 20 ms, ...,
  // 5 ms * 2^17 = 655.36 s at failure 17, then 5 ms * 2^18 = 1310.72 s > 1000 s -> 1000 s.
  WorkqueueRateLimiter limiter(WorkqueueRateLimiterKind::kItemExponential);
  CHECK(limiter.When(1, 0) == 5 * kMillisecond);
  CHECK(limiter.When(1, 0) == 10 * kMillisecond);
  CHECK(limiter.When(1, 0) == 20 * kMillisecond);
  for (int i = 3; i < 17; ++i) limiter.When(1, 0);
  CHECK(limiter.When(1, 0) == 655360 * kMillisecond);
  CHECK(limiter.When(1, 0) == 1000 * kSecond);
  CHECK(limiter.When(1, 0) == 1000 * kSecond);
  CHECK(limiter.NumRequeues(1) == 20);
  CHECK(limiter.When(2, 0) == 5 * kMillisecond);  // items are counted apart
  limiter.Forget(1);
  CHECK(limiter.NumRequeues(1) == 0);
  CHECK(limiter.When(1, 0) == 5 * kMillisecond);
  // Far past the float range the cap still holds.
  CHECK(sim::ItemExponentialFailureDelay(2000) == 1000 * kSecond);
}

TEST_CASE("the legacy controller limiter also spaces all items by the 10/100 bucket",
          "[workqueue]") {
  // CLIENT-SPEC 5.2: MaxOf(exponential, Bucket(10 QPS, 100 burst)). 100 distinct items
  // failing at t=0 get their own 5 ms; the 101st finds the bucket empty: 100 ms, then
  // 200 ms for the 102nd. At t=10 s the bucket holds -2 + 10*10 = 98 tokens again.
  WorkqueueRateLimiter limiter(WorkqueueRateLimiterKind::kDefaultController);
  for (std::uint64_t item = 0; item < 100; ++item) CHECK(limiter.When(item, 0) == 5 * kMillisecond);
  CHECK(limiter.When(100, 0) == 100 * kMillisecond);
  CHECK(limiter.When(101, 0) == 200 * kMillisecond);
  CHECK(limiter.When(102, 10 * kSecond) == 5 * kMillisecond);
  // An item's own delay wins once it is longer than the bucket's.
  for (int i = 0; i < 9; ++i) limiter.When(7, 10 * kSecond);
  CHECK(limiter.When(7, 10 * kSecond) ==
        5 * kMillisecond * 1024);  // 5 ms * 2^10: 10 earlier failures
}

// The Retry-After sequences of doc/model.md#retry-after (dropped_requests_tracker.go), with the
// per-second values worked out by hand in the comments.
#include "apf/filter/retry_after_tracker.h"

#include <catch2/catch.hpp>
#include <vector>

using apf::kSecond;

namespace {

constexpr std::int64_t kT0 = 1'700'000'000;  // a Unix second

// Records `per_second` drops in each second [from, to) and returns the value each
// second's drops carried (all drops of one second carry the same value).
std::vector<std::int64_t> DropSteadily(apf::RetryAfterTracker& tracker, std::int64_t from,
                                       std::int64_t to, int per_second) {
  std::vector<std::int64_t> values;
  for (std::int64_t s = from; s < to; ++s) {
    std::int64_t first = 0;
    for (int i = 0; i < per_second; ++i) {
      tracker.RecordDroppedRequest(s * kSecond + i * (kSecond / per_second));
      if (i == 0) first = tracker.RetryAfterSeconds();
      REQUIRE(tracker.RetryAfterSeconds() == first);  // constant within a second
    }
    values.push_back(first);
  }
  return values;
}

}  // namespace

TEST_CASE("Steady 3 drops a second: 1, 2, 2, 4×4, 8×8, 16×16, then 32", "[retryafter]") {
  // Second t0: 1. t0+1: the window [t0, t0+1) has 3 ≥ 3·1 drops: 2. Then each doubling
  // waits `value` seconds and needs 3·value drops in the last `value` seconds, which a
  // steady 3/s gives exactly: 4 at t0+3, 8 at t0+7, 16 at t0+15, 32 at t0+31.
  apf::RetryAfterTracker tracker;
  CHECK(tracker.RetryAfterSeconds() == 1);
  std::vector<std::int64_t> expected = {1, 2, 2, 4, 4, 4, 4};
  expected.insert(expected.end(), 8, 8);
  expected.insert(expected.end(), 16, 16);
  expected.insert(expected.end(), 10, 32);
  CHECK(DropSteadily(tracker, kT0, kT0 + 41, 3) == expected);
}

TEST_CASE("Two drops a second never raise Retry-After", "[retryafter]") {
  apf::RetryAfterTracker tracker;
  CHECK(DropSteadily(tracker, kT0, kT0 + 20, 2) == std::vector<std::int64_t>(20, 1));
}

TEST_CASE("After a burst, a drop every 2 s keeps 32 for 32 s, then steps down by 1",
          "[retryafter]") {
  apf::RetryAfterTracker tracker;
  // 100 drops a second over [t0, t0+40): 32 from t0+31 on, as above.
  auto burst = DropSteadily(tracker, kT0, kT0 + 40, 100);
  CHECK(burst.back() == 32);
  // Drops at t0+41, t0+43, ...: while the window [t − 32, t) still holds a burst second
  // (t ≤ t0+71) the value stays 32. At t0+73 the window holds 16 single drops < 32: 31.
  // Each later drop sees about value/2 < value drops: one less each time, down to 1.
  std::vector<std::int64_t> got, expected;
  for (std::int64_t t = kT0 + 41; t <= kT0 + 71; t += 2) expected.push_back(32);
  for (std::int64_t v = 31; v >= 1; --v) expected.push_back(v);
  expected.push_back(1);
  for (std::int64_t t = kT0 + 41; got.size() < expected.size(); t += 2) {
    tracker.RecordDroppedRequest(t * kSecond);
    got.push_back(tracker.RetryAfterSeconds());
  }
  CHECK(got == expected);
}

TEST_CASE("An idle level keeps its value until its next drop", "[retryafter]") {
  apf::RetryAfterTracker tracker;
  DropSteadily(tracker, kT0, kT0 + 4, 3);  // reaches 4 at t0+3
  CHECK(tracker.RetryAfterSeconds() == 4);
  // An hour of silence changes nothing; the next drop sees an empty window: 4 → 3.
  CHECK(tracker.RetryAfterSeconds() == 4);
  tracker.RecordDroppedRequest((kT0 + 3600) * kSecond);
  CHECK(tracker.RetryAfterSeconds() == 3);
}

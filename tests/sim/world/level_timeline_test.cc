// The timelines' run totals: a request adds to its interval only, and each closed interval
// (and, at the run's end, the open one) is added to the totals. The totals must hold every
// sample exactly as if each had been added to them directly.
#include "sim/world/level_timeline.h"

#include <catch2/catch.hpp>
#include <vector>

#include "sim/engine/random.h"

namespace {

// Two histograms hold the same samples, to the bucket: the same count, maximum and
// nearest-rank quantiles at every rank.
void CheckSameSamples(const sim::LatencyHistogram& got, const sim::LatencyHistogram& want) {
  REQUIRE(got.count() == want.count());
  CHECK(got.max() == want.max());
  const auto n = static_cast<double>(want.count());
  for (std::uint64_t rank = 1; rank <= want.count(); ++rank) {
    const double q = static_cast<double>(rank) / n;
    CHECK(got.Quantile(q) == want.Quantile(q));
  }
}

}  // namespace

TEST_CASE("a client's run totals hold every interval's samples, the last open one's too",
          "[timeline]") {
  sim::Random rng(7, "client-timeline");
  sim::ClientTimeline tl;
  sim::ClientDistributions want;
  std::uint64_t succeeded = 0, failed = 0, in_rows = 0;
  for (int interval = 0; interval < 5; ++interval) {
    const int calls = static_cast<int>(rng.UniformInt(200));
    for (int i = 0; i < calls; ++i) {
      const auto latency = static_cast<apf::Nanos>(rng.LognormalMedianP99(2e6, 5e8));
      const apf::Nanos throttle = rng.UniformInt(3) == 0 ? 0 : latency / 3;
      const apf::Nanos wait = rng.UniformInt(2) == 0 ? 0 : latency / 5;
      const bool ok = rng.UniformInt(10) != 0;
      tl.OnCall();
      tl.OnQueueWait(wait);
      tl.OnCallDone(ok, latency, throttle);
      tl.OnIteration(latency * 2);
      want.latency.Add(latency);
      want.throttle_wait.Add(throttle);
      want.queue_wait.Add(wait);
      want.iteration.Add(latency * 2);
      ++(ok ? succeeded : failed);
    }
    // The last interval is left open, as when a run ends at an interval's start.
    if (interval < 4) {
      const sim::ClientRow row = tl.CloseInterval();
      CHECK(row.distributions->latency.count() == static_cast<std::uint64_t>(calls));
      in_rows = succeeded + failed;
    }
  }
  tl.EndRun();
  const sim::ClientDistributions& got = tl.total_distributions();
  CheckSameSamples(got.latency, want.latency);
  CheckSameSamples(got.throttle_wait, want.throttle_wait);
  CheckSameSamples(got.queue_wait, want.queue_wait);
  CheckSameSamples(got.iteration, want.iteration);
  // The counters count closed intervals only.
  CHECK(tl.totals().succeeded + tl.totals().failed == in_rows);
}

TEST_CASE("a level's run totals hold every interval's waits and counts, the last open one's too",
          "[timeline]") {
  sim::Random rng(8, "level-timeline");
  sim::LevelTimeline tl;
  sim::LatencyHistogram want;
  std::uint64_t dispatched = 0, timed_out = 0;
  apf::Nanos t = 0;
  for (int interval = 0; interval < 5; ++interval) {
    const int requests = static_cast<int>(rng.UniformInt(300));
    for (int i = 0; i < requests; ++i) {
      if (rng.UniformInt(8) == 0) {
        tl.OnRejected(apf::RejectReason::kTimeOut);
        ++timed_out;
        continue;
      }
      const apf::Nanos wait =
          rng.UniformInt(2) == 0 ? 0 : static_cast<apf::Nanos>(rng.Exponential(1e-7));
      tl.OnDispatched(wait, 1);
      want.Add(wait);
      ++dispatched;
    }
    if (interval < 4) {
      const sim::LevelRow row = tl.CloseInterval(t, t + apf::kSecond);
      t += apf::kSecond;
      CHECK(row.waits_dispatched == row.counters.dispatched);
    }
  }
  tl.EndRun();
  CheckSameSamples(tl.total_waits(), want);
  CHECK(tl.totals().dispatched == dispatched);
  CHECK(tl.totals().rejected[static_cast<int>(apf::RejectReason::kTimeOut)] == timed_out);
}

TEST_CASE(
    "a level's gauges are time-weighted over the interval, several changes at one instant "
    "included",
    "[timeline]") {
  sim::LevelTimeline tl;
  const apf::Nanos s = apf::kSecond;
  tl.SetState(1 * s, 1, 2, 0, 0);
  tl.SetState(1 * s, 2, 4, 3, 3);  // the same instant: only the last state holds
  tl.SetState(3 * s, 1, 1, 0, 0);
  sim::LevelRow row = tl.CloseInterval(0, 4 * s);
  CHECK(row.executing_requests == 5.0 / 4);  // 0 for 1 s, 2 for 2 s, 1 for 1 s
  CHECK(row.executing_seats == 9.0 / 4);
  CHECK(row.waiting_requests == 6.0 / 4);
  CHECK(row.waiting_seats == 6.0 / 4);
  CHECK(row.peak_executing_seats == 4);
  tl.SetState(6 * s, 3, 6, 1, 2);
  row = tl.CloseInterval(4 * s, 8 * s);
  CHECK(row.executing_requests == 8.0 / 4);  // 1 for 2 s, 3 for 2 s
  CHECK(row.executing_seats == 14.0 / 4);
  CHECK(row.waiting_seats == 4.0 / 4);
  CHECK(row.peak_executing_seats == 6);
  // An empty interval reports the state it ends in.
  row = tl.CloseInterval(8 * s, 8 * s);
  CHECK(row.executing_requests == 3);
  CHECK(row.waiting_seats == 2);
  CHECK(tl.peak_executing_seats() == 6);
}

// The object-count tracker's staleness, pruning and polling rules, from
// object_count_tracker.go (staleTolerationThreshold 3 min, pruneInterval 1 h) and
// registry/generic/registry/store.go (JitterUntil with factor 1.2)
// (doc/model.md#object-count-tracker).
#include "apf/estimation/object_count_tracker.h"

#include <catch2/catch.hpp>

using apf::kMinute;
using apf::ObjectStatsError;

TEST_CASE("Object stats go stale strictly after 3 minutes without an update", "[objectcount]") {
  apf::ObjectCountTracker tracker;
  const apf::Nanos t0 = 10 * kMinute;
  tracker.Set("apps", "deployments", {1200, 4000}, t0);
  auto fresh = tracker.GetStats("apps", "deployments", t0 + 3 * kMinute);  // not Before(threshold)
  CHECK(fresh.error == ObjectStatsError::kNone);
  CHECK(fresh.stats.object_count == 1200);
  CHECK(fresh.stats.estimated_average_object_size_bytes == 4000);
  auto stale = tracker.GetStats("apps", "deployments", t0 + 3 * kMinute + 1);
  CHECK(stale.error == ObjectStatsError::kStale);
  CHECK(stale.stats.object_count == 1200);  // returned alongside the error
  // A new poll makes it fresh again and replaces the numbers.
  tracker.Set("apps", "deployments", {1300, 4100}, t0 + 5 * kMinute);
  CHECK(tracker.GetStats("apps", "deployments", t0 + 5 * kMinute).stats.object_count == 1300);
}

TEST_CASE("Object stats are per group and resource, untracked ones are not found",
          "[objectcount]") {
  apf::ObjectCountTracker tracker;
  tracker.Set("", "pods", {10, 1}, 0);
  CHECK(tracker.GetStats("", "pods", 0).error == ObjectStatsError::kNone);
  CHECK(tracker.GetStats("metrics.k8s.io", "pods", 0).error == ObjectStatsError::kNotFound);
  CHECK(tracker.GetStats("", "nodes", 0).error == ObjectStatsError::kNotFound);
  CHECK(tracker.tracked_resources() == 1);
}

TEST_CASE("The hourly pruner forgets resources not updated within the hour", "[objectcount]") {
  apf::ObjectCountTracker tracker;
  tracker.Set("", "a", {1, 1}, 0);
  tracker.Set("", "b", {1, 1}, 1);
  tracker.Prune(apf::kHour);  // keeps only entries updated after now − 1 h
  CHECK(tracker.GetStats("", "a", apf::kHour).error == ObjectStatsError::kNotFound);
  CHECK(tracker.GetStats("", "b", apf::kHour).error == ObjectStatsError::kStale);
}

TEST_CASE("Count polls are 1 to 2.2 minutes apart by default", "[objectcount]") {
  // wait.Jitter(1 min, 1.2): 1 min + u × 1.2 min.
  const apf::Nanos period = apf::ObjectCountTracker::kDefaultCountPollPeriod;
  CHECK(apf::NextCountPollDelay(period, 0.0) == kMinute);
  CHECK(apf::NextCountPollDelay(period, 0.5) == kMinute + 36 * apf::kSecond);
  CHECK(apf::NextCountPollDelay(period, 0.999999) < 132 * apf::kSecond);
  // So a healthy resource never reads as stale between polls.
  CHECK(apf::NextCountPollDelay(period, 0.999999) <
        apf::ObjectCountTracker::kStaleTolerationThreshold);
}

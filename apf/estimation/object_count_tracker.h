// Object counts and average object sizes per resource, as the list work estimator reads
// them (doc/model.md#object-count-tracker): k8s.io/apiserver pkg/util/flowcontrol/request/
// object_count_tracker.go. Each resource's store reports storage.Stats (count and
// estimated average object size) on --etcd-count-metric-poll-period, 1 min by default,
// with wait.JitterUntil's jitter (registry/generic/registry/store.go startObservingCount);
// a resource whose last report is more than 3 minutes old reads as stale, and one that
// never reported (an aggregated API, a CRD pruned after an hour) as not found.
//
// The tracker never looks at a clock: Set and GetStats take the current time, and the
// world calls Set when its polling events fire and Prune once an hour.
#ifndef APF_ESTIMATION_OBJECT_COUNT_TRACKER_H_
#define APF_ESTIMATION_OBJECT_COUNT_TRACKER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "apf/base/virtual_time.h"

namespace apf {

// storage.Stats.
struct ObjectStats {
  std::int64_t object_count = 0;
  std::int64_t estimated_average_object_size_bytes = 0;
};

enum class ObjectStatsError {
  kNone,
  kNotFound,  // ObjectCountNotFoundErr: the resource is not tracked
  kStale,     // ObjectCountStaleErr: the last update is more than 3 minutes old
};

struct ObjectStatsResult {
  ObjectStats stats;
  ObjectStatsError error = ObjectStatsError::kNone;
};

// Where the work estimator reads statistics from: the tracker in a simulated apiserver,
// fixed values in a replay of recorded cases.
class ObjectStatsSource {
 public:
  virtual ~ObjectStatsSource() = default;
  // Statistics for GroupResource{api_group, resource} ("pods", "deployments.apps").
  virtual ObjectStatsResult GetStats(std::string_view api_group, std::string_view resource,
                                     Nanos now) const = 0;
};

// The same statistics for every resource: a recorded case (`apfsim model estimate`) or
// the counts a user gives `apfsim explain`.
class FixedObjectStats final : public ObjectStatsSource {
 public:
  explicit FixedObjectStats(ObjectStatsResult result) : result_(result) {}
  ObjectStatsResult GetStats(std::string_view, std::string_view, Nanos) const override {
    return result_;
  }

 private:
  ObjectStatsResult result_;
};

class ObjectCountTracker final : public ObjectStatsSource {
 public:
  static constexpr Nanos kStaleTolerationThreshold = 3 * kMinute;
  static constexpr Nanos kPruneInterval = kHour;
  static constexpr Nanos kDefaultCountPollPeriod = kMinute;  // --etcd-count-metric-poll-period
  static constexpr double kCountPollJitterFactor = 1.2;      // resourceCountPollPeriodJitter

  ObjectCountTracker() = default;
  ObjectCountTracker(const ObjectCountTracker&) = delete;
  ObjectCountTracker& operator=(const ObjectCountTracker&) = delete;

  // A store's successful poll at `now`. (A failed poll simply does not call Set.)
  void Set(std::string_view api_group, std::string_view resource, ObjectStats stats, Nanos now);

  // Stale when the last update is strictly before now − 3 min; the stale stats are
  // returned alongside the error, as the real Get does.
  ObjectStatsResult GetStats(std::string_view api_group, std::string_view resource,
                             Nanos now) const override;

  // The hourly pruner: forgets every resource not updated after now − 1 h. The real
  // tracker runs it every kPruneInterval from server start (the first run one hour in).
  void Prune(Nanos now);

  size_t tracked_resources() const { return stats_.size(); }

 private:
  struct Key {
    std::string api_group;
    std::string resource;
  };
  struct KeyView {
    std::string_view api_group;
    std::string_view resource;
  };
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      int c = std::string_view(a.resource).compare(b.resource);
      if (c != 0) return c < 0;
      return std::string_view(a.api_group) < std::string_view(b.api_group);
    }
  };
  struct Entry {
    ObjectStats stats;
    Nanos last_updated = 0;
  };
  std::map<Key, Entry, KeyLess> stats_;
};

// The delay before a store's next count poll: wait.Jitter(period, 1.2), i.e.
// period + u·1.2·period for a uniform u in [0, 1) (JitterUntil is sliding, so the delay
// runs from the end of the previous poll). The first poll happens when the store starts.
Nanos NextCountPollDelay(Nanos period, double uniform01);

}  // namespace apf

#endif  // APF_ESTIMATION_OBJECT_COUNT_TRACKER_H_

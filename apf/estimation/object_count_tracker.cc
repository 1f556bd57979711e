#include "apf/estimation/object_count_tracker.h"

namespace apf {

void ObjectCountTracker::Set(std::string_view api_group, std::string_view resource,
                             ObjectStats stats, Nanos now) {
  auto it = stats_.find(KeyView{api_group, resource});
  if (it == stats_.end()) {
    it = stats_.emplace(Key{std::string(api_group), std::string(resource)}, Entry{}).first;
  }
  it->second.stats = stats;
  it->second.last_updated = now;
}

ObjectStatsResult ObjectCountTracker::GetStats(std::string_view api_group,
                                               std::string_view resource, Nanos now) const {
  auto it = stats_.find(KeyView{api_group, resource});
  if (it == stats_.end()) return {ObjectStats{}, ObjectStatsError::kNotFound};
  if (it->second.last_updated < now - kStaleTolerationThreshold) {
    return {it->second.stats, ObjectStatsError::kStale};
  }
  return {it->second.stats, ObjectStatsError::kNone};
}

void ObjectCountTracker::Prune(Nanos now) {
  const Nanos oldest_allowed = now - kPruneInterval;
  for (auto it = stats_.begin(); it != stats_.end();) {
    if (it->second.last_updated > oldest_allowed) {
      ++it;
    } else {
      it = stats_.erase(it);
    }
  }
}

Nanos NextCountPollDelay(Nanos period, double uniform01) {
  // wait.Jitter: duration + time.Duration(rand.Float64()*maxFactor*float64(duration)).
  return period + static_cast<Nanos>(uniform01 * ObjectCountTracker::kCountPollJitterFactor *
                                     static_cast<double>(period));
}

}  // namespace apf

#include "apf/estimation/work_estimator.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "apf/base/go_numeric.h"
#include "apf/queueing/seat_seconds.h"

namespace apf {
namespace {

// list_work_estimator.go constants.
constexpr std::int64_t kBytesPerSeat = 100'000;
constexpr std::int64_t kCacheWithStreamingMaxMemoryUsage = 1'000'000;
constexpr std::int64_t kMaxObjectSize = 1'500'000;  // etcd's recommended request limit
constexpr std::int64_t kInfiniteObjectCount = 1'000'000'000;

// Go int64 arithmetic wraps; C++ signed overflow must not happen, so go through uint64.
std::int64_t WrapMul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t WrapAdd(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

std::uint64_t LevelCap(std::uint64_t level_max_seats, std::uint64_t global_limit) {
  return (level_max_seats == 0 || level_max_seats > global_limit) ? global_limit : level_max_seats;
}

bool HasSelector(const RequestQuery& q) {
  return !q.field_selector.empty() || !q.label_selector.empty();
}

// seatsBasedOnObjectSize: one seat per 100 KB the LIST is expected to hold in memory.
std::uint64_t SeatsBasedOnObjectSize(ObjectStats stats, const RequestQuery& q, bool from_cache,
                                     bool matches_single) {
  if (stats.estimated_average_object_size_bytes <= 0 && stats.object_count != 0) {
    stats.estimated_average_object_size_bytes = kMaxObjectSize;
  }
  std::int64_t limited = stats.object_count;
  if (q.limit > 0 && q.limit < limited) limited = q.limit;
  std::int64_t objects;
  if (matches_single) {
    objects = 1;
  } else if (from_cache) {
    objects = limited;
  } else if (HasSelector(q)) {
    objects = std::max(limited, stats.object_count / 2);
  } else {
    objects = limited;
  }
  std::int64_t bytes = WrapMul(objects, stats.estimated_average_object_size_bytes);
  if (from_cache) bytes = std::min(bytes, kCacheWithStreamingMaxMemoryUsage);
  return GoFloat64ToUint64(std::ceil(static_cast<double>(bytes) / kBytesPerSeat));
}

// seatsBasedOnObjectCount: one seat per objects_per_seat objects processed.
std::uint64_t SeatsBasedOnObjectCount(ObjectStats stats, const RequestQuery& q, bool from_cache,
                                      bool matches_single, double objects_per_seat) {
  std::int64_t stored = stats.object_count;
  std::int64_t limit = stored;
  if (q.limit > 0 && q.limit < stored) limit = q.limit;
  std::int64_t objects;
  if (matches_single) {
    objects = 1;
  } else if (from_cache) {
    objects = stored;
  } else if (HasSelector(q)) {
    objects = WrapAdd(stored, limit);
  } else {
    objects = WrapMul(2, limit);
  }
  return GoFloat64ToUint64(std::ceil(static_cast<double>(objects) / objects_per_seat));
}

}  // namespace

WorkEstimatorConfig DefaultWorkEstimatorConfig(bool size_based_list_cost_estimate, bool watch_list,
                                               bool consistent_read_from_cache) {
  WorkEstimatorConfig config;
  config.maximum_list_seats_limit = size_based_list_cost_estimate ? 100 : 10;
  config.size_based_list_cost_estimate = size_based_list_cost_estimate;
  config.watch_list = watch_list;
  config.consistent_read_from_cache = consistent_read_from_cache;
  return config;
}

bool ListServedFromCache(const RequestInfo& request, bool consistent_read_from_cache) {
  return request.verb == "watch" ||
         !ListDelegatedToStorage(request.query, consistent_read_from_cache);
}

bool ListDelegatedToStorage(const RequestQuery& q, bool consistent_read_from_cache) {
  const std::string& match = q.resource_version_match;
  if (match == "Exact") return true;
  if (match == "NotOlderThan") return false;
  if (!match.empty()) return true;
  if (!q.continue_token.empty()) return true;  // ShouldDelegateContinue
  if (q.limit > 0 && !q.resource_version.empty() && q.resource_version != "0") {
    return true;  // legacy exact match: ShouldDelegateExactRV
  }
  if (q.resource_version.empty()) return !consistent_read_from_cache;  // consistent read
  return false;
}

WorkEstimate WorkEstimator::EstimateWithoutRequest(std::uint64_t level_max_seats) const {
  // Never expected; the real code charges the level's maximum.
  std::uint64_t limit =
      std::max(config_.maximum_list_seats_limit, config_.maximum_mutating_seats_limit);
  return WorkEstimate{LevelCap(level_max_seats, limit), 0, 0};
}

WorkEstimate WorkEstimator::EstimateList(const RequestInfo& request, std::uint64_t level_max_seats,
                                         Nanos now) const {
  const std::uint64_t min_seats = config_.minimum_seats;
  const std::uint64_t max_seats = LevelCap(level_max_seats, config_.maximum_list_seats_limit);
  const RequestQuery& q = request.query;

  // A name (from the path or fieldSelector=metadata.name=X) makes it a single-object read.
  const bool matches_single = !request.name.empty();
  if (q.list_options_error) return WorkEstimate{max_seats, 0, 0};  // will fail validation

  if (request.verb == "watch") {
    // Since 1.35 a legacy watch (resourceVersion "" or "0") is priced like the list of
    // initial state it computes, even with sendInitialEvents=false.
    const bool send_initial_events = q.send_initial_events.value_or(false);
    const bool legacy_watch = config_.legacy_watch_priced_as_list &&
                              (q.resource_version.empty() || q.resource_version == "0");
    if (!send_initial_events && !legacy_watch) return WorkEstimate{min_seats, 0, 0};
  }
  const bool from_cache = ListServedFromCache(request, config_.consistent_read_from_cache);

  ObjectStatsResult found = object_stats_->GetStats(request.api_group, request.resource, now);
  ObjectStats stats = found.stats;
  switch (found.error) {
    case ObjectStatsError::kNone:
      break;
    case ObjectStatsError::kStale:
      // Degradation: assume the worst count and size.
      stats = ObjectStats{kInfiniteObjectCount, kMaxObjectSize};
      break;
    case ObjectStatsError::kNotFound:
      // Untracked, e.g. an aggregated API served elsewhere: the minimum (kubernetes#109106).
      return WorkEstimate{min_seats, 0, 0};
  }

  std::uint64_t seats =
      config_.size_based_list_cost_estimate
          ? SeatsBasedOnObjectSize(stats, q, from_cache, matches_single)
          : SeatsBasedOnObjectCount(stats, q, from_cache, matches_single, config_.objects_per_seat);
  if (seats < min_seats) seats = min_seats;  // never zero seats
  if (seats > max_seats) seats = max_seats;
  return WorkEstimate{seats, 0, 0};
}

WorkEstimate WorkEstimator::EstimateMutating(const RequestInfo& request,
                                             std::uint64_t level_max_seats) const {
  const std::uint64_t min_seats = config_.minimum_seats;
  const std::uint64_t max_seats = LevelCap(level_max_seats, config_.maximum_mutating_seats_limit);
  if (!config_.mutating_estimator_enabled) return WorkEstimate{min_seats, 0, 0};
  // Creating a service account token produces no watch event (any mutating verb on the
  // subresource qualifies).
  // Through string_view: a length test first, so most resources never reach memcmp.
  if (std::string_view(request.resource) == "serviceaccounts" &&
      std::string_view(request.subresource) == "token") {
    return WorkEstimate{min_seats, 0, 0};
  }
  const std::int64_t watch_count = watch_counts_->InterestedWatchCount(request);
  std::uint64_t final_seats = 0;
  Nanos additional_latency = 0;
  if (watch_count >= static_cast<std::int64_t>(config_.watches_per_seat)) {
    // Each interested watcher costs 1/watches_per_seat of a seat for the event duration;
    // the rectangle final_seats × duration is reshaped onto at most max_seats seats,
    // keeping its area (the finalWork).
    final_seats =
        GoFloat64ToUint64(std::ceil(static_cast<double>(watch_count) / config_.watches_per_seat));
    const SeatSeconds final_work =
        WholeSeatsTimesDuration(final_seats, config_.event_additional_duration);
    if (final_seats > max_seats) final_seats = max_seats;
    additional_latency = DurationPerSeat(final_work, static_cast<double>(final_seats));
  }
  // InitialSeats is 1, not minimum_seats, in the real code.
  return WorkEstimate{1, final_seats, additional_latency};
}

}  // namespace apf

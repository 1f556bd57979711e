// How many seats a request occupies, and for how long after it finishes
// (doc/model.md#work-estimation): k8s.io/apiserver pkg/util/flowcontrol/request/{width.go,
// config.go, list_work_estimator.go, mutating_work_estimator.go}.
//
// Dispatch by verb: `list` (and `watch` when the WatchList gate is on) goes to the list
// estimator, which charges by the estimated bytes a LIST holds in memory (the
// SizeBasedListCostEstimate gate, on by default since 1.34: a seat per 100 KB, at most
// 1 MB when the watch cache serves it) or, with the gate off, by object count; create,
// update, patch and delete go to the mutating estimator, which charges the watch events
// the write will fan out (10 watches per seat, 5 ms per event) as final seats held after
// the request; everything else is one seat. Each result is capped by the priority level's
// maximum seats (doc/model.md#max-seats), passed in by the caller.
//
// The estimator runs for every classified request, exempt ones included, and is pure:
// it reads statistics through the two source interfaces and keeps no state.
#ifndef APF_ESTIMATION_WORK_ESTIMATOR_H_
#define APF_ESTIMATION_WORK_ESTIMATOR_H_

#include <cstdint>
#include <string_view>

#include "apf/base/virtual_time.h"
#include "apf/classification/request_info.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/estimation/watch_tracker.h"

namespace apf {

// width.go WorkEstimate.
struct WorkEstimate {
  std::uint64_t initial_seats = 0;  // held while the request executes
  std::uint64_t final_seats = 0;    // held for additional_latency after it finishes
  Nanos additional_latency = 0;

  // The seats reserved over both phases (the queue set holds max(initial, final)).
  std::uint64_t MaxSeats() const {
    return initial_seats >= final_seats ? initial_seats : final_seats;
  }
  friend bool operator==(const WorkEstimate&, const WorkEstimate&) = default;
};

// config.go WorkEstimatorConfig, plus the three switches that decide estimates: two
// feature gates and whether etcd supports watch-progress requests (which decides whether
// a consistent LIST, one without resourceVersion, can be served from the watch cache:
// delegator.ConsistentReadSupported).
struct WorkEstimatorConfig {
  std::uint64_t minimum_seats = 1;
  std::uint64_t maximum_list_seats_limit = 100;  // 10 with SizeBasedListCostEstimate off
  std::uint64_t maximum_mutating_seats_limit = 10;
  double objects_per_seat = 100.0;
  bool mutating_estimator_enabled = true;
  Nanos event_additional_duration = 5 * kMillisecond;
  double watches_per_seat = 10.0;

  bool size_based_list_cost_estimate = true;  // feature gate, Beta, on since 1.34
  bool watch_list = true;                     // feature gate, Beta, on since 1.34
  bool consistent_read_from_cache = true;     // etcd supports RequestWatchProgress
  // A watch at resourceVersion "" or "0" without sendInitialEvents is priced as the LIST
  // of its initial events (since 1.35); before, only sendInitialEvents=true watches were.
  bool legacy_watch_priced_as_list = true;
};

// DefaultWorkEstimatorConfig for the given gates: the list seat limit is 100 with
// SizeBasedListCostEstimate on and 10 with it off.
WorkEstimatorConfig DefaultWorkEstimatorConfig(bool size_based_list_cost_estimate = true,
                                               bool watch_list = true,
                                               bool consistent_read_from_cache = true);

// delegator.ShouldDelegateListMeta with CacheWithoutSnapshots, as the list estimator
// asks it: true when the LIST is expected to go to etcd rather than the watch cache.
// Exact resourceVersionMatch, any unknown match value, a continue token, and a
// limited LIST at a specific resourceVersion go to etcd; NotOlderThan, resourceVersion
// "0" and unlimited LISTs at a resourceVersion are served from the cache; a consistent
// read (no resourceVersion) is served from the cache iff `consistent_read_from_cache`.
// The estimator does not check whether the resource has a watch cache at all.
bool ListDelegatedToStorage(const RequestQuery& query, bool consistent_read_from_cache);

// Whether the list estimator prices `request` (a LIST, or a WATCH priced as one) as served
// from the watch cache: a WATCH always is; a LIST unless ListDelegatedToStorage.
bool ListServedFromCache(const RequestInfo& request, bool consistent_read_from_cache);

class WorkEstimator {
 public:
  // The sources must outlive the estimator.
  WorkEstimator(const WorkEstimatorConfig& config, const ObjectStatsSource* object_stats,
                const WatchCountSource* watch_counts)
      : config_(config), object_stats_(object_stats), watch_counts_(watch_counts) {}

  const WorkEstimatorConfig& config() const { return config_; }

  // workEstimator.estimate. `request` is null when the request has no RequestInfo.
  // `level_max_seats` is the level's maximum seats (GetMaxSeats), 0 when it has none
  // (Exempt and Reject levels): the global limits apply then. Inline: every request
  // asks, and most need only the verb compares.
  WorkEstimate Estimate(const RequestInfo* request, std::uint64_t level_max_seats,
                        Nanos now) const {
    if (request == nullptr) return EstimateWithoutRequest(level_max_seats);
    const std::string_view verb = request->verb;  // length tests and inline compares
    if (verb == "list") return EstimateList(*request, level_max_seats, now);
    // A watch only holds seats while it sends its initial events, so with WatchList on it
    // is priced like the LIST those events amount to.
    if (verb == "watch" && config_.watch_list) return EstimateList(*request, level_max_seats, now);
    if (verb == "create" || verb == "update" || verb == "patch" || verb == "delete") {
      return EstimateMutating(*request, level_max_seats);
    }
    return WorkEstimate{config_.minimum_seats, 0, 0};
  }

  // listWorkEstimator.estimate and mutatingWorkEstimator.estimate, for a request known
  // to be of their kind.
  WorkEstimate EstimateList(const RequestInfo& request, std::uint64_t level_max_seats,
                            Nanos now) const;
  WorkEstimate EstimateMutating(const RequestInfo& request, std::uint64_t level_max_seats) const;

 private:
  WorkEstimate EstimateWithoutRequest(std::uint64_t level_max_seats) const;

  WorkEstimatorConfig config_;
  const ObjectStatsSource* object_stats_;
  const WatchCountSource* watch_counts_;
};

}  // namespace apf

#endif  // APF_ESTIMATION_WORK_ESTIMATOR_H_

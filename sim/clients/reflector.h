// An informer's reflector (client-go tools/cache/reflector.go with tools/pager/pager.go,
// doc/model.md#reflector-constants) as a clock-free state machine: list (paged), then watch,
// re-watch when a watch times out normally, relist after errors through the reflector's one backoff
// function, or stream the initial list with WatchList. It decides which request comes
// next and when; the world runs each request as a ClientCall (with its own 429 retries
// and token) and reports the outcome back. Randomness (watch timeouts, backoff jitter)
// comes from the sim::Random the caller passes in, drawn in client-go's order.
#ifndef SIM_CLIENTS_REFLECTOR_H_
#define SIM_CLIENTS_REFLECTOR_H_

#include <cstdint>

#include "apf/base/virtual_time.h"
#include "sim/clients/client_call.h"
#include "sim/engine/random.h"

namespace sim {

// tools/cache/reflector.go and tools/pager/pager.go constants (doc/model.md#reflector-constants,
// #reflector-list).
inline constexpr apf::Nanos kDefaultMinWatchTimeout = 5 * apf::kMinute;
inline constexpr apf::Nanos kReflectorBackoffInit = 800 * apf::kMillisecond;
inline constexpr apf::Nanos kReflectorBackoffCap = 30 * apf::kSecond;
inline constexpr apf::Nanos kReflectorBackoffResetInterval = 2 * apf::kMinute;
inline constexpr std::int64_t kDefaultListPageSize = 500;
// handleAnyWatch: a watch that ends sooner than this with no event is a VeryShortWatchError.
inline constexpr apf::Nanos kVeryShortWatch = apf::kSecond;

// When the reflector's backoff starts over (doc/model.md#reflector-constants).
enum class ReflectorBackoffReset {
  // client-go >= v0.36 (wait.Backoff.DelayWithReset): when more than 2 min have passed
  // since the last reset, so the sequence restarts every ~2 min even while failures go on.
  kSinceLastReset,
  // client-go <= v0.35 (wait.NewExponentialBackoffManager): when more than 2 min have
  // passed since the previous delay, so sustained failures stay at [30, 60) s.
  kSinceLastDelay,
};

// The reflector's delay function (r.delayHandler), shared by the relist loop, watch 429
// retries and watch-list retries: 800 ms doubling to a 30 s cap (38 steps), each delay
// d + int64(U * d) with U uniform in [0, 1): [0.8, 1.6), [1.6, 3.2), ..., [25.6, 51.2),
// then [30, 60) s.
class ReflectorBackoff {
 public:
  ReflectorBackoff(apf::Nanos created_at, ReflectorBackoffReset reset);
  // The next delay, computed at `now` (one draw from `rng`).
  apf::Nanos NextDelay(apf::Nanos now, Random& rng);

 private:
  void ResetSteps();

  ReflectorBackoffReset reset_;
  apf::Nanos last_start_ns_;
  apf::Nanos duration_ns_ = 0;  // wait.Backoff.Duration
  int steps_ = 0;               // wait.Backoff.Steps
};

struct ReflectorOptions {
  // client-go's WatchListClient feature gate: default false in 1.30-1.34, true from 1.35
  // (doc/model.md#watch-list). The world decides whether the server supports it: when it does
  // not, it answers the sendInitialEvents watch with an error (422 Invalid) and the
  // reflector falls back to a paged LIST for that round.
  bool use_watch_list = false;
  // ReflectorOptions.MinWatchTimeout: honoured only above 5 min; the max is twice the min.
  apf::Nanos min_watch_timeout_ns = 0;
  // Reflector.WatchListPageSize (0: the pager's page size, or unpaginated, see 4.3).
  std::int64_t watch_list_page_size = 0;
  // The ListerWatcher pager's PageSize (pager.New sets client-go's defaultPageSize, 500).
  // Reflector.list keeps it for RV "0" and "" and once paginatedResult is set; 0 lists
  // unpaginated throughout.
  std::int64_t pager_page_size = kDefaultListPageSize;
  ReflectorBackoffReset backoff_reset = ReflectorBackoffReset::kSinceLastReset;
};

// The resourceVersion a request carries. The simulation has no real RVs: only which
// kind of read the server must do.
enum class ResourceVersion {
  kZero,        // "0": any version, served from the watch cache
  kEmpty,       // "": the most recent, a consistent read
  kLastSynced,  // the reflector's lastSyncResourceVersion: not older than it
  kNone,        // a continuation page: the continue token, no resourceVersion
};

struct ListPageRequest {
  ResourceVersion resource_version = ResourceVersion::kZero;
  std::int64_t limit = kDefaultListPageSize;  // 0: unpaginated, one response
  bool is_continuation = false;               // carries the previous page's continue token
  bool full_list_fallback = false;            // the pager's full list after a 410 on a later page
};

struct WatchRequest {
  ResourceVersion resource_version = ResourceVersion::kLastSynced;
  std::int64_t timeout_seconds = 0;  // ?timeoutSeconds=, uniform in [300, 600) truncated
  // WatchList: sendInitialEvents=true, resourceVersionMatch=NotOlderThan; the stream
  // begins with the objects as ADDED events and a bookmark marking their end.
  bool send_initial_events = false;
  // allowWatchBookmarks is always true.
};

// How a failed request, or a watch's error event, looks to the reflector (the apierrors
// predicates it applies).
enum class ReflectorError {
  kExpired,                  // 410 (IsResourceExpired / IsGone)
  kTooLargeResourceVersion,  // 504 with cause ResourceVersionTooLarge
  kTooManyRequests,          // 429 that outlived the call's own retries
  kConnectionRefused,        // utilnet.IsConnectionRefused
  kInternalError,            // 500 InternalError
  kOther,
};

// The reflector's view of a finished ClientCall that did not succeed (a 410 is taken as
// reason Expired, as servers since 1.18 send; a too-large RV must be set by the world,
// which knows the status cause).
ReflectorError ReflectorErrorOf(const ClientCallState& call);

enum class ReflectorAction {
  kList,          // run `list` as a ClientCall (Do, GET); report OnListPage*
  kWatch,         // run `watch` as a ClientCall (Watch); report OnWatchFailed, or once it
                  // is open OnInitialEventsEnd (WatchList) and OnWatchEnded
  kSleep,         // call Wake at wake_at_ns
  kKeepWatching,  // nothing to send: the open stream goes on; report OnWatchEnded
};

struct ReflectorStep {
  ReflectorAction action = ReflectorAction::kKeepWatching;
  apf::Nanos wake_at_ns = 0;  // kSleep
  ListPageRequest list;       // kList
  WatchRequest watch;         // kWatch
};

// How an open watch stream ended.
struct WatchEnd {
  // The stream closed without an error event: the server's timeoutSeconds, the client's
  // http.Client.Timeout, a dropped connection, or an empty watch (ClientCall's
  // kEmptyWatch, which ends at once).
  bool error_event = false;
  ReflectorError error = ReflectorError::kOther;  // the error event's kind
  // Events received on the stream (bookmarks included): for a WatchList stream, those
  // since the initial-events-end bookmark once it came. With none and under 1 s, the
  // reflector treats the watch as failed (VeryShortWatchError).
  std::int64_t events = 0;
};

class Reflector {
 public:
  // `created_at` starts the backoff's reset clock (wait.Backoff.DelayWithReset takes
  // clock.Now() when the reflector is built).
  Reflector(const ReflectorOptions& options, apf::Nanos created_at);
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // RunWithContext: the first ListAndWatch, at once.
  ReflectorStep Start(apf::Nanos now, Random& rng);
  // A list page's call succeeded; `has_more` when the response carried a continue token.
  ReflectorStep OnListPageSucceeded(apf::Nanos now, bool has_more, Random& rng);
  ReflectorStep OnListPageFailed(apf::Nanos now, ReflectorError error, Random& rng);
  // The WATCH request ended without opening a stream (the ClientCall failed).
  ReflectorStep OnWatchFailed(apf::Nanos now, ReflectorError error, Random& rng);
  // WatchList: the bookmark annotated k8s.io/initial-events-end arrived; the reflector is
  // synced and keeps the stream as its watch.
  ReflectorStep OnInitialEventsEnd(apf::Nanos now);
  // The open stream ended.
  ReflectorStep OnWatchEnded(apf::Nanos now, const WatchEnd& end, Random& rng);
  // At the wake_at_ns of a kSleep.
  ReflectorStep Wake(apf::Nanos now, Random& rng);

  // The store holds a full list (a LIST or a WatchList finished at least once).
  bool synced() const { return synced_; }
  // r.paginatedResult: the first RV="0" list came back in pages, so relists page too.
  bool paginated_result() const { return paginated_result_; }
  // isLastSyncResourceVersionUnavailable: the next list or watch-list reads at RV "".
  bool last_sync_unavailable() const { return last_sync_unavailable_; }

  // Counters for reports: LIST page requests, WATCH requests, and ListAndWatch rounds
  // after the first (relists, each after a backoff delay).
  std::int64_t list_requests() const { return list_requests_; }
  std::int64_t watch_requests() const { return watch_requests_; }
  std::int64_t relists() const { return relists_; }

 private:
  enum class Phase { kIdle, kSleeping, kListing, kWatchListing, kWatching };
  enum class SleepFor { kRelist, kRewatch, kRetryWatchList };

  ReflectorStep ListAndWatch(apf::Nanos now, Random& rng);
  ReflectorStep BeginList();
  ReflectorStep PagerStart(ResourceVersion rv);
  ReflectorStep ListPage(const ListPageRequest& request);
  ReflectorStep ListDone(apf::Nanos now, Random& rng);
  ReflectorStep StartWatch(apf::Nanos now, Random& rng);
  ReflectorStep StartWatchList(apf::Nanos now, Random& rng);
  ReflectorStep Sleep(apf::Nanos now, SleepFor purpose, Random& rng);
  std::int64_t DrawWatchTimeoutSeconds(Random& rng) const;
  ResourceVersion RelistResourceVersion() const;
  ResourceVersion RewatchResourceVersion() const;

  ReflectorOptions options_;
  apf::Nanos min_watch_timeout_ns_;
  apf::Nanos max_watch_timeout_ns_;
  ReflectorBackoff backoff_;

  Phase phase_ = Phase::kIdle;
  SleepFor sleep_for_ = SleepFor::kRelist;
  bool synced_ = false;  // lastSyncResourceVersion != ""
  bool last_sync_unavailable_ = false;
  bool paginated_result_ = false;

  // The list in progress (Reflector.list around one or two ListPager.list runs).
  ResourceVersion list_rv_ = ResourceVersion::kZero;  // options.ResourceVersion
  std::int64_t page_size_ = kDefaultListPageSize;     // pager.PageSize
  bool list_retried_at_empty_rv_ = false;
  ResourceVersion pager_rv_ = ResourceVersion::kZero;  // this pager run's requested RV
  bool pager_paginated_ = false;
  bool on_continuation_ = false;
  bool in_full_list_fallback_ = false;

  apf::Nanos watch_start_ns_ = 0;  // `start` of the watch being handled

  std::int64_t list_requests_ = 0;
  std::int64_t watch_requests_ = 0;
  std::int64_t relists_ = 0;
};

}  // namespace sim

#endif  // SIM_CLIENTS_REFLECTOR_H_

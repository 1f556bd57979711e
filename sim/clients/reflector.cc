#include "sim/clients/reflector.h"

#include <cassert>
#include <cmath>

#include "apf/base/go_numeric.h"

namespace sim {
namespace {

using apf::Nanos;

constexpr double kBackoffFactor = 2.0;
constexpr double kBackoffJitter = 1.0;
// Steps: int(math.Ceil(float64(defaultBackoffMax) / float64(defaultBackoffInit))) = 38.
const int kBackoffSteps = static_cast<int>(std::ceil(static_cast<double>(kReflectorBackoffCap) /
                                                     static_cast<double>(kReflectorBackoffInit)));
// NewExponentialBackoffManager's Steps (math.MaxInt32), "assume we never use them up".
constexpr int kLegacyBackoffSteps = 2147483647;

// wait.Jitter(d, maxFactor): d + Duration(rand.Float64() * maxFactor * float64(d)).
Nanos Jitter(Nanos d, double max_factor, Random& rng) {
  if (max_factor <= 0.0) max_factor = 1.0;
  return d + apf::GoFloatToInt64(rng.Uniform01() * max_factor * static_cast<double>(d));
}

}  // namespace

ReflectorBackoff::ReflectorBackoff(Nanos created_at, ReflectorBackoffReset reset)
    : reset_(reset), last_start_ns_(created_at) {
  ResetSteps();
}

void ReflectorBackoff::ResetSteps() {
  duration_ns_ = kReflectorBackoffInit;
  steps_ = reset_ == ReflectorBackoffReset::kSinceLastReset ? kBackoffSteps : kLegacyBackoffSteps;
}

Nanos ReflectorBackoff::NextDelay(Nanos now, Random& rng) {
  if (reset_ == ReflectorBackoffReset::kSinceLastReset) {
    // backoffManager.Step: lastStart moves only when the backoff resets.
    if (now - last_start_ns_ > kReflectorBackoffResetInterval) {
      ResetSteps();
      last_start_ns_ = now;
    }
  } else {
    // exponentialBackoffManagerImpl.getNextBackoff: lastBackoffStart moves every time.
    if (now - last_start_ns_ > kReflectorBackoffResetInterval) ResetSteps();
    last_start_ns_ = now;
  }
  // wait.delay(steps, duration, cap, factor, jitter).
  if (steps_ < 1) return Jitter(duration_ns_, kBackoffJitter, rng);
  --steps_;
  Nanos next = apf::GoFloatToInt64(static_cast<double>(duration_ns_) * kBackoffFactor);
  if (next > kReflectorBackoffCap) {
    next = kReflectorBackoffCap;
    steps_ = 0;
  }
  const Nanos delay = Jitter(duration_ns_, kBackoffJitter, rng);
  duration_ns_ = next;
  return delay;
}

ReflectorError ReflectorErrorOf(const ClientCallState& call) {
  switch (call.outcome()) {
    case CallOutcome::kStatusError:
      switch (call.last_response().status_code) {
        case 410:
          return ReflectorError::kExpired;
        case 429:
          return ReflectorError::kTooManyRequests;
        case 500:
          return ReflectorError::kInternalError;
        default:
          return ReflectorError::kOther;
      }
    case CallOutcome::kTransportError:
      return call.transport_error() == TransportError::kConnectionRefused
                 ? ReflectorError::kConnectionRefused
                 : ReflectorError::kOther;
    default:
      return ReflectorError::kOther;
  }
}

Reflector::Reflector(const ReflectorOptions& options, Nanos created_at)
    : options_(options),
      min_watch_timeout_ns_(kDefaultMinWatchTimeout),
      max_watch_timeout_ns_(2 * kDefaultMinWatchTimeout),
      backoff_(created_at, options.backoff_reset) {
  // NewReflectorWithOptions: a MinWatchTimeout is honoured only above the default.
  if (options.min_watch_timeout_ns > kDefaultMinWatchTimeout) {
    min_watch_timeout_ns_ = options.min_watch_timeout_ns;
    max_watch_timeout_ns_ = 2 * min_watch_timeout_ns_;
  }
}

std::int64_t Reflector::DrawWatchTimeoutSeconds(Random& rng) const {
  // int64(min.Seconds() + rand.Float64()*(max.Seconds()-min.Seconds())).
  const double min_s = apf::GoDurationSeconds(min_watch_timeout_ns_);
  const double max_s = apf::GoDurationSeconds(max_watch_timeout_ns_);
  return apf::GoFloatToInt64(min_s + rng.Uniform01() * (max_s - min_s));
}

ResourceVersion Reflector::RelistResourceVersion() const {
  if (last_sync_unavailable_) return ResourceVersion::kEmpty;
  if (!synced_) return ResourceVersion::kZero;
  return ResourceVersion::kLastSynced;
}

ResourceVersion Reflector::RewatchResourceVersion() const {
  if (last_sync_unavailable_ || !synced_) return ResourceVersion::kEmpty;
  return ResourceVersion::kLastSynced;
}

ReflectorStep Reflector::Start(Nanos now, Random& rng) {
  assert(phase_ == Phase::kIdle);
  return ListAndWatch(now, rng);
}

ReflectorStep Reflector::ListAndWatch(Nanos now, Random& rng) {
  if (options_.use_watch_list) return StartWatchList(now, rng);
  return BeginList();
}

ReflectorStep Reflector::BeginList() {
  // Reflector.list: the RV, then the pager's page size.
  list_rv_ = RelistResourceVersion();
  if (options_.watch_list_page_size != 0) {
    page_size_ = options_.watch_list_page_size;
  } else if (paginated_result_) {
    page_size_ = options_.pager_page_size;  // "leave the default pager size set"
  } else if (list_rv_ == ResourceVersion::kLastSynced) {
    page_size_ = 0;  // unpaginated, so the watch cache can serve it
  } else {
    page_size_ = options_.pager_page_size;
  }
  list_retried_at_empty_rv_ = false;
  return PagerStart(list_rv_);
}

ReflectorStep Reflector::PagerStart(ResourceVersion rv) {
  phase_ = Phase::kListing;
  pager_rv_ = rv;
  pager_paginated_ = false;
  on_continuation_ = false;
  in_full_list_fallback_ = false;
  ListPageRequest request;
  request.resource_version = rv;
  request.limit = page_size_;  // options.Limit == 0 -> PageSize
  return ListPage(request);
}

ReflectorStep Reflector::ListPage(const ListPageRequest& request) {
  ++list_requests_;
  ReflectorStep step;
  step.action = ReflectorAction::kList;
  step.list = request;
  return step;
}

ReflectorStep Reflector::OnListPageSucceeded(Nanos now, bool has_more, Random& rng) {
  assert(phase_ == Phase::kListing);
  if (has_more && !in_full_list_fallback_) {
    // ListPager.list: the next page carries the continue token and no RV; no delay.
    pager_paginated_ = true;
    on_continuation_ = true;
    ListPageRequest request;
    request.resource_version = ResourceVersion::kNone;
    request.limit = page_size_;
    request.is_continuation = true;
    return ListPage(request);
  }
  return ListDone(now, rng);
}

ReflectorStep Reflector::OnListPageFailed(Nanos now, ReflectorError error, Random& rng) {
  assert(phase_ == Phase::kListing);
  // ListPager.list: a 410 Expired on page 2 or later -> one full list, unpaged, at the
  // RV first asked for.
  if (error == ReflectorError::kExpired && on_continuation_ && !in_full_list_fallback_) {
    in_full_list_fallback_ = true;
    on_continuation_ = false;
    ListPageRequest request;
    request.resource_version = pager_rv_;
    request.limit = 0;
    request.full_list_fallback = true;
    return ListPage(request);
  }
  // Reflector.list: an expired or too large RV -> mark it unavailable and list again at
  // once with RV "" (the same pager, so the same page size). Once.
  if ((error == ReflectorError::kExpired || error == ReflectorError::kTooLargeResourceVersion) &&
      !list_retried_at_empty_rv_) {
    last_sync_unavailable_ = true;
    list_retried_at_empty_rv_ = true;
    return PagerStart(RelistResourceVersion());
  }
  // Any other error ends ListAndWatch: the RUN loop's delay, then a relist.
  return Sleep(now, SleepFor::kRelist, rng);
}

ReflectorStep Reflector::ListDone(Nanos now, Random& rng) {
  // Only an RV="0" list that came back in pages marks the resource as paginated.
  if (list_rv_ == ResourceVersion::kZero && pager_paginated_) paginated_result_ = true;
  last_sync_unavailable_ = false;
  synced_ = true;
  return StartWatch(now, rng);
}

ReflectorStep Reflector::StartWatch(Nanos now, Random& rng) {
  // Reflector.watch with w == nil: a new WATCH from lastSyncResourceVersion.
  phase_ = Phase::kWatching;
  watch_start_ns_ = now;
  ++watch_requests_;
  ReflectorStep step;
  step.action = ReflectorAction::kWatch;
  step.watch.timeout_seconds = DrawWatchTimeoutSeconds(rng);
  step.watch.resource_version = synced_ ? ResourceVersion::kLastSynced : ResourceVersion::kEmpty;
  return step;
}

ReflectorStep Reflector::StartWatchList(Nanos now, Random& rng) {
  // Reflector.watchList, one turn of its loop.
  phase_ = Phase::kWatchListing;
  watch_start_ns_ = now;
  ++watch_requests_;
  ReflectorStep step;
  step.action = ReflectorAction::kWatch;
  step.watch.resource_version = RewatchResourceVersion();
  step.watch.timeout_seconds = DrawWatchTimeoutSeconds(rng);
  step.watch.send_initial_events = true;
  return step;
}

ReflectorStep Reflector::OnWatchFailed(Nanos now, ReflectorError error, Random& rng) {
  const bool retriable =
      error == ReflectorError::kConnectionRefused || error == ReflectorError::kTooManyRequests;
  if (phase_ == Phase::kWatchListing) {
    // watchList's isErrorRetriableWithSideEffectsFn.
    if (retriable) return Sleep(now, SleepFor::kRetryWatchList, rng);
    if (error == ReflectorError::kExpired || error == ReflectorError::kTooLargeResourceVersion) {
      last_sync_unavailable_ = true;
      return StartWatchList(now, rng);
    }
    return BeginList();  // fall back to a LIST for this round
  }
  assert(phase_ == Phase::kWatching);
  // Reflector.watch: isWatchErrorRetriable -> back off and re-watch, no relist.
  if (retriable) return Sleep(now, SleepFor::kRewatch, rng);
  return Sleep(now, SleepFor::kRelist, rng);
}

ReflectorStep Reflector::OnInitialEventsEnd(Nanos now) {
  assert(phase_ == Phase::kWatchListing);
  last_sync_unavailable_ = false;
  synced_ = true;
  // Reflector.watch(w) then handles the same stream; its `start` is taken now.
  phase_ = Phase::kWatching;
  watch_start_ns_ = now;
  return ReflectorStep{};
}

ReflectorStep Reflector::OnWatchEnded(Nanos now, const WatchEnd& end, Random& rng) {
  const bool very_short =
      !end.error_event && now - watch_start_ns_ < kVeryShortWatch && end.events == 0;
  if (phase_ == Phase::kWatchListing) {
    // handleListWatch ended before the initial-events-end bookmark.
    if (end.error_event) {
      if (end.error == ReflectorError::kTooManyRequests ||
          end.error == ReflectorError::kConnectionRefused) {
        return Sleep(now, SleepFor::kRetryWatchList, rng);
      }
      if (end.error == ReflectorError::kExpired ||
          end.error == ReflectorError::kTooLargeResourceVersion) {
        last_sync_unavailable_ = true;
        return StartWatchList(now, rng);
      }
      return BeginList();
    }
    if (very_short) return BeginList();  // VeryShortWatchError is not retriable
    return StartWatchList(now, rng);     // closed without the bookmark: ask again at once
  }
  assert(phase_ == Phase::kWatching);
  if (end.error_event) {
    switch (end.error) {
      case ReflectorError::kTooManyRequests:
        return Sleep(now, SleepFor::kRewatch, rng);
      default:
        // 410 Expired (relist at lastSyncResourceVersion), 500 (MaxInternalErrorRetry-
        // Duration is 0 by default) and anything else: watch returns nil, the RUN loop
        // sleeps, then relists.
        return Sleep(now, SleepFor::kRelist, rng);
    }
  }
  if (very_short) return Sleep(now, SleepFor::kRelist, rng);
  return StartWatch(now, rng);  // a normal timeout: re-watch at once, no LIST
}

ReflectorStep Reflector::Sleep(Nanos now, SleepFor purpose, Random& rng) {
  phase_ = Phase::kSleeping;
  sleep_for_ = purpose;
  ReflectorStep step;
  step.action = ReflectorAction::kSleep;
  step.wake_at_ns = now + backoff_.NextDelay(now, rng);
  return step;
}

ReflectorStep Reflector::Wake(Nanos now, Random& rng) {
  assert(phase_ == Phase::kSleeping);
  switch (sleep_for_) {
    case SleepFor::kRelist:
      ++relists_;
      return ListAndWatch(now, rng);
    case SleepFor::kRewatch:
      return StartWatch(now, rng);
    case SleepFor::kRetryWatchList:
      return StartWatchList(now, rng);
  }
  return ReflectorStep{};
}

}  // namespace sim

#include "sim/world/informer.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace sim {
namespace {

// The reflector's lastSyncResourceVersion on the wire: any value but "" and "0" is served
// the same way (a watch from it costs 1 seat, a relist from it is read from the cache).
constexpr const char* kLastSyncedResourceVersion = "1";

// `resourceVersion=...&` for a request's RV kind ("" for none: RV "" and continuations).
std::string ResourceVersionParameter(ResourceVersion rv) {
  switch (rv) {
    case ResourceVersion::kZero:
      return "resourceVersion=0";
    case ResourceVersion::kLastSynced:
      return std::string("resourceVersion=") + kLastSyncedResourceVersion;
    case ResourceVersion::kEmpty:
    case ResourceVersion::kNone:
      return "";
  }
  return "";
}

void Append(std::string* query, const std::string& parameter) {
  if (parameter.empty()) return;
  if (!query->empty()) query->push_back('&');
  query->append(parameter);
}

// ListPager.list's ListOptions: the RV (none on a continuation), Limit when paging; the
// continue token is the call's own.
std::string ListQuery(const ListPageRequest& list) {
  std::string query = ResourceVersionParameter(list.resource_version);
  if (list.limit > 0) Append(&query, "limit=" + std::to_string(list.limit));
  return query;
}

// Reflector.watch's and Reflector.watchList's ListOptions; timeoutSeconds is the call's
// own.
std::string WatchQuery(const WatchRequest& watch) {
  std::string query = "allowWatchBookmarks=true";
  Append(&query, ResourceVersionParameter(watch.resource_version));
  if (watch.send_initial_events) {
    Append(&query, "resourceVersionMatch=NotOlderThan&sendInitialEvents=true");
  }
  return query;
}

}  // namespace

InformerCallResult InformerCallResultOf(const ClientCallState& call, std::string continue_token) {
  InformerCallResult result;
  result.outcome = call.outcome();
  if (result.outcome == CallOutcome::kSucceeded) {
    result.continue_token = std::move(continue_token);
  } else if (result.outcome != CallOutcome::kEmptyWatch) {
    result.error = ReflectorErrorOf(call);
  }
  return result;
}

Informer::Informer(const ReflectorOptions& options, apf::Nanos created_at, Random rng)
    : rng_(std::move(rng)), reflector_(options, created_at) {}

InformerStep Informer::OnTimer(apf::Nanos now) {
  assert(pending_ == Pending::kNothing);
  if (!started_) {
    started_ = true;
    return Follow(reflector_.Start(now, rng_));
  }
  return Follow(reflector_.Wake(now, rng_));
}

InformerStep Informer::OnCallDone(apf::Nanos now, const InformerCallResult& result) {
  const Pending pending = pending_;
  pending_ = Pending::kNothing;
  const bool ok = result.outcome == CallOutcome::kSucceeded;
  switch (pending) {
    case Pending::kList:
      if (!ok) return Follow(reflector_.OnListPageFailed(now, result.error, rng_));
      continue_token_ = result.continue_token;
      {
        InformerStep step =
            Follow(reflector_.OnListPageSucceeded(now, !continue_token_.empty(), rng_));
        if (step.action == InformerAction::kSend && step.request.watch) synced_at_ns_ = now;
        return step;
      }
    case Pending::kWatch:
    case Pending::kWatchList:
      if (ok) {
        // The 200 of a watch comes once the server has sent its initial events (its APF
        // execution is their sending, doc/model.md#watch-flow): for a WatchList stream that is the
        // initial-events-end bookmark.
        watch_opened_at_ns_ = now;
        if (pending == Pending::kWatchList) {
          synced_at_ns_ = now;
          return Follow(reflector_.OnInitialEventsEnd(now));
        }
        return InformerStep{};
      }
      // Request.Watch's empty watch: a stream that is closed at once, with no events.
      if (result.outcome == CallOutcome::kEmptyWatch) {
        return Follow(reflector_.OnWatchEnded(now, WatchEnd{}, rng_));
      }
      return Follow(reflector_.OnWatchFailed(now, result.error, rng_));
    case Pending::kNothing:
      break;
  }
  assert(false && "OnCallDone without a call in flight");
  return InformerStep{};
}

InformerStep Informer::OnWatchEnded(apf::Nanos now, const WatchEnd& end) {
  assert(pending_ == Pending::kNothing);
  if (watch_opened_at_ns_ >= 0 && now - watch_opened_at_ns_ >= kBookmarkFrequency) {
    const apf::Nanos last_bookmark =
        watch_opened_at_ns_ + (now - watch_opened_at_ns_) / kBookmarkFrequency * kBookmarkFrequency;
    synced_at_ns_ = std::max(synced_at_ns_, last_bookmark);
  }
  watch_opened_at_ns_ = -1;
  return Follow(reflector_.OnWatchEnded(now, end, rng_));
}

InformerStep Informer::Follow(const ReflectorStep& step) {
  InformerStep out;
  switch (step.action) {
    case ReflectorAction::kList:
      pending_ = Pending::kList;
      out.action = InformerAction::kSend;
      out.request.query = ListQuery(step.list);
      if (step.list.is_continuation) out.request.continue_token = continue_token_;
      break;
    case ReflectorAction::kWatch:
      pending_ = step.watch.send_initial_events ? Pending::kWatchList : Pending::kWatch;
      out.action = InformerAction::kSend;
      out.request.watch = true;
      out.request.query = WatchQuery(step.watch);
      out.request.timeout_seconds = step.watch.timeout_seconds;
      out.request.from_last_synced = step.watch.resource_version == ResourceVersion::kLastSynced;
      break;
    case ReflectorAction::kSleep:
      out.action = InformerAction::kWakeAt;
      out.wake_at_ns = step.wake_at_ns;
      break;
    case ReflectorAction::kKeepWatching:
      out.action = InformerAction::kWatching;
      break;
  }
  return out;
}

}  // namespace sim

// The informer's reflector (doc/model.md#reflector-constants): its backoff sequence and resets,
// watch timeouts, paging and the relist resourceVersion rules, what 410, 429 and very short watches
// lead to, and WatchList. Expected values cite the spec; where a value depends on a random draw,
// the test draws the same number from a twin stream and applies the spec's formula to it.
#include "sim/clients/reflector.h"

#include <catch2/catch.hpp>
#include <vector>

using apf::kMillisecond;
using apf::kMinute;
using apf::kSecond;
using apf::Nanos;
using sim::Random;
using sim::Reflector;
using sim::ReflectorAction;
using sim::ReflectorBackoff;
using sim::ReflectorBackoffReset;
using sim::ReflectorError;
using sim::ReflectorOptions;
using sim::ReflectorStep;
using sim::ResourceVersion;
using sim::WatchEnd;

namespace {

// d * (1 + U) as wait.Jitter computes it: d + int64(U * d) (doc/model.md#reflector-constants).
Nanos Jittered(Nanos d, Random& twin) {
  return d + static_cast<Nanos>(twin.Uniform01() * static_cast<double>(d));
}

WatchEnd ClosedAfter(std::int64_t events) {
  WatchEnd end;
  end.events = events;
  return end;
}

WatchEnd ErrorEvent(ReflectorError error) {
  WatchEnd end;
  end.error_event = true;
  end.error = error;
  return end;
}

}  // namespace

TEST_CASE(
    "reflector backoff: 0.8 s doubling to the 30 s cap, each delay jittered up to twice its base",
    "[reflector]") {
  // doc/model.md#reflector-constants: [0.8,1.6), [1.6,3.2), [3.2,6.4), [6.4,12.8), [12.8,25.6),
  // [25.6,51.2), then [30,60) s forever (51.2 > cap, so the base becomes 30 s).
  Random rng(3, "backoff"), twin(3, "backoff");
  ReflectorBackoff backoff(0, ReflectorBackoffReset::kSinceLastReset);
  const std::vector<Nanos> bases = {800 * kMillisecond,  1600 * kMillisecond,  3200 * kMillisecond,
                                    6400 * kMillisecond, 12800 * kMillisecond, 25600 * kMillisecond,
                                    30 * kSecond,        30 * kSecond,         30 * kSecond};
  for (Nanos base : bases) {
    const Nanos delay = backoff.NextDelay(kSecond, rng);
    CHECK(delay == Jittered(base, twin));
    CHECK(delay >= base);
    CHECK(delay < 2 * base);
  }
}

TEST_CASE("reflector backoff restarts 2 min after its last reset (client-go >= 0.36)",
          "[reflector]") {
  // doc/model.md#reflector-constants: backoffManager.Step resets when now - lastStart > 2 min, and
  // lastStart moves only on a reset. Built at 0; delays asked at 0, 10, ..., 120 s climb
  // through the sequence (no reset: 120 - 0 is not > 2 min); at 130 s it starts over.
  Random rng(4, "reset"), twin(4, "reset");
  ReflectorBackoff backoff(0, ReflectorBackoffReset::kSinceLastReset);
  const std::vector<Nanos> climb = {800 * kMillisecond,   1600 * kMillisecond,
                                    3200 * kMillisecond,  6400 * kMillisecond,
                                    12800 * kMillisecond, 25600 * kMillisecond};
  for (int i = 0; i <= 12; ++i) {
    const Nanos base = i < 6 ? climb[i] : 30 * kSecond;
    CHECK(backoff.NextDelay(i * 10 * kSecond, rng) == Jittered(base, twin));
  }
  // 130 s: reset, lastStart = 130 s; then 0.8, 1.6, ... again until 250 s.
  CHECK(backoff.NextDelay(130 * kSecond, rng) == Jittered(800 * kMillisecond, twin));
  CHECK(backoff.NextDelay(140 * kSecond, rng) == Jittered(1600 * kMillisecond, twin));
  CHECK(backoff.NextDelay(250 * kSecond, rng) == Jittered(3200 * kMillisecond, twin));
  CHECK(backoff.NextDelay(251 * kSecond, rng) == Jittered(800 * kMillisecond, twin));
}

TEST_CASE("legacy reflector backoff restarts only after a 2 min quiet gap (client-go <= 0.35)",
          "[reflector]") {
  // doc/model.md#reflector-constants: exponentialBackoffManagerImpl moves lastBackoffStart on every
  // call, so failures every 10 s stay at [30, 60) s; a gap of 121 s resets.
  Random rng(5, "legacy"), twin(5, "legacy");
  ReflectorBackoff backoff(0, ReflectorBackoffReset::kSinceLastDelay);
  const std::vector<Nanos> climb = {800 * kMillisecond,   1600 * kMillisecond,
                                    3200 * kMillisecond,  6400 * kMillisecond,
                                    12800 * kMillisecond, 25600 * kMillisecond};
  for (int i = 0; i < 20; ++i) {
    const Nanos base = i < 6 ? climb[i] : 30 * kSecond;
    CHECK(backoff.NextDelay(i * 10 * kSecond, rng) == Jittered(base, twin));
  }
  CHECK(backoff.NextDelay(190 * kSecond + 120 * kSecond, rng) == Jittered(30 * kSecond, twin));
  CHECK(backoff.NextDelay(310 * kSecond + 121 * kSecond, rng) ==
        Jittered(800 * kMillisecond, twin));
}

TEST_CASE("watch timeouts are uniform from 300 s up to 600 s, truncated to whole seconds",
          "[reflector]") {
  // doc/model.md#reflector-constants: int64(300 + rand*(600-300)); a MinWatchTimeout below 5 min is
  // ignored; 8 min gives [480, 960).
  for (Nanos min_timeout : {Nanos{0}, 4 * kMinute, 8 * kMinute}) {
    ReflectorOptions options;
    options.min_watch_timeout_ns = min_timeout;
    const double lo = min_timeout > 5 * kMinute ? 480 : 300;
    Random rng(6, "timeouts"), twin(6, "timeouts");
    Reflector reflector(options, 0);
    ReflectorStep step = reflector.Start(0, rng);
    REQUIRE(step.action == ReflectorAction::kList);
    step = reflector.OnListPageSucceeded(0, false, rng);
    for (int i = 0; i < 200; ++i) {
      REQUIRE(step.action == ReflectorAction::kWatch);
      const auto expected = static_cast<std::int64_t>(lo + twin.Uniform01() * lo);
      REQUIRE(step.watch.timeout_seconds == expected);
      REQUIRE(step.watch.timeout_seconds >= lo);
      REQUIRE(step.watch.timeout_seconds < 2 * lo);
      // The server ends the watch normally at its timeout: re-watch at once (4.2).
      const Nanos end = (i + 1) * 600 * kSecond;
      step = reflector.OnWatchEnded(end, ClosedAfter(3), rng);
    }
  }
}

TEST_CASE("first list: RV 0 in pages of 500, then watch from the listed RV", "[reflector]") {
  // doc/model.md#reflector-list: relistResourceVersion is "0" at first; Limit 500; continuation
  // pages carry the continue token and no RV, with no delay between them. A paged RV=0 answer sets
  // paginatedResult.
  Random rng(7, "paging");
  Reflector reflector(ReflectorOptions{}, 0);
  ReflectorStep step = reflector.Start(0, rng);
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.resource_version == ResourceVersion::kZero);
  CHECK(step.list.limit == 500);
  CHECK_FALSE(step.list.is_continuation);
  for (int page = 2; page <= 4; ++page) {
    step = reflector.OnListPageSucceeded(page * kSecond, true, rng);
    REQUIRE(step.action == ReflectorAction::kList);
    CHECK(step.list.resource_version == ResourceVersion::kNone);
    CHECK(step.list.limit == 500);
    CHECK(step.list.is_continuation);
  }
  step = reflector.OnListPageSucceeded(5 * kSecond, false, rng);
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK(step.watch.resource_version == ResourceVersion::kLastSynced);
  CHECK_FALSE(step.watch.send_initial_events);
  CHECK(reflector.synced());
  CHECK(reflector.paginated_result());
  CHECK(reflector.list_requests() == 4);
  // A later relist keeps paging at 500 even at RV=lastSynced, because the result was
  // paginated (4.3: "paginatedResult already true -> 500").
  step = reflector.OnWatchEnded(10 * kSecond, ErrorEvent(ReflectorError::kExpired), rng);
  REQUIRE(step.action == ReflectorAction::kSleep);
  step = reflector.Wake(step.wake_at_ns, rng);
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.resource_version == ResourceVersion::kLastSynced);
  CHECK(step.list.limit == 500);
}

TEST_CASE("a relist at lastSyncedRV is unpaginated so the watch cache can serve it",
          "[reflector]") {
  // doc/model.md#reflector-list: RV neither "" nor "0" -> PageSize 0; a one-page RV=0 list does not
  // set paginatedResult. A watch 410 relists at lastSyncRV after the RUN delay (4.2).
  Random rng(8, "relist");
  Reflector reflector(ReflectorOptions{}, 0);
  reflector.Start(0, rng);
  ReflectorStep step = reflector.OnListPageSucceeded(kSecond, false, rng);
  CHECK_FALSE(reflector.paginated_result());
  step = reflector.OnWatchEnded(100 * kSecond, ErrorEvent(ReflectorError::kExpired), rng);
  REQUIRE(step.action == ReflectorAction::kSleep);
  CHECK(step.wake_at_ns >= 100 * kSecond + 800 * kMillisecond);
  CHECK(step.wake_at_ns < 100 * kSecond + 1600 * kMillisecond);
  step = reflector.Wake(step.wake_at_ns, rng);
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.resource_version == ResourceVersion::kLastSynced);
  CHECK(step.list.limit == 0);
  CHECK(reflector.relists() == 1);
}

TEST_CASE("the pager's page size replaces 500 where the reflector pages, 0 never pages",
          "[reflector]") {
  // doc/model.md#reflector-list: Reflector.list leaves the pager's PageSize for RV "0" and "" and
  // once paginatedResult is set, and sets 0 for a relist at lastSyncRV. A pager built
  // with PageSize 0 sends no Limit at all.
  for (std::int64_t page_size : {std::int64_t{0}, std::int64_t{50}}) {
    ReflectorOptions options;
    options.pager_page_size = page_size;
    Random rng(21, "pager");
    Reflector reflector(options, 0);
    ReflectorStep step = reflector.Start(0, rng);
    CHECK(step.list.limit == page_size);
    // Paged (only possible with a limit): the relist after a watch 410 pages too.
    step = reflector.OnListPageSucceeded(kSecond, page_size > 0, rng);
    if (page_size > 0) {
      CHECK(step.list.limit == page_size);
      step = reflector.OnListPageSucceeded(kSecond, false, rng);
    }
    REQUIRE(step.action == ReflectorAction::kWatch);
    CHECK(reflector.paginated_result() == (page_size > 0));
    reflector.OnWatchEnded(100 * kSecond, ErrorEvent(ReflectorError::kExpired), rng);
    step = reflector.Wake(200 * kSecond, rng);
    REQUIRE(step.action == ReflectorAction::kList);
    CHECK(step.list.resource_version == ResourceVersion::kLastSynced);
    CHECK(step.list.limit == page_size);
  }
}

TEST_CASE("a 410 on a continuation page gives one full list at the first page's RV",
          "[reflector]") {
  // doc/model.md#reflector-list, ListPager.list with FullListIfExpired.
  Random rng(9, "fallback");
  Reflector reflector(ReflectorOptions{}, 0);
  reflector.Start(0, rng);
  ReflectorStep step = reflector.OnListPageSucceeded(kSecond, true, rng);
  REQUIRE(step.list.is_continuation);
  step = reflector.OnListPageFailed(2 * kSecond, ReflectorError::kExpired, rng);
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.full_list_fallback);
  CHECK(step.list.limit == 0);
  CHECK(step.list.resource_version == ResourceVersion::kZero);
  CHECK_FALSE(step.list.is_continuation);
  step = reflector.OnListPageSucceeded(3 * kSecond, false, rng);
  CHECK(step.action == ReflectorAction::kWatch);
  CHECK(reflector.paginated_result());  // page 1 had a continue token
}

TEST_CASE("a 410 on the list itself retries at once at the empty RV with the same page size",
          "[reflector]") {
  // doc/model.md#reflector-list: "A 410 or too-large-RV on the list as a whole -> set unavailable
  // and retry at once with RV=\"\"". A relist at lastSyncRV (page size 0) expired: the retry is
  // also unpaginated (same pager). Its success clears the flag.
  Random rng(10, "expired");
  Reflector reflector(ReflectorOptions{}, 0);
  reflector.Start(0, rng);
  reflector.OnListPageSucceeded(kSecond, false, rng);
  ReflectorStep step =
      reflector.OnWatchEnded(400 * kSecond, ErrorEvent(ReflectorError::kInternalError), rng);
  const Nanos t = step.wake_at_ns;
  step = reflector.Wake(t, rng);
  REQUIRE(step.list.resource_version == ResourceVersion::kLastSynced);
  step = reflector.OnListPageFailed(t + kSecond, ReflectorError::kExpired, rng);
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.resource_version == ResourceVersion::kEmpty);
  CHECK(step.list.limit == 0);
  CHECK(reflector.last_sync_unavailable());
  // A second expiry is not retried again: RUN delay, then relist at RV "" (unavailable).
  step = reflector.OnListPageFailed(t + 2 * kSecond, ReflectorError::kExpired, rng);
  REQUIRE(step.action == ReflectorAction::kSleep);
  const Nanos t2 = step.wake_at_ns;
  step = reflector.Wake(t2, rng);
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.resource_version == ResourceVersion::kEmpty);
  CHECK(step.list.limit == 500);  // RV "" pages at 500
  step = reflector.OnListPageSucceeded(t2 + kSecond, false, rng);
  CHECK_FALSE(reflector.last_sync_unavailable());
}

TEST_CASE("a normal watch end re-watches at once, a very short one relists after a delay",
          "[reflector]") {
  // doc/model.md#reflector-loop: err == nil -> re-watch from lastSyncRV, no delay, no LIST; under 1
  // s with 0 events -> VeryShortWatchError -> RUN delay -> relist.
  Random rng(11, "short");
  Reflector reflector(ReflectorOptions{}, 0);
  reflector.Start(0, rng);
  ReflectorStep step = reflector.OnListPageSucceeded(0, false, rng);       // watch sent at 0
  step = reflector.OnWatchEnded(999 * kMillisecond, ClosedAfter(1), rng);  // one event
  CHECK(step.action == ReflectorAction::kWatch);
  step = reflector.OnWatchEnded(999 * kMillisecond + kSecond, ClosedAfter(0), rng);  // 1 s
  CHECK(step.action == ReflectorAction::kWatch);
  const Nanos sent = 999 * kMillisecond + kSecond;
  step = reflector.OnWatchEnded(sent + 999 * kMillisecond, ClosedAfter(0), rng);
  REQUIRE(step.action == ReflectorAction::kSleep);
  step = reflector.Wake(step.wake_at_ns, rng);
  CHECK(step.action == ReflectorAction::kList);
  CHECK(reflector.list_requests() == 2);
  CHECK(reflector.watch_requests() == 3);
}

TEST_CASE("a 429 on a watch backs off and re-watches without a relist", "[reflector]") {
  // doc/model.md#reflector-loop: the WATCH request failing with 429 (after its own 10 retries) or
  // connection refused, or a 429 error event on the stream: sleep(delayHandler()) then
  // WATCH again from lastSyncRV. Other watch request errors relist after the delay.
  Random rng(12, "watch429"), twin(12, "watch429");
  Reflector reflector(ReflectorOptions{}, 0);
  reflector.Start(0, rng);
  twin.Uniform01();  // the watch timeout drawn after the list
  ReflectorStep step = reflector.OnListPageSucceeded(kSecond, false, rng);
  step = reflector.OnWatchFailed(60 * kSecond, ReflectorError::kTooManyRequests, rng);
  REQUIRE(step.action == ReflectorAction::kSleep);
  CHECK(step.wake_at_ns == 60 * kSecond + Jittered(800 * kMillisecond, twin));
  step = reflector.Wake(step.wake_at_ns, rng);
  twin.Uniform01();
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK(step.watch.resource_version == ResourceVersion::kLastSynced);
  step = reflector.OnWatchFailed(70 * kSecond, ReflectorError::kConnectionRefused, rng);
  CHECK(step.wake_at_ns == 70 * kSecond + Jittered(1600 * kMillisecond, twin));
  step = reflector.Wake(step.wake_at_ns, rng);
  twin.Uniform01();
  step = reflector.OnWatchEnded(80 * kSecond, ErrorEvent(ReflectorError::kTooManyRequests), rng);
  CHECK(step.wake_at_ns == 80 * kSecond + Jittered(3200 * kMillisecond, twin));
  step = reflector.Wake(step.wake_at_ns, rng);
  CHECK(step.action == ReflectorAction::kWatch);
  CHECK(reflector.list_requests() == 1);
  // A 403 on the WATCH request ends ListAndWatch: delay, then relist.
  step = reflector.OnWatchFailed(90 * kSecond, ReflectorError::kOther, rng);
  step = reflector.Wake(step.wake_at_ns, rng);
  CHECK(step.action == ReflectorAction::kList);
}

TEST_CASE("a failing list relists through the shared backoff", "[reflector]") {
  // doc/model.md#reflector-loop, #reflector-list: a LIST that fails (429 after its retries, 504,
  // ...) ends ListAndWatch; the RUN loop sleeps delayHandler() after it ends (sliding) and lists
  // again at the same RV. Built at 0, failures at once after each wake: delays with bases
  // 0.8, 1.6, 3.2, ... s.
  Random rng(13, "listfail"), twin(13, "listfail");
  Reflector reflector(ReflectorOptions{}, 0);
  ReflectorStep step = reflector.Start(0, rng);
  Nanos now = 0;
  for (Nanos base : {800 * kMillisecond, 1600 * kMillisecond, 3200 * kMillisecond,
                     6400 * kMillisecond, 12800 * kMillisecond}) {
    REQUIRE(step.action == ReflectorAction::kList);
    CHECK(step.list.resource_version == ResourceVersion::kZero);
    step = reflector.OnListPageFailed(now, ReflectorError::kTooManyRequests, rng);
    REQUIRE(step.action == ReflectorAction::kSleep);
    CHECK(step.wake_at_ns == now + Jittered(base, twin));
    now = step.wake_at_ns;
    step = reflector.Wake(now, rng);
  }
  CHECK(reflector.relists() == 5);
}

TEST_CASE("WatchList streams the initial list, then keeps the stream as its watch", "[reflector]") {
  // doc/model.md#watch-list: a WATCH with sendInitialEvents=true at RV "" (lastSyncRV is empty at
  // first); after the initial-events-end bookmark the reflector is synced and the same
  // stream goes on; when it closes normally the next watch is an ordinary one.
  ReflectorOptions options;
  options.use_watch_list = true;
  Random rng(14, "watchlist");
  Reflector reflector(options, 0);
  ReflectorStep step = reflector.Start(0, rng);
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK(step.watch.send_initial_events);
  CHECK(step.watch.resource_version == ResourceVersion::kEmpty);
  step = reflector.OnInitialEventsEnd(3 * kSecond);
  CHECK(step.action == ReflectorAction::kKeepWatching);
  CHECK(reflector.synced());
  step = reflector.OnWatchEnded(400 * kSecond, ClosedAfter(12), rng);
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK_FALSE(step.watch.send_initial_events);
  CHECK(step.watch.resource_version == ResourceVersion::kLastSynced);
  CHECK(reflector.list_requests() == 0);
  // A relist round (after a 410 event) streams again, from lastSyncRV.
  step = reflector.OnWatchEnded(500 * kSecond, ErrorEvent(ReflectorError::kExpired), rng);
  step = reflector.Wake(step.wake_at_ns, rng);
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK(step.watch.send_initial_events);
  CHECK(step.watch.resource_version == ResourceVersion::kLastSynced);
}

TEST_CASE("WatchList: 429 backs off, 410 retries at the empty RV, other errors fall back to LIST",
          "[reflector]") {
  // doc/model.md#watch-list (watchList's isErrorRetriableWithSideEffectsFn). A server without the
  // WatchList gate rejects sendInitialEvents (422): the round falls back to a paged LIST.
  ReflectorOptions options;
  options.use_watch_list = true;
  Random rng(15, "watchlist-errors");
  Reflector reflector(options, 0);
  ReflectorStep step = reflector.Start(0, rng);
  step = reflector.OnWatchFailed(kSecond, ReflectorError::kTooManyRequests, rng);
  REQUIRE(step.action == ReflectorAction::kSleep);
  CHECK(step.wake_at_ns >= kSecond + 800 * kMillisecond);
  step = reflector.Wake(step.wake_at_ns, rng);
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK(step.watch.send_initial_events);
  step = reflector.OnWatchFailed(5 * kSecond, ReflectorError::kExpired, rng);
  REQUIRE(step.action == ReflectorAction::kWatch);  // at once
  CHECK(step.watch.resource_version == ResourceVersion::kEmpty);
  CHECK(reflector.last_sync_unavailable());
  // Closed before the bookmark, not very short: ask again at once.
  step = reflector.OnWatchEnded(9 * kSecond, ClosedAfter(40), rng);
  REQUIRE(step.action == ReflectorAction::kWatch);
  CHECK(step.watch.send_initial_events);
  step = reflector.OnWatchFailed(10 * kSecond, ReflectorError::kOther, rng);  // 422
  REQUIRE(step.action == ReflectorAction::kList);
  CHECK(step.list.resource_version == ResourceVersion::kEmpty);  // still unavailable
  CHECK(step.list.limit == 500);
  step = reflector.OnListPageSucceeded(11 * kSecond, false, rng);
  CHECK(step.action == ReflectorAction::kWatch);
  CHECK_FALSE(step.watch.send_initial_events);
  CHECK_FALSE(reflector.last_sync_unavailable());
}

TEST_CASE("property: a reflector under random failures keeps its invariants", "[reflector]") {
  // Against a server that fails at random: every delay lies in [0.8 s, 60 s) (4.1), every
  // watch timeout in [300, 600) s, list pages follow their first page, and time moves on.
  Random rng(16, "reflector-property"), server(16, "server");
  for (int trial = 0; trial < 20; ++trial) {
    ReflectorOptions options;
    options.use_watch_list = server.UniformInt(2) == 0;
    Reflector reflector(options, 0);
    Nanos now = 0;
    ReflectorStep step = reflector.Start(now, rng);
    bool ok = true;
    for (int i = 0; i < 2000 && ok; ++i) {
      const Nanos issued_at = now;  // when `step` was returned
      if (step.action != ReflectorAction::kSleep) {
        now += static_cast<Nanos>(server.UniformInt(2000)) * kMillisecond;  // the call's time
      }
      switch (step.action) {
        case ReflectorAction::kSleep: {
          const Nanos delay = step.wake_at_ns - issued_at;
          ok = delay >= 800 * kMillisecond && delay < 60 * kSecond;
          now = step.wake_at_ns;
          step = reflector.Wake(now, rng);
          break;
        }
        case ReflectorAction::kList:
          if (server.UniformInt(4) == 0) {
            step = reflector.OnListPageFailed(
                now, static_cast<ReflectorError>(server.UniformInt(6)), rng);
          } else {
            step = reflector.OnListPageSucceeded(now, server.UniformInt(3) == 0, rng);
          }
          break;
        case ReflectorAction::kWatch:
          ok = step.watch.timeout_seconds >= 300 && step.watch.timeout_seconds < 600;
          if (server.UniformInt(4) == 0) {
            step = reflector.OnWatchFailed(now, static_cast<ReflectorError>(server.UniformInt(6)),
                                           rng);
          } else if (step.watch.send_initial_events && server.UniformInt(3) != 0) {
            step = reflector.OnInitialEventsEnd(now);
          } else {
            now += static_cast<Nanos>(server.UniformInt(600)) * kSecond;
            step =
                server.UniformInt(3) == 0
                    ? reflector.OnWatchEnded(
                          now, ErrorEvent(static_cast<ReflectorError>(server.UniformInt(6))), rng)
                    : reflector.OnWatchEnded(now, ClosedAfter(server.UniformInt(3)), rng);
          }
          break;
        case ReflectorAction::kKeepWatching:
          now += static_cast<Nanos>(server.UniformInt(600)) * kSecond;
          step = reflector.OnWatchEnded(now, ClosedAfter(server.UniformInt(3)), rng);
          break;
      }
    }
    REQUIRE(ok);
  }
}

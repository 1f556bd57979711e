// The informer pattern's driver (sim/world/informer.h): the requests a reflector sends as
// the apiserver sees them (paged LIST with continue tokens, relists, watches with their
// timeouts) against a small stand-in server that pages with sim/world/list_page.h, and
// what failures lead to. Expected numbers are worked out in the comments from doc/model.md// 4;
// where one depends on a random draw, the test draws the same number from a twin stream in
// client-go's order (a watch's timeoutSeconds, a backoff's jitter) and applies the spec's formula
// to it.
#include "sim/world/informer.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apf/classification/request_info.h"
#include "apf/estimation/work_estimator.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"
#include "sim/world/list_page.h"
#include "sim/world/world.h"
#include "tests/support/test_support.h"

using apf::kMillisecond;
using apf::kSecond;
using apf::Nanos;
using sim::CallOutcome;
using sim::Informer;
using sim::InformerAction;
using sim::InformerCallResult;
using sim::InformerRequest;
using sim::InformerStep;
using sim::ListPage;
using sim::Random;
using sim::ReflectorError;
using sim::ReflectorOptions;
using sim::WatchEnd;

// A call holds its options by reference: these outlive every call of the file.
const sim::ClientCallOptions kDefaultOptions;

namespace {

InformerCallResult Succeeded(std::string continue_token = "") {
  InformerCallResult result;
  result.continue_token = std::move(continue_token);
  return result;
}

InformerCallResult Failed(ReflectorError error) {
  InformerCallResult result;
  result.outcome = CallOutcome::kStatusError;
  result.error = error;
  return result;
}

// d * (1 + U), as wait.Jitter computes it: d + int64(U * d) (doc/model.md#reflector-constants).
Nanos Jittered(Nanos d, Random& twin) {
  return d + static_cast<Nanos>(twin.Uniform01() * static_cast<double>(d));
}

// int64(300 + U * (600 - 300)) (doc/model.md#reflector-constants).
std::int64_t WatchTimeout(Random& twin) {
  return static_cast<std::int64_t>(300 + twin.Uniform01() * 300);
}

// An apiserver holding `objects` objects: it serves a LIST where kube-apiserver would
// (apf::ListDelegatedToStorage; with `cache` false the watch cache is off and etcd serves
// everything) and pages it with sim::ServeListPage. Watches open.
struct Server {
  Server(std::int64_t object_count, bool watch_cache) : objects(object_count), cache(watch_cache) {}

  std::int64_t objects;
  bool cache;
  std::vector<InformerRequest> lists;
  std::vector<std::int64_t> page_objects;

  InformerCallResult Answer(const InformerRequest& request) {
    if (request.watch) return Succeeded();
    lists.push_back(request);
    apf::RequestQuery query = apf::ParseRequestQuery(request.query);
    query.continue_token = request.continue_token;
    const bool from_cache = cache && !apf::ListDelegatedToStorage(query, true);
    const ListPage page = sim::ServeListPage(query, objects, from_cache);
    page_objects.push_back(page.objects);
    return Succeeded(page.continue_token);
  }

  // Answers every request of `step` and those that follow until the informer waits.
  InformerStep Serve(Informer& informer, Nanos now, InformerStep step) {
    while (step.action == InformerAction::kSend) {
      step = informer.OnCallDone(now, Answer(step.request));
    }
    return step;
  }
};

ReflectorOptions PageSize(std::int64_t page_size) {
  ReflectorOptions options;
  options.pager_page_size = page_size;
  return options;
}

}  // namespace

TEST_CASE("informer: N objects at page size P take ceil(N/P) LIST requests, then a watch",
          "[informer]") {
  // With the watch cache off, etcd honours the limit of the first RV "0" page too.
  // 1234 at 500: pages of 500, 500, 234 (ceil(1234/500) = 3); the continuation pages
  // carry the previous page's token and no resourceVersion (doc/model.md#reflector-list).
  Informer informer(PageSize(500), 0, Random(11, "informer"));
  Server server(1234, false);
  InformerStep step = informer.OnTimer(0);
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.query == "resourceVersion=0&limit=500");
  CHECK(step.request.continue_token.empty());
  step = server.Serve(informer, 0, step);
  REQUIRE(server.lists.size() == 3);
  CHECK(server.lists[1].query == "limit=500");
  CHECK(server.lists[1].continue_token == "500");
  CHECK(server.lists[2].query == "limit=500");
  CHECK(server.lists[2].continue_token == "1000");
  CHECK(server.page_objects == std::vector<std::int64_t>{500, 500, 234});
  // Then the watch from the listed RV, now open.
  CHECK(step.action == InformerAction::kWatching);
  CHECK(informer.reflector().list_requests() == 3);
  CHECK(informer.reflector().watch_requests() == 1);
  CHECK(informer.reflector().paginated_result());
}

TEST_CASE("informer: the watch request carries bookmarks, the listed RV and a 5-10 min timeout",
          "[informer]") {
  Random twin(12, "informer");
  Informer informer(ReflectorOptions{}, 0, Random(12, "informer"));
  InformerStep step = informer.OnTimer(0);
  step = informer.OnCallDone(0, Succeeded());  // one page
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.watch);
  CHECK(step.request.query == "allowWatchBookmarks=true&resourceVersion=1");
  CHECK(step.request.timeout_seconds == WatchTimeout(twin));
  CHECK(step.request.timeout_seconds >= 300);
  CHECK(step.request.timeout_seconds < 600);
}

TEST_CASE("property: ceil(N/P) pages for any count and page size, one when unpaginated",
          "[informer]") {
  for (std::int64_t objects : {0, 1, 499, 500, 501, 6000}) {
    for (std::int64_t page_size : {0, 1, 100, 500}) {
      Informer informer(PageSize(page_size), 0, Random(13, "informer"));
      Server server(objects, false);
      const InformerStep step = server.Serve(informer, 0, informer.OnTimer(0));
      CHECK(step.action == InformerAction::kWatching);
      const std::int64_t expected =
          page_size == 0 ? 1 : std::max<std::int64_t>(1, (objects + page_size - 1) / page_size);
      CHECK(static_cast<std::int64_t>(server.lists.size()) == expected);
      // Page size 0 sends no limit at all (ListPager with PageSize 0).
      if (page_size == 0) CHECK(server.lists[0].query == "resourceVersion=0");
    }
  }
}

TEST_CASE("informer: the watch cache answers the first RV 0 list in one response", "[informer]") {
  // doc/model.md#reflector-list and cacher.go computeListLimit: the limit is ignored for RV "0", so
  // 6000 objects come back in one page and the resource is not marked paginated.
  Informer informer(ReflectorOptions{}, 0, Random(14, "informer"));
  Server server(6000, true);
  server.Serve(informer, 0, informer.OnTimer(0));
  CHECK(server.page_objects == std::vector<std::int64_t>{6000});
  CHECK_FALSE(informer.reflector().paginated_result());
}

TEST_CASE("informer: a failed page relists from the first page after the reflector's backoff",
          "[informer]") {
  // A 429 that outlived the call's retries on page 2 ends ListAndWatch: the RUN loop
  // sleeps delayHandler() - the first delay, 800 ms x U[1, 2) - and lists again from RV
  // "0" (still unsynced) at the first page (doc/model.md#reflector-loop, #reflector-list). No watch
  // was drawn before, so the backoff's jitter is the stream's first draw.
  Random twin(15, "informer");
  Informer informer(PageSize(500), 0, Random(15, "informer"));
  InformerStep step = informer.OnTimer(0);
  step = informer.OnCallDone(1 * kSecond, Succeeded("500"));
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.continue_token == "500");
  step = informer.OnCallDone(2 * kSecond, Failed(ReflectorError::kTooManyRequests));
  REQUIRE(step.action == InformerAction::kWakeAt);
  const Nanos delay = Jittered(800 * kMillisecond, twin);
  CHECK(step.wake_at_ns == 2 * kSecond + delay);
  CHECK(delay >= 800 * kMillisecond);
  CHECK(delay < 1600 * kMillisecond);
  const Nanos relist_at = step.wake_at_ns;
  step = informer.OnTimer(relist_at);
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.query == "resourceVersion=0&limit=500");
  CHECK(step.request.continue_token.empty());
  CHECK(informer.reflector().relists() == 1);
  // A second failure in a row: the next delay is 1.6 s x U[1, 2).
  step = informer.OnCallDone(relist_at, Failed(ReflectorError::kOther));
  REQUIRE(step.action == InformerAction::kWakeAt);
  CHECK(step.wake_at_ns == relist_at + Jittered(1600 * kMillisecond, twin));
}

TEST_CASE("informer: a 410 on a continuation page gives one full list at RV 0, no limit",
          "[informer]") {
  // ListPager.list with FullListIfExpired (doc/model.md#reflector-list).
  Informer informer(PageSize(500), 0, Random(16, "informer"));
  InformerStep step = informer.OnTimer(0);
  step = informer.OnCallDone(0, Succeeded("500"));
  step = informer.OnCallDone(0, Failed(ReflectorError::kExpired));
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.query == "resourceVersion=0");
  CHECK(step.request.continue_token.empty());
  step = informer.OnCallDone(0, Succeeded());
  CHECK(step.request.watch);
}

TEST_CASE("informer: a 410 on the first page lists again at once at RV \"\", same page size",
          "[informer]") {
  // Reflector.list: isLastSyncResourceVersionUnavailable, retry without a delay.
  Informer informer(PageSize(500), 0, Random(17, "informer"));
  InformerStep step = informer.OnTimer(0);
  step = informer.OnCallDone(0, Failed(ReflectorError::kExpired));
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.query == "limit=500");
  CHECK(step.request.continue_token.empty());
  CHECK(informer.reflector().relists() == 0);
}

TEST_CASE("informer: watch ends, 429s and error events, in client-go's order of draws",
          "[informer]") {
  Random twin(18, "informer");
  Informer informer(ReflectorOptions{}, 0, Random(18, "informer"));
  InformerStep step = informer.OnTimer(0);
  step = informer.OnCallDone(0, Succeeded());
  // Draw 1: the first watch's timeout.
  std::int64_t timeout = WatchTimeout(twin);
  REQUIRE(step.request.watch);
  CHECK(step.request.timeout_seconds == timeout);
  step = informer.OnCallDone(0, Succeeded());
  CHECK(step.action == InformerAction::kWatching);

  // The server ends it at its timeoutSeconds: re-watch at once, no LIST (draw 2).
  Nanos now = timeout * kSecond;
  WatchEnd normal;
  normal.events = 5;
  step = informer.OnWatchEnded(now, normal);
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.watch);
  CHECK(step.request.timeout_seconds == WatchTimeout(twin));

  // The re-watch is refused with a 429 past the call's retries: back off (draw 3), then
  // watch again without a relist (4.2). More than 2 min since the backoff was built: it
  // starts over at 800 ms.
  step = informer.OnCallDone(now, Failed(ReflectorError::kTooManyRequests));
  REQUIRE(step.action == InformerAction::kWakeAt);
  CHECK(step.wake_at_ns == now + Jittered(800 * kMillisecond, twin));
  now = step.wake_at_ns;
  step = informer.OnTimer(now);
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.watch);
  CHECK(step.request.timeout_seconds == WatchTimeout(twin));  // draw 4
  step = informer.OnCallDone(now, Succeeded());

  // A 410 error event on the stream: the RUN loop's delay (draw 5, reset again: the watch
  // lasted more than 2 min), then a relist from lastSyncResourceVersion, unpaginated so
  // the watch cache serves it (4.3).
  now += 400 * kSecond;
  WatchEnd expired;
  expired.error_event = true;
  expired.error = ReflectorError::kExpired;
  step = informer.OnWatchEnded(now, expired);
  REQUIRE(step.action == InformerAction::kWakeAt);
  CHECK(step.wake_at_ns == now + Jittered(800 * kMillisecond, twin));
  step = informer.OnTimer(step.wake_at_ns);
  REQUIRE(step.action == InformerAction::kSend);
  CHECK_FALSE(step.request.watch);
  CHECK(step.request.query == "resourceVersion=1");
  CHECK(informer.reflector().relists() == 1);
  CHECK(informer.reflector().list_requests() == 2);
  CHECK(informer.reflector().watch_requests() == 3);
}

TEST_CASE("informer: an empty watch is a very short watch, so it relists after a delay",
          "[informer]") {
  // Request.Watch hands back an empty watch when a transport error outlives its retries;
  // closed at once with no events, it is a VeryShortWatchError (4.2).
  Random twin(19, "informer");
  Informer informer(ReflectorOptions{}, 0, Random(19, "informer"));
  InformerStep step = informer.OnTimer(0);
  step = informer.OnCallDone(0, Succeeded());
  WatchTimeout(twin);  // draw 1: the watch's timeout
  InformerCallResult empty;
  empty.outcome = CallOutcome::kEmptyWatch;
  step = informer.OnCallDone(100 * kMillisecond, empty);
  REQUIRE(step.action == InformerAction::kWakeAt);
  CHECK(step.wake_at_ns == 100 * kMillisecond + Jittered(800 * kMillisecond, twin));
  step = informer.OnTimer(step.wake_at_ns);
  CHECK(step.request.query == "resourceVersion=1");
}

TEST_CASE("informer: WatchList streams the list and keeps the stream as its watch", "[informer]") {
  // doc/model.md#watch-list: sendInitialEvents=true with resourceVersionMatch=NotOlderThan at
  // RV "" first; the 200 comes once the initial events are sent, and the stream stays.
  ReflectorOptions options;
  options.use_watch_list = true;
  Informer informer(options, 0, Random(20, "informer"));
  InformerStep step = informer.OnTimer(0);
  REQUIRE(step.action == InformerAction::kSend);
  CHECK(step.request.watch);
  CHECK(step.request.query ==
        "allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true");
  step = informer.OnCallDone(0, Succeeded());
  CHECK(step.action == InformerAction::kWatching);
  CHECK(informer.reflector().synced());
  CHECK(informer.reflector().list_requests() == 0);
}

TEST_CASE("informer: a finished ClientCall reads as the reflector's error kinds", "[informer]") {
  // A 410 answer (not retried: no Retry-After) is Expired; a success carries the token.
  sim::ClientCall call(kDefaultOptions, nullptr);
  call.Start(0);
  sim::HttpResponse gone;
  gone.status_code = 410;
  gone.body_is_status = true;
  gone.body_message = "too old resource version";
  call.OnResponse(0, gone);
  const InformerCallResult failed = sim::InformerCallResultOf(call, "ignored");
  CHECK(failed.outcome == CallOutcome::kStatusError);
  CHECK(failed.error == ReflectorError::kExpired);
  CHECK(failed.continue_token.empty());

  sim::ClientCall ok(kDefaultOptions, nullptr);
  ok.Start(0);
  ok.OnResponse(0, sim::HttpResponse{});
  CHECK(sim::InformerCallResultOf(ok, "500").continue_token == "500");
}

// The informer pattern in the world: a scenario with one informer, run through sim::World
// with its calls traced. Each trace line is one attempt, written when the attempt is
// released (a watch: when it ends).
namespace {

struct TracedAttempt {
  std::string verb;
  std::string outcome;
  double arrival = 0, released = 0;
};

class TraceCollector : public sim::WorldObserver {
 public:
  void OnLevelRow(Nanos, int, const std::string&, const sim::LevelRow&) override {}
  void OnClientRow(Nanos, const std::string&, const sim::ClientRow&) override {}
  void OnDump(Nanos, int) override {}
  void OnTrace(const std::string& json_line) override {
    const nlohmann::json line = nlohmann::json::parse(json_line);
    attempts.push_back({line["verb"], line["outcome"], line["arrival"], line["released"]});
  }
  std::vector<TracedAttempt> attempts;
};

// Runs a scenario of one informer client ("informer") over 1,200 pods whose LIST takes
// 50 ms, with `client_go` as the client's clientGo and `duration` long.
std::vector<TracedAttempt> RunInformer(const std::string& client_go, const std::string& duration) {
  test_support::ScratchDir dir("apfsim-informer");
  const std::string file = (dir.path() / "informer.yaml").string();
  std::ofstream(file) << "apiVersion: apfsim/v1alpha1\n"
                         "kind: Scenario\n"
                         "metadata: {name: informer}\n"
                         "spec:\n"
                         "  duration: "
                      << duration
                      << "\n"
                         "  seed: 7\n"
                         "  apiservers:\n"
                         "    serviceTime:\n"
                         "    - match: {verbs: [list]}\n"
                         "      time: {constant: 50ms}\n"
                         "  resources:\n"
                         "  - {resource: pods, objects: 1200, averageBytes: 8000}\n"
                         "  clients:\n"
                         "  - name: informer\n"
                         "    serviceAccount: kube-system/informer\n"
                         "    clientGo: "
                      << client_go
                      << "\n"
                         "    traffic:\n"
                         "    - informer: {resource: pods}\n";
  const sim::Scenario scenario = sim::LoadScenario(file);
  const sim::FlowControlSetup flow_control = sim::BuildScenarioFlowControl(scenario);
  sim::WorldOptions options;
  options.trace = "informer";
  TraceCollector collector;
  sim::World world(scenario, &flow_control.config, options, &collector);
  world.Run();
  return collector.attempts;
}

}  // namespace

TEST_CASE("informer in the world: one LIST, then watches re-opened as the server ends them",
          "[informer][world]") {
  // 40 minutes: the LIST (served whole by the watch cache: one attempt), then watches of
  // timeoutSeconds in [300, 600) s, each re-opened the instant the previous one ends. At
  // most 600 s each, at least 40 min / 600 s = 4 of them end within the run.
  const std::vector<TracedAttempt> attempts = RunInformer("{qps: 5, burst: 10}", "40m");
  REQUIRE(!attempts.empty());
  CHECK(attempts[0].verb == "list");
  CHECK(attempts[0].released == Approx(0.05));  // the 50 ms LIST
  std::vector<TracedAttempt> watches(attempts.begin() + 1, attempts.end());
  REQUIRE(watches.size() >= 4);
  double previous_end = attempts[0].released;
  for (const TracedAttempt& watch : watches) {
    CHECK(watch.verb == "watch");
    CHECK(watch.arrival == Approx(previous_end));
    CHECK(watch.released - watch.arrival >= 300);
    CHECK(watch.released - watch.arrival < 600);
    previous_end = watch.released;
  }
}

TEST_CASE("informer in the world: a LIST that keeps failing relists on the reflector's backoff",
          "[informer][world]") {
  // A 10 ms client timeout against a 50 ms LIST: every LIST is cancelled by the client,
  // and the RUN loop waits delayHandler() before the next one: 800 ms doubling, each
  // times U[1, 2) (doc/model.md#reflector-constants). The first five delays climb without a reset
  // (their sum is below 1.6 + 3.2 + 6.4 + 12.8 + 25.6 = 49.6 s < 2 min), so the gap between two
  // LISTs is 10 ms plus a delay in [0.8, 1.6), [1.6, 3.2), [3.2, 6.4), [6.4, 12.8),
  // [12.8, 25.6) s.
  const std::vector<TracedAttempt> attempts =
      RunInformer("{qps: 5, burst: 10, timeout: 10ms}", "2m");
  REQUIRE(attempts.size() >= 6);
  double base = 0.8;
  for (int i = 1; i <= 5; ++i) {
    INFO("LIST " << i);
    CHECK(attempts[i - 1].verb == "list");
    // client-go sends its 10 ms as ?timeout=10ms too (request.go URL), so the server's 504
    // (request_deadline.go) falls at the instant of the client's own cancel. The client's
    // context started first (Request.request, before the attempt is sent), so its cancel
    // wins the tie: the LIST is "canceled", and the 504 goes to a closed stream.
    CHECK(attempts[i - 1].outcome == "canceled");
    const double delay = attempts[i].arrival - attempts[i - 1].arrival - 0.010;
    CHECK(delay >= base - 1e-9);
    CHECK(delay < 2 * base);
    base *= 2;
  }
  for (const TracedAttempt& attempt : attempts) CHECK(attempt.verb == "list");
}

TEST_CASE("informer: lastSyncResourceVersion's instant is the list's end or the last bookmark",
          "[informer]") {
  // synced_at_ns (the world compares it with a restarted replica's start): -1 before the
  // first list; the list's end (its one page at 200 ms); then a watch open from 1 s to
  // 150 s has had bookmarks at 61 s and 121 s (one each bookmarkFrequency, 1 min, from its
  // 200, cacher.go nextBookmarkTime), so 121 s. A watch under a minute adds none.
  Informer informer(ReflectorOptions{}, 0, Random(23, "informer"));
  CHECK(informer.synced_at_ns() == -1);
  InformerStep step = informer.OnTimer(0);  // the LIST
  step = informer.OnCallDone(200 * kMillisecond, Succeeded());
  REQUIRE(step.request.watch);
  CHECK(step.request.from_last_synced);  // a watch from the listed resourceVersion
  CHECK(informer.synced_at_ns() == 200 * kMillisecond);
  step = informer.OnCallDone(1 * kSecond, Succeeded());  // the watch's 200
  CHECK(step.action == InformerAction::kWatching);
  step = informer.OnWatchEnded(150 * kSecond, WatchEnd{});
  CHECK(informer.synced_at_ns() == 121 * kSecond);
  REQUIRE(step.request.watch);  // watches again at once
  step = informer.OnCallDone(151 * kSecond, Succeeded());
  informer.OnWatchEnded(200 * kSecond, WatchEnd{});  // 49 s: no bookmark
  CHECK(informer.synced_at_ns() == 121 * kSecond);
}

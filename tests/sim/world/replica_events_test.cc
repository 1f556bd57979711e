// Whole runs with spec.events `stop`, `start` and `restart` (sim/world/world_replicas.cc,
// doc/model.md#replica-restarts), each read from the trace to the nanosecond against
// figures worked out by hand from client-go and k8s.io/apiserver:
// - rest/request.go Request.request and rest/with_retry.go IsNextRetry / checkWait: an
//   attempt that fails with "connection reset by peer" is retried only for a GET, as a
//   synthetic 500 with Retry-After 1, within maxRetries; any other verb fails to its caller;
// - tools/cache/reflector.go watch / handleWatch and watch/streamwatcher.go receive: a
//   broken watch stream closes without an error event (IsProbableEOF), so the reflector
//   watches again at once from lastSyncResourceVersion; a watch cache built after that
//   resourceVersion answers 410 (cacher.go Watch, newErrWatcher) and the reflector relists
//   after its backoff;
// - a replica that starts again has a new filter: empty queues, nothing executing.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

using apf::kSecond;

namespace {

struct Run {
  nlohmann::json summary;
  std::vector<nlohmann::json> trace;  // trace.jsonl of the client "c", line by line
  std::vector<std::string> timeline;  // timeline.csv's lines
};

// Runs a scenario of `replicas` apiservers (APF's defaults, seed 7) with one client "c"
// (`client` gives its fields after its name, traffic included) and the events given, and
// traces that client.
Run RunWith(const std::string& apiservers, const std::string& client, const std::string& events,
            const std::string& duration = "60s") {
  const test_support::ScratchDir scratch("apfsim-replicas");
  const std::filesystem::path file = scratch.path() / "scenario.yaml";
  std::ofstream(file) << R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: replica-events}
spec:
  duration: )" + duration + R"(
  seed: 7
  apiservers: )" + apiservers +
                             R"(
  resources:
  - {resource: configmaps, objects: 100, averageBytes: 1000, namespaces: 1, namespacePrefix: ns-}
  events:
)" + events + R"(
  clients:
  - name: c
    user: alice
)" + client;
  sim::RunRequest request;
  request.scenario_file = file.string();
  request.out_dir = (scratch.path() / "out").string();
  request.quiet = true;
  request.trace = "c";
  Run run;
  run.summary = sim::RunScenario(request).summary;
  std::ifstream in(scratch.path() / "out" / "trace.jsonl");
  for (std::string line; std::getline(in, line);) run.trace.push_back(nlohmann::json::parse(line));
  std::ifstream tl(scratch.path() / "out" / "timeline.csv");
  for (std::string line; std::getline(tl, line);) run.timeline.push_back(line);
  return run;
}

// A trace time (seconds) in nanoseconds: exact for runs shorter than 2^53 ns.
apf::Nanos Ns(const nlohmann::json& seconds) {
  return static_cast<apf::Nanos>(std::llround(seconds.get<double>() * 1e9));
}

// The trace's lines in the order of their arrival.
std::vector<nlohmann::json> ByArrival(std::vector<nlohmann::json> trace) {
  std::stable_sort(trace.begin(), trace.end(),
                   [](const nlohmann::json& a, const nlohmann::json& b) {
                     return a["arrival"].get<double>() < b["arrival"].get<double>();
                   });
  return trace;
}

}  // namespace

TEST_CASE("a GET in flight at a stop is retried 1 s later on another replica",
          "[world][replicas]") {
  // One GET of 10 s at 0 on apiserver-0 (the client names it). apiserver-0 stops at 5 s:
  // the attempt reads "connection reset by peer"; Request.request retries a GET after the
  // synthetic Retry-After of 1 s, so the second attempt arrives at 6 s. The connection
  // moved to apiserver-1 (the only one up) and runs 6 s .. 16 s.
  const Run run = RunWith("{replicas: 2}", R"(    replica: 0
    clientGo: {qps: -1, maxRetries: 10}
    traffic:
    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: get, resource: configmaps, namespace: ns-0, name: x,
                        serviceTime: 10s}}
)",
                          "  - {at: 5s, stop: apiserver-0}\n");
  const std::vector<nlohmann::json> t = ByArrival(run.trace);
  REQUIRE(t.size() == 2);
  CHECK(t[0]["try"] == 1);
  CHECK(t[0]["replica"] == 0);
  CHECK(Ns(t[0]["arrival"]) == 0);
  CHECK(t[0]["outcome"] == "broken");
  CHECK(t[0]["reason"] == "replica stopped: connection reset");
  CHECK(Ns(t[0]["answered"]) == 5 * kSecond);
  CHECK(t[1]["try"] == 2);
  CHECK(t[1]["replica"] == 1);
  CHECK(Ns(t[1]["arrival"]) == 6 * kSecond);
  CHECK(Ns(t[1]["finish"]) == 16 * kSecond);
  CHECK(t[1]["status"] == 200);
  const nlohmann::json& c = run.summary["clients"]["c"];
  CHECK(c["calls"] == 1);
  CHECK(c["attempts"] == 2);
  CHECK(c["succeeded"] == 1);
  CHECK(c["http429"] == 0);  // a broken connection is no 429
  CHECK(c["brokenConnections"] == 1);
  // The event in summary.json, with its replica.
  REQUIRE(run.summary["scenarioEvents"].size() == 1);
  CHECK(run.summary["scenarioEvents"][0]["action"] == "stop");
  CHECK(run.summary["scenarioEvents"][0]["replica"] == "apiserver-0");
}

TEST_CASE("a POST in flight at a stop fails to its caller", "[world][replicas]") {
  // Request.request retries a transport error only for a GET: the create fails at 5 s with
  // the url.Error of the broken read, after one attempt.
  const Run run = RunWith("{replicas: 2}", R"(    replica: 0
    clientGo: {qps: -1, maxRetries: 10}
    traffic:
    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: create, resource: configmaps, namespace: ns-0, serviceTime: 10s}}
)",
                          "  - {at: 5s, stop: apiserver-0}\n");
  REQUIRE(run.trace.size() == 1);
  CHECK(run.trace[0]["outcome"] == "broken");
  const nlohmann::json& c = run.summary["clients"]["c"];
  CHECK(c["attempts"] == 1);
  CHECK(c["failed"] == 1);
  CHECK(c["brokenConnections"] == 1);
  REQUIRE(c["errors"].size() == 1);
  const std::string message = c["errors"].begin().key();
  CHECK(message.rfind("Post \"", 0) == 0);
  CHECK(message.find("read: connection reset by peer") != std::string::npos);
  CHECK(Approx(c["latencySeconds"]["max"].get<double>()).epsilon(0.01) == 5.0);
}

TEST_CASE("a stopped replica takes nothing, its queued requests are no 429s, it starts empty",
          "[world][replicas]") {
  // Six GETs of 4 s within 1 ms, round-robin over two replicas, each holding 30 seats
  // (seats: replaces the estimate). global-default has ceil(600 x 20 / 245) = 49 seats, so
  // a second 30-seat request never fits beside the first: one runs at a time. apiserver-0
  // gets the 1st, 3rd and 5th: one executes (0 .. 4 s), two wait in its queues.
  // apiserver-0 stops at 2 s: all three break (maxRetries 0: three failed calls, not retried),
  // and apiserver-0 counts no rejection. apiserver-1 runs its three at 0, 4 and 8 s, within
  // the 15 s queue-wait limit (a quarter of the 60 s request timeout): three succeed.
  // apiserver-0 is up again at 30 s. At 40 s two 1-second GETs of one seat go one to each
  // replica (round-robin skipped apiserver-0 while it was down and takes it again) and both
  // run at once: the restarted replica's queues are empty and nothing holds its seats.
  const Run run = RunWith("{replicas: 2, loadBalancing: round-robin}",
                          R"(    clientGo: {qps: -1, maxRetries: 0}
    traffic:
    - sweep: {every: 1h, within: 1ms, count: 6,
              request: {verb: get, resource: configmaps, namespace: ns-0, name: x,
                        serviceTime: 4s, seats: {initial: 30}}}
    - sweep: {every: 1h, within: 1ms, count: 2, start: 40s,
              request: {verb: get, resource: configmaps, namespace: ns-0, name: x,
                        serviceTime: 1s}}
)",
                          "  - {at: 2s, stop: apiserver-0}\n  - {at: 30s, start: apiserver-0}\n");
  const nlohmann::json& c = run.summary["clients"]["c"];
  CHECK(c["calls"] == 8);
  CHECK(c["attempts"] == 8);
  CHECK(c["brokenConnections"] == 3);
  CHECK(c["http429"] == 0);
  CHECK(c["failed"] == 3);
  CHECK(c["succeeded"] == 5);
  int broken = 0, queued_when_broken = 0, after_start_on_0 = 0;
  for (const nlohmann::json& t : run.trace) {
    const apf::Nanos arrival = Ns(t["arrival"]);
    if (t["outcome"] == "broken") {
      ++broken;
      CHECK(t["replica"] == 0);
      CHECK(Ns(t["answered"]) == 2 * kSecond);
      if (t["dispatch"].is_null()) ++queued_when_broken;
    }
    if (arrival >= 40 * kSecond) {
      CHECK(Ns(t["dispatch"]) == arrival);  // no wait on either replica
      CHECK(t["status"] == 200);
      if (t["replica"] == 0) ++after_start_on_0;
    }
  }
  CHECK(broken == 3);
  CHECK(queued_when_broken == 2);
  CHECK(after_start_on_0 == 1);
  // apiserver-0's global-default: the one dispatched before the stop and the one after
  // the start; nothing rejected (the two queued requests left with their connections).
  const nlohmann::json& r0 = run.summary["replicas"][0]["priorityLevels"]["global-default"];
  CHECK(r0["dispatched"] == 2);
  CHECK(r0["rejected"]["time-out"] == 0);
  CHECK(r0["rejected"]["queue-full"] == 0);
  // While it is down (2 s .. 30 s: 28 rows) its rows show nothing executing or waiting.
  int down_rows = 0;
  for (const std::string& line : run.timeline) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() < 7 || f[1] != "apiserver-0" || f[2] != "global-default") continue;
    const double t = std::stod(f[0]);
    if (t >= 2 && t < 30) {
      ++down_rows;
      CHECK(std::stod(f[3]) == 0);  // executing_requests
      CHECK(std::stod(f[6]) == 0);  // waiting_requests
    }
  }
  CHECK(down_rows == 28);
}

TEST_CASE("a broken watch is watched again at once from its resourceVersion", "[world][replicas]") {
  // The informer lists (100 configmaps, one page) and watches on apiserver-0. At 50 s
  // apiserver-0 stops: the stream breaks with no error event, the watch was open longer
  // than 1 s, so Reflector.watch loops and watches again at once, on apiserver-1 (up
  // since the start: its watch cache holds the informer's resourceVersion). No LIST.
  const Run run = RunWith("{replicas: 2}", R"(    replica: 0
    clientGo: {qps: -1}
    traffic:
    - informer: {resource: configmaps}
)",
                          "  - {at: 50s, stop: apiserver-0}\n", "700s");
  // The trace writes an attempt when it ends: the run lasts past the second watch's
  // timeoutSeconds (at most 600 s from 50 s).
  const std::vector<nlohmann::json> t = ByArrival(run.trace);
  REQUIRE(t.size() >= 3);
  CHECK(t[0]["verb"] == "list");
  CHECK(t[1]["verb"] == "watch");
  CHECK(t[1]["replica"] == 0);
  CHECK(Ns(t[1]["released"]) == 50 * kSecond);
  CHECK(t[1]["reason"] == "replica stopped: the watch stream broke");
  CHECK(t[2]["verb"] == "watch");
  CHECK(t[2]["replica"] == 1);
  CHECK(Ns(t[2]["arrival"]) == 50 * kSecond);
  // No LIST after the first: every later request is a watch.
  for (std::size_t i = 1; i < t.size(); ++i) CHECK(t[i]["verb"] == "watch");
}

TEST_CASE("a watch moved to a replica started after its last sync gets 410 and relists",
          "[world][replicas]") {
  // apiserver-1 restarts at 5 s and is up at 35 s (restartDelay 30 s): its watch cache
  // starts then. The informer synced at about 0.1 s on apiserver-0 and its watch, open
  // under a minute, has had no bookmark. apiserver-0 stops at 50 s: the watch again from
  // lastSyncResourceVersion goes to apiserver-1, whose cache answers 410 as the stream's
  // one event; the reflector sleeps its first backoff, 0.8 s x (1 + U[0, 1)), lists from
  // lastSyncResourceVersion (unpaginated, from the cache) and watches from the new one.
  const Run run =
      RunWith("{replicas: 2}", R"(    replica: 0
    clientGo: {qps: -1}
    traffic:
    - informer: {resource: configmaps}
)",
              "  - {at: 5s, restart: apiserver-1}\n  - {at: 50s, stop: apiserver-0}\n", "100s");
  // The last watch is still open at the end, so the trace has the four attempts before it.
  const std::vector<nlohmann::json> t = ByArrival(run.trace);
  REQUIRE(t.size() == 4);
  CHECK(t[0]["verb"] == "list");
  CHECK(t[1]["verb"] == "watch");
  CHECK(t[2]["verb"] == "watch");
  CHECK(t[2]["replica"] == 1);
  CHECK(Ns(t[2]["arrival"]) == 50 * kSecond);
  // The 410 ends the stream as its initial events are sent.
  CHECK(Ns(t[2]["released"]) == Ns(t[2]["finish"]));
  CHECK(t[3]["verb"] == "list");
  CHECK(t[3]["replica"] == 1);
  const apf::Nanos backoff = Ns(t[3]["arrival"]) - Ns(t[2]["released"]);
  CHECK(backoff >= 800 * apf::kMillisecond);
  CHECK(backoff < 1600 * apf::kMillisecond);
  CHECK(run.summary["clients"]["c"]["calls"] == 5);  // list, watch, watch, list, watch
  // summary.json: the restart's start.
  CHECK(run.summary["scenarioEvents"][0]["action"] == "restart");
  CHECK(run.summary["scenarioEvents"][0]["startsAtSeconds"] == 35);
}

TEST_CASE("a run without replica events keeps its summary's fields", "[world][replicas]") {
  // brokenConnections appears only where an event stops a replica, so that every other
  // run's summary.json keeps its bytes.
  const Run run = RunWith("{replicas: 1}", R"(    clientGo: {qps: -1}
    traffic:
    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: get, resource: configmaps, namespace: ns-0, name: x}}
)",
                          "  - {at: 5s, resources: [{resource: configmaps, objects: 200, "
                          "averageBytes: 1000, namespaces: 1, namespacePrefix: ns-}]}\n");
  CHECK_FALSE(run.summary["clients"]["c"].contains("brokenConnections"));
}

TEST_CASE("a restarted replica's filter is built from the configuration in force",
          "[world][replicas]") {
  // An `apply` at 10 s brings a level of 100 shares: every level's nominal seats follow,
  // global-default's from ceil(600 x 20 / 245) = 49 to ceil(600 x 20 / 345) = 35, extra's
  // ceil(600 x 100 / 345) = 174. apiserver-0 restarts at 20 s and is up at 50 s (spec
  // restartDelay 30 s): the filter it starts with digests the objects of 10 s, so its rows
  // give the same seats as apiserver-1's, which kept its filter.
  const Run run = RunWith("{replicas: 2}", R"(    clientGo: {qps: -1}
    traffic:
    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: get, resource: configmaps, namespace: ns-0, name: x}}
)",
                          R"(  - at: 10s
    apply:
    - apiVersion: flowcontrol.apiserver.k8s.io/v1
      kind: PriorityLevelConfiguration
      metadata: {name: extra}
      spec:
        type: Limited
        limited:
          nominalConcurrencyShares: 100
          limitResponse: {type: Reject}
  - {at: 20s, restart: apiserver-0}
)");
  int checked = 0;
  for (const std::string& line : run.timeline) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() < 10 || f[0] != "55") continue;
    if (f[2] == "global-default") {
      CHECK(f[9] == "35");  // nominal_cl
      ++checked;
    }
    if (f[2] == "extra") {
      CHECK(f[9] == "174");
      ++checked;
    }
  }
  CHECK(checked == 4);  // both replicas, both levels
}

// Whole runs of the world (sim/world/world.cc) that pin a request's own deadline and a
// watch's lifetime, each read from the trace to the nanosecond against figures worked out
// by hand from k8s.io/apiserver:
// - pkg/endpoints/filters/request_deadline.go withRequestDeadline and parseTimeout: the
//   deadline is received + ?timeout= when 0 < timeout < --request-timeout, a malformed
//   one is answered 400 before APF, and long-running requests have none;
// - pkg/server/filters/timeout.go: the 504 at that deadline;
// - pkg/server/filters/priority-and-fairness.go getRequestWaitContext: the queue wait is a
//   quarter of it;
// - pkg/endpoints/handlers/get.go ListResource: a watch's timeout starts before its setup,
//   so it ends at dispatch + timeoutSeconds, or dispatch + minRequestTimeout x (1 + u).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "apf/base/go_numeric.h"
#include "sim/engine/random.h"
#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

using apf::kSecond;

namespace {

struct Run {
  nlohmann::json summary;
  std::vector<nlohmann::json> trace;  // trace.jsonl of the client "c", line by line
};

// Runs a scenario with one client "c" (its traffic given) under APF's defaults, seed 7,
// one replica, and traces that client.
Run RunClient(const std::string& traffic, const std::string& duration = "60s") {
  const test_support::ScratchDir scratch("apfsim-deadline");
  const std::filesystem::path file = scratch.path() / "scenario.yaml";
  std::ofstream(file) << R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: request-deadline}
spec:
  duration: )" + duration + R"(
  seed: 7
  apiservers: {replicas: 1}
  clients:
  - name: c
    user: alice
    clientGo: {qps: -1, maxRetries: 0}
    traffic:
)" + traffic;
  sim::RunRequest request;
  request.scenario_file = file.string();
  request.out_dir = (scratch.path() / "out").string();
  request.quiet = true;
  request.trace = "c";
  Run run;
  run.summary = sim::RunScenario(request).summary;
  std::ifstream in(scratch.path() / "out" / "trace.jsonl");
  for (std::string line; std::getline(in, line);) run.trace.push_back(nlohmann::json::parse(line));
  return run;
}

// The first watch of a run: a watch pattern watches again when its watch ends, so the
// trace holds one line for each watch that ended (the earliest opened first by arrival).
const nlohmann::json& FirstWatch(const Run& run) {
  REQUIRE_FALSE(run.trace.empty());
  const nlohmann::json* first = &run.trace[0];
  for (const nlohmann::json& t : run.trace) {
    if (t["arrival"].get<double>() < (*first)["arrival"].get<double>()) first = &t;
  }
  return *first;
}

// A trace time (seconds) in nanoseconds: exact for runs shorter than 2^53 ns.
apf::Nanos Ns(const nlohmann::json& seconds) {
  return static_cast<apf::Nanos>(std::llround(seconds.get<double>() * 1e9));
}

}  // namespace

TEST_CASE("a 5 s ?timeout= gets its 504 at 5 s, not at --request-timeout's 60 s",
          "[world][deadline]") {
  // request_deadline.go withRequestDeadline: 0 < 5 s < 60 s, so the deadline is arrival +
  // 5 s; timeout.go answers 504 then, while the 20 s handler runs on.
  const Run run = RunClient(R"(    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: get, resource: configmaps, namespace: default, name: x,
                        query: "timeout=5s", serviceTime: 20s}}
)");
  REQUIRE(run.trace.size() == 1);
  const nlohmann::json& t = run.trace[0];
  CHECK(t["status"] == 504);
  CHECK(t["outcome"] == "timeout");
  CHECK(Ns(t["answered"]) - Ns(t["arrival"]) == 5 * kSecond);
  CHECK(Ns(t["finish"]) - Ns(t["dispatch"]) == 20 * kSecond);  // the handler ran on
}

TEST_CASE("a ?timeout= at or above --request-timeout, zero or negative leaves 60 s",
          "[world][deadline]") {
  // withRequestDeadline keeps --request-timeout unless 0 < timeout < it: 0s, -5s (which
  // time.ParseDuration accepts) and 90s all give the 504 at arrival + 60 s.
  for (const char* timeout : {"0s", "-5s", "90s"}) {
    const Run run = RunClient(std::string(R"(    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: get, resource: configmaps, namespace: default, name: x,
                        query: "timeout=)") +
                                  timeout + R"(", serviceTime: 70s}}
)",
                              "80s");
    INFO(timeout);
    REQUIRE(run.trace.size() == 1);
    CHECK(run.trace[0]["status"] == 504);
    CHECK(Ns(run.trace[0]["answered"]) - Ns(run.trace[0]["arrival"]) == 60 * kSecond);
  }
}

TEST_CASE("a queued request waits at most a quarter of its own deadline", "[world][deadline]") {
  // getRequestWaitContext: the wait limit is (deadline - received) / 4, 4 s / 4 = 1 s here
  // (15 s with no ?timeout=). global-default has 49 of the default 600 seats
  // (doc/model.md#worked-numbers); two requests of 30 seats each cannot run together, so
  // the second waits and is ejected, 429 time-out, at its arrival + 1 s.
  const Run run = RunClient(R"(    - sweep: {every: 1h, within: 1ms, count: 2,
              request: {verb: get, resource: configmaps, namespace: default, name: x,
                        query: "timeout=4s", serviceTime: 3s, seats: {initial: 30}}}
)");
  REQUIRE(run.trace.size() == 2);
  int ejected = 0;
  for (const nlohmann::json& t : run.trace) {
    if (t["outcome"] != "rejected") continue;
    ++ejected;
    CHECK(t["reason"] == "time-out");
    CHECK(t["status"] == 429);
    CHECK(Ns(t["answered"]) - Ns(t["arrival"]) == 1 * kSecond);
  }
  CHECK(ejected == 1);
}

TEST_CASE("a malformed ?timeout= is answered 400 before APF", "[world][deadline]") {
  // request_deadline.go parseTimeout: "5" has no unit, time.ParseDuration fails, and the
  // filter answers 400 at once. It runs before APF: nothing is classified or dispatched.
  const Run run = RunClient(R"(    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: get, resource: configmaps, namespace: default, name: x,
                        query: "timeout=5", serviceTime: 1s}}
)");
  REQUIRE(run.trace.size() == 1);
  const nlohmann::json& t = run.trace[0];
  CHECK(t["status"] == 400);
  CHECK(t["outcome"] == "rejected");
  CHECK(t["reason"] == "invalid-timeout");
  CHECK(t["dispatch"].is_null());
  CHECK_FALSE(t.contains("priorityLevel"));  // never classified
  CHECK(Ns(t["answered"]) == Ns(t["arrival"]));
  CHECK(run.summary["clients"]["c"]["failed"] == 1);
  CHECK(run.summary["priorityLevels"]["global-default"]["dispatched"] == 0);
}

TEST_CASE("a watch's ?timeout= is never read: it is long-running", "[world][deadline]") {
  // withRequestDeadline passes long-running requests (every watch) on before parseTimeout:
  // a malformed ?timeout= on a watch is no 400; its timeoutSeconds ends it.
  const Run run = RunClient(R"(    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: watch, resource: configmaps, namespace: default,
                        query: "timeout=5&timeoutSeconds=30", serviceTime: 1s}}
)");
  const nlohmann::json& t = FirstWatch(run);
  CHECK(t["status"] == 200);
  CHECK(Ns(t["released"]) - Ns(t["dispatch"]) == 30 * kSecond);
}

TEST_CASE("a watch's timeoutSeconds counts from its dispatch, not its initial events' end",
          "[world][deadline]") {
  // get.go ListResource: context.WithTimeout(ctx, timeoutSeconds) before rw.Watch, so the
  // watch ends at dispatch + 300 s; its 2 s of setup do not lengthen it (302 s before).
  const Run run = RunClient(R"(    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: watch, resource: configmaps, namespace: default,
                        query: "timeoutSeconds=300", serviceTime: 2s}}
)",
                            "400s");
  const nlohmann::json& t = FirstWatch(run);
  CHECK(Ns(t["finish"]) - Ns(t["dispatch"]) == 2 * kSecond);
  CHECK(Ns(t["released"]) - Ns(t["dispatch"]) == 300 * kSecond);
}

TEST_CASE("setup that outlasts a watch's timeoutSeconds ends it as the setup ends",
          "[world][deadline]") {
  // The context's deadline (dispatch + 5 s) passes during 8 s of initial events: the
  // cache watcher stops and serveWatch sees its result channel closed as soon as it
  // serves, so the watch ends when the setup does, at dispatch + 8 s.
  const Run run = RunClient(R"(    - sweep: {every: 1h, within: 1ms, count: 1,
              request: {verb: watch, resource: configmaps, namespace: default,
                        query: "timeoutSeconds=5", serviceTime: 8s}}
)");
  const nlohmann::json& t = FirstWatch(run);
  CHECK(Ns(t["finish"]) - Ns(t["dispatch"]) == 8 * kSecond);
  CHECK(Ns(t["released"]) - Ns(t["dispatch"]) == 8 * kSecond);
}

TEST_CASE("a watch without timeoutSeconds ends at dispatch + minRequestTimeout x (1 + u)",
          "[world][deadline]") {
  // get.go ListResource: timeout = minRequestTimeout * (rand.Float64() + 1), as a Go
  // float-to-Duration conversion (truncating). The replica draws u from its service
  // stream, "apiserver-0/service" of seed 7; a constant service time draws nothing, so u is
  // that stream's first Uniform01. minRequestTimeout is 1800 s.
  const Run run = RunClient(R"(    - sweep: {every: 2h, within: 1ms, count: 1,
              request: {verb: watch, resource: configmaps, namespace: default,
                        serviceTime: 2s}}
)",
                            "3700s");
  sim::Random stream(7, "apiserver-0/service");
  const double u = stream.Uniform01();
  const apf::Nanos lifetime = apf::GoFloatToInt64(1800e9 * (u + 1.0));
  const nlohmann::json& t = FirstWatch(run);
  CHECK(Ns(t["released"]) - Ns(t["dispatch"]) == lifetime);
  CHECK(lifetime >= 1800 * kSecond);
  CHECK(lifetime < 3600 * kSecond);
}

// Whole runs of the world (sim/world/world.cc) that each check one way the simulated
// cluster must behave as an apiserver does: the request timeout's 504 whatever
// makes a handler slow, and the MaxInFlight pools' figures without a limit. Every run is
// small enough that its expected figures are worked out by hand beside it.
#include "sim/world/world.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace {

// Runs a scenario given as text in a scratch folder and returns its summary.json.
nlohmann::json RunText(const std::string& yaml) {
  const test_support::ScratchDir scratch("apfsim-world");
  const std::filesystem::path file = scratch.path() / "scenario.yaml";
  std::ofstream(file) << yaml;
  sim::RunRequest request;
  request.scenario_file = file.string();
  request.out_dir = (scratch.path() / "out").string();
  request.quiet = true;
  return sim::RunScenario(request).summary;
}

// 40 one-second GETs sent within a millisecond to one apiserver whose backend has
// `cores` cores, under a 10 s request timeout. MaxInFlight's 400 read-only slots admit all
// 40 at once; the client neither limits nor retries.
std::string SaturatedBackend(const std::string& cores) {
  return R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: saturated-backend}
spec:
  duration: 45s
  apiservers:
    replicas: 1
    enablePriorityAndFairness: false
    requestTimeout: 10s
    backend: {cores: )" +
         cores + R"(}
  clients:
  - name: reader
    user: alice
    clientGo: {qps: -1, maxRetries: 0}
    traffic:
    - sweep: {every: 1h, within: 1ms, count: 40,
              request: {verb: get, resource: configmaps, namespace: default, name: c,
                        serviceTime: 1s}}
)";
}

}  // namespace

TEST_CASE("a handler slowed by a saturated backend gets 504 at the request timeout", "[world]") {
  // Processor sharing (sim/world/backend.h): 40 requests of 1 s of work on 1 core each
  // progress at 1/40 of full speed, so none is done before about 40 s, long after its
  // arrival + 10 s. The timeout filter (k8s.io/apiserver pkg/server/filters/timeout.go)
  // answers each of them 504 then; client-go does not retry a 504 without Retry-After.
  const nlohmann::json slow = RunText(SaturatedBackend("1"));
  CHECK(slow["clients"]["reader"]["calls"] == 40);
  CHECK(slow["clients"]["reader"]["succeeded"] == 0);
  CHECK(slow["clients"]["reader"]["failed"] == 40);
  // Answered at arrival + 10 s: the latency is the timeout itself.
  CHECK(slow["clients"]["reader"]["latencySeconds"]["max"].get<double>() ==
        Approx(10).epsilon(0.01));
  // With 40 cores each request runs at full speed and is done in 1 s: all 200.
  const nlohmann::json fast = RunText(SaturatedBackend("40"));
  CHECK(fast["clients"]["reader"]["succeeded"] == 40);
  CHECK(fast["clients"]["reader"]["failed"] == 0);
  CHECK(fast["clients"]["reader"]["latencySeconds"]["max"].get<double>() ==
        Approx(1).epsilon(0.01));
}

TEST_CASE("MaxInFlight without a limit counts what its pool serves", "[world]") {
  // APF off and maxRequestsInflight: 0 (no limit for reads, maxinflight.go). 40 GETs of
  // 1 s each, sent within 1 ms with no backend limit, all execute together: the readonly
  // pool dispatches 40 and peaks at 40 seats (one a request), and nothing is refused.
  // Before, the pool reported 0 dispatched and a peak of 0.
  std::string yaml = SaturatedBackend("0");
  yaml.replace(yaml.find("    enablePriorityAndFairness: false"), 0,
               "    maxRequestsInflight: 0\n");
  const nlohmann::json s = RunText(yaml);
  CHECK(s["priorityLevels"]["readonly"]["dispatched"] == 40);
  CHECK(s["priorityLevels"]["readonly"]["peakExecutingSeats"] == 40);
  CHECK(s["priorityLevels"]["readonly"]["rejected"]["concurrency-limit"] == 0);
  CHECK(s["clients"]["reader"]["succeeded"] == 40);
}

TEST_CASE("a request's seats replace the work estimator's answer, above the per-level cap",
          "[world]") {
  // A GET is 1 seat (doc/model.md#work-estimation) and no request of global-default can hold more
  // than the level's maximum seats (at most 10 in 1.36, doc/model.md#max-seats). `seats: {initial:
  // 20}` is what the queue set is told instead: the level's largest request is 20 seats. With 400 +
  // 200 seats global-default's nominal limit is well above 20, so it runs at once.
  const nlohmann::json s = RunText(R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: seats-what-if}
spec:
  duration: 3s
  clients:
  - name: reader
    user: alice
    traffic:
    - constant:
        rate: 1
        request: {verb: get, resource: configmaps, namespace: default, name: c,
                  seats: {initial: 20, final: 2, additionalLatency: 100ms}}
)");
  CHECK(s["priorityLevels"]["global-default"]["peakRequestSeats"] == 20);
  CHECK(s["priorityLevels"]["global-default"]["peakExecutingSeats"] == 20);
  CHECK(s["clients"]["reader"]["failed"] == 0);
}

TEST_CASE("a closed loop may think for 0", "[world]") {
  // One worker, one GET of 1 s then no think: calls start at 0, 1, 2, ... 9 s (the first
  // after half a think, 0) and each ends 1 s later, so a 9.5 s run issues 10 calls of
  // which 9 are answered.
  const nlohmann::json s = RunText(R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: no-think}
spec:
  duration: 9500ms
  clients:
  - name: controller
    serviceAccount: apps/controller
    traffic:
    - closedLoop:
        workers: 1
        think: 0s
        calls:
        - {verb: get, resource: configmaps, namespace: apps, name: a, serviceTime: 1s}
)");
  CHECK(s["clients"]["controller"]["calls"] == 10);
  CHECK(s["clients"]["controller"]["succeeded"] == 9);
}

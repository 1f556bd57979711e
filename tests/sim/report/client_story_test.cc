// Each client's story in summary.json (clients.NAME: levels, queueWaitSeconds,
// throttleWaitSeconds, callsRejected, pendingAtEnd, iterationSeconds) and the warning for a
// client that offers more than its client-side QPS, on tests/fixtures/report/story.yaml
// and tiny.yaml, whose numbers their headers work out by hand.
#include <catch2/catch.hpp>
#include <string>

#include "sim/scenario/loader.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/run.h"
#include "tests/support/scratch_dir.h"

namespace {

std::string Fixture(const char* name) {
  return std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/" + name;
}

nlohmann::json Run(const char* fixture, const test_support::ScratchDir& scratch) {
  sim::RunRequest request;
  request.scenario_file = Fixture(fixture);
  request.out_dir = scratch.path().string();
  request.quiet = true;
  return sim::RunScenario(request).summary;
}

// The histogram reports a bucket's middle (1.6% precision, sim/world/latency_histogram.h),
// never above the exact maximum.
Approx Bucketed(double seconds) { return Approx(seconds).epsilon(0.016); }

}  // namespace

TEST_CASE("a closed loop's iterations and a throttled client's waits", "[client_story]") {
  const test_support::ScratchDir scratch("apfsim-story");
  const nlohmann::json s = Run("story.yaml", scratch);
  const nlohmann::json& loop = s["clients"]["loop"];
  // Three passes (0.5, 1.7, 2.9 s) of two 100 ms GETs each.
  CHECK(loop["calls"] == 6);
  CHECK(loop["iterationSeconds"]["p50"].get<double>() == Bucketed(0.2));
  CHECK(loop["iterationSeconds"]["max"].get<double>() == 0.2);
  CHECK(loop["throttleWaitSeconds"]["max"] == 0.0);
  CHECK(loop["queueWaitSeconds"]["max"] == 0.0);  // 600 seats: nothing queues
  CHECK(loop["pendingAtEnd"] == 0);
  CHECK(loop["levels"] == nlohmann::json::parse(
                              R"({"workload-low": {"attempts": 6,
                                  "flowSchemas": {"service-accounts": 6}}})"));

  const nlohmann::json& eager = s["clients"]["eager"];
  CHECK_FALSE(eager.contains("iterationSeconds"));  // not a closed loop
  // 16 calls issued; 0 to 7 waited 0, 0.25, ..., 1.75 s for their token and were answered.
  CHECK(eager["calls"] == 16);
  CHECK(eager["succeeded"] == 8);
  CHECK(eager["pendingAtEnd"] == 8);
  CHECK(eager["throttleWaitSeconds"]["max"] == 1.75);
  // Nearest rank: p50 of 8 is the 4th, 0.75 s.
  CHECK(eager["throttleWaitSeconds"]["p50"].get<double>() == Bucketed(0.75));
  CHECK(eager["callsRejected"] == 0);
}

TEST_CASE("calls rejected are distinct calls, APF queue wait is the attempts'", "[client_story]") {
  const test_support::ScratchDir scratch("apfsim-story");
  const nlohmann::json s = Run("tiny.yaml", scratch);
  const nlohmann::json& alice = s["clients"]["alice"];
  CHECK(alice["callsRejected"] == 1);  // the GET at 1.6 s, not retried
  CHECK(alice["http429"] == 1);
  // Waits 0, 0.8 and 1.1 s; the rejected one never queued.
  CHECK(alice["queueWaitSeconds"]["p50"].get<double>() == Bucketed(0.8));
  CHECK(alice["queueWaitSeconds"]["max"] == 1.1);
  CHECK(alice["throttleWaitSeconds"]["max"] == 0.0);  // qps -1: no limiter
  CHECK(alice["levels"]["lab"]["attempts"] == 4);
  CHECK(alice["levels"]["lab"]["flowSchemas"]["global-default"] == 4);
}

TEST_CASE("a client offering more than its QPS over the run is named in a warning",
          "[client_story]") {
  const sim::Scenario story = sim::LoadScenario(Fixture("story.yaml"), {});
  const std::vector<std::string> warnings = sim::ClientOverloadWarnings(story);
  REQUIRE(warnings.size() == 1);  // eager: 4 calls/s against qps 2; loop is a closed loop
  CHECK(warnings[0].find("client \"eager\"") != std::string::npos);
  CHECK(warnings[0].find("offers 4 calls per second") != std::string::npos);
  // At its QPS it is not overloaded.
  const sim::Scenario fits =
      sim::LoadScenario(Fixture("story.yaml"), {"clients.eager.clientGo.qps=4"});
  CHECK(sim::ClientOverloadWarnings(fits).empty());
}

// A run's inputs resolved the one way run, check, compare and sweep resolve them
// (sim/workflows/run_inputs.h), on tests/fixtures/sweep/mini-drift.yaml (seed 7, the
// default 1 s interval, maxRequestsInflight 100) and its overlay.yaml (the tenant-sweep
// level and FlowSchema, and maxRequestsInflight=200).
#include "sim/workflows/run_inputs.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/io/input_error.h"

namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep";

sim::RunInputs MiniDrift() {
  sim::RunInputs inputs;
  inputs.scenario_file = (kFixtures / "mini-drift.yaml").string();
  return inputs;
}

}  // namespace

TEST_CASE("the scenario as written when nothing is overridden", "[run_inputs]") {
  const sim::ResolvedRun run = sim::ResolveRunInputs(MiniDrift());
  CHECK(run.scenario.name == "mini-drift");
  CHECK(run.scenario.seed == 7);
  CHECK(run.scenario.interval == apf::kSecond);
  CHECK(run.scenario.apiservers.max_requests_inflight == 100);
  CHECK(run.flow_control.config.FindPriorityLevel("tenant-sweep") == -1);
}

TEST_CASE("an overlay's set values come after --set, its manifests after the scenario's",
          "[run_inputs]") {
  sim::RunInputs inputs = MiniDrift();
  inputs.overrides = {"apiservers.maxRequestsInflight=300"};
  inputs.overlay_files = {(kFixtures / "overlay.yaml").string()};
  const sim::ResolvedRun run = sim::ResolveRunInputs(inputs);
  CHECK(run.scenario.apiservers.max_requests_inflight == 200);  // the overlay's, applied last
  CHECK(run.flow_control.config.FindPriorityLevel("tenant-sweep") >= 0);
  CHECK(run.flow_control.config.FindFlowSchema("tenant-operator-lists") >= 0);
}

TEST_CASE("a seed and an interval given on the command line replace the scenario's",
          "[run_inputs]") {
  sim::RunInputs inputs = MiniDrift();
  inputs.seed = 11;
  inputs.interval = "250ms";
  const sim::ResolvedRun run = sim::ResolveRunInputs(inputs);
  CHECK(run.scenario.seed == 11);
  CHECK(run.scenario.interval == 250 * apf::kMillisecond);
}

TEST_CASE("an --interval under 1ms or not a duration is bad input naming --interval",
          "[run_inputs]") {
  sim::RunInputs inputs = MiniDrift();
  inputs.interval = "999us";
  CHECK_THROWS_WITH(sim::ResolveRunInputs(inputs),
                    Catch::Contains("--interval") && Catch::Contains("must be at least 1ms"));
  inputs.interval = "soon";
  CHECK_THROWS_AS(sim::ResolveRunInputs(inputs), sim::InputError);
  inputs.interval = "1ms";
  CHECK(sim::ResolveRunInputs(inputs).scenario.interval == apf::kMillisecond);
}

TEST_CASE("an apply event with APF off is warned about at its line, not silently applied",
          "[run_inputs][events]") {
  // mini-drift-events.yaml's events: an apply at line 15 (its `at:`, column 5), a
  // restart and a resources change. With APF off the MaxInFlight filter reads no
  // FlowSchema or priority level, so the apply alone can do nothing.
  sim::RunInputs inputs;
  inputs.scenario_file = (kFixtures / "mini-drift-events.yaml").string();
  CHECK(sim::ResolveRunInputs(inputs).warnings.empty());
  inputs.overrides = {"apiservers.enablePriorityAndFairness=false"};
  const sim::ResolvedRun run = sim::ResolveRunInputs(inputs);
  REQUIRE(run.warnings.size() == 1);
  CHECK(run.warnings[0].rfind(inputs.scenario_file + ":15:5: spec.events[0].apply: warning: "
                                                     "has no effect in this run",
                              0) == 0);
}

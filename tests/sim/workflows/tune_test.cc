// apfsim tune (sim/workflows/tune.h) on tests/fixtures/tune/mini-drift-goal.yaml, whose goal
// (no rejection in workload-low, no 429 for Argo CD, the human under a second) fails as given:
// the search finds a fix that holds on the seeds it searched and on seeds it never saw, the
// same fix whatever --jobs, and on a goal nothing in the space can meet it spends the budget
// and still writes the closest candidate.
#include "sim/workflows/tune.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/io/file_digest.h"
#include "sim/io/input_error.h"
#include "sim/report/expectations.h"
#include "sim/workflows/provenance.h"
#include "sim/workflows/replicate.h"
#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

using test_support::ReadFile;
using test_support::ScratchDir;

const fs::path kFixture =
    fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "tune" / "mini-drift-goal.yaml";

sim::TuneRequest Request(const std::string& scenario, const std::string& out_dir, int jobs) {
  sim::TuneRequest request;
  request.scenario_file = scenario;
  request.seeds = {1, 2, 3};
  request.budget = 300;
  request.jobs = jobs;
  request.out_dir = out_dir;
  request.compare = false;
  return request;
}

// `apfsim check SCENARIO --overlay FIX --seeds SEEDS`: true when every assertion holds.
bool HoldsWithOverlay(const std::string& scenario, const std::string& overlay,
                      const std::vector<std::uint64_t>& seeds, const std::string& out_dir) {
  sim::RunRequest request;
  request.scenario_file = scenario;
  if (!overlay.empty()) request.overlay_files = {overlay};
  request.quiet = true;
  request.write_timelines = false;
  request.out_dir = out_dir;
  const sim::ResolvedRun resolved = sim::ResolveRunInputs(request);
  const sim::ReplicationsOutcome outcome = sim::RunReplications(resolved, request, seeds, 2);
  std::vector<std::vector<sim::ExpectationResult>> per_seed;
  for (const sim::RunOutcome& run : outcome.runs) per_seed.push_back(run.expectations);
  for (const sim::ExpectationResult& r : sim::CombineSeedVerdicts(per_seed, seeds)) {
    if (!r.passed) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("tune finds a fix that check --overlay confirms on seeds it did not search", "[tune]") {
  const ScratchDir scratch("apfsim-tune");
  const std::string scenario = kFixture.string();
  const std::vector<std::uint64_t> unseen = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  // As given the goal fails (the sweep's LISTs are rejected queue-full in workload-low).
  REQUIRE_FALSE(HoldsWithOverlay(scenario, "", unseen, scratch.File("before")));

  const sim::TuneOutcome outcome = sim::RunTune(Request(scenario, scratch.File("tune"), 2));
  REQUIRE(outcome.holds);
  CHECK(outcome.runs_spent <= 300);
  CHECK(outcome.tune["result"] == "holds");
  CHECK(outcome.tune["budgetSpent"] == outcome.runs_spent);
  // Where the search started from, as summary.json's provenance (the seeds are tune.json's).
  REQUIRE(outcome.tune.contains("provenance"));
  const nlohmann::json& provenance = outcome.tune["provenance"];
  REQUIRE(provenance.contains("scenarioSha256"));
  CHECK(provenance["apfsimVersion"] == sim::ApfsimBuildVersion());
  CHECK(provenance["scenarioSha256"] == sim::FileSha256(scenario));
  CHECK_FALSE(provenance.contains("seed"));
  // Every candidate but the last was dropped at a failing seed, which tune.json names with
  // the assertion and its measured value, or was refused by validation before any run.
  const nlohmann::json& candidates = outcome.tune["candidates"];
  REQUIRE(candidates.size() == static_cast<std::size_t>(outcome.candidates));
  for (std::size_t i = 0; i + 1 < candidates.size(); ++i) {
    const nlohmann::json& c = candidates[i];
    INFO(c.dump());
    CHECK((c.contains("invalid") ||
           (c.contains("failedSeed") && c["failedAssertion"].contains("measured"))));
  }
  // The unchanged configuration is tried first and fails on the first seed.
  CHECK(candidates[0]["changes"].empty());
  CHECK(candidates[0]["failedSeed"] == 1);
  CHECK(candidates.back()["holds"] == true);
  // fix.yaml is an overlay that check reads, and the fix holds on ten seeds never searched.
  const std::string fix = scratch.File("tune") + "/fix.yaml";
  REQUIRE(fs::exists(fix));
  CHECK(HoldsWithOverlay(scenario, fix, unseen, scratch.File("after")));
}

TEST_CASE("tune gives the same fix whatever --jobs", "[tune]") {
  const ScratchDir scratch("apfsim-tune-jobs");
  const sim::TuneOutcome one = sim::RunTune(Request(kFixture.string(), scratch.File("a"), 1));
  const sim::TuneOutcome two = sim::RunTune(Request(kFixture.string(), scratch.File("b"), 2));
  CHECK(ReadFile(scratch.File("a") + "/fix.yaml") == ReadFile(scratch.File("b") + "/fix.yaml"));
  CHECK(ReadFile(scratch.File("a") + "/tune.json") == ReadFile(scratch.File("b") + "/tune.json"));
  CHECK(one.runs_spent == two.runs_spent);
}

TEST_CASE("tune on a goal nothing can meet spends the budget and writes the closest", "[tune]") {
  const ScratchDir scratch("apfsim-tune-impossible");
  // The sweep's 600 LISTs take 100 ms at the median each; no configuration makes the
  // tenant-operator's calls all finish within a millisecond.
  std::string text = ReadFile(kFixture);
  text += "  - {path: clients.tenant-operator.latencySeconds.max, \"<\": 0.001}\n";
  const std::string scenario = scratch.File("impossible.yaml");
  std::ofstream(scenario) << text;
  sim::TuneRequest request = Request(scenario, scratch.File("tune"), 2);
  request.budget = 20;
  const sim::TuneOutcome outcome = sim::RunTune(request);
  CHECK_FALSE(outcome.holds);
  CHECK(outcome.runs_spent == 20);
  CHECK(outcome.tune["result"] == "budget");
  CHECK(outcome.message.find("closest") != std::string::npos);
  CHECK(fs::exists(scratch.File("tune") + "/fix.yaml"));
}

TEST_CASE("tune refuses a scenario without spec.expect", "[tune]") {
  const ScratchDir scratch("apfsim-tune-no-goal");
  const std::string scenario =
      (fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep" / "mini-drift.yaml").string();
  CHECK_THROWS_AS(sim::RunTune(Request(scenario, scratch.File("tune"), 1)), sim::InputError);
}

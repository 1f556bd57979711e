// apfsim tune (sim/workflows/tune.h) on tests/fixtures/tune/mini-drift-goal.yaml, whose goal
// (no rejection in workload-low, no 429 for Argo CD, the human under a second) fails as given:
// the search finds a fix that holds on the seeds it searched and on seeds it never saw, the
// same fix whatever --jobs, and on a goal nothing in the space can meet it spends the budget
// and still writes the closest candidate, naming the assertion that blocks it. The fix is
// written as a cluster takes it (fix.yaml, flags.txt) and as apfsim re-checks it
// (check-overlay.yaml), in one output set that --time-budget and a signal leave complete,
// and the progress line reports the search as it goes.
#include "sim/workflows/tune.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/flowcontrol/loader.h"
#include "sim/io/file_digest.h"
#include "sim/io/input_error.h"
#include "sim/report/expectations.h"
#include "sim/workflows/interrupt.h"
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
  request.max_runs = 300;
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

// The fixture with its goal replaced by one assertion no configuration can meet: the sweep's
// LISTs take 100 ms at the median each, so the tenant-operator's slowest call is never
// under a millisecond. Every candidate fails it on seed 1.
std::string ImpossibleGoal(const ScratchDir& scratch) {
  std::string text = ReadFile(kFixture);
  text = text.substr(0, text.find("  expect:\n"));
  text += "  expect:\n  - {path: clients.tenant-operator.latencySeconds.max, \"<\": 0.001}\n";
  const std::string scenario = scratch.File("impossible-only.yaml");
  std::ofstream(scenario) << text;
  return scenario;
}

// The staging folders of output sets (OUT.tmp-PID) left beside `out`: none once tune ends.
int StagingFoldersBeside(const std::string& out) {
  int n = 0;
  const fs::path dir = fs::path(out).parent_path();
  const std::string prefix = fs::path(out).filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) ++n;
  }
  return n;
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
  // check-overlay.yaml is the fix as an overlay that check reads (objects and flags), and
  // the fix holds on ten seeds never searched.
  const std::string dir = scratch.File("tune");
  REQUIRE(fs::exists(dir + "/check-overlay.yaml"));
  CHECK(HoldsWithOverlay(scenario, dir + "/check-overlay.yaml", unseen, scratch.File("after")));

  // fix.yaml, the chosen fix, is fix-1.yaml, the first of the fixes found; it holds only
  // flowcontrol v1 FlowSchemas and PriorityLevelConfigurations (or an empty v1 List, for a
  // fix of flags alone), no empty document and no apfsim kind, and validates as lint does.
  const std::string fix = ReadFile(dir + "/fix.yaml");
  CHECK(fix == ReadFile(dir + "/fix-1.yaml"));
  CHECK(outcome.tune["fixes"].size() == 1);
  CHECK(outcome.tune["fixes"][0]["file"] == "fix-1.yaml");
  const std::vector<YAML::Node> documents = YAML::LoadAll(fix);
  REQUIRE_FALSE(documents.empty());
  for (const YAML::Node& doc : documents) {
    INFO(fix);
    REQUIRE(doc.IsMap());
    const std::string kind = doc["kind"].as<std::string>();
    if (kind == "List") {
      CHECK(doc["apiVersion"].as<std::string>() == "v1");
      CHECK(doc["items"].size() == 0);
      continue;
    }
    CHECK(doc["apiVersion"].as<std::string>() == "flowcontrol.apiserver.k8s.io/v1");
    CHECK((kind == "FlowSchema" || kind == "PriorityLevelConfiguration"));
    // A changed suggested level (this fixture's levels are the 1.36 defaults') is marked so
    // that the apiserver keeps it; the fence's new objects are not suggested ones.
    const std::string name = doc["metadata"]["name"].as<std::string>();
    if (name.rfind("fence-", 0) != 0) {
      CHECK(doc["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"].as<std::string>() ==
            "false");
    }
  }
  CHECK(sim::ValidateManifests(sim::ParseFlowControlYaml(fix, "fix.yaml")).empty());
  // flags.txt has one kube-apiserver flag a line for every flag change in tune.json.
  const std::string flags = ReadFile(dir + "/flags.txt");
  std::size_t lines = 0;
  for (std::size_t at = 0; at < flags.size(); at = flags.find('\n', at) + 1, ++lines) {
    CHECK(flags.compare(at, 2, "--") == 0);
  }
  std::size_t flag_changes = 0;
  for (const nlohmann::json& change : outcome.tune["fix"]["changes"]) {
    if (change.value("object", "") != "apiservers") continue;
    ++flag_changes;
    // kube-apiserver's spelling of the two flags (scenarios/README.md's apiservers).
    const std::string flag = change["field"] == "maxRequestsInflight"
                                 ? "--max-requests-inflight="
                                 : "--max-mutating-requests-inflight=";
    CHECK(flags.find(flag + change["to"].dump() + "\n") != std::string::npos);
  }
  CHECK(lines == flag_changes);
  CHECK(outcome.tune["fix"]["flags"].size() == flag_changes);
  CHECK(StagingFoldersBeside(dir) == 0);
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
  request.max_runs = 20;
  const sim::TuneOutcome outcome = sim::RunTune(request);
  CHECK_FALSE(outcome.holds);
  CHECK(outcome.runs_spent == 20);
  CHECK(outcome.tune["result"] == "budget");
  CHECK(outcome.message.find("closest") != std::string::npos);
  CHECK(fs::exists(scratch.File("tune") + "/fix.yaml"));
  // The assertion named as blocking is the one the closest candidate failed.
  const nlohmann::json& blocked = outcome.tune["blockedBy"];
  const nlohmann::json& closest =
      outcome.tune["candidates"][blocked["candidate"].get<std::size_t>()];
  CHECK(blocked["assertion"] == closest["failedAssertion"]["assertion"]);
  CHECK(outcome.message.find("blocked by `" + blocked["assertion"].get<std::string>() + "`") !=
        std::string::npos);
}

TEST_CASE("tune names the assertion that blocks an unreachable goal, with its margin", "[tune]") {
  const ScratchDir scratch("apfsim-tune-blocked");
  sim::TuneRequest request = Request(ImpossibleGoal(scratch), scratch.File("tune"), 2);
  request.max_runs = 5;
  const sim::TuneOutcome outcome = sim::RunTune(request);
  CHECK_FALSE(outcome.holds);
  CHECK(outcome.tune["result"] == "budget");
  const nlohmann::json& blocked = outcome.tune["blockedBy"];
  INFO(blocked.dump());
  // The goal's one assertion, line 69 of the file (the fixture's expect list starts at
  // line 68), failed on seed 1 by every candidate that ran (validation may refuse some).
  int ran = 0;
  for (const nlohmann::json& c : outcome.tune["candidates"]) ran += c.contains("invalid") ? 0 : 1;
  CHECK(ran == 5);  // one run each, a budget of 5
  CHECK(blocked["assertion"] == "clients.tenant-operator.latencySeconds.max < 0.001");
  CHECK(blocked["line"] == 69);
  CHECK(blocked["failedBy"] == ran);
  CHECK(blocked["candidatesJudged"] == ran);
  CHECK(blocked["seed"] == 1);
  // The margin is the bound minus what the closest measured, in seconds.
  const double measured = blocked["measured"].get<double>();
  CHECK(measured > 0.001);
  CHECK(blocked["margin"].get<double>() == Approx(0.001 - measured));
  const nlohmann::json& closest =
      outcome.tune["candidates"][blocked["candidate"].get<std::size_t>()];
  CHECK(closest["failedAssertion"]["measured"].get<double>() == measured);
  CHECK(outcome.message.find("blocked by `clients.tenant-operator.latencySeconds.max < 0.001` "
                             "(line 69), failed by 5 of the 5 candidates judged") !=
        std::string::npos);
  CHECK(outcome.message.find("the budget spent") != std::string::npos);
}

TEST_CASE("tune's progress line gives candidates, runs and the best so far every 10 s", "[tune]") {
  const ScratchDir scratch("apfsim-tune-progress");
  sim::TuneRequest request = Request(ImpossibleGoal(scratch), scratch.File("tune"), 1);
  request.max_runs = 6;
  // A fake clock 4 s further on at every reading: read at the start (0 s) and after each
  // candidate (4, 8, 12, 16, 20, 24 s), so plain lines come after the third (12 s, past 10 s)
  // and the fifth (20 s) candidates, and not after the sixth (24 s < 30 s).
  double now = -4;
  request.clock = [&] { return now += 4; };
  std::vector<std::string> lines;
  request.progress_writer = [&](const std::string& text) { lines.push_back(text); };
  request.progress = sim::ProgressStyle::kPlain;
  const sim::TuneOutcome outcome = sim::RunTune(request);
  const nlohmann::json& tried = outcome.tune["candidates"];
  REQUIRE(outcome.candidates >= 6);  // one run each, a budget of 6 (more if some are invalid)
  // The lines expected from tune.json's records: after candidate k the clock reads 4k s and
  // a line is due at each next multiple of 10 s; it counts the runs so far (an invalid
  // candidate runs nothing) and the best so far, the highest score, the earlier on a tie
  // (every candidate fails seed 1, so the score is its margin).
  std::vector<std::string> expected;
  double due = 10;
  std::size_t runs = 0, best = 0;
  for (std::size_t k = 1; k <= tried.size(); ++k) {
    const nlohmann::json& c = tried[k - 1];
    if (c.contains("seeds")) runs += c["seeds"].size();
    if (!c.contains("invalid") &&
        c["score"]["margin"].get<double>() > tried[best]["score"]["margin"].get<double>()) {
      best = k - 1;
    }
    if (4.0 * static_cast<double>(k) < due) continue;
    expected.push_back(fmt::format(
        "tune mini-drift-goal: {} candidates, {} of 6 runs, 0m{:02}s; best so far: candidate "
        "{} (0 of 3 seeds, margin {:.4g})\n",
        k, runs, 4 * k, best, tried[best]["score"]["margin"].get<double>()));
    due = 10 * (std::floor(4.0 * static_cast<double>(k) / 10) + 1);
  }
  CHECK(expected.size() >= 2);
  CHECK(lines == expected);
}

TEST_CASE("tune stops at --time-budget and writes the closest", "[tune]") {
  const ScratchDir scratch("apfsim-tune-time");
  sim::TuneRequest request = Request(ImpossibleGoal(scratch), scratch.File("tune"), 1);
  // A fake clock 4 s further on at every reading: 0 s at the start, then 4, 8 and 12 s after
  // the first three candidates, the last past the 10 s budget.
  double now = -4;
  request.clock = [&] { return now += 4; };
  request.time_budget_seconds = 10;
  const sim::TuneOutcome outcome = sim::RunTune(request);
  CHECK(outcome.candidates == 3);
  CHECK(outcome.tune["result"] == "time-budget");
  CHECK(outcome.tune["timeBudget"] == "10s");
  CHECK(outcome.message.find("the time budget of 10s spent") != std::string::npos);
  CHECK(fs::exists(scratch.File("tune") + "/fix.yaml"));
  CHECK(fs::exists(scratch.File("tune") + "/check-overlay.yaml"));
}

TEST_CASE("a signal during tune keeps the best so far in a complete output set", "[tune]") {
  const ScratchDir scratch("apfsim-tune-signal");
  const std::string out = scratch.File("tune");
  // A previous search's folder: its fix-7.yaml is replaced (gone), a user's note kept.
  fs::create_directories(out);
  std::ofstream(out + "/fix-7.yaml") << "old\n";
  std::ofstream(out + "/notes.txt") << "mine\n";
  sim::TuneRequest request = Request(ImpossibleGoal(scratch), out, 1);
  bool saw_staging = false;
  request.after_candidate = [&](int judged) {
    // Until the search ends the final folder holds the previous search's files only.
    if (judged == 2) {
      saw_staging = StagingFoldersBeside(out) == 1 && !fs::exists(out + "/tune.json");
      sim::SimulateInterrupt(SIGTERM);
    }
  };
  const sim::TuneOutcome outcome = sim::RunTune(request);
  sim::SimulateInterrupt(0);
  CHECK(saw_staging);
  CHECK(outcome.interrupted_by == SIGTERM);
  CHECK(outcome.candidates == 2);
  CHECK(outcome.tune["result"] == "interrupted");
  CHECK(outcome.tune["interruptedBy"] == "SIGTERM");
  CHECK(outcome.tune["candidates"].size() == 2);
  for (const char* name :
       {"fix.yaml", "fix-1.yaml", "flags.txt", "check-overlay.yaml", "tune.json", "notes.txt"}) {
    INFO(name);
    CHECK(fs::exists(out + "/" + name));
  }
  CHECK_FALSE(fs::exists(out + "/fix-7.yaml"));
  CHECK(StagingFoldersBeside(out) == 0);
}

TEST_CASE("tune refuses a scenario without spec.expect", "[tune]") {
  const ScratchDir scratch("apfsim-tune-no-goal");
  const std::string scenario =
      (fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep" / "mini-drift.yaml").string();
  CHECK_THROWS_AS(sim::RunTune(Request(scenario, scratch.File("tune"), 1)), sim::InputError);
}

TEST_CASE("tune --set searches from the changed scenario and leaves the value out of the fix",
          "[tune]") {
  const ScratchDir scratch("apfsim-tune-set");
  // Cut to 1 s, the run ends before the sweep's first LIST (start: 2s): nothing is rejected,
  // Argo CD's GETs and the human's LISTs meet no queue, so the scenario as given already
  // meets its goal and the first candidate, no change, holds: one run on each of 3 seeds.
  sim::TuneRequest request = Request(kFixture.string(), scratch.File("tune"), 2);
  request.overrides = {"duration=1s"};
  const sim::TuneOutcome outcome = sim::RunTune(request);
  REQUIRE(outcome.holds);
  CHECK(outcome.candidates == 1);
  CHECK(outcome.runs_spent == 3);
  CHECK(outcome.tune["candidates"][0]["changes"].empty());
  // Recorded where the search started from, as a run's summary.json records its --set.
  CHECK(outcome.tune["provenance"]["sets"] == nlohmann::json::array({"duration=1s"}));
  // The fix holds only what the search changed: none of the --set value.
  const std::string overlay = ReadFile(scratch.File("tune") + "/check-overlay.yaml");
  CHECK(overlay.find("duration") == std::string::npos);
  CHECK(ReadFile(scratch.File("tune") + "/fix.yaml").find("duration") == std::string::npos);
}

// Replications over seeds (sim/workflows/replicate.h) on tests/fixtures/sweep/mini-drift.yaml:
// each DIR/seed-N/ holds what a single run on seed N writes, byte for byte, replications.json
// holds the seeds' summary values in seed order, and nothing depends on --jobs. Also the
// pairing of compare --seeds (sim/workflows/compare.h) on summaries small enough to follow
// by hand, and compare --seeds end to end.
#include "sim/workflows/replicate.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "sim/workflows/compare.h"
#include "sim/workflows/run.h"
#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

using test_support::ReadFile;

const fs::path kFixtures = fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep";

sim::RunRequest MiniDrift(const std::string& out_dir) {
  sim::RunRequest request;
  request.scenario_file = (kFixtures / "mini-drift.yaml").string();
  request.out_dir = out_dir;
  request.quiet = true;
  return request;
}

// A summary with one level and one client, for the pairing.
nlohmann::json Summary(int queue_full, int dispatched, double p99, int calls) {
  return {{"scenario", "s"},
          {"seed", 0},
          {"priorityLevels",
           {{"workload-low",
             {{"nominalCL", 10},
              {"meanCurrentCL", 10.0},
              {"peakExecutingSeats", 10},
              {"dispatched", dispatched},
              {"rejected", {{"queue-full", queue_full}, {"time-out", 0}, {"concurrency-limit", 0}}},
              {"waitSeconds", {{"p50", 0.0}, {"p99", p99}, {"max", p99}}}}}}},
          {"clients",
           {{"argocd",
             {{"calls", calls},
              {"attempts", calls},
              {"succeeded", calls},
              {"failed", 0},
              {"http429", 0},
              {"latencySeconds", {{"p50", 0.0}, {"p99", 0.0}, {"max", 0.0}}}}}}}};
}

}  // namespace

TEST_CASE("run --seeds writes each seed's run as a single run writes it, and the statistics",
          "[seeds][replications]") {
  const test_support::ScratchDir scratch("apfsim-replicate-test");
  const std::vector<std::uint64_t> seeds = {1, 2, 3};
  sim::RunRequest request = MiniDrift(scratch.File("reps"));
  const sim::ReplicationsOutcome outcome =
      sim::RunReplications(sim::ResolveRunInputs(request), request, seeds, 2);
  REQUIRE(outcome.runs.size() == 3);
  const nlohmann::json r = nlohmann::json::parse(ReadFile(scratch.File("reps/replications.json")));
  CHECK(r == outcome.replications);
  CHECK(r["seeds"] == nlohmann::json({1, 2, 3}));
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    INFO("seed " << seeds[i]);
    // `apfsim run --seed N --out DIR`, resolved on its own.
    sim::RunRequest single = MiniDrift(scratch.File("single-" + std::to_string(seeds[i])));
    single.seed = seeds[i];
    const sim::RunOutcome alone = sim::RunScenario(single);
    const std::string seed_dir = scratch.File("reps/seed-" + std::to_string(seeds[i]));
    for (const char* file : {"summary.json", "timeline.csv", "clients.csv", "metrics.prom"}) {
      INFO(file);
      CHECK(ReadFile(fs::path(seed_dir) / file) == ReadFile(fs::path(single.out_dir) / file));
    }
    // The values are the seeds' own, in seed order.
    const nlohmann::json& s = alone.summary;
    CHECK(r["clients"]["tenant-operator"]["http429"]["values"][i] ==
          s["clients"]["tenant-operator"]["http429"]);
    CHECK(r["priorityLevels"]["workload-low"]["waitSeconds"]["p99"]["values"][i] ==
          s["priorityLevels"]["workload-low"]["waitSeconds"]["p99"]);
    CHECK(r["clients"]["argocd"]["calls"]["values"][i] == s["clients"]["argocd"]["calls"]);
  }
  // Argo CD's closed loop depends on the seed: the seeds are different samples.
  CHECK(r["clients"]["argocd"]["calls"]["stddev"].get<double>() > 0);
  CHECK(r["clients"]["argocd"]["calls"]["ci95"][0].get<double>() <
        r["clients"]["argocd"]["calls"]["mean"].get<double>());

  // One thread writes the same replications.json.
  sim::RunRequest serial = MiniDrift(scratch.File("serial"));
  sim::RunReplications(sim::ResolveRunInputs(serial), serial, seeds, 1);
  CHECK(ReadFile(scratch.File("serial/replications.json")) ==
        ReadFile(scratch.File("reps/replications.json")));
}

TEST_CASE("compare --seeds pairs each figure's change by seed", "[seeds][compare]") {
  // Queue-full rejections 10, 20, 30 before and 5, 25, 30 after: changes -5, +5, 0, better
  // (fewer) in seed 1, worse in seed 2, unchanged in seed 3; mean 0, interval spans zero.
  // Dispatched 100, 100, 100 -> 110, 111, 112: changes 10, 11, 12, better (more) in all
  // three; mean 11, s = 1, half interval 4.3026527 / sqrt 3 = 2.484138.
  // Wait p99 0.1 -> 0.1 in every seed: no change either way.
  const std::vector<nlohmann::json> befores = {Summary(10, 100, 0.1, 7), Summary(20, 100, 0.1, 8),
                                               Summary(30, 100, 0.1, 9)};
  const std::vector<nlohmann::json> afters = {Summary(5, 110, 0.1, 7), Summary(25, 111, 0.1, 8),
                                              Summary(30, 112, 0.1, 9)};
  const nlohmann::json c = sim::CompareReplications(befores, afters, {4, 5, 6});
  CHECK(c["seeds"] == nlohmann::json({4, 5, 6}));
  const nlohmann::json& level = c["priorityLevels"]["workload-low"];
  const nlohmann::json& qf = level["rejectedQueueFull"];
  CHECK(qf["before"]["mean"] == 20.0);
  CHECK(qf["after"]["mean"] == 20.0);
  CHECK(qf["change"]["values"] == nlohmann::json({-5, 5, 0}));
  CHECK(qf["change"]["mean"] == 0.0);
  CHECK(qf["betterIn"] == 1);
  CHECK(qf["worseIn"] == 1);
  const nlohmann::json& dispatched = level["dispatched"];
  CHECK(dispatched["change"]["mean"] == 11.0);
  CHECK(dispatched["change"]["ci95"][0].get<double>() == Approx(11 - 2.484138).epsilon(1e-6));
  CHECK(dispatched["change"]["ci95"][1].get<double>() == Approx(11 + 2.484138).epsilon(1e-6));
  CHECK(dispatched["betterIn"] == 3);
  CHECK(dispatched["worseIn"] == 0);
  CHECK(level["waitP99Seconds"]["betterIn"] == 0);
  CHECK(level["waitP99Seconds"]["worseIn"] == 0);
  // A limit has no better direction.
  CHECK_FALSE(level["nominalCL"].contains("betterIn"));
  CHECK_FALSE(c["clients"]["argocd"]["calls"].contains("betterIn"));

  const std::string table = sim::CompareTable(c, false);
  INFO(table);
  CHECK(table.find("seeds 4..6") != std::string::npos);
  CHECK(table.find("100 → 111 (+11.0±2.5)") != std::string::npos);
  // The summed rejections change as the queue-full ones do: no clear change.
  CHECK(table.find("20.0 → 20.0 (no clear change)") != std::string::npos);
  // The wait p99 did not move in any seed: one figure, no arrow.
  CHECK(table.find("0.100s →") == std::string::npos);
  CHECK(table.find("0.100s") != std::string::npos);
}

TEST_CASE("compare --seeds runs both sides on every seed", "[seeds][compare]") {
  const test_support::ScratchDir scratch("apfsim-compare-seeds-test");
  sim::CompareRequest request;
  request.scenario_file = (kFixtures / "mini-drift.yaml").string();
  request.after_overrides = {"apiservers.maxRequestsInflight=200"};
  request.seeds = {1, 2};
  request.jobs = 2;
  request.out_dir = scratch.File("cmp");
  const sim::CompareOutcome outcome = sim::RunCompare(request);
  for (const char* side : {"before", "after"}) {
    for (const char* seed : {"seed-1", "seed-2"}) {
      CHECK(fs::exists(fs::path(request.out_dir) / side / seed / "summary.json"));
    }
    CHECK(fs::exists(fs::path(request.out_dir) / side / "replications.json"));
  }
  const nlohmann::json& c = outcome.comparison;
  CHECK(c["seeds"] == nlohmann::json({1, 2}));
  // serverCL 100+50 -> 200+50: ceil(150*100/245) = 62, ceil(250*100/245) = 103, whatever
  // the seed.
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["before"]["values"] ==
        nlohmann::json({62, 62}));
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["change"]["values"] ==
        nlohmann::json({41, 41}));
  // The tenant-operator's one sweep of 600 calls is the same traffic on both sides.
  CHECK(c["clients"]["tenant-operator"]["calls"]["change"]["values"] == nlohmann::json({0, 0}));
  CHECK(ReadFile(fs::path(request.out_dir) / "compare.json") == c.dump(2) + "\n");
}

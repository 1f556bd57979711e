// Runs with spec.events are the same bytes whatever the parallelism: a sweep of
// tests/fixtures/sweep/mini-drift-events.yaml (an apply, a replica restart and an object
// count change) gives one sweep.csv, and the same per-run timelines, with --jobs 1, 2 and
// 3, and its merged shards equal it; `run --seeds` writes the same files with --jobs 1 and
// 3. Each world builds and applies its own events (sim/world/world_build.cc, world.cc), so
// threads share nothing a run reads; a difference here is state leaking between runs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/workflows/sweep.h"
#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

using test_support::ReadFile;
using test_support::RunApfsim;
using test_support::ScratchDir;
using test_support::ShellQuote;

const fs::path kScenario =
    fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep" / "mini-drift-events.yaml";

// Every file under `dir`, by its path inside it, with its bytes.
std::map<std::string, std::string> Files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = ReadFile(entry.path());
    }
  }
  return files;
}

sim::SweepRequest EventsSweep(const fs::path& out, int jobs) {
  sim::SweepRequest request;
  request.scenario_file = kScenario.string();
  request.axes.push_back(sim::ParseSweepAxis("apiservers.maxRequestsInflight=60,100,140"));
  request.out_dir = out.string();
  request.jobs = jobs;
  request.timelines = true;
  return request;
}

}  // namespace

TEST_CASE("a sweep of a scenario with events is the same bytes for --jobs 1, 2, 3 and shards",
          "[sweep][events]") {
  const ScratchDir scratch("apfsim-events-determinism");
  std::map<std::string, std::string> first;
  for (int jobs : {1, 2, 3}) {
    INFO("--jobs " << jobs);
    const fs::path out = scratch.path() / ("jobs-" + std::to_string(jobs));
    const sim::SweepOutcome outcome = sim::RunSweep(EventsSweep(out, jobs));
    CHECK(outcome.runs == 3u);
    std::map<std::string, std::string> files = Files(out);
    REQUIRE(files.count("sweep.csv") == 1);
    REQUIRE(files.size() > 3);  // sweep.csv and each run's timeline.csv and clients.csv
    if (jobs == 1) {
      first = files;
    } else {
      CHECK(files == first);
    }
  }
  std::vector<std::string> texts, names;
  for (int k : {0, 1}) {
    sim::SweepRequest part = EventsSweep(scratch.path() / ("part-" + std::to_string(k)), 2);
    part.shard = sim::SweepShard{k, 2};
    const sim::SweepOutcome outcome = sim::RunSweep(part);
    texts.push_back(ReadFile(outcome.csv_path));
    names.push_back(outcome.csv_path);
  }
  CHECK(sim::MergeSweepParts(texts, names) == first.at("sweep.csv"));
}

TEST_CASE("run --seeds of a scenario with events writes the same files for --jobs 1 and 3",
          "[events]") {
  const ScratchDir scratch("apfsim-events-seeds");
  std::map<std::string, std::string> by_jobs[2];
  int i = 0;
  for (int jobs : {1, 3}) {
    const fs::path out = scratch.path() / ("jobs-" + std::to_string(jobs));
    const test_support::CommandResult r =
        RunApfsim("run " + ShellQuote(kScenario.string()) + " --seeds 1..3 --jobs " +
                      std::to_string(jobs) + " --quiet --out " + ShellQuote(out.string()),
                  scratch.path());
    INFO(r.Output());
    REQUIRE(r.exit_code == 0);
    by_jobs[i++] = Files(out);
  }
  CHECK(by_jobs[0].count("seed-3/summary.json") == 1);
  CHECK(by_jobs[0] == by_jobs[1]);
}

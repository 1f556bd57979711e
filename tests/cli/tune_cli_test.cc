// `apfsim tune` as a user runs it (sim/cli/tune.cc) on tests/fixtures/tune/mini-drift-goal.yaml:
// exit 0 with fix.yaml, tune.json and compare.json written, the fix read back by `check
// --overlay` (on seeds not searched), `run --overlay` and `compare --overlay`; exit 1 with the
// closest candidate when the budget runs out; exit 2 for a scenario without spec.expect.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

using test_support::CommandResult;
using test_support::ReadFile;
using test_support::RunApfsim;
using test_support::ScratchDir;
using test_support::ShellQuote;

const fs::path kFixtures = fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures";

}  // namespace

TEST_CASE("apfsim tune writes a fix that check, run and compare --overlay read", "[tune][cli]") {
  const ScratchDir scratch("apfsim-tune-cli");
  const std::string scenario = ShellQuote((kFixtures / "tune" / "mini-drift-goal.yaml").string());
  const std::string out = scratch.File("tune");
  const CommandResult tune =
      RunApfsim("tune " + scenario + " --seeds 1..3 --jobs 2 --no-plot --out " + ShellQuote(out),
                scratch.path());
  INFO(tune.Output());
  REQUIRE(tune.exit_code == 0);
  CHECK(tune.out.find("a fix that holds on every one of 3 seeds") != std::string::npos);
  const nlohmann::json report = nlohmann::json::parse(ReadFile(out + "/tune.json"));
  CHECK(report["holds"] == true);
  CHECK(fs::exists(out + "/compare.json"));
  const std::string fix = ShellQuote(out + "/fix.yaml");

  // Without the fix the goal fails on seeds 4..8; with it, it holds there.
  const CommandResult before =
      RunApfsim("check " + scenario + " --seeds 4..8 --quiet", scratch.path());
  CHECK(before.exit_code == 1);
  const CommandResult after = RunApfsim(
      "check " + scenario + " --overlay " + fix + " --seeds 4..8 --quiet", scratch.path());
  INFO(after.Output());
  CHECK(after.exit_code == 0);
  const CommandResult run = RunApfsim(
      "run " + scenario + " --overlay " + fix + " --quiet --out " + ShellQuote(scratch.File("run")),
      scratch.path());
  CHECK(run.exit_code == 0);
  const CommandResult compare =
      RunApfsim("compare " + scenario + " --overlay " + fix + " --no-plot", scratch.path());
  CHECK(compare.exit_code == 0);
}

TEST_CASE("apfsim tune exits 1 with the closest candidate when the budget runs out",
          "[tune][cli]") {
  const ScratchDir scratch("apfsim-tune-cli-budget");
  const std::string scenario = ShellQuote((kFixtures / "tune" / "mini-drift-goal.yaml").string());
  const std::string out = scratch.File("tune");
  // Two runs: the unchanged configuration fails on seed 1, one change is tried on seed 1.
  const CommandResult r = RunApfsim("tune " + scenario + " --seeds 1..3 --budget 2 --no-plot " +
                                        "--no-compare --out " + ShellQuote(out),
                                    scratch.path());
  INFO(r.Output());
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("the closest") != std::string::npos);
  CHECK(fs::exists(out + "/fix.yaml"));
  const nlohmann::json report = nlohmann::json::parse(ReadFile(out + "/tune.json"));
  CHECK(report["budgetSpent"] == 2);
  CHECK(report["result"] == "budget");
}

TEST_CASE("apfsim tune refuses a scenario without spec.expect (exit 2)", "[tune][cli]") {
  const ScratchDir scratch("apfsim-tune-cli-bad");
  const CommandResult r =
      RunApfsim("tune " + ShellQuote((kFixtures / "sweep" / "mini-drift.yaml").string()) +
                    " --out " + ShellQuote(scratch.File("tune")),
                scratch.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("spec.expect") != std::string::npos);
}

// `apfsim tune` as a user runs it (sim/cli/tune.cc) on tests/fixtures/tune/mini-drift-goal.yaml:
// exit 0 with fix.yaml, tune.json and compare.json written, fix.yaml clean under `lint
// --strict` and check-overlay.yaml read back by `check --overlay` (on seeds not searched),
// `run --overlay` and `compare --overlay`; exit 1 with the closest candidate when the budget
// runs out; exit 130/143 with the best so far kept whole on SIGINT/SIGTERM; exit 2 for a
// scenario without spec.expect or a bad --time-budget.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

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
  const std::string fix = ShellQuote(out + "/check-overlay.yaml");

  // fix.yaml is what kubectl applies: the project's own validation finds no error in it
  // (lint exits 0), and lint --strict warns exactly as tune.json's fix.lintWarnings says
  // (exit 1 on any warning about what was changed, 0 when there is none).
  const CommandResult lint =
      RunApfsim("lint --config " + ShellQuote(out + "/fix.yaml"), scratch.path());
  INFO(lint.Output());
  CHECK(lint.exit_code == 0);
  const CommandResult strict =
      RunApfsim("lint --config " + ShellQuote(out + "/fix.yaml") + " --strict", scratch.path());
  INFO(strict.Output());
  const nlohmann::json& warnings = report["fix"]["lintWarnings"];
  CHECK(strict.exit_code == (warnings.empty() ? 0 : 1));
  CHECK(strict.out.find(std::to_string(warnings.size()) + " warning(s)") != std::string::npos);
  for (const nlohmann::json& w : warnings) {
    // tune names the file fix.yaml; lint names it by the path it was given.
    const std::string text = w.get<std::string>();
    CHECK(strict.out.find(text.substr(text.find(": warning:"))) != std::string::npos);
  }
  CHECK(ReadFile(out + "/fix.yaml").find("apfsim") == std::string::npos);
  CHECK(tune.out.find("flags.txt, check-overlay.yaml") != std::string::npos);

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

TEST_CASE("apfsim tune --help gives --time-budget and --progress, a bad --time-budget is exit 2",
          "[tune][cli]") {
  const ScratchDir scratch("apfsim-tune-cli-help");
  const CommandResult help = RunApfsim("tune --help", scratch.path());
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--time-budget") != std::string::npos);
  // The help wraps its descriptions at 80 columns: read it as one line.
  const std::string text = std::regex_replace(help.out, std::regex("\\s+"), " ");
  CHECK(text.find("depend on the machine's speed") != std::string::npos);
  CHECK(text.find("a line every 10 s") != std::string::npos);
  const std::string scenario = ShellQuote((kFixtures / "tune" / "mini-drift-goal.yaml").string());
  for (const char* bad : {"10", "0s", "soon"}) {
    INFO(bad);
    const CommandResult r = RunApfsim(
        "tune " + scenario + " --time-budget " + bad + " --out " + ShellQuote(scratch.File("tune")),
        scratch.path());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--time-budget") != std::string::npos);
  }
}

TEST_CASE("SIGINT and SIGTERM stop apfsim tune with 130 and 143, the best so far kept whole",
          "[tune][cli]") {
  const int signal_number = GENERATE(SIGINT, SIGTERM);
  INFO(signal_number);
  const ScratchDir scratch("apfsim-tune-cli-signal");
  // A goal nothing meets (the tenant-operator's slowest call under a millisecond): the search
  // would go on for its whole budget.
  std::string text = ReadFile(kFixtures / "tune" / "mini-drift-goal.yaml");
  text += "  - {path: clients.tenant-operator.latencySeconds.max, \"<\": 0.001}\n";
  const std::string scenario = scratch.File("impossible.yaml");
  std::ofstream(scenario) << text;
  const std::string out = scratch.File("tune");
  const std::string err = scratch.File("stderr.txt");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> args = {APFSIM_BINARY, "tune",      scenario,     "--budget",
                                   "1000",        "--jobs",    "1",          "--out",
                                   out,           "--no-plot", "--progress", "never"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, APFSIM_BINARY, &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  // Signalled once its output set's staging folder (OUT.tmp-PID) holds a third candidate,
  // so that two have been judged; killed after 120 s so that a tune that ignores the signal
  // fails the test instead of hanging it.
  const std::string third = out + ".tmp-" + std::to_string(pid) + "/candidates/0002";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int status = 0;
  bool signalled = false, ended = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    if (!signalled && fs::exists(third)) {
      kill(pid, signal_number);
      signalled = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!ended) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  REQUIRE(signalled);
  REQUIRE(ended);
  REQUIRE(WIFEXITED(status));
  // 128 + the signal's number, as an interrupted run exits (sim/workflows/interrupt.h).
  CHECK(WEXITSTATUS(status) == 128 + signal_number);
  const std::string name = signal_number == SIGINT ? "SIGINT" : "SIGTERM";
  CHECK(ReadFile(err).find("apfsim tune: interrupted by " + name) != std::string::npos);
  // The folder is whole: the fix files and tune.json, no staging folder left beside it.
  const nlohmann::json report = nlohmann::json::parse(ReadFile(out + "/tune.json"));
  CHECK(report["result"] == "interrupted");
  CHECK(report["interruptedBy"] == name);
  CHECK(report["candidates"].size() >= 2);
  for (const char* file : {"fix.yaml", "fix-1.yaml", "flags.txt", "check-overlay.yaml"}) {
    INFO(file);
    CHECK(fs::exists(out + "/" + file));
  }
  CHECK_FALSE(fs::exists(out + ".tmp-" + std::to_string(pid)));
  // And the fix kept passes lint's validation.
  const CommandResult lint =
      RunApfsim("lint --config " + ShellQuote(out + "/fix.yaml"), scratch.path());
  INFO(lint.Output());
  CHECK(lint.exit_code == 0);
}

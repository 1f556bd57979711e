// The behaviours that keep an unattended run safe: --max-events and
// --max-wall-time stop a runaway scenario naming the client responsible, SIGINT and SIGTERM
// stop a run at the next poll with exit 130/143 and nothing half-written, and a full disk
// or an unwritable folder is an error message, not a crash.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "sim/engine/engine.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/run.h"
#include "sim/workflows/sweep.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using test_support::CommandResult;
using test_support::ReadFile;
using test_support::RunApfsim;
using test_support::RunShellCommand;
using test_support::ScratchDir;
using test_support::ShellQuote;

namespace {

// One careful user and one controller whose rate has a typo: 2e6 calls per second where
// 2 was meant. Over an hour that is 7.2e9 calls, far above the warning's 1e9.
constexpr const char* kRunaway = R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata:
  name: runaway
spec:
  duration: 1h
  seed: 3
  apiservers:
    replicas: 1
  resources:
  - {resource: pods, objects: 100, averageBytes: 1000, namespaces: 2}
  clients:
  - name: careful-user
    user: ilia
    traffic:
    - constant:
        rate: 1
        request: {verb: get, resource: pods, namespace: ns-0001, name: p}
  - name: typo-controller
    serviceAccount: kube-system/typo-controller
    clientGo: {qps: -1}
    traffic:
    - poisson:
        rate: 2e6
        request: {verb: get, resource: pods, namespace: ns-0001, name: p}
)";

fs::path WriteScenario(const ScratchDir& dir, const std::string& text) {
  const fs::path file = dir.path() / "scenario.yaml";
  std::ofstream(file) << text;
  return file;
}

// Every regular file under `dir` (an interrupted run must leave none, temporary or final).
std::vector<std::string> FilesUnder(const fs::path& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path().filename().string());
  }
  return files;
}

// Starts apfsim, waits until it has printed `ready` on stderr, sends `signal_number`, and
// waits for it to end (killing it after 60 s so that a run that ignores the signal fails
// the test instead of hanging it).
CommandResult SignalWhenReady(const ScratchDir& dir, std::vector<std::string> args,
                              const std::string& ready, int signal_number) {
  const fs::path err = dir.path() / "stderr.txt";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  args.insert(args.begin(), APFSIM_BINARY);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, APFSIM_BINARY, &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool signalled = false, ended = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    if (!signalled && ReadFile(err).find(ready) != std::string::npos) {
      kill(pid, signal_number);
      signalled = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!ended) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  CHECK(signalled);
  CHECK(ended);
  CommandResult f;
  if (WIFEXITED(status)) f.exit_code = WEXITSTATUS(status);
  f.err = ReadFile(err);
  return f;
}

}  // namespace

TEST_CASE("the engine asks keep_going every kPollEvery events and stops when told", "[limits]") {
  struct Counter : sim::EventHandler {
    sim::Engine* engine = nullptr;
    std::uint64_t seen = 0;
    void HandleEvent(apf::Nanos, const sim::Event& e) override {
      ++seen;
      engine->After(1, e);  // a runaway: every event schedules the next
    }
  } counter;
  sim::Engine engine(&counter);
  counter.engine = &engine;
  engine.At(0, sim::Event{});
  int polls = 0;
  sim::RunLimits limits;
  limits.keep_going = [&] { return ++polls < 3; };
  CHECK(engine.Run(limits) == sim::StopReason::kStopRequested);
  CHECK(polls == 3);
  CHECK(counter.seen == 3 * sim::RunLimits::kPollEvery);
}

TEST_CASE("the work estimate counts rates, sweeps and processes, and warns above 1e9 calls",
          "[limits]") {
  ScratchDir dir("apfsim-limits");
  const sim::Scenario scenario = sim::LoadScenario(WriteScenario(dir, kRunaway).string());
  const sim::WorkEstimate estimate = sim::EstimateWork(scenario);
  // careful-user: 1/s for 3,600 s; typo-controller: 2e6/s for 3,600 s.
  REQUIRE(estimate.client_calls.size() == 2);
  CHECK(estimate.client_calls[0] == Approx(3600));
  CHECK(estimate.client_calls[1] == Approx(7.2e9));
  const std::string warning = sim::LargeRunWarning(scenario, estimate);
  CHECK_THAT(warning, Catch::Contains("about 7.2e+09 calls") &&
                          Catch::Contains("client \"typo-controller\"") &&
                          Catch::Contains("scenario.yaml:19"));

  // The drift sweep (seed 000): 1,800 namespaces swept every 5 minutes from 1m to 15m is
  // 3 sweeps of 1,800 LISTs, plus status updates at 2 per second for 900 s: 7,200 calls,
  // far below the threshold, so no warning.
  const sim::Scenario drift =
      sim::LoadScenario(std::string(APFSIM_SOURCE_DIR) + "/scenarios/drift-sweep.yaml");
  const sim::WorkEstimate drift_estimate = sim::EstimateWork(drift);
  for (std::size_t c = 0; c < drift.clients.size(); ++c) {
    if (drift.clients[c].name == "tenant-operator") {
      CHECK(drift_estimate.client_calls[c] == Approx(3 * 1800 + 2 * 900));
    }
  }
  CHECK(sim::LargeRunWarning(drift, drift_estimate).empty());
}

TEST_CASE("a --max-events budget stops a runaway scenario naming the client, and writes nothing",
          "[limits]") {
  ScratchDir dir("apfsim-limits");
  const fs::path scenario = WriteScenario(dir, kRunaway);
  const fs::path out = dir.path() / "out";
  const CommandResult f = RunApfsim("run " + ShellQuote(scenario.string()) + " --out " +
                                        ShellQuote(out.string()) + " --max-events 300000",
                                    dir.path());
  CHECK(f.exit_code == 2);
  // The message points at the typo-controller's entry (line 19 of the file).
  CHECK_THAT(f.err, Catch::Contains("scenario.yaml:19:") && Catch::Contains("spec.clients[1]") &&
                        Catch::Contains("--max-events=300000") &&
                        Catch::Contains("client \"typo-controller\" issued"));
  CHECK_THAT(f.err, Catch::Contains("warning:") && Catch::Contains("7.2e+09 calls"));
  CHECK(FilesUnder(out).empty());
}

TEST_CASE("a --max-wall-time budget stops a run that takes too long in real time", "[limits]") {
  ScratchDir dir("apfsim-limits");
  const fs::path scenario = WriteScenario(dir, kRunaway);
  const fs::path out = dir.path() / "out";
  const CommandResult f =
      RunApfsim("run " + ShellQuote(scenario.string()) + " --out " + ShellQuote(out.string()) +
                    " --max-events 0 --max-pending-calls 0 --max-wall-time 1s --quiet",
                dir.path());
  // Only the wall-clock budget is left to stop it: the pending-call limit, which a fast
  // build can reach within the second, is off.
  CHECK(f.exit_code == 2);
  CHECK_THAT(f.err, Catch::Contains("--max-wall-time=1s") &&
                        Catch::Contains("client \"typo-controller\" issued"));
  CHECK(FilesUnder(out).empty());

  const CommandResult bad =
      RunApfsim("run " + ShellQuote(scenario.string()) + " --max-wall-time 10", dir.path());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--max-wall-time") && Catch::Contains("missing unit"));
}

TEST_CASE("SIGINT and SIGTERM stop a run cleanly with exit 130 and 143 and no output file",
          "[limits]") {
  // 128 + the signal's number, as shells report a program ended by it.
  const int signal_number = GENERATE(SIGINT, SIGTERM);
  const std::string name = signal_number == SIGINT ? "SIGINT" : "SIGTERM";
  INFO(name);
  ScratchDir dir("apfsim-limits");
  const fs::path scenario = WriteScenario(dir, kRunaway);
  const fs::path out = dir.path() / "out";
  // The large-run warning is printed just before the simulation starts.
  const CommandResult f = SignalWhenReady(dir,
                                          {"run", scenario.string(), "--out", out.string(),
                                           "--max-events", "0", "--max-wall-time", "0"},
                                          "warning:", signal_number);
  CHECK(f.exit_code == 128 + signal_number);
  CHECK_THAT(f.err, Catch::Contains("interrupted by " + name + " at") &&
                        Catch::Contains("of 1h0m0s simulated") &&
                        Catch::Contains("no output of this run was written"));
  CHECK(FilesUnder(out).empty());
}

TEST_CASE("an interrupted sweep runs nothing more and writes no CSV", "[limits]") {
  ScratchDir dir("apfsim-limits");
  sim::SweepRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/sweep/mini-drift.yaml";
  request.axes.push_back(sim::SweepAxis{"apiservers.maxRequestsInflight", {"100", "200"}});
  request.out_dir = (dir.path() / "sweep").string();
  request.jobs = 2;
  sim::SimulateInterrupt(SIGINT);
  CHECK_THROWS_AS(sim::RunSweep(request), sim::RunInterrupted);
  sim::SimulateInterrupt(0);
  CHECK(FilesUnder(dir.path() / "sweep").empty());
}

TEST_CASE("a full disk ends the run with a clear error and no partial file", "[limits]") {
  ScratchDir dir("apfsim-limits");
  const fs::path out = dir.path() / "out";
  // ulimit -f caps every file this process writes at 16 KB; the drift sweep's timeline
  // is far larger, so its write fails as on a full disk (EFBIG rather than ENOSPC).
  const CommandResult f = RunShellCommand(
      "ulimit -f 16; " + ShellQuote(APFSIM_BINARY) + " run " +
          ShellQuote(std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/sweep/mini-drift.yaml") +
          " --quiet --out " + ShellQuote(out.string()),
      dir.path());
  CHECK(f.exit_code == 2);
  // Named where it would have appeared, not in the staging folder it was written in.
  CHECK_THAT(f.err, Catch::Contains((out / "timeline.csv").string() +
                                    ": cannot write output: File too large"));
  for (const std::string& name : FilesUnder(out)) {
    INFO(name);
    CHECK(name.find(".tmp-") == std::string::npos);
    CHECK(name != "timeline.csv");
  }
}

TEST_CASE("an output folder that cannot be created is a clear error", "[limits]") {
  ScratchDir dir("apfsim-limits");
  // A folder under a regular file cannot exist, even for root (CI runs as root, for whom
  // permission bits do not stop a write).
  std::ofstream(dir.path() / "plain-file") << "x";
  const CommandResult f = RunApfsim(
      "run " +
          ShellQuote(std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/sweep/mini-drift.yaml") +
          " --quiet --out " + ShellQuote((dir.path() / "plain-file" / "out").string()),
      dir.path());
  CHECK(f.exit_code == 2);
  CHECK_THAT(f.err, Catch::Contains("plain-file/out: cannot write output: Not a directory"));
}

TEST_CASE("a signal stops a sweep while it checks its grid, before any run", "[limits]") {
  // Checking every grid point takes a while on a large grid; before, the check did not look
  // at signals and SIGTERM went unheeded until the runs began.
  ScratchDir dir("apfsim-limits");
  sim::SweepRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/sweep/mini-drift.yaml";
  request.axes.push_back(sim::SweepAxis{"apiservers.maxRequestsInflight", {"100", "200"}});
  request.out_dir = (dir.path() / "sweep").string();
  sim::SimulateInterrupt(SIGTERM);
  CHECK_THROWS_WITH(
      sim::RunSweep(request),
      Catch::Contains("sweep interrupted by SIGTERM while checking grid point 0 of 2"));
  sim::SimulateInterrupt(0);
  CHECK_FALSE(fs::exists(dir.path() / "sweep"));
}

TEST_CASE("a sweep grid of more than 10,000 points is refused before anything runs", "[limits]") {
  // Each axis is within its own limit (100,000 values); the product is what a sweep runs.
  std::vector<std::string> hundred, two_hundred;
  for (int i = 0; i < 100; ++i) hundred.push_back(std::to_string(i + 1));
  for (int i = 0; i < 200; ++i) two_hundred.push_back(std::to_string(i + 1));
  CHECK_NOTHROW(sim::CheckSweepGridSize({{"a", hundred}, {"b", hundred}}));  // 10,000 exactly
  CHECK_THROWS_WITH(sim::CheckSweepGridSize({{"a", hundred}, {"b", two_hundred}}),
                    Catch::Contains("100 x 200: the grid has more than 10000 points"));
  // Ten axes of 100: 1e20 points, past size_t; the check must not wrap around.
  std::vector<sim::SweepAxis> many(10, sim::SweepAxis{"a", hundred});
  CHECK_THROWS_AS(sim::CheckSweepGridSize(many), sim::InputError);
}

TEST_CASE("a run's outputs replace the previous run's whole, and a failed run leaves them",
          "[limits]") {
  ScratchDir dir("apfsim-limits");
  const std::string scenario =
      ShellQuote(std::string(APFSIM_SOURCE_DIR) + "/tests/bad-inputs/valid-base.yaml");
  const fs::path out = dir.path() / "out";
  const std::string to_out = " --quiet --out " + ShellQuote(out.string());
  // A first run with --trace writes trace.jsonl.
  REQUIRE(RunApfsim("run " + scenario + " --trace reader" + to_out, dir.path()).exit_code == 0);
  std::ofstream(out / "notes.txt") << "kept: not a file apfsim writes";
  REQUIRE(fs::exists(out / "trace.jsonl"));
  const std::vector<std::string> first = FilesUnder(out);
  // A run stopped by --max-events writes nothing, and leaves the first run's files as they
  // were (before, each file was renamed into place on its own).
  CHECK(RunApfsim("run " + scenario + " --max-events 10" + to_out, dir.path()).exit_code == 2);
  CHECK(FilesUnder(out) == first);
  // A second run without --trace: the first run's trace.jsonl goes with the rest of its
  // outputs (before, it stayed beside the new summary.json).
  REQUIRE(RunApfsim("run " + scenario + to_out, dir.path()).exit_code == 0);
  CHECK_FALSE(fs::exists(out / "trace.jsonl"));
  CHECK(fs::exists(out / "summary.json"));
  CHECK(fs::exists(out / "notes.txt"));
  for (const auto& e : fs::directory_iterator(dir.path())) {
    INFO(e.path().filename());
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  }
}

// Under AddressSanitizer the process reserves terabytes of address space at start, so a
// limit on it cannot stand for a machine out of memory. GCC says so with
// __SANITIZE_ADDRESS__, clang (the sanitizer tree's compiler) with __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define APFSIM_TEST_UNDER_ASAN 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(APFSIM_TEST_UNDER_ASAN)
TEST_CASE("running out of memory exits 2 with a message and writes nothing", "[limits]") {
  // 400 MB of address space and no pending-call limit: the flood's pending calls (about
  // 900 bytes each) exhaust it in well under a million calls. Before, std::bad_alloc was an
  // internal error (exit 3).
  ScratchDir dir("apfsim-limits");
  const fs::path out = dir.path() / "out";
  const CommandResult f =
      RunShellCommand("ulimit -v 400000; " + ShellQuote(APFSIM_BINARY) + " run " +
                          ShellQuote(std::string(APFSIM_SOURCE_DIR) +
                                     "/tests/bad-inputs/memory-pending-calls.yaml") +
                          " --max-pending-calls 0 --quiet --out " + ShellQuote(out.string()),
                      dir.path());
  CHECK(f.exit_code == 2);
  CHECK_THAT(f.err, Catch::Contains("error: out of memory") &&
                        Catch::Contains("--max-pending-calls bounds the calls"));
  CHECK_FALSE(fs::exists(out));
}
#endif

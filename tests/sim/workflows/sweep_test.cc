// apfsim sweep (sim/workflows/sweep.h): value lists and ranges, the grid's order, shards, and whole
// sweeps of the small scenario tests/fixtures/sweep/mini-drift.yaml (30 s, one replica),
// whose sweep.csv must not depend on --jobs and whose merged shards must equal it byte for
// byte. Expected nominal limits come from doc/model.md#nominal-seats (nominalCL = ceil(serverCL x
// shares / shareSum), shareSum 245 for the 1.36 defaults, doc/model.md#worked-allocation).
#include "sim/workflows/sweep.h"

#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "sim/io/input_error.h"
#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep";

using test_support::ReadFile;

struct ScratchDir : test_support::ScratchDir {
  ScratchDir() : test_support::ScratchDir("apfsim-sweep-test") {}
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (char ch : line) {
    if (ch == ',') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  cells.push_back(cur);
  return cells;
}

std::size_t Column(const std::string& header, const std::string& name) {
  const auto cells = Cells(header);
  const auto it = std::find(cells.begin(), cells.end(), name);
  REQUIRE(it != cells.end());
  return static_cast<std::size_t>(it - cells.begin());
}

sim::SweepRequest MiniDriftSweep(const fs::path& out, const std::string& vary) {
  sim::SweepRequest request;
  request.scenario_file = (kFixtures / "mini-drift.yaml").string();
  request.axes.push_back(sim::ParseSweepAxis(vary));
  request.out_dir = out.string();
  return request;
}

test_support::CommandResult RunApfsim(const ScratchDir& scratch, const std::string& args) {
  return test_support::RunApfsim(args, scratch.path());
}

}  // namespace

TEST_CASE("sweep value lists are taken as written and ranges include TO", "[sweep]") {
  using V = std::vector<std::string>;
  CHECK(sim::ParseSweepValues("a,b,c") == V{"a", "b", "c"});
  CHECK(sim::ParseSweepValues("600") == V{"600"});
  CHECK(sim::ParseSweepValues("50..200:25") == V{"50", "75", "100", "125", "150", "175", "200"});
  // TO is not on the grid of steps: the last value is the last step below it.
  CHECK(sim::ParseSweepValues("1..10:4") == V{"1", "5", "9"});
  // Decimal steps add up exactly (0.1 + 0.1 + 0.1 is not 0.3 in binary floating point).
  CHECK(sim::ParseSweepValues("0.1..0.3:0.1") == V{"0.1", "0.2", "0.3"});
  CHECK(sim::ParseSweepValues("-1..1:1") == V{"-1", "0", "1"});
  CHECK(sim::ParseSweepValues("1..2:0.5") == V{"1.0", "1.5", "2.0"});

  const sim::SweepAxis axis = sim::ParseSweepAxis("clients.tenant-operator.clientGo.qps=5,50");
  CHECK(axis.path == "clients.tenant-operator.clientGo.qps");
  CHECK(axis.values == V{"5", "50"});
}

TEST_CASE("malformed --vary values and ranges are input errors", "[sweep]") {
  for (const char* bad : {"200..50:25", "1..5:0", "1..5:-1", "1..x:1", "1..5", "a,,b", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(sim::ParseSweepValues(bad), sim::InputError);
  }
  CHECK_THROWS_AS(sim::ParseSweepAxis("apiservers.replicas"), sim::InputError);
  CHECK_THROWS_AS(sim::ParseSweepAxis("=1,2"), sim::InputError);
  CHECK_THROWS_WITH(sim::ParseSweepValues("1..5:0"), Catch::Contains("STEP must be positive"));
}

TEST_CASE("the sweep grid has the first --vary outermost and the last varying fastest", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}};
  const auto grid = sim::SweepGrid(axes);
  using P = std::vector<std::string>;
  REQUIRE(grid.size() == 6);
  CHECK(grid[0] == P{"1", "x"});
  CHECK(grid[1] == P{"1", "y"});
  CHECK(grid[2] == P{"1", "z"});
  CHECK(grid[3] == P{"2", "x"});
  CHECK(grid[5] == P{"2", "z"});
}

TEST_CASE("shards are I/N from 0 and take every N-th grid point", "[sweep]") {
  const sim::SweepShard shard = sim::ParseSweepShard("1/3");
  CHECK(shard.index == 1);
  CHECK(shard.count == 3);
  CHECK(!shard.Has(0));
  CHECK(shard.Has(1));
  CHECK(shard.Has(4));
  // Every grid point is in exactly one shard.
  for (std::size_t i = 0; i < 20; ++i) {
    int owners = 0;
    for (int k = 0; k < 3; ++k) owners += sim::SweepShard{k, 3}.Has(i);
    CHECK(owners == 1);
  }
  for (const char* bad : {"3/3", "-1/3", "1/0", "1", "a/b", "1/3x"}) {
    INFO(bad);
    CHECK_THROWS_AS(sim::ParseSweepShard(bad), sim::InputError);
  }
}

TEST_CASE("a sweep writes one row per grid point in grid order with the spec's nominal limits",
          "[sweep]") {
  ScratchDir scratch;
  sim::SweepRequest request =
      MiniDriftSweep(scratch.path() / "out", "apiservers.maxRequestsInflight=60,100,140");
  request.jobs = 2;
  const sim::SweepOutcome outcome = RunSweep(request);
  CHECK(outcome.runs == 3);
  CHECK(outcome.csv_path == (scratch.path() / "out" / "sweep.csv").string());
  CHECK(ReadFile(outcome.csv_path) == outcome.csv);
  const auto lines = Lines(outcome.csv);
  REQUIRE(lines.size() == 4);
  const std::size_t nominal = Column(lines[0], "level.workload-low.nominal_cl");
  CHECK(Cells(lines[0])[0] == "apiservers.maxRequestsInflight");
  Column(lines[0], "level.workload-low.rejected_queue_full");
  Column(lines[0], "client.tenant-operator.latency_p99_s");
  // serverCL = maxRequestsInflight + 50 mutating: ceil(110*100/245) = 45,
  // ceil(150*100/245) = 62, ceil(190*100/245) = 78.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"60", "45"}, {"100", "62"}, {"140", "78"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto cells = Cells(lines[i + 1]);
    CHECK(cells.size() == Cells(lines[0]).size());
    CHECK(cells[0] == expected[i].first);
    CHECK(cells[nominal] == expected[i].second);
    CHECK(
        fs::is_regular_file(scratch.path() / "out" / "runs" / std::to_string(i) / "summary.json"));
    // Without --timelines a run keeps its summary only.
    CHECK(!fs::exists(scratch.path() / "out" / "runs" / std::to_string(i) / "timeline.csv"));
  }
}

TEST_CASE("a sweep's CSV is the same bytes with one job and with two", "[sweep]") {
  ScratchDir scratch;
  const std::string vary =
      "flowControl.priorityLevels.workload-low.nominalConcurrencyShares=20,100";
  sim::SweepRequest one = MiniDriftSweep(scratch.path() / "one", vary);
  one.axes.push_back(sim::ParseSweepAxis("apiservers.maxRequestsInflight=60,100"));
  one.jobs = 1;
  sim::SweepRequest two = one;
  two.out_dir = (scratch.path() / "two").string();
  two.jobs = 2;
  const std::string a = ReadFile(RunSweep(one).csv_path);
  const std::string b = ReadFile(RunSweep(two).csv_path);
  CHECK(Lines(a).size() == 5);
  CHECK(a == b);
}

TEST_CASE("merged sweep shards equal the unsharded sweep byte for byte", "[sweep]") {
  ScratchDir scratch;
  const std::string vary = "apiservers.maxRequestsInflight=40..120:20";  // 5 points
  sim::SweepRequest whole = MiniDriftSweep(scratch.path() / "whole", vary);
  whole.jobs = 2;
  const std::string unsharded = ReadFile(RunSweep(whole).csv_path);

  std::vector<std::string> texts, names;
  for (int k : {1, 0}) {  // given out of order on purpose
    sim::SweepRequest part = MiniDriftSweep(scratch.path() / ("part" + std::to_string(k)), vary);
    part.shard = sim::SweepShard{k, 2};
    const sim::SweepOutcome outcome = RunSweep(part);
    CHECK(fs::path(outcome.csv_path).filename() == "sweep.part-" + std::to_string(k) + "-of-2.csv");
    CHECK(outcome.runs == (k == 0 ? 3u : 2u));
    texts.push_back(ReadFile(outcome.csv_path));
    names.push_back(outcome.csv_path);
  }
  CHECK(sim::MergeSweepParts(texts, names) == unsharded);

  // And through the command line, from the part files.
  const fs::path merged = scratch.path() / "merged.csv";
  const test_support::CommandResult r = RunApfsim(
      scratch, "sweep merge '" + names[0] + "' '" + names[1] + "' --out '" + merged.string() + "'");
  INFO(r.Output());
  CHECK(r.exit_code == 0);
  CHECK(ReadFile(merged) == unsharded);

  // A missing part is named; a part given twice is refused.
  CHECK_THROWS_WITH(sim::MergeSweepParts({texts[0]}, {names[0]}),
                    Catch::Contains("missing parts: 0/2"));
  CHECK_THROWS_WITH(sim::MergeSweepParts({texts[0], texts[0]}, {names[0], names[0]}),
                    Catch::Contains("given twice"));
  CHECK_THROWS_AS(sim::MergeSweepParts({unsharded}, {"sweep.csv"}), sim::InputError);

  // A part copied while its shard was still writing, cut in the middle of its last row:
  // before, the short row was merged as if whole.
  const std::string cut = texts[0].substr(0, texts[0].size() - 3);
  CHECK_THROWS_WITH(sim::MergeSweepParts({cut, texts[1]}, {names[0], names[1]}),
                    Catch::Contains("the part ends mid-row"));
}

TEST_CASE("apfsim sweep exits 2 naming the problem for an unknown path or a bad range", "[sweep]") {
  ScratchDir scratch;
  const std::string scenario = test_support::ShellQuote((kFixtures / "mini-drift.yaml").string());
  std::string out = " --out ";  // in pieces: GCC 12 warns falsely (-Wrestrict) on "a" + temporary
  out += test_support::ShellQuote((scratch.path() / "out").string());
  out += " --no-plot";

  const test_support::CommandResult unknown =
      RunApfsim(scratch, "sweep " + scenario + out + " --vary apiservers.maxRequestsInFlight=1,2");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.Output(), Catch::Contains("maxRequestsInFlight"));
  // Nothing ran: the grid is checked first.
  CHECK(!fs::exists(scratch.path() / "out" / "runs"));

  const test_support::CommandResult no_client =
      RunApfsim(scratch, "sweep " + scenario + out + " --vary clients.nobody.clientGo.qps=1,2");
  CHECK(no_client.exit_code == 2);
  CHECK_THAT(no_client.Output(), Catch::Contains("nobody"));

  const test_support::CommandResult no_level = RunApfsim(
      scratch, "sweep " + scenario + out +
                   " --vary flowControl.priorityLevels.nowhere.nominalConcurrencyShares=1,2");
  CHECK(no_level.exit_code == 2);
  CHECK_THAT(no_level.Output(), Catch::Contains("nowhere"));

  const test_support::CommandResult range =
      RunApfsim(scratch, "sweep " + scenario + out + " --vary apiservers.replicas=3..1:1");
  CHECK(range.exit_code == 2);
  CHECK_THAT(range.Output(), Catch::Contains("TO is below FROM"));

  const test_support::CommandResult shard =
      RunApfsim(scratch, "sweep " + scenario + out + " --vary apiservers.replicas=1,2 --shard 2/2");
  CHECK(shard.exit_code == 2);
  CHECK_THAT(shard.Output(), Catch::Contains("--shard"));
}

TEST_CASE("a sweep over seeds gives each figure its mean and 95% interval over the seeds",
          "[sweep][seeds]") {
  ScratchDir scratch;
  const std::string vary = "apiservers.maxRequestsInflight=60,100";
  sim::SweepRequest request = MiniDriftSweep(scratch.path() / "seeds", vary);
  request.seeds = {1, 2, 3};
  request.jobs = 2;
  const sim::SweepOutcome outcome = RunSweep(request);
  CHECK(outcome.runs == 6);
  const auto lines = Lines(outcome.csv);
  REQUIRE(lines.size() == 3);
  const std::size_t mean = Column(lines[0], "client.argocd.calls_mean");
  const std::size_t lo = Column(lines[0], "client.argocd.calls_ci95_lo");
  const std::size_t hi = Column(lines[0], "client.argocd.calls_ci95_hi");
  CHECK(hi == lo + 1);
  CHECK(lo == mean + 1);
  for (std::size_t point = 0; point < 2; ++point) {
    INFO("grid point " << point);
    // Each point's mean is that of its runs on the three seeds, written under
    // runs/<index>/seed-N/.
    double sum = 0;
    for (int seed : {1, 2, 3}) {
      const nlohmann::json summary =
          nlohmann::json::parse(ReadFile(scratch.path() / "seeds" / "runs" / std::to_string(point) /
                                         ("seed-" + std::to_string(seed)) / "summary.json"));
      CHECK(summary["seed"] == seed);
      sum += summary["clients"]["argocd"]["calls"].get<double>();
    }
    const auto cells = Cells(lines[1 + point]);
    CHECK(std::stod(cells[mean]) == Approx(sum / 3).margin(1e-6));
    CHECK(std::stod(cells[lo]) <= std::stod(cells[mean]));
    CHECK(std::stod(cells[hi]) >= std::stod(cells[mean]));
  }
  // Not dependent on --jobs.
  sim::SweepRequest serial = request;
  serial.out_dir = (scratch.path() / "serial").string();
  serial.jobs = 1;
  CHECK(RunSweep(serial).csv == outcome.csv);
}

// deploy/sweep-job.yaml runs the shards under the `restricted` Pod Security Standard
// (https://kubernetes.io/docs/concepts/security/pod-security-standards/: runAsNonRoot,
// allowPrivilegeEscalation false, capabilities drop ALL, seccompProfile RuntimeDefault),
// retries a disrupted pod without counting it and fails on bad input, with the image the
// Containerfile builds (its numeric USER, as runAsNonRoot needs to check it).
TEST_CASE("the sweep Job runs restricted, ignores disruptions and matches the Containerfile",
          "[sweep][deploy]") {
  const fs::path root = APFSIM_SOURCE_DIR;
  const std::vector<YAML::Node> docs =
      YAML::LoadAllFromFile((root / "deploy/sweep-job.yaml").string());
  REQUIRE(!docs.empty());
  const YAML::Node job = docs[0];
  REQUIRE(job["kind"].as<std::string>() == "Job");
  const YAML::Node spec = job["spec"];
  const YAML::Node pod = spec["template"]["spec"];
  CHECK(pod["securityContext"]["runAsNonRoot"].as<bool>());
  CHECK(pod["securityContext"]["seccompProfile"]["type"].as<std::string>() == "RuntimeDefault");
  const YAML::Node container = pod["containers"][0];
  const YAML::Node security = container["securityContext"];
  CHECK_FALSE(security["allowPrivilegeEscalation"].as<bool>());
  REQUIRE(security["capabilities"]["drop"].size() == 1);
  CHECK(security["capabilities"]["drop"][0].as<std::string>() == "ALL");
  CHECK_FALSE(security["capabilities"]["add"]);
  CHECK_FALSE(security["privileged"]);

  const YAML::Node rules = spec["podFailurePolicy"]["rules"];
  bool ignores_disruption = false, fails_on_bad_input = false;
  for (const YAML::Node& rule : rules) {
    const std::string action = rule["action"].as<std::string>();
    if (action == "Ignore" && rule["onPodConditions"] &&
        rule["onPodConditions"][0]["type"].as<std::string>() == "DisruptionTarget") {
      ignores_disruption = true;
    }
    if (action == "FailJob" && rule["onExitCodes"] &&
        rule["onExitCodes"]["values"][0].as<int>() == 2) {
      fails_on_bad_input = true;
    }
  }
  CHECK(ignores_disruption);
  CHECK(fails_on_bad_input);
  // Shards: completions, parallelism and SHARDS agree; the log shows progress.
  CHECK(spec["completions"].as<int>() == spec["parallelism"].as<int>());
  CHECK(container["env"][0]["name"].as<std::string>() == "SHARDS");
  CHECK(container["env"][0]["value"].as<int>() == spec["completions"].as<int>());
  const std::string command = container["args"][0].as<std::string>();
  CHECK(command.find("--shard \"${JOB_COMPLETION_INDEX}/${SHARDS}\"") != std::string::npos);
  CHECK(command.find("--progress always") != std::string::npos);

  // The Containerfile: Debian 12 in both stages, the one package list, a non-root USER
  // that is the Job's runAsUser.
  const std::string containerfile = ReadFile(root / "Containerfile");
  std::size_t froms = 0;
  for (std::size_t at = containerfile.find("\nFROM "); at != std::string::npos;
       at = containerfile.find("\nFROM ", at + 1)) {
    ++froms;
    CHECK(containerfile.compare(at + 6, 28, "docker.io/library/debian:12-") == 0);
  }
  CHECK(froms == 2);
  CHECK(containerfile.find("COPY deps/debian-packages.txt") != std::string::npos);
  CHECK(containerfile.find("tools/install-deps.sh") != std::string::npos);
  const std::string user = std::to_string(pod["securityContext"]["runAsUser"].as<int>());
  CHECK(user != "0");
  CHECK(containerfile.find("\nUSER " + user + ":") != std::string::npos);
}

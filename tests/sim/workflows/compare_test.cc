// apfsim compare (sim/workflows/compare.h) on tests/fixtures/sweep/mini-drift.yaml: the after run
// sees the same traffic, compare.json has each level's and client's figures before and
// after with the change, and the three ways of giving the after run (--after-set, --with,
// --overlay) change what they should. Expected nominal limits come from doc/model.md#nominal-seats
// (nominalCL = ceil(serverCL x shares / shareSum); the 1.36 defaults' shareSum is 245,
// doc/model.md#worked-allocation; seed000-fence.yaml's tenant-sweep adds 20).
#include "sim/workflows/compare.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sim/io/input_error.h"
#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "sweep";

using test_support::ReadFile;

struct ScratchDir : test_support::ScratchDir {
  ScratchDir() : test_support::ScratchDir("apfsim-compare-test") {}
};

sim::CompareRequest MiniDrift() {
  sim::CompareRequest request;
  request.scenario_file = (kFixtures / "mini-drift.yaml").string();
  return request;
}

// The traffic generators are open loop for the tenant-operator (one sweep of 600
// namespaces) and the kubectl user (a constant rate): their calls must not change.
void CheckSameTraffic(const nlohmann::json& c) {
  for (const char* client : {"tenant-operator", "kubectl-user"}) {
    INFO(client);
    CHECK(c["clients"][client]["calls"]["before"] == c["clients"][client]["calls"]["after"]);
    CHECK(c["clients"][client]["calls"]["change"] == 0);
  }
  CHECK(c["clients"]["tenant-operator"]["calls"]["before"] == 600);
}

}  // namespace

TEST_CASE("compare --after-set changes only the after run, on the same traffic", "[compare]") {
  ScratchDir scratch;
  sim::CompareRequest request = MiniDrift();
  request.after_overrides = {"apiservers.maxRequestsInflight=200"};
  request.out_dir = (scratch.path() / "cmp").string();
  const sim::CompareOutcome outcome = sim::RunCompare(request);
  const nlohmann::json& c = outcome.comparison;
  // serverCL 100+50 -> 200+50: ceil(150*100/245) = 62, ceil(250*100/245) = 103.
  const nlohmann::json& nominal = c["priorityLevels"]["workload-low"]["nominalCL"];
  CHECK(nominal["before"] == 62);
  CHECK(nominal["after"] == 103);
  CHECK(nominal["change"] == 41);
  CheckSameTraffic(c);
  CHECK(c["seed"] == 7);
  CHECK(c["after"]["set"] == nlohmann::json{"apiservers.maxRequestsInflight=200"});
  CHECK(c["before"]["set"] == nlohmann::json::array());
  // Every figure has before, after and change; the change is after - before.
  for (auto& [level, figures] : c["priorityLevels"].items()) {
    for (auto& [name, f] : figures.items()) {
      INFO(level << " " << name);
      REQUIRE(f.contains("before"));
      REQUIRE(f.contains("after"));
      if (f["before"].is_number_integer()) {
        CHECK(f["change"].get<std::int64_t>() ==
              f["after"].get<std::int64_t>() - f["before"].get<std::int64_t>());
      } else {
        CHECK(f["change"].get<double>() ==
              Approx(f["after"].get<double>() - f["before"].get<double>()).margin(1e-6));
      }
    }
  }
  // The rejections figure is the three reasons summed.
  const auto& wl = c["priorityLevels"]["workload-low"];
  CHECK(wl["rejected"]["before"].get<std::int64_t>() ==
        wl["rejectedQueueFull"]["before"].get<std::int64_t>() +
            wl["rejectedTimeOut"]["before"].get<std::int64_t>() +
            wl["rejectedConcurrencyLimit"]["before"].get<std::int64_t>());

  const fs::path dir = scratch.path() / "cmp";
  CHECK(nlohmann::json::parse(ReadFile(dir / "compare.json")) == c);
  for (const char* run : {"before", "after"}) {
    CHECK(fs::is_regular_file(dir / run / "summary.json"));
    CHECK(fs::is_regular_file(dir / run / "timeline.csv"));
  }
  const auto after = nlohmann::json::parse(ReadFile(dir / "after" / "summary.json"));
  CHECK(after["priorityLevels"]["workload-low"]["nominalCL"] == 103);
}

TEST_CASE("compare --with runs the other scenario with the first one's seed", "[compare]") {
  sim::CompareRequest request = MiniDrift();
  request.with_file = (kFixtures / "mini-drift-fenced.yaml").string();
  request.seed = 11;
  const sim::CompareOutcome outcome = sim::RunCompare(request);
  const nlohmann::json& c = outcome.comparison;
  CHECK(outcome.out_dir.empty());
  CHECK(c["seed"] == 11);
  CHECK(c["after"]["scenario"] == "mini-drift-fenced");
  // The fence's level exists only after: shareSum 265, ceil(150*20/265) = 12, and
  // workload-low drops to ceil(150*100/265) = 57.
  const auto& fence = c["priorityLevels"]["tenant-sweep"];
  CHECK(fence["nominalCL"]["before"].is_null());
  CHECK(fence["nominalCL"]["after"] == 12);
  CHECK(fence["nominalCL"]["change"].is_null());
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["after"] == 57);
  CheckSameTraffic(c);
}

TEST_CASE("compare --before-set weighs a flag change against a fix given with --with",
          "[compare]") {
  // Seed 000's question in small: more seats for everyone (before) against the fence (after).
  sim::CompareRequest request = MiniDrift();
  request.before_overrides = {"apiservers.maxRequestsInflight=200"};
  request.with_file = (kFixtures / "mini-drift-fenced.yaml").string();
  const nlohmann::json c = sim::RunCompare(request).comparison;
  // Before: ceil(250*100/245) = 103; after: 100+50 seats and shareSum 265, ceil(15000/265) = 57.
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["before"] == 103);
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["after"] == 57);
  CHECK(c["before"]["set"] == nlohmann::json{"apiservers.maxRequestsInflight=200"});
  CHECK(c["after"]["set"] == nlohmann::json::array());
  CheckSameTraffic(c);
}

TEST_CASE("compare --overlay applies its manifests and its set values to the after run",
          "[compare]") {
  sim::CompareRequest request = MiniDrift();
  request.overlay_files = {(kFixtures / "overlay.yaml").string()};
  const nlohmann::json c = sim::RunCompare(request).comparison;
  // 200+50 seats and shareSum 265: ceil(250*20/265) = 19, ceil(250*100/265) = 95.
  CHECK(c["priorityLevels"]["tenant-sweep"]["nominalCL"]["after"] == 19);
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["before"] == 62);
  CHECK(c["priorityLevels"]["workload-low"]["nominalCL"]["after"] == 95);
  CheckSameTraffic(c);
  // The fence's FlowSchema takes the sweep's LISTs away from workload-low.
  CHECK(c["priorityLevels"]["tenant-sweep"]["dispatched"]["after"].get<std::int64_t>() > 0);
  // And compare says so first (sim/report/client_moves.h): 4,000 TenantBindings of 9 KB
  // from the cache are 1 MB, 10 seats (doc/model.md#list-estimate); workload-low's cap is
  // min(ceil(0.15 x 62), 62 / 6) = 10 before, tenant-sweep's min(ceil(0.15 x 19), 19 / 2) = 3
  // after (doc/model.md#max-seats).
  const nlohmann::json& first = c["clientMoves"]["requests"][0];
  CHECK(first["client"] == "tenant-operator");
  CHECK(first["moved"] == true);
  CHECK(first["before"]["initialSeats"] == 10);
  CHECK(first["after"]["initialSeats"] == 3);
  const std::string table = sim::CompareTable(c, false);
  CHECK_THAT(table, Catch::Contains("\n  tenant-operator LIST tenantbindings: "
                                    "service-accounts/workload-low -> "
                                    "tenant-operator-lists/tenant-sweep, 10 -> 3 seats, hand "));
  CHECK(table.find("what the change moves") < table.find("priority level "));
}

TEST_CASE("compare --interval sets both runs' report interval", "[compare]") {
  // mini-drift.yaml reports every 1 s by default; with --interval 5s both runs report
  // every 5 s, as `apfsim run --interval` would. Through the binary, so that the flag is
  // checked as well as the request.
  ScratchDir scratch;
  const fs::path out = scratch.path() / "cmp";
  const test_support::CommandResult r = test_support::RunApfsim(
      "compare " + test_support::ShellQuote((kFixtures / "mini-drift.yaml").string()) +
          " --after-set apiservers.maxRequestsInflight=200 --interval 5s --no-plot --out " +
          test_support::ShellQuote(out.string()),
      scratch.path());
  REQUIRE(r.exit_code == 0);
  for (const char* side : {"before", "after"}) {
    INFO(side);
    const auto summary = nlohmann::json::parse(ReadFile(out / side / "summary.json"));
    CHECK(summary["intervalSeconds"] == 5.0);
  }
  sim::CompareRequest bad = MiniDrift();
  bad.after_overrides = {"apiservers.maxRequestsInflight=200"};
  bad.interval = "0s";
  CHECK_THROWS_WITH(sim::RunCompare(bad), Catch::Contains("must be at least 1ms"));
}

TEST_CASE("compare's table shows before, after and change, coloured only when asked", "[compare]") {
  sim::CompareRequest request = MiniDrift();
  request.after_overrides = {"apiservers.maxRequestsInflight=200"};
  const nlohmann::json c = sim::RunCompare(request).comparison;
  const std::string plain = sim::CompareTable(c, false);
  CHECK_THAT(plain, Catch::Contains("62 → 103 (+41)"));
  CHECK_THAT(plain, Catch::Contains("workload-low"));
  CHECK_THAT(plain, Catch::Contains("tenant-operator"));
  CHECK(plain.find('\033') == std::string::npos);
  CHECK(sim::CompareTable(c, true).find("\033[") != std::string::npos);
}

TEST_CASE("compare's table shows each level's wait max beside its p99", "[compare]") {
  // The before side's workload-low waits in a burst: compare.json's waitMaxSeconds is the
  // figure the table must show (formatted as the table formats seconds), whatever the p99.
  sim::CompareRequest request = MiniDrift();
  request.after_overrides = {"apiservers.maxRequestsInflight=200"};
  const nlohmann::json c = sim::RunCompare(request).comparison;
  const std::string plain = sim::CompareTable(c, false);
  CHECK_THAT(plain, Catch::Contains("wait max"));  // the column
  const double before = c["priorityLevels"]["workload-low"]["waitMaxSeconds"]["before"];
  REQUIRE(before > 0);
  CHECK_THAT(plain, Catch::Contains(fmt::format("{:.3f}s", before)));
}

TEST_CASE("compare refuses bad input with exit code 2", "[compare]") {
  sim::CompareRequest nothing = MiniDrift();
  CHECK_THROWS_WITH(sim::RunCompare(nothing), Catch::Contains("nothing to compare"));
  sim::CompareRequest both = MiniDrift();
  both.with_file = (kFixtures / "mini-drift-fenced.yaml").string();
  both.overlay_files = {(kFixtures / "overlay.yaml").string()};
  CHECK_THROWS_AS(sim::RunCompare(both), sim::InputError);
  sim::CompareRequest bad_overlay = MiniDrift();
  bad_overlay.overlay_files = {(kFixtures / "bad-overlay.yaml").string()};
  CHECK_THROWS_WITH(sim::RunCompare(bad_overlay), Catch::Contains("PATH=VALUE"));

  ScratchDir scratch;
  const test_support::CommandResult r = test_support::RunApfsim(
      "compare " + test_support::ShellQuote((kFixtures / "mini-drift.yaml").string()) +
          " --after-set apiservers.noSuchField=1",
      scratch.path());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.Output(), Catch::Contains("noSuchField"));
}

TEST_CASE("compare.json carries both sides' provenance, the header shows the overrides",
          "[compare][provenance]") {
  sim::CompareRequest request = MiniDrift();
  request.after_overrides = {"apiservers.maxRequestsInflight=200"};
  const sim::CompareOutcome outcome = sim::RunCompare(request);
  const nlohmann::json& c = outcome.comparison;
  CHECK(c["before"]["provenance"]["sets"] == nlohmann::json::array());
  CHECK(c["after"]["provenance"]["sets"] == nlohmann::json{"apiservers.maxRequestsInflight=200"});
  CHECK(c["after"]["provenance"]["seed"] == 7);
  const std::string table = sim::CompareTable(c, false);
  CHECK(table.find("after: --set apiservers.maxRequestsInflight=200\n") != std::string::npos);
  CHECK(table.find("before:") == table.find("before: "));  // no overrides line for before
}

TEST_CASE("compare --window compares both runs over the window", "[compare][window]") {
  sim::CompareRequest request = MiniDrift();
  request.after_overrides = {"apiservers.maxRequestsInflight=200"};
  // Before the sweep nothing has happened yet: no calls of the tenant-operator.
  request.window = sim::ReportWindow{0, apf::kSecond, std::nullopt};
  const nlohmann::json c = sim::RunCompare(request).comparison;
  CHECK(c["window"]["fromSeconds"] == 0.0);
  CHECK(c["window"]["toSeconds"] == 1.0);
  CHECK(c["clients"]["tenant-operator"]["calls"]["before"] == 0);  // its sweep starts at 2 s
  CHECK(sim::CompareTable(c, false).find("over the window [0 s, 1 s)") != std::string::npos);
}

namespace {

// A summary with no level or client and, when `ttr` is given, a recovery of level "low"
// (null: never recovered), as RunReport writes it (sim/report/recovery.h).
nlohmann::json RecoverySummary(std::optional<double> ttr, bool with_recovery = true) {
  nlohmann::json s = {{"scenario", "s"},
                      {"seed", 1},
                      {"priorityLevels", nlohmann::json::object()},
                      {"clients", nlohmann::json::object()}};
  if (!with_recovery) return s;
  nlohmann::json low = {{"timeToRecoverSeconds", ttr ? nlohmann::json(*ttr) : nullptr},
                        {"recoveredAtSeconds", ttr ? nlohmann::json(65 + *ttr) : nullptr}};
  s["recovery"] = {{"atSeconds", 65.0}, {"levels", {{"low", low}}}};
  return s;
}

}  // namespace

TEST_CASE("compare gives each level's time to recover before and after, with its spread",
          "[compare][recovery]") {
  // One seed: 599 s without the fence, 1 s with it: a change of -598 s.
  const nlohmann::json one = sim::CompareSummaries(RecoverySummary(599), RecoverySummary(1));
  CHECK(one["recovery"]["atSeconds"] == 65.0);
  const nlohmann::json& t = one["recovery"]["levels"]["low"]["timeToRecoverSeconds"];
  CHECK(t["before"] == 599.0);
  CHECK(t["after"] == 1.0);
  CHECK(t["change"] == -598.0);
  CHECK_THAT(sim::CompareTable(one, false), Catch::Contains("recovery from the event at 65.0 s"));
  // Without a recovery on either side there is none in compare.json.
  CHECK_FALSE(sim::CompareSummaries(RecoverySummary(0, false), RecoverySummary(0, false))
                  .contains("recovery"));
  // Three seeds: before 10, 20 and never; after 1, 1, 3. The paired changes are -9 and -19
  // (the third has no before); the never-recovered seed is counted, not averaged.
  const nlohmann::json three = sim::CompareReplications(
      {RecoverySummary(10), RecoverySummary(20), RecoverySummary(std::nullopt)},
      {RecoverySummary(1), RecoverySummary(1), RecoverySummary(3)}, {1, 2, 3});
  const nlohmann::json& low = three["recovery"]["levels"]["low"];
  CHECK(low["timeToRecoverSeconds"]["before"]["mean"] == 15.0);
  CHECK(low["timeToRecoverSeconds"]["after"]["mean"] == Approx(5.0 / 3));
  CHECK(low["timeToRecoverSeconds"]["change"]["mean"] == -14.0);
  CHECK(low["timeToRecoverSeconds"]["betterIn"] == 2);
  CHECK(low["neverRecoveredIn"]["before"] == 1);
  CHECK(low["neverRecoveredIn"]["after"] == 0);
  CHECK_THAT(sim::CompareTable(three, false),
             Catch::Contains("low: never recovered in 1 seeds before, 0 after"));
}

TEST_CASE("compare measures the run without the event from the other run's event",
          "[compare][recovery]") {
  // drift-sweep (no fence) against drift-sweep-fence-midway with the fence at 65 s, seed 1.
  // The event window is [65 s, 185 s) in both runs although only the after run has events.
  ScratchDir scratch;
  sim::CompareRequest request;
  const std::string scenarios = std::string(APFSIM_SOURCE_DIR) + "/scenarios/";
  request.scenario_file = scenarios + "drift-sweep.yaml";
  request.with_file = scenarios + "drift-sweep-fence-midway.yaml";
  request.after_overrides = {"events.0.at=65s"};
  request.window = sim::ParseReportWindow("event:0..+2m");
  request.out_dir = (scratch.path() / "cmp").string();
  const nlohmann::json c = sim::RunCompare(request).comparison;
  CHECK(c["window"]["fromSeconds"] == 65.0);
  CHECK(c["window"]["toSeconds"] == 185.0);
  CHECK(c["recovery"]["atSeconds"] == 65.0);
  // Without the fence workload-low rejects until the third sweep's last rejections in
  // [663 s, 664 s) (timeline.csv of drift-sweep, seed 1): 664 - 65 = 599 s. With it, its last
  // rejection is in [65 s, 66 s): 1 s (recovery_test.cc).
  const nlohmann::json& t = c["recovery"]["levels"]["workload-low"]["timeToRecoverSeconds"];
  CHECK(t["before"] == 599.0);
  CHECK(t["after"] == 1.0);
  CHECK(t["change"] == -598.0);
}

TEST_CASE("compare --recovered-from N measures the run without events from the other's event N",
          "[compare][recovery]") {
  // tests/fixtures/sweep/mini-drift.yaml (no events) against mini-drift-events.yaml, whose
  // spec.events[2] is at 20 s: both sides' recovery is from 20 s.
  ScratchDir scratch;
  const std::string fixtures = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/sweep/";
  sim::CompareRequest request;
  request.scenario_file = fixtures + "mini-drift.yaml";
  request.with_file = fixtures + "mini-drift-events.yaml";
  request.recovered_from = 2;
  request.out_dir = (scratch.path() / "cmp").string();
  const nlohmann::json c = sim::RunCompare(request).comparison;
  CHECK(c["recovery"]["atSeconds"] == 20.0);
  request.recovered_from = 5;
  CHECK_THROWS_WITH(sim::RunCompare(request),
                    Catch::Contains("spec.events[5]: the scenario has 3 events"));
}

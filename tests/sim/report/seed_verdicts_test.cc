// `apfsim check --seeds` (sim/report/expectations.h CombineSeedVerdicts, sim/cli/check.cc):
// an assertion's verdict over seeds in each `seeds:` mode (every seed, the mean, a share),
// the loader's reading of `seeds:` with errors at their line, the JUnit report naming the
// seeds that failed, and a scenario that fails to load reported as a JUnit <error> while
// the others are still checked.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/io/input_error.h"
#include "sim/report/expectations.h"
#include "sim/report/junit.h"
#include "sim/scenario/loader.h"
#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;
using sim::Expectation;
using sim::ExpectationResult;
using test_support::ReadFile;

std::string Fixture(const char* name) {
  return std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/check/" + name;
}

// Ten seeds' verdicts of `clients.c.http429 < 5` measured `values`.
std::vector<std::vector<ExpectationResult>> Verdicts(const Expectation& e,
                                                     const std::vector<double>& values) {
  std::vector<std::vector<ExpectationResult>> per_seed;
  for (double v : values) {
    ExpectationResult r;
    r.expectation = e;
    r.measured = v;
    r.passed = sim::CompareExpectation(v, e.op, e.value);
    per_seed.push_back({r});
  }
  return per_seed;
}

Expectation LessThanFive(Expectation::SeedsMode mode, double share = 1) {
  Expectation e;
  e.path = "clients.c.http429";
  e.section = "clients";
  e.subject = "c";
  e.field = "http429";
  e.op = Expectation::Op::kLt;
  e.value = 5;
  e.seeds_mode = mode;
  e.seeds_share = share;
  return e;
}

const std::vector<std::uint64_t> kSeeds = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
// Fails (7 >= 5) in seed 3 only; mean (9 x 1 + 7) / 10 = 1.6.
const std::vector<double> kOneBadSeed = {1, 1, 7, 1, 1, 1, 1, 1, 1, 1};
// Fails in seeds 1 and 2 (20 each); mean (2 x 20 + 8 x 0) / 10 = 4.
const std::vector<double> kTwoBadSeeds = {20, 20, 0, 0, 0, 0, 0, 0, 0, 0};

std::string ScenarioWithSeeds(const fs::path& dir, const std::string& seeds_value) {
  const fs::path file = dir / "scenario.yaml";
  std::ofstream(file) << "apiVersion: apfsim/v1alpha1\n"
                         "kind: Scenario\n"
                         "metadata: {name: t}\n"
                         "spec:\n"
                         "  duration: 10s\n"
                         "  clients:\n"
                         "  - name: c\n"
                         "    serviceAccount: a/b\n"
                         "    traffic:\n"
                         "    - constant: {rate: 1, request: {verb: get, resource: pods, "
                         "namespace: a, name: a}}\n"
                         "  expect:\n"
                         "  - {path: clients.c.http429, \"<\": 5, seeds: "
                      << seeds_value << "}\n";
  return file.string();
}

}  // namespace

TEST_CASE("check --seeds: by default an assertion must hold in every seed", "[seeds][expect]") {
  const auto r = sim::CombineSeedVerdicts(
      Verdicts(LessThanFive(Expectation::SeedsMode::kEvery), kOneBadSeed), kSeeds);
  REQUIRE(r.size() == 1);
  CHECK_FALSE(r[0].passed);
  CHECK(r[0].failed_seeds == std::vector<std::uint64_t>{3});
  CHECK(*r[0].measured == Approx(1.6));
  CHECK(sim::DescribeSeedVerdict(r[0]) ==
        "mean over 10 seeds, holds in 9 of 10 (every seed needed), failed in seed 3");
  const auto all_good = sim::CombineSeedVerdicts(
      Verdicts(LessThanFive(Expectation::SeedsMode::kEvery), std::vector<double>(10, 1)), kSeeds);
  CHECK(all_good[0].passed);
  CHECK(all_good[0].failed_seeds.empty());
}

TEST_CASE("check --seeds: `seeds: mean` asks the mean over the seeds", "[seeds][expect]") {
  const Expectation e = LessThanFive(Expectation::SeedsMode::kMean);
  // 1.6 < 5 although seed 3 alone fails; 4 < 5 although seeds 1 and 2 fail.
  CHECK(sim::CombineSeedVerdicts(Verdicts(e, kOneBadSeed), kSeeds)[0].passed);
  CHECK(sim::CombineSeedVerdicts(Verdicts(e, kTwoBadSeeds), kSeeds)[0].passed);
  // (3 x 20) / 10 = 6, not below 5.
  const auto r = sim::CombineSeedVerdicts(Verdicts(e, {20, 20, 20, 0, 0, 0, 0, 0, 0, 0}), kSeeds);
  CHECK_FALSE(r[0].passed);
  CHECK(*r[0].measured == 6);
  CHECK(r[0].failed_seeds == std::vector<std::uint64_t>{1, 2, 3});
}

TEST_CASE("check --seeds: `seeds: \"95%\"` asks that share of the seeds", "[seeds][expect]") {
  // Nine of ten is 90%: short of 95%, enough for 90%.
  CHECK_FALSE(
      sim::CombineSeedVerdicts(
          Verdicts(LessThanFive(Expectation::SeedsMode::kShare, 0.95), kOneBadSeed), kSeeds)[0]
          .passed);
  CHECK(sim::CombineSeedVerdicts(
            Verdicts(LessThanFive(Expectation::SeedsMode::kShare, 0.90), kOneBadSeed), kSeeds)[0]
            .passed);
  // Eight of ten: not 90%, but 80%.
  CHECK_FALSE(
      sim::CombineSeedVerdicts(
          Verdicts(LessThanFive(Expectation::SeedsMode::kShare, 0.90), kTwoBadSeeds), kSeeds)[0]
          .passed);
  CHECK(sim::CombineSeedVerdicts(
            Verdicts(LessThanFive(Expectation::SeedsMode::kShare, 0.80), kTwoBadSeeds), kSeeds)[0]
            .passed);
}

TEST_CASE("spec.expect's seeds: is all, mean or a share, anything else is an error at its line",
          "[seeds][expect]") {
  const test_support::ScratchDir scratch("apfsim-seeds-expect");
  auto mode = [&](const std::string& value) {
    return sim::LoadScenario(ScenarioWithSeeds(scratch.path(), value)).expectations.at(0);
  };
  CHECK(mode("all").seeds_mode == Expectation::SeedsMode::kEvery);
  CHECK(mode("mean").seeds_mode == Expectation::SeedsMode::kMean);
  CHECK(mode("\"95%\"").seeds_mode == Expectation::SeedsMode::kShare);
  CHECK(mode("\"95%\"").seeds_share == Approx(0.95));
  CHECK(mode("\"100%\"").seeds_share == 1);
  CHECK(mode("\"62.5%\"").seeds_share == Approx(0.625));
  for (const char* bad : {"0.95", "\"0%\"", "\"150%\"", "median", "\"95\"", "\"%\"", "\"9x%\""}) {
    INFO(bad);
    try {
      mode(bad);
      FAIL("accepted");
    } catch (const sim::InputError& e) {
      // The expect item is on line 12; the value of seeds: follows the comparison.
      CHECK(e.where().line == 12);
      CHECK(e.where().column > 40);
    }
  }
}

TEST_CASE("apfsim check --seeds names the seeds that failed, on the terminal and in JUnit",
          "[seeds][expect][cli]") {
  const test_support::ScratchDir scratch("apfsim-check-seeds");
  const fs::path& dir = scratch.path();
  const auto result = test_support::RunApfsim(
      "check " + Fixture("false.yaml") + " --seeds 1..3 --jobs 2 --out " + (dir / "out").string() +
          " --junit " + (dir / "junit.xml").string(),
      dir);
  CHECK(result.exit_code == 1);
  INFO(result.out);
  // Ten calls a second for three seconds in every seed.
  CHECK(result.out.find("FAIL  clients.reader.calls < 5: measured 30 (mean over 3 seeds, holds "
                        "in 0 of 3 (every seed needed), failed in seeds 1, 2, 3)") !=
        std::string::npos);
  CHECK(fs::exists(dir / "out" / "false" / "seed-2" / "summary.json"));
  CHECK(fs::exists(dir / "out" / "false" / "replications.json"));
  const std::string xml = ReadFile(dir / "junit.xml");
  CHECK(xml.find("<failure message=\"measured 30, expected &lt; 5; mean over 3 seeds, holds in 0 "
                 "of 3 (every seed needed), failed in seeds 1, 2, 3\"") != std::string::npos);
}

TEST_CASE(
    "apfsim check reports a scenario that fails to load as a JUnit error and checks the "
    "others",
    "[expect][cli]") {
  const test_support::ScratchDir scratch("apfsim-check-error");
  const fs::path& dir = scratch.path();
  const auto result = test_support::RunApfsim(
      "check " + Fixture("bad-path.yaml") + " " + Fixture("false.yaml") + " --out " +
          (dir / "out").string() + " --junit " + (dir / "junit.xml").string(),
      dir);
  // Bad input still decides the exit code, over the false assertion.
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("bad-path.yaml:14:12") != std::string::npos);
  // The other scenario was run and reported.
  CHECK(result.out.find("check-false: 1 passed, 1 failed") != std::string::npos);
  const std::string xml = ReadFile(dir / "junit.xml");
  INFO(xml);
  CHECK(xml.find("<testsuites name=\"apfsim check\" tests=\"3\" failures=\"1\" errors=\"1\"") !=
        std::string::npos);
  // The error's test case points at the line of the bad item, where CI links it.
  CHECK(xml.find("<testcase classname=\"bad-path\" name=\"" + Fixture("bad-path.yaml") +
                 " could not be checked\" file=\"" + Fixture("bad-path.yaml") + "\" line=\"14\"") !=
        std::string::npos);
  CHECK(xml.find("<error message=\"" + Fixture("bad-path.yaml") + ":14:12: ") != std::string::npos);
  // Every test case carries file and line.
  CHECK(xml.find("<testcase classname=\"check-false\" name=\"clients.reader.failed == 0\" file=\"" +
                 Fixture("false.yaml") + "\" line=\"") != std::string::npos);
}

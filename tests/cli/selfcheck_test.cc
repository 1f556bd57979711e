// `apfsim selfcheck` as a user runs it (sim/cli/selfcheck.cc): the engine, the random
// streams and cancellation on an M/M/1 queue, whose mean wait is known in closed form.
// The command must pass, print its two lines, write the same figures as JSON with --out,
// and give the same figures for the same seed.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/support/test_support.h"

namespace {

using test_support::CommandResult;
using test_support::ScratchDir;
using test_support::ShellQuote;

// The two lines selfcheck prints; the groups are customers, events, simulated mean wait
// and the distance from theory in percent.
const std::regex kOutput(
    "M/M/1 at utilisation 0\\.8: ([0-9]+) customers, ([0-9]+) events\n"
    "  mean wait simulated ([0-9.e+-]+) s, theory 0\\.04 s \\(([0-9.e+-]+)% apart\\): ok\n");

}  // namespace

TEST_CASE("apfsim selfcheck passes, prints its figures and writes them as JSON",
          "[selfcheck][cli]") {
  const ScratchDir scratch("apfsim-selfcheck");
  const std::string json_file = scratch.File("selfcheck.json");
  const CommandResult r =
      test_support::RunApfsim("selfcheck --out " + ShellQuote(json_file), scratch.path());
  INFO(r.Output());
  // 0 when the simulated mean wait is within 5% of theory (kExitOk), 3 otherwise.
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  std::smatch m;
  REQUIRE(std::regex_match(r.out, m, kOutput));
  const nlohmann::json j = nlohmann::json::parse(test_support::ReadFile(json_file));
  CHECK(j["ok"] == true);
  // Wq = rho / (mu - lambda) with lambda 80/s, mu 100/s: 0.8 / 20 = 0.04 s.
  CHECK(j["theoryMeanWaitSeconds"].get<double>() == Approx(0.04));
  const double wait = j["meanWaitSeconds"].get<double>();
  CHECK(std::abs(wait - 0.04) / 0.04 < 0.05);
  // 20,000 simulated seconds at 80 arrivals a second: about 1.6 million customers served
  // (a Poisson count: one standard deviation is sqrt(1.6e6) ~ 1,265, so 1% is ~13 of them).
  const std::uint64_t served = j["served"];
  CHECK(served > 1584000);
  CHECK(served < 1616000);
  // Every customer served arrived and, but for the one in service at the end, departed;
  // the ones still waiting at the end arrived too: events = 2 x served - (0 or 1) +
  // waiting, and at 80% utilisation a queue of more than 1,000 is out of reach.
  const std::uint64_t events = j["events"];
  CHECK(events + 1 >= 2 * served);
  CHECK(events <= 2 * served + 1000);
  // The printed figures are the JSON's.
  CHECK(m[1].str() == std::to_string(served));
  CHECK(m[2].str() == std::to_string(events));
  CHECK(std::stod(m[3].str()) == Approx(wait).epsilon(1e-5));
  CHECK(std::stod(m[4].str()) == Approx(std::abs(wait - 0.04) / 0.04 * 100).epsilon(1e-5));
}

TEST_CASE("apfsim selfcheck gives the same figures for the same seed", "[selfcheck][cli]") {
  const ScratchDir scratch("apfsim-selfcheck-seed");
  const CommandResult a = test_support::RunApfsim("selfcheck --seed 7", scratch.path());
  const CommandResult b = test_support::RunApfsim("selfcheck --seed 7", scratch.path());
  const CommandResult c = test_support::RunApfsim("selfcheck --seed 8", scratch.path());
  REQUIRE(a.exit_code == 0);
  REQUIRE(c.exit_code == 0);
  CHECK(a.out == b.out);
  // Another seed draws other arrivals: the count of customers differs.
  std::smatch ma, mc;
  REQUIRE(std::regex_match(a.out, ma, kOutput));
  REQUIRE(std::regex_match(c.out, mc, kOutput));
  CHECK(ma[1].str() != mc[1].str());
}

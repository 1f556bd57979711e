// The allocator as a whole: seat-demand statistics (doc/model.md#seat-demand), the periodic
// re-division (3.4) with the worked numbers of 3.6, the exempt-borrowing scenarios of
// Kubernetes' exempt_borrowing_test.go, and configuration changes (3.7).
#include "apf/allocation/concurrency_allocator.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "apf/queueing/seat_demand_integrator.h"
#include "tests/support/allocation_test_levels.h"

using allocation_test::DefaultLevels;
using allocation_test::ExemptLevel;
using allocation_test::Level;

namespace {

apf::SeatDemandResults Reading(double duration_seconds, double average, double std_dev,
                               double max) {
  apf::SeatDemandResults r;
  r.duration_seconds = duration_seconds;
  r.average = average;
  r.std_dev = std_dev;
  r.max = max;
  return r;
}

// A steady demand over a whole 10-second period.
apf::SeatDemandResults Steady(double seats) { return Reading(10, seats, 0, seats); }

// Seat-demand readings by level name (levels not listed had no demand all period), and
// a record of which levels were read.
struct FakeDemand {
  std::map<std::string, apf::SeatDemandResults> readings;
  std::map<std::string, int> reads;
  apf::ConcurrencyAllocator::SeatDemandReset Reset() {
    return [this](const std::string& level) {
      ++reads[level];
      auto it = readings.find(level);
      return it == readings.end() ? Steady(0) : it->second;
    };
  }
};

apf::ConcurrencyAllocator::LevelIdle IdleIf(bool idle) {
  return [idle](const std::string&) { return idle; };
}

std::int64_t CurrentCL(const apf::ConcurrencyAllocator& a, const std::string& name) {
  const apf::PriorityLevelAllocation* level = a.Find(name);
  if (!level) FAIL("no level " << name);
  return level->current_cl;
}

std::int64_t NominalCL(const apf::ConcurrencyAllocator& a, const std::string& name) {
  const apf::PriorityLevelAllocation* level = a.Find(name);
  if (!level) FAIL("no level " << name);
  return level->limits.nominal_cl;
}

void Digest(apf::ConcurrencyAllocator& a,
            const std::vector<apf::PriorityLevelAllocationSpec>& levels, FakeDemand& demand,
            bool idle = true, apf::ConcurrencyAllocator::DigestOutcome* outcome = nullptr) {
  apf::ConcurrencyAllocator::DigestOutcome local;
  const apf::Status s = a.Digest(levels, demand.Reset(), IdleIf(idle), outcome ? outcome : &local);
  REQUIRE(s.ok());
}

struct Expected {
  const char* name;
  int current_cl;
};

void CheckCurrentCLs(const apf::ConcurrencyAllocator& a, const std::vector<Expected>& expected) {
  for (const Expected& e : expected) {
    INFO(e.name);
    CHECK(CurrentCL(a, e.name) == e.current_cl);
  }
}

}  // namespace

// ---- 3.3: seat-demand statistics ----

TEST_CASE("seat demand: the high watermark follows every period's max, rounded half away",
          "[allocation][stats]") {
  apf::SeatDemandStats stats;
  stats.Update(Reading(10, 1, 0.5, 2.5));
  CHECK(stats.high_watermark == 3);
  // A zero-length period still sets the high watermark, and nothing else.
  stats.Update(Reading(0, std::nan(""), std::nan(""), 7.4));
  CHECK(stats.high_watermark == 7);
  CHECK(stats.avg == 1);
  CHECK(stats.std_dev == 0.5);
  CHECK(stats.smoothed == 1.5);
}

TEST_CASE("seat demand: the smoothed demand jumps up to the envelope and decays by 0.977",
          "[allocation][stats]") {
  apf::SeatDemandStats stats;
  stats.Update(Reading(10, 80, 20, 120));  // envelope = mean + one standard deviation
  CHECK(stats.smoothed == 100);
  stats.Update(Steady(0));
  CHECK(stats.smoothed == 0.977 * 100 + 0.023 * 0);
  // Half-life about 30 periods, i.e. 5 minutes (doc/model.md#seat-demand).
  for (int i = 1; i < 30; ++i) stats.Update(Steady(0));
  CHECK(stats.smoothed == Approx(100 * std::pow(0.977, 30)));
  CHECK(stats.smoothed == Approx(50).margin(0.5));
}

TEST_CASE("seat demand: the smoothing weight is Go's exact constant 0.023, not 1 - 0.977",
          "[allocation][stats]") {
  // Go folds the untyped constant expression 1 - 0.977 exactly; in double arithmetic
  // 1 - 0.977 is 0.02300000000000002, which gives a different last bit here.
  apf::SeatDemandStats stats;
  stats.Update(Steady(29));
  stats.Update(Steady(16));
  const double go = 0.977 * 29 + 0.023 * 16;
  REQUIRE(go != 0.977 * 29 + (1 - 0.977) * 16);  // the two really differ for these inputs
  CHECK(stats.smoothed == go);
}

TEST_CASE("seat demand: a NaN deviation counts as zero", "[allocation][stats]") {
  apf::SeatDemandStats stats;
  stats.Update(Reading(10, 5, std::nan(""), 5));
  CHECK(stats.std_dev == 0);
  CHECK(stats.smoothed == 5);
}

// ---- 3.4 and 3.6: the re-division ----

TEST_CASE(
    "default levels at 600 seats: zero demand gives the current limits of "
    "doc/model.md#worked-allocation",
    "[allocation][spec3.6]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  CHECK(a.nominal_cl_sum() == 602);
  // The digestion's own re-division already sets them; so does every zero-demand period.
  for (int period = 0; period < 2; ++period) {
    INFO("period " << period);
    CheckCurrentCLs(a, {{"exempt", 0},
                        {"catch-all", 30},
                        {"system", 117},
                        {"node-high", 170},
                        {"leader-election", 58},
                        {"workload-high", 114},
                        {"workload-low", 56},
                        {"global-default", 56}});
    CHECK(a.fair_frac() == 602.0 / 258.0);  // doc/model.md#worked-allocation: fairProp = 602/258
    int sum = 0;
    for (const auto& level : a.levels()) sum += level.current_cl;
    CHECK(sum == 601);
    a.Adjust(demand.Reset());
  }
}

TEST_CASE(
    "default levels at 600 seats: heavy workload-low gives the last column of "
    "doc/model.md#worked-allocation",
    "[allocation][spec3.6]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  demand.readings["workload-low"] = Steady(300);  // high watermark = smoothed = 300
  a.Adjust(demand.Reset());
  CheckCurrentCLs(a, {{"exempt", 0},
                      {"catch-all", 15},
                      {"system", 56},
                      {"node-high", 82},
                      {"leader-election", 28},
                      {"workload-high", 55},
                      {"workload-low", 338},
                      {"global-default", 27}});
  CHECK(a.fair_frac() == Approx(602.0 / 534.0).epsilon(1e-12));  // 3.6: 602/534
}

TEST_CASE("default levels: every level busy at its nominal limit gets exactly its nominal limit",
          "[allocation][spec3.6]") {
  // doc/model.md#worked-allocation: remaining = 602 = minCurrentCLSum, the second branch with
  // shareFrac 1.
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  for (const auto& level : a.levels()) {
    if (!level.spec.exempt()) demand.readings[level.spec.name] = Steady(1000);
  }
  a.Adjust(demand.Reset());
  for (const auto& level : a.levels()) {
    INFO(level.spec.name);
    CHECK(level.current_cl == level.limits.nominal_cl);
  }
  CHECK(a.fair_frac() == 0);
}

TEST_CASE("a level with no limit gets the ratio denominator of a tenth of the server",
          "[allocation]") {
  // updateBorrowingLocked: max(1, round(serverCL / 10)) when currentCL is 0.
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  CHECK(a.Find("exempt")->concurrency_denominator == 60);
  CHECK(a.Find("workload-low")->concurrency_denominator == 56);
}

// exempt_borrowing_test.go TestUpdateBorrowing: workload-high, exempt, workload-low and
// catch-all at serverCL = 6 * 145 = 870, where the nominal limits 240/0/600/30 sum
// exactly to the server limit; the expected values are that test's formulas.
TEST_CASE("exempt borrowing squeezes the other levels down to minCL and back (Kubernetes test)",
          "[allocation][exempt]") {
  const auto high_spec = Level("workload-high", 40, 50, 6);
  const auto mid_spec = Level("workload-low", 100, 90, 6);
  const auto low_spec = Level("catch-all", 5, 0, std::nullopt);
  const int server_cl = (40 + 100 + 5) * 6;
  apf::ConcurrencyAllocator a(server_cl);
  apf::Nanos now = 0;
  std::map<std::string, apf::SeatDemandIntegrator> integrators;
  for (const char* name : {"workload-high", "exempt", "workload-low", "catch-all"}) {
    integrators.emplace(name, apf::SeatDemandIntegrator(now));
  }
  auto reset = [&](const std::string& level) { return integrators.at(level).Reset(now); };
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  REQUIRE(
      a.Digest({high_spec, ExemptLevel(), mid_spec, low_spec}, reset, IdleIf(true), &outcome).ok());
  REQUIRE(a.nominal_cl_sum() == server_cl);
  const auto& high = *a.Find("workload-high");
  const auto& mid = *a.Find("workload-low");
  const auto& low = *a.Find("catch-all");
  auto set_all = [&](double seats) {
    for (auto& [name, igr] : integrators) igr.Set(now, seats);
  };
  auto adjust_at = [&](int periods) {
    now = periods * apf::kBorrowingAdjustmentPeriod;
    a.Adjust(reset);
  };

  // Scenario 1: everybody wants more than the server; exempt takes so much that less
  // than minCL is left for each of the others, who get minCL.
  set_all(server_cl + 100);
  adjust_at(1);
  CHECK(CurrentCL(a, "exempt") == server_cl + 100);
  CHECK(high.current_cl == high.limits.min_cl);
  CHECK(mid.current_cl == mid.limits.min_cl);
  CHECK(low.current_cl == low.limits.min_cl);

  // Scenario 2: exempt leaves the others halfway between minCL and their demand-capped
  // minCurrentCL (= nominalCL). Two periods: the first still sees the old peak.
  const int expected_high = (high.limits.nominal_cl + high.limits.min_cl) / 2;
  const int expected_mid = (mid.limits.nominal_cl + mid.limits.min_cl) / 2;
  const int expected_low = (low.limits.nominal_cl + low.limits.min_cl) / 2;
  int expected_exempt = server_cl - (expected_high + expected_mid + expected_low);
  integrators.at("exempt").Set(now, expected_exempt);
  adjust_at(2);
  adjust_at(3);
  CHECK(CurrentCL(a, "exempt") == expected_exempt);
  CHECK(high.current_cl == expected_high);
  CHECK(mid.current_cl == expected_mid);
  CHECK(low.current_cl == expected_low);

  // Scenario 3: only workload-low has seats to lend, and exempt borrows all of them.
  expected_exempt =
      server_cl - (high.limits.nominal_cl + mid.limits.min_cl + low.limits.nominal_cl);
  integrators.at("exempt").Set(now, expected_exempt);
  integrators.at("workload-low").Set(now, 1);
  adjust_at(4);
  adjust_at(5);
  CHECK(CurrentCL(a, "exempt") == expected_exempt);
  CHECK(high.current_cl == high.limits.nominal_cl);
  CHECK(mid.current_cl == mid.limits.min_cl);
  CHECK(low.current_cl == low.limits.nominal_cl);
}

TEST_CASE(
    "the solver divides the nominal sum, so a fenced configuration with exempt shares fails "
    "and keeps the previous limits, a new level's being nominalCL - lendableCL/2",
    "[allocation][backstop]") {
  // By hand: serverCL 40, shares exempt 10 / catch-all 5 / a 25 give nominal 10/5/25.
  // Exempt's minCL is 10, so 30 seats remain, more than the minCLs (5 + 15) ask; the
  // solver is then asked for nominalCLSum = 40 seats but the upper bounds (borrowing 0%)
  // total 5 + 25 = 30: an error. Each level keeps the limit it had: for new levels the
  // initial nominalCL - lendableCL/2 = 5 - 0 and 25 - 10/2 = 20 (doc/model.md#nominal-seats,
  // #borrowing).
  auto exempt = ExemptLevel();
  exempt.nominal_concurrency_shares = 10;
  auto catch_all = Level("catch-all", 5, 0, std::nullopt, 0);
  auto level_a = Level("a", 25, 40, 4, 0);
  apf::ConcurrencyAllocator a(40);
  FakeDemand demand;
  Digest(a, {exempt, catch_all, level_a}, demand);
  CHECK(a.last_adjustment_backstop());
  CHECK(a.fair_frac() == 0);
  CHECK(CurrentCL(a, "exempt") == 10);
  CHECK(CurrentCL(a, "catch-all") == 5);
  CHECK(CurrentCL(a, "a") == 20);
  // It keeps failing, and keeps those limits, period after period.
  a.Adjust(demand.Reset());
  CHECK(a.last_adjustment_backstop());
  CHECK(CurrentCL(a, "a") == 20);
}

TEST_CASE("a new level's initial limit is overwritten by the digestion's own re-division",
          "[allocation][config]") {
  // Seed 004's ocr-batch (10 shares, nothing lendable) starts at nominalCL - 0/2 = 24, but
  // with zero demand the re-division at the end of the digestion gives it its share of
  // the nominal sum in proportion to minCL. By hand with shareSum 255: nominal limits
  // 0/12/71/95/24/95/236/48/24 sum to 605; minCLs 12/48/71/24/47/24/24/24 sum to 274;
  // ocr-batch gets round(24 * 605 / 274) = round(52.99) = 53.
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  auto levels = DefaultLevels();
  levels.push_back(Level("ocr-batch", 10, 0, 4));
  Digest(a, levels, demand);
  CHECK(NominalCL(a, "ocr-batch") == 24);
  CHECK(NominalCL(a, "workload-low") == 236);
  CHECK(a.nominal_cl_sum() == 605);
  CHECK_FALSE(a.last_adjustment_backstop());
  CHECK(CurrentCL(a, "ocr-batch") == 53);
}

// ---- 3.7: configuration changes ----

TEST_CASE("adding a level while running redivides the shares and reads only existing levels",
          "[allocation][config]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  CHECK(demand.reads.empty());  // all new: nothing to read
  CHECK(NominalCL(a, "workload-low") == 245);
  CHECK(a.GetMaxSeats("workload-low") == 37);

  auto levels = DefaultLevels();
  levels.push_back(Level("tenant-sweep", 20, 50, 2, 0));  // seed 000
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  Digest(a, levels, demand, true, &outcome);
  CHECK(outcome.introduced == std::vector<std::string>{"tenant-sweep"});
  CHECK(outcome.removed.empty());
  CHECK(NominalCL(a, "tenant-sweep") == 46);
  CHECK(NominalCL(a, "workload-low") == 227);
  CHECK(a.GetMaxSeats("tenant-sweep") == 7);
  CHECK(a.GetMaxSeats("workload-low") == 35);  // max(1, min(ceil(34.05), 227/6 = 37))
  // The digestion's re-division read each existing level's demand once, the new one never.
  CHECK(demand.reads.count("tenant-sweep") == 0);
  for (const auto& spec : DefaultLevels()) CHECK(demand.reads[spec.name] == 1);
}

TEST_CASE("every digestion runs one extra re-division that consumes the demand so far",
          "[allocation][config]") {
  // 3.4: the digestion resets the integrators mid-period and applies one smoothing step.
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  demand.readings["workload-low"] = Reading(3, 40, 10, 70);  // 3 s into a period
  Digest(a, DefaultLevels(), demand);
  const auto& low = *a.Find("workload-low");
  CHECK(low.seat_demand.high_watermark == 70);
  CHECK(low.seat_demand.smoothed == 50);
  // minCurrentCL 70 is above minCL, so the limit moved with it.
  CHECK(low.current_cl > 56);
}

TEST_CASE("a busy level removed from the configuration quiesces with its share until idle",
          "[allocation][config]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  auto levels = DefaultLevels();
  levels.push_back(Level("tenant-sweep", 20, 50, 2, 0));
  Digest(a, levels, demand);

  apf::ConcurrencyAllocator::DigestOutcome outcome;
  Digest(a, DefaultLevels(), demand, /*idle=*/false, &outcome);
  CHECK(outcome.quiescing == std::vector<std::string>{"tenant-sweep"});
  CHECK(outcome.removed.empty());
  const auto* sweep = a.Find("tenant-sweep");
  REQUIRE(sweep);
  CHECK(sweep->quiescing);
  // Its 20 shares still count: workload-low stays at 227, not 245.
  CHECK(NominalCL(a, "workload-low") == 227);
  CHECK(a.GetMaxSeats("tenant-sweep") == 7);
  // It takes part in the re-division and keeps a limit to drain with.
  demand.reads.clear();
  a.Adjust(demand.Reset());
  CHECK(demand.reads["tenant-sweep"] == 1);
  CHECK(CurrentCL(a, "tenant-sweep") > 0);

  // Once idle, the next digestion removes it and the shares are divided without it.
  Digest(a, DefaultLevels(), demand, /*idle=*/true, &outcome);
  CHECK(outcome.removed == std::vector<std::string>{"tenant-sweep"});
  CHECK(a.Find("tenant-sweep") == nullptr);
  CHECK(NominalCL(a, "workload-low") == 245);
  CHECK(a.GetMaxSeats("tenant-sweep") == 0);
}

TEST_CASE("an idle level removed from the configuration is gone at once", "[allocation][config]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  auto levels = DefaultLevels();
  levels.push_back(Level("ocr-batch", 10, 0, 4));
  Digest(a, levels, demand);
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  Digest(a, DefaultLevels(), demand, /*idle=*/true, &outcome);
  CHECK(outcome.removed == std::vector<std::string>{"ocr-batch"});
  CHECK(outcome.quiescing.empty());
  CHECK(a.Find("ocr-batch") == nullptr);
  CHECK(NominalCL(a, "workload-low") == 245);
}

TEST_CASE("a quiescing level configured again is desired again and keeps its state",
          "[allocation][config]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  auto levels = DefaultLevels();
  levels.push_back(Level("tenant-sweep", 20, 50, 2, 0));
  Digest(a, levels, demand);
  demand.readings["tenant-sweep"] = Steady(40);
  Digest(a, DefaultLevels(), demand, /*idle=*/false);
  REQUIRE(a.Find("tenant-sweep")->quiescing);
  demand.readings.erase("tenant-sweep");
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  Digest(a, levels, demand, /*idle=*/false, &outcome);
  CHECK(outcome.introduced.empty());
  const auto* sweep = a.Find("tenant-sweep");
  CHECK_FALSE(sweep->quiescing);
  // Not new: the smoothed demand of 40 survives (decayed one step by the zero period).
  CHECK(sweep->seat_demand.smoothed == 0.977 * 40 + 0.023 * 0);
}

TEST_CASE("changed shares change the nominal limits but keep a level's demand history",
          "[allocation][config]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  demand.readings["workload-low"] = Steady(100);
  a.Adjust(demand.Reset());
  demand.readings.clear();
  auto levels = DefaultLevels();
  for (auto& l : levels) {
    if (l.name == "workload-low") l.nominal_concurrency_shares = 200;
  }
  Digest(a, levels, demand);
  // By hand: shareSum 345, ceil(600 * 200 / 345) = ceil(347.8) = 348.
  CHECK(NominalCL(a, "workload-low") == 348);
  CHECK(a.Find("workload-low")->seat_demand.smoothed == 0.977 * 100 + 0.023 * 0);
}

TEST_CASE("mandatory levels are imagined when missing and retained when their objects go",
          "[allocation][config]") {
  // apf_controller.go imaginePL and processOldPLsLocked (doc/model.md#mandatory-objects).
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  Digest(a, {}, demand, true, &outcome);
  CHECK(outcome.introduced == std::vector<std::string>{"exempt", "catch-all"});
  // Before the informers sync, catch-all holds all shares: ceil(600 * 5 / 5) = 600.
  CHECK(NominalCL(a, "catch-all") == 600);
  CHECK(a.GetMaxSeats("catch-all") == 0);  // Reject: no entry

  // A catch-all object with other shares replaces the imagined spec ...
  Digest(a, {Level("catch-all", 15, 0, std::nullopt), Level("b", 15, 0, 4)}, demand);
  CHECK(NominalCL(a, "catch-all") == 300);
  // ... and when the object goes, the level keeps its last spec: neither quiescing nor
  // imagined afresh at 5 shares.
  Digest(a, {Level("b", 15, 0, 4)}, demand, /*idle=*/true, &outcome);
  CHECK(outcome.removed.empty());
  CHECK(outcome.introduced.empty());
  const auto* catch_all = a.Find("catch-all");
  REQUIRE(catch_all);
  CHECK_FALSE(catch_all->quiescing);
  CHECK(catch_all->spec.nominal_concurrency_shares == 15);
  CHECK(NominalCL(a, "catch-all") == 300);
}

TEST_CASE("max seats stay after a level turns from Queue to Reject, and go with the level",
          "[allocation][config]") {
  // max_seats.go: SetMaxSeats only for queuing levels, ForgetPriorityLevel only on removal.
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  REQUIRE(a.GetMaxSeats("global-default") == 8);
  auto levels = DefaultLevels();
  for (auto& l : levels) {
    if (l.name == "global-default") l.queuing_hand_size.reset();
  }
  Digest(a, levels, demand);
  CHECK(a.GetMaxSeats("global-default") == 8);
  levels.pop_back();  // global-default
  Digest(a, levels, demand, /*idle=*/true);
  CHECK(a.GetMaxSeats("global-default") == 0);
}

TEST_CASE("a digestion with an invalid or repeated level changes nothing", "[allocation][config]") {
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  Digest(a, DefaultLevels(), demand);
  auto levels = DefaultLevels();
  levels.push_back(Level("system", 1, 0, 4));
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  CHECK_FALSE(a.Digest(levels, demand.Reset(), IdleIf(true), &outcome).ok());
  levels.pop_back();
  levels.push_back(Level("bad", 1, 150, 4));
  CHECK_FALSE(a.Digest(levels, demand.Reset(), IdleIf(true), &outcome).ok());
  CHECK(demand.reads.empty());
  CHECK(a.levels().size() == 8);
  CHECK(NominalCL(a, "workload-low") == 245);
}

TEST_CASE("a configuration whose shares add up to zero is refused", "[allocation][config]") {
  // Go would compute ceil(0 / 0) and convert NaN to an int (platform-dependent); a real
  // apiserver never gets there because catch-all is kept at 5 shares.
  apf::ConcurrencyAllocator a(600);
  FakeDemand demand;
  apf::ConcurrencyAllocator::DigestOutcome outcome;
  CHECK_FALSE(
      a.Digest({Level("catch-all", 0, 0, std::nullopt)}, demand.Reset(), IdleIf(true), &outcome)
          .ok());
  CHECK(a.levels().empty());
}

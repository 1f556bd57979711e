// The terminal table of `apfsim sweep` (sim/workflows/sweep_table.h) on hand-written
// summaries of a three-point grid: its rows are the grid points in order, its columns the
// varied values then the figures that moved, largest relative spread first when some must
// go. The spreads are hand calculations: (max - min) / max(|max|, |min|).
#include "sim/workflows/sweep_table.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A summary with one level and one client: `rejected` queue-full, wait p99 and max, the
// client's 429s and latency p99.
nlohmann::json Summary(int rejected, double wait_p99, double wait_max, int http429,
                       double latency_p99) {
  return {{"priorityLevels",
           {{"workload-low",
             {{"rejected", {{"queue-full", rejected}, {"time-out", 0}, {"concurrency-limit", 0}}},
              {"waitSeconds", {{"p50", 0.0}, {"p99", wait_p99}, {"max", wait_max}}}}}}},
          {"clients",
           {{"tenant-operator", {{"http429", http429}, {"latencySeconds", {{"p99", latency_p99}}}}},
            {"argocd", {{"http429", 0}, {"latencySeconds", {{"p99", 0.048}}}}}}}};
}

}  // namespace

TEST_CASE("a --set path reads as its object and field", "[sweep]") {
  using P = std::pair<std::string, std::string>;
  CHECK(sim::ReadableSetPath("flowControl.priorityLevels.workload-low.nominalConcurrencyShares") ==
        P{"workload-low", "nominalConcurrencyShares"});
  CHECK(sim::ReadableSetPath(
            "flowControl.priorityLevels.apf-lab-limited.spec.limited.limitResponse.queuing."
            "handSize") == P{"apf-lab-limited", "handSize"});
  CHECK(sim::ReadableSetPath("flowControl.priorityLevels.a.b.limitResponse.queuing.queues") ==
        P{"a.b", "queues"});  // a level name may hold dots
  CHECK(sim::ReadableSetPath("apiservers.maxRequestsInflight") ==
        P{"apiservers", "maxRequestsInflight"});
  CHECK(sim::ReadableSetPath("clients.tenant-operator.clientGo.qps") ==
        P{"tenant-operator", "clientGo.qps"});
  CHECK(sim::ReadableSetPath("seed") == P{"", "seed"});
}

TEST_CASE("the sweep table has a row per grid point and the figures that moved", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {
      {"flowControl.priorityLevels.workload-low.nominalConcurrencyShares", {"50", "100", "150"}}};
  const auto grid = sim::SweepGrid(axes);
  // wait p99 is 0 at every point (the shipped example's flat panel): it is shown beside the
  // max that moved, so that the 0 reads against the burst's waits; argocd's figures do not
  // move and are left out.
  const std::vector<nlohmann::json> summaries = {Summary(1983, 0, 11.188, 1983, 26.172),
                                                 Summary(972, 0, 6.5, 972, 12.0),
                                                 Summary(0, 0, 0.2, 0, 0.9)};
  const std::string table = sim::SweepTable(axes, grid, {0, 1, 2}, summaries);
  CHECK(table ==
        "workload-low              workload-low  workload-low  workload-low  tenant-operator  "
        "tenant-operator\n"
        "nominalConcurrencyShares      rejected      wait p99      wait max             429s  "
        "        lat p99\n"
        "50                                1983        0.000s       11.188s             1983  "
        "        26.172s\n"
        "100                                972        0.000s        6.500s              972  "
        "        12.000s\n"
        "150                                  0        0.000s        0.200s                0  "
        "         0.900s\n");
}

TEST_CASE("the sweep table keeps the figures with the largest relative spread", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {{"apiservers.maxRequestsInflight", {"400", "600"}}};
  const auto grid = sim::SweepGrid(axes);
  // Spreads: rejected (10-5)/10 = 0.5, wait max (2-1.5)/2 = 0.25 (its p99 stays 0), 429s
  // (4-3)/4 = 0.25, latency p99 (8-1)/8 = 0.875. With two columns: latency p99 and rejected,
  // shown in the table's order (levels before clients); of the 5 figures that moved or go
  // with one that did, the wait's two columns would not fit.
  const std::vector<nlohmann::json> summaries = {Summary(10, 0, 2.0, 4, 8.0),
                                                 Summary(5, 0, 1.5, 3, 1.0)};
  const std::string table = sim::SweepTable(axes, grid, {0, 1}, summaries, 2);
  CHECK(table ==
        "apiservers           workload-low  tenant-operator\n"
        "maxRequestsInflight      rejected          lat p99\n"
        "400                            10           8.000s\n"
        "600                             5           1.000s\n"
        "the 2 of 5 figures that changed most; sweep.csv has every figure\n");
}

TEST_CASE("the sweep table ranks a level's wait by its max and shows the p99 beside it",
          "[sweep]") {
  // A burst: the whole-run p99 goes 0 -> 0.004 s (a relative spread of (0.004-0)/0.004 = 1,
  // the largest of the grid) while hundreds of requests wait 10.6 s or 11.2 s (the max's
  // spread (11.2-10.6)/11.2 = 0.054). Ranked by the p99 alone, a one-column table showed
  // "wait p99 0.000s -> 0.004s" and hid the ten-second waits; the wait ranks by its max,
  // and the two go together. Nothing else moves.
  const std::vector<sim::SweepAxis> axes = {
      {"flowControl.priorityLevels.workload-low.spec.limited.limitResponse.queuing.handSize",
       {"6", "4"}}};
  const auto grid = sim::SweepGrid(axes);
  const std::vector<nlohmann::json> summaries = {Summary(10, 0, 10.6, 4, 8.0),
                                                 Summary(10, 0.004, 11.2, 4, 8.0)};
  CHECK(sim::SweepTable(axes, grid, {0, 1}, summaries, 1) ==
        "workload-low  workload-low  workload-low\n"
        "handSize          wait p99      wait max\n"
        "6                   0.000s       10.600s\n"
        "4                   0.004s       11.200s\n");
  // With a latency moving more than the max ((8-4)/8 = 0.5 against 0.054) and room for two
  // columns, the latency comes first and the pair does not fit: the p99 is not shown
  // without its max.
  const std::vector<nlohmann::json> with_latency = {Summary(10, 0, 10.6, 4, 8.0),
                                                    Summary(10, 0.004, 11.2, 4, 4.0)};
  CHECK(sim::SweepTable(axes, grid, {0, 1}, with_latency, 2) ==
        "workload-low  tenant-operator\n"
        "handSize              lat p99\n"
        "6                      8.000s\n"
        "4                      4.000s\n"
        "the 1 of 3 figures that changed most; sweep.csv has every figure\n");
}

TEST_CASE("over seeds the sweep table shows each figure's mean and its 95% interval", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {{"apiservers.maxRequestsInflight", {"400", "600"}}};
  const auto grid = sim::SweepGrid(axes);
  // Three seeds a point. At 400 the wait max is 10, 11, 12 s: mean 11, sample standard
  // deviation 1, half interval t(0.975, 2) x 1 / sqrt(3) = 4.302653 / 1.732051 = 2.484; the
  // rejections 90, 100, 110: mean 100, half 4.302653 x 10 / 1.732051 = 24.84, shown as 25
  // (a count of 100 or more prints whole). At 600 every seed agrees: no interval.
  const std::vector<std::vector<nlohmann::json>> runs = {
      {Summary(90, 0, 10.0, 0, 1.0), Summary(100, 0, 11.0, 0, 1.0), Summary(110, 0, 12.0, 0, 1.0)},
      {Summary(5, 0, 1.5, 0, 1.0), Summary(5, 0, 1.5, 0, 1.0), Summary(5, 0, 1.5, 0, 1.0)}};
  CHECK(sim::SweepTable(axes, grid, {0, 1}, runs) ==
        "apiservers           workload-low  workload-low   workload-low\n"
        "maxRequestsInflight      rejected      wait p99       wait max\n"
        "400                        100±25        0.000s  11.000±2.484s\n"
        "600                             5        0.000s         1.500s\n");
}

TEST_CASE("a sweep in which nothing moved says so under the varied values", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {{"seed", {"1", "2"}}};
  const auto grid = sim::SweepGrid(axes);
  const std::vector<nlohmann::json> summaries = {Summary(0, 0, 0, 0, 0.1),
                                                 Summary(0, 0, 0, 0, 0.1)};
  CHECK(sim::SweepTable(axes, grid, {0, 1}, summaries) ==
        "\nseed\n1\n2\nno rejection, wait, 429 or latency p99 changed across the grid\n");
}

TEST_CASE("the sweep table fits 120 characters however many figures moved", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {
      {"flowControl.priorityLevels.workload-low.nominalConcurrencyShares", {"50", "100"}}};
  const auto grid = sim::SweepGrid(axes);
  // Twelve clients with long names whose 429s all move: six 28-character columns and the
  // 24-character varied one would make 24 + 6 x (28 + 2) = 204 characters.
  std::vector<nlohmann::json> summaries = {Summary(10, 0, 2.0, 4, 8.0), Summary(5, 0, 1.5, 3, 1.0)};
  for (int c = 0; c < 12; ++c) {
    const std::string name = "a-client-with-a-long-name-" + std::to_string(c % 10);
    summaries[0]["clients"][name + char('a' + c)] = {{"http429", 100 + c}};
    summaries[1]["clients"][name + char('a' + c)] = {{"http429", 0}};
  }
  const std::string table = sim::SweepTable(axes, grid, {0, 1}, summaries);
  std::istringstream lines(table);
  std::string line;
  std::getline(lines, line);
  CHECK(line.size() <= 120);
  CHECK(line.size() > 90);  // the room is used: at least three of the columns
  for (std::string rest; std::getline(lines, rest);) CHECK(rest.size() <= 120);
}

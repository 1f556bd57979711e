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
  // wait p99 is 0 at every point (the shipped example's flat panel): it is left out, the
  // max that moved is shown; argocd's figures do not move and are left out.
  const std::vector<nlohmann::json> summaries = {Summary(1983, 0, 11.188, 1983, 26.172),
                                                 Summary(972, 0, 6.5, 972, 12.0),
                                                 Summary(0, 0, 0.2, 0, 0.9)};
  const std::string table = sim::SweepTable(axes, grid, {0, 1, 2}, summaries);
  CHECK(table ==
        "workload-low              workload-low  workload-low  tenant-operator  tenant-operator\n"
        "nominalConcurrencyShares      rejected      wait max             429s          lat p99\n"
        "50                                1983       11.188s             1983          26.172s\n"
        "100                                972        6.500s              972          12.000s\n"
        "150                                  0        0.200s                0           0.900s\n");
}

TEST_CASE("the sweep table keeps the figures with the largest relative spread", "[sweep]") {
  const std::vector<sim::SweepAxis> axes = {{"apiservers.maxRequestsInflight", {"400", "600"}}};
  const auto grid = sim::SweepGrid(axes);
  // Spreads: rejected (10-5)/10 = 0.5, wait max (2-1.5)/2 = 0.25, 429s (4-3)/4 = 0.25,
  // latency p99 (8-1)/8 = 0.875. With two columns: latency p99 and rejected, shown in the
  // table's order (levels before clients).
  const std::vector<nlohmann::json> summaries = {Summary(10, 0, 2.0, 4, 8.0),
                                                 Summary(5, 0, 1.5, 3, 1.0)};
  const std::string table = sim::SweepTable(axes, grid, {0, 1}, summaries, 2);
  CHECK(table ==
        "apiservers           workload-low  tenant-operator\n"
        "maxRequestsInflight      rejected          lat p99\n"
        "400                            10           8.000s\n"
        "600                             5           1.000s\n"
        "the 2 of 4 figures that changed most; sweep.csv has every figure\n");
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

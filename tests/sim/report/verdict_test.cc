// sim/report/verdict.h and its place in compare.json and compare's table. The summaries are
// written here by hand after seed 000's story (workload-low rejecting the sweep, none
// after the fence), so each count and wait in the expected text is the one put in; over
// seeds the spread is half the 95% interval of the hand-picked values, worked out below.
#include "sim/report/verdict.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/workflows/compare.h"

namespace {

nlohmann::json Level(double queue_full, double time_out, nlohmann::json wait_max) {
  return {
      {"nominalCL", 245},
      {"dispatched", 1000},
      {"rejected", {{"queue-full", queue_full}, {"time-out", time_out}, {"concurrency-limit", 0}}},
      {"waitSeconds", {{"p50", 0}, {"p99", 0}, {"max", wait_max}}}};
}

nlohmann::json Summary(const std::string& scenario, nlohmann::json levels) {
  return {{"scenario", scenario},
          {"seed", 1},
          {"priorityLevels", std::move(levels)},
          {"clients", nlohmann::json::object()}};
}

// Before: workload-low rejects 1,100 queue-full + 26 time-out = 1,126 and waits up to
// 10.9 s; global-default rejects none and waits 0.2 s; catch-all dispatched nothing (no
// wait max). After: none rejected, the worst wait 1.3 s.
nlohmann::json Before() {
  return Summary("drift-sweep", {{"workload-low", Level(1100, 26, 10.9)},
                                 {"global-default", Level(0, 0, 0.2)},
                                 {"catch-all", Level(0, 0, nullptr)}});
}
nlohmann::json After() {
  return Summary("drift-sweep-fixed", {{"workload-low", Level(0, 0, 1.3)},
                                       {"tenant-sweep", Level(0, 0, 0.004)},
                                       {"catch-all", Level(0, 0, nullptr)}});
}

}  // namespace

TEST_CASE("the verdict names the levels that rejected and the worst wait", "[report][verdict]") {
  const nlohmann::json b = Before(), a = After();
  CHECK(sim::SideVerdict({&b["priorityLevels"]}) ==
        "workload-low 1,126 rejected, wait max 10.9 s in workload-low");
  CHECK(sim::SideVerdict({&a["priorityLevels"]}) ==
        "none rejected, wait max 1.3 s in workload-low");
  // Two levels rejecting: the most first.
  const nlohmann::json two = {{"global-default", Level(3, 0, 0.5)},
                              {"workload-low", Level(449, 0, 15)}};
  CHECK(sim::SideVerdict({&two}) ==
        "workload-low 449 rejected, global-default 3 rejected, wait max 15.0 s in workload-low");
  const nlohmann::json quiet = {{"catch-all", Level(0, 0, nullptr)}, {"exempt", Level(0, 0, 0)}};
  CHECK(sim::SideVerdict({&quiet}) == "none rejected, no queue wait");
}

TEST_CASE("compare opens with the verdict line, in compare.json and first in its table",
          "[report][verdict][compare]") {
  const nlohmann::json c = sim::CompareSummaries(Before(), After());
  CHECK(c["before"]["verdict"] == "workload-low 1,126 rejected, wait max 10.9 s in workload-low");
  CHECK(c["after"]["verdict"] == "none rejected, wait max 1.3 s in workload-low");
  const std::string line =
      "before: workload-low 1,126 rejected, wait max 10.9 s in workload-low; after: none "
      "rejected, wait max 1.3 s in workload-low (seed 1)";
  CHECK(c["verdictLine"] == line);
  const std::string table = sim::CompareTable(c, false);
  CHECK(table.rfind(line + "\n\nbefore: drift-sweep   after: drift-sweep-fixed", 0) == 0);
}

TEST_CASE("over seeds the verdict gives each count's mean ± half its 95% interval",
          "[report][verdict][compare]") {
  // workload-low rejects 10, 20 and 30 and waits up to 1, 2 and 3 s: means 20 and 2.0 s,
  // sample deviations 10 and 1.0 s, t(0.975, 2) = 4.303, so half intervals of
  // 4.303 x 10 / sqrt(3) = 24.8 and 2.5 s, each to the mean's precision (a count below
  // 100 that varies to one decimal, as compare's table prints it). After: none rejected, waits 0.5
  // s in every seed (no interval to show).
  std::vector<nlohmann::json> befores, afters;
  for (int k = 1; k <= 3; ++k) {
    befores.push_back(Summary("drift-sweep", {{"workload-low", Level(10.0 * k, 0, 1.0 * k)}}));
    afters.push_back(Summary("drift-sweep-fixed", {{"workload-low", Level(0, 0, 0.5)}}));
  }
  const nlohmann::json c = sim::CompareReplications(befores, afters, {1, 2, 3});
  CHECK(c["before"]["verdict"] ==
        "workload-low 20.0 ± 24.8 rejected, wait max 2.0 ± 2.5 s in "
        "workload-low");
  CHECK(c["after"]["verdict"] == "none rejected, wait max 0.500 s in workload-low");
  CHECK(c["verdictLine"] ==
        "before: workload-low 20.0 ± 24.8 rejected, wait max 2.0 ± 2.5 s in workload-low; after: "
        "none rejected, wait max 0.500 s in workload-low (3 seeds, mean ± half its 95% "
        "interval)");
}

TEST_CASE("compare's table says where a side differs from its reference figures",
          "[report][verdict][compare][reference]") {
  nlohmann::json b = Before();
  b["reference"] = {{"source", "seeds/000"},
                    {"figures",
                     {{{"level", "workload-low"},
                       {"line",
                        "seeds/000 reports ~1,400 rejected in workload-low; this run "
                        "1,126, outside ±10%: why"}}}}};
  const std::string table = sim::CompareTable(sim::CompareSummaries(b, After()), false);
  CHECK(table.find("(seed 1)\nreference (before): seeds/000 reports ~1,400 rejected in "
                   "workload-low; this run 1,126, outside ±10%: why\n\n") != std::string::npos);
  CHECK(table.find("reference (after)") == std::string::npos);
}

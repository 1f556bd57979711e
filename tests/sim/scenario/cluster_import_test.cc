// The readers `apfsim import` added: the Prometheus sample parser and the APF dump parser.
// tests/cli/import_test.sh runs the whole import on scenarios/samples/.
#include "sim/scenario/cluster_import.h"

#include <catch2/catch.hpp>

#include "sim/io/input_error.h"
#include "sim/scenario/metrics_import.h"

TEST_CASE("ParseMetricsText reads names, labels and values, and refuses non-scrapes at their line",
          "[import]") {
  const auto samples = sim::ParseMetricsText(
      "# HELP x y\n"
      "apiserver_flowcontrol_nominal_limit_seats{priority_level=\"workload-low\"} 22\n"
      "process_start_time_seconds 1.7649e+09\n",
      "s.prom");
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].name == "apiserver_flowcontrol_nominal_limit_seats");
  CHECK(samples[0].labels.at("priority_level") == "workload-low");
  CHECK(samples[0].value == 22);
  CHECK(samples[0].line == 2);
  CHECK(samples[1].value == 1.7649e9);
  try {
    sim::ParseMetricsText("# a comment\n<html>\n", "page.prom");
    FAIL("an HTML page was read as a scrape");
  } catch (const sim::InputError& e) {
    CHECK(e.where().file == "page.prom");
    CHECK(e.where().line == 2);
  }
  CHECK_THROWS_AS(sim::ParseMetricsText("up{job=\"a\" 1\n", "s.prom"), sim::InputError);
  CHECK_THROWS_AS(sim::ParseMetricsText("up one\n", "s.prom"), sim::InputError);
}

TEST_CASE("ParseDebugDump splits apf_controller_debug.go's tabwriter rows", "[import]") {
  // The layout of dump_queues: cells followed by ",\t", padded by a tabwriter; an exempt
  // level without queues prints "<none>".
  const auto rows = sim::ParseDebugDump(
      "PriorityLevelName, Index, PendingRequests, ExecutingRequests, SeatsInUse, "
      "NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum\n"
      "exempt,            <none>\n"
      "workload-low,      0,      0,               0,                 0,          "
      "0.00000000ss,  0,               0,           0.00000000ss\n",
      "dump_queues.txt", "PriorityLevelName", 9);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].cells == std::vector<std::string>{"exempt", "<none>"});
  CHECK(rows[1].line == 3);
  CHECK(rows[1].cells[0] == "workload-low");
  CHECK(rows[1].cells[1] == "0");
  CHECK_THROWS_AS(sim::ParseDebugDump("Name, Index\n", "d.txt", "PriorityLevelName", 9),
                  sim::InputError);
  CHECK_THROWS_AS(sim::ParseDebugDump("", "d.txt", "PriorityLevelName", 9), sim::InputError);
}

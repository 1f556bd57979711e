// `--window FROM..TO` and the worst intervals (sim/report/interval_figures.h): the parsing
// of the flag, and the figures of tests/fixtures/report/tiny.yaml, whose four GETs are
// worked out by hand in its header: at 1 s one runs at once, those at 1.2 s and 1.4 s wait
// 0.8 s and 1.1 s and are dispatched in [2 s, 3 s), the one at 1.6 s is rejected
// queue-full in [1 s, 2 s).
#include "sim/report/interval_figures.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/report/run_report.h"
#include "sim/workflows/run.h"
#include "tests/support/scratch_dir.h"

namespace {

std::string Fixture(const char* name) {
  return std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/" + name;
}

// The histogram reports a bucket's middle (1.6% precision, sim/world/latency_histogram.h).
Approx Bucketed(double seconds) { return Approx(seconds).epsilon(0.016); }

sim::RunOutcome RunTiny(const test_support::ScratchDir& scratch,
                        std::optional<sim::ReportWindow> window) {
  sim::RunRequest request;
  request.scenario_file = Fixture("tiny.yaml");
  request.out_dir = scratch.path().string();
  request.quiet = true;
  request.window = window;
  return sim::RunScenario(request);
}

}  // namespace

TEST_CASE("a window is read from FROM..TO, two durations", "[window]") {
  const sim::ReportWindow w = sim::ParseReportWindow("6m..8m");
  CHECK(w.from == 360 * apf::kSecond);
  CHECK(w.to == 480 * apf::kSecond);
  CHECK(sim::ParseReportWindow("0..1.5s").to == 1500 * apf::kMillisecond);
  for (const char* bad : {"6m", "6m..", "..8m", "8m..6m", "6m..6m", "6 m..8m", "6m...8m"}) {
    INFO(bad);
    try {
      sim::ParseReportWindow(bad);
      FAIL("accepted");
    } catch (const sim::InputError& e) {
      CHECK(e.where().file == "--window");
    }
  }
}

TEST_CASE("a window counts only its intervals, with percentiles from merged histograms",
          "[window]") {
  const test_support::ScratchDir scratch("apfsim-window");
  const nlohmann::json s =
      RunTiny(scratch, sim::ReportWindow{2 * apf::kSecond, 3 * apf::kSecond, std::nullopt}).summary;
  const nlohmann::json& w = s["window"];
  CHECK(w["fromSeconds"] == 2.0);
  CHECK(w["toSeconds"] == 3.0);
  const nlohmann::json& lab = w["priorityLevels"]["lab"];
  // Dispatched in [2 s, 3 s): the 1.2 s and 1.4 s GETs; the rejection was in [1 s, 2 s).
  CHECK(lab["dispatched"] == 2);
  CHECK(lab["rejected"]["queue-full"] == 0);
  // Their waits: 0.8 s and 1.1 s. Nearest rank: p50 is the 1st of 2, p99 the 2nd.
  CHECK(lab["waitSeconds"]["p50"].get<double>() == Bucketed(0.8));
  CHECK(lab["waitSeconds"]["p99"].get<double>() == Bucketed(1.1));
  CHECK(lab["waitSeconds"]["max"].get<double>() == 1.1);  // the maximum is exact
  // alice's calls answered in the window: the 1.0 s one at 2 s and the 1.2 s one at 2.5 s.
  const nlohmann::json& alice = w["clients"]["alice"];
  CHECK(alice["succeeded"] == 2);
  CHECK(alice["calls"] == 0);                                  // all four were issued in [1 s, 2 s)
  CHECK(alice["latencySeconds"]["max"].get<double>() == 1.3);  // 1.2 s to 2.5 s

  // Over [1 s, 2 s) instead: one dispatched at once, one rejected.
  const test_support::ScratchDir scratch2("apfsim-window");
  const nlohmann::json s2 =
      RunTiny(scratch2, sim::ReportWindow{apf::kSecond, 2 * apf::kSecond, std::nullopt}).summary;
  CHECK(s2["window"]["priorityLevels"]["lab"]["dispatched"] == 1);
  CHECK(s2["window"]["priorityLevels"]["lab"]["rejected"]["queue-full"] == 1);
  CHECK(s2["window"]["priorityLevels"]["lab"]["waitSeconds"]["max"] == 0.0);
  CHECK(s2["window"]["clients"]["alice"]["calls"] == 4);
  CHECK(s2["window"]["clients"]["alice"]["callsRejected"] == 1);
}

TEST_CASE("the worst interval of a level and a client, and p99.9", "[window]") {
  const test_support::ScratchDir scratch("apfsim-worst");
  const nlohmann::json s = RunTiny(scratch, std::nullopt).summary;
  CHECK_FALSE(s.contains("window"));
  const nlohmann::json& lab = s["priorityLevels"]["lab"];
  CHECK(lab["worstInterval"]["rejected"]["startSeconds"] == 1.0);
  CHECK(lab["worstInterval"]["rejected"]["value"] == 1);
  CHECK(lab["worstInterval"]["waitP99"]["startSeconds"] == 2.0);
  CHECK(lab["worstInterval"]["waitP99"]["seconds"].get<double>() == Bucketed(1.1));
  // Three waits (0, 0.8 s, 1.1 s): p99.9 is the largest.
  CHECK(lab["waitSeconds"]["p999"].get<double>() == Bucketed(1.1));
  // A level that did nothing has no worst interval.
  CHECK(s["priorityLevels"]["catch-all"]["worstInterval"]["rejected"]["startSeconds"].is_null());
  CHECK(s["priorityLevels"]["catch-all"]["worstInterval"]["rejected"]["value"] == 0);
  const nlohmann::json& alice = s["clients"]["alice"]["worstInterval"];
  CHECK(alice["rejected"]["startSeconds"] == 1.0);  // its one 429, at 1.6 s
  CHECK(alice["waitP99"]["startSeconds"] == 2.0);
}

TEST_CASE("the table flags a level whose p99 hides its maximum", "[window]") {
  nlohmann::json level = {
      {"nominalCL", 10},
      {"meanCurrentCL", 10.0},
      {"peakExecutingSeats", 10},
      {"dispatched", 100000},
      {"rejected", {{"queue-full", 0}, {"time-out", 0}, {"concurrency-limit", 0}}},
      {"waitSeconds", {{"p50", 0.0}, {"p99", 0.0}, {"max", 11.2}}},
      {"worstInterval", {{"waitP99", {{"startSeconds", 61.0}, {"seconds", 10.9}}}}}};
  nlohmann::json summary = {{"scenario", "t"},
                            {"seed", 1},
                            {"durationSeconds", 900.0},
                            {"priorityLevels", {{"workload-low", level}}},
                            {"clients", nlohmann::json::object()}};
  const std::string table = sim::RunReport::SummaryTable(summary, false);
  CHECK(table.find("workload-low: wait p99 0 hides a max of 11.2 s: see the worst interval "
                   "(p99 10.9 s in the interval from 61 s)") != std::string::npos);
  summary["priorityLevels"]["workload-low"]["waitSeconds"]["p99"] = 9.0;
  CHECK(sim::RunReport::SummaryTable(summary, false).find("hides") == std::string::npos);
}

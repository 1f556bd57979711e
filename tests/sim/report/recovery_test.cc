// Windows relative to an event (`--window event:N:FROM..TO`, sim/report/interval_figures.h)
// and the time to recover (sim/report/recovery.h): the parsing of both flags, the window
// arithmetic and its refusals, the recovery of hand-fed rows, and the recovery of
// scenarios/drift-sweep-fence-midway.yaml, worked out from its timeline.csv (seed 1).
#include "sim/report/recovery.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/report/interval_figures.h"
#include "sim/workflows/run.h"
#include "tests/support/scratch_dir.h"

namespace {

constexpr apf::Nanos kS = apf::kSecond;

std::string Scenario(const char* name) {
  return std::string(APFSIM_SOURCE_DIR) + "/scenarios/" + name;
}

// The refusal's message, or "" when `f` does not throw an InputError at `flag`.
template <typename F>
std::string Refusal(const char* flag, F f) {
  try {
    f();
  } catch (const sim::InputError& e) {
    CHECK(e.where().file == flag);
    return e.what();
  }
  return "";
}

// A row of `queue_full` rejections whose queue waits are `waits` (null: none dispatched).
sim::LevelRow Row(std::uint64_t queue_full, const sim::LatencyHistogram* waits) {
  sim::LevelRow row{};
  row.counters.rejected[0] = queue_full;
  row.waits = waits;
  return row;
}

}  // namespace

TEST_CASE("an event window is read as offsets from spec.events[N]", "[window][recovery]") {
  const sim::ReportWindow a = sim::ParseReportWindow("event:0..+2m");
  CHECK(a.event == 0);
  CHECK(a.from == 0);
  CHECK(a.to == 120 * kS);
  // "event:" without an index is the first event; offsets take either sign.
  const sim::ReportWindow b = sim::ParseReportWindow("event:-30s..1m");
  CHECK(b.event == 0);
  CHECK(b.from == -30 * kS);
  const sim::ReportWindow c = sim::ParseReportWindow("event:2:+10s..+20s");
  CHECK(c.event == 2);
  CHECK(c.from == 10 * kS);
  CHECK(c.to == 20 * kS);
  CHECK_FALSE(sim::ParseReportWindow("6m..8m").event.has_value());
  for (const char* bad : {"event:", "event:0", "event:x:0..1m", "event:-1:0..1m", "event:1m..0",
                          "event:0:1m..1m", "event:0..+"}) {
    INFO(bad);
    CHECK_FALSE(Refusal("--window", [&] { sim::ParseReportWindow(bad); }).empty());
  }
}

TEST_CASE("an event window resolves against the events' times, within the run",
          "[window][recovery]") {
  const std::vector<apf::Nanos> events = {270 * kS, 600 * kS};  // 4m30s, 10m
  const apf::Nanos duration = 900 * kS;
  // event 0 at 270 s: [270 + 0, 270 + 120) = [270 s, 390 s).
  const sim::ReportWindow w =
      sim::ResolveReportWindow(sim::ParseReportWindow("event:0..+2m"), events, duration);
  CHECK(w.from == 270 * kS);
  CHECK(w.to == 390 * kS);
  CHECK_FALSE(w.event.has_value());
  // event 1 at 600 s: [600 - 30, 600 + 60) = [570 s, 660 s).
  const sim::ReportWindow v =
      sim::ResolveReportWindow(sim::ParseReportWindow("event:1:-30s..+1m"), events, duration);
  CHECK(v.from == 570 * kS);
  CHECK(v.to == 660 * kS);
  // An absolute window is kept.
  CHECK(sim::ResolveReportWindow(sim::ParseReportWindow("1m..2m"), {}, duration).from == 60 * kS);
  auto refused = [&](const char* text, const std::vector<apf::Nanos>& times) {
    return Refusal("--window", [&] {
      sim::ResolveReportWindow(sim::ParseReportWindow(text), times, duration);
    });
  };
  CHECK_THAT(refused("event:2:0..1m", events),
             Catch::Contains("the scenario has 2 spec.events (0 to 1)"));
  CHECK_THAT(refused("event:0..1m", {}), Catch::Contains("has no spec.events"));
  // 600 s + 5 m = 900 s is the end itself (allowed); + 5m1s is past it.
  CHECK(refused("event:1:0..+5m", events).empty());
  CHECK_THAT(refused("event:1:0..+5m1s", events), Catch::Contains("past the end of the run"));
  // 270 s - 5 m = -30 s.
  CHECK_THAT(refused("event:0:-5m..0", events), Catch::Contains("before the start of the run"));
  CHECK_THAT(refused("0..16m", {}), Catch::Contains("past the end of the run"));
}

TEST_CASE("the bounds of --recovered-when are rejected=N and waitMax=DURATION", "[recovery]") {
  const sim::RecoveryBounds b = sim::ParseRecoveredWhen("rejected=0,waitMax=1s");
  REQUIRE(b.rejected);
  CHECK(b.rejected->value == 0);
  REQUIRE(b.wait_max_seconds);
  CHECK(b.wait_max_seconds->value == 1.0);
  CHECK(b.Describe() == "rejected<=0, waitMax<=1s");
  CHECK(sim::ParseRecoveredWhen("waitMax=250ms").Describe() == "waitMax<=250ms");
  for (const char* bad : {"", "rejected", "rejected=", "rejected=-1", "rejected=x", "waitMax=1",
                          "waitMax=-1s", "p99=1s"}) {
    INFO(bad);
    CHECK_FALSE(Refusal("--recovered-when", [&] { sim::ParseRecoveredWhen(bad); }).empty());
  }
}

TEST_CASE("a level's recovery bounds are its upper-bound expectations, else no rejection",
          "[recovery]") {
  std::vector<sim::Expectation> expect(3);
  expect[0].section = expect[1].section = expect[2].section = "priorityLevels";
  expect[0].subject = expect[1].subject = expect[2].subject = "workload-low";
  expect[0].field = "rejected.queue-full";
  expect[0].op = sim::Expectation::Op::kGt;  // how bad the incident is: not a bound
  expect[0].value = 300;
  CHECK(sim::BoundsFromExpectations(expect, "workload-low").Describe() == "rejected<=0");
  CHECK(sim::BoundsFromExpectations(expect, "workload-low").source == "default");
  expect[1].field = "rejected.time-out";
  expect[1].op = sim::Expectation::Op::kLt;
  expect[1].value = 5;
  expect[2].field = "waitSeconds.p99";
  expect[2].op = sim::Expectation::Op::kLe;
  expect[2].value = 0.5;
  const sim::RecoveryBounds b = sim::BoundsFromExpectations(expect, "workload-low");
  CHECK(b.source == "spec.expect");
  CHECK(b.Describe() == "rejected.time-out<5, waitMax<=500ms");
  CHECK(sim::BoundsFromExpectations(expect, "global-default").source == "default");
}

TEST_CASE("a level recovers at the start of the interval after its last one over the bounds",
          "[recovery]") {
  // Event at 12.5 s, 10 s intervals, until 60 s: the intervals from 10 s (the event's) to 50 s.
  sim::RecoverySpec spec;
  spec.event = 0;
  spec.at = 12500 * apf::kMillisecond;
  spec.until = 60 * kS;
  spec.until_next_event = true;
  spec.interval = 10 * kS;
  spec.bounds = sim::ParseRecoveredWhen("rejected=2,waitMax=1s");
  const std::vector<sim::Expectation> none;
  sim::RecoveryTracker t(spec, none);
  sim::LatencyHistogram slow, quick;
  slow.Add(3 * kS);
  quick.Add(100 * apf::kMillisecond);
  // "a": 5 rejections at 0 s (before the event's interval: ignored), 3 over two replicas at
  // 10 s (over 2), a quiet 20 s, a 3 s wait at 30 s (over 1 s), quiet from 40 s: it
  // recovers at 40 s, 27.5 s after the event.
  t.OnLevelRow(0, "a", Row(5, nullptr));
  t.OnLevelRow(10 * kS, "a", Row(2, nullptr));
  t.OnLevelRow(10 * kS, "a", Row(1, &quick));
  t.OnLevelRow(20 * kS, "a", Row(0, &quick));
  t.OnLevelRow(30 * kS, "a", Row(0, &slow));
  t.OnLevelRow(40 * kS, "a", Row(1, &quick));
  t.OnLevelRow(50 * kS, "a", Row(0, nullptr));
  // "b": never over: it recovers at the event itself.
  for (apf::Nanos s = 10 * kS; s < 60 * kS; s += 10 * kS) t.OnLevelRow(s, "b", Row(2, &quick));
  // "c": over in the last interval (50 s): never recovered. A row at 60 s (the next event's)
  // is not counted.
  t.OnLevelRow(50 * kS, "c", Row(3, nullptr));
  t.OnLevelRow(60 * kS, "d", Row(9, nullptr));
  const nlohmann::json j = t.Json();
  CHECK(j["atSeconds"] == 12.5);
  CHECK(j["levels"]["a"]["recoveredAtSeconds"] == 40.0);
  CHECK(j["levels"]["a"]["timeToRecoverSeconds"] == 27.5);
  CHECK(j["levels"]["b"]["recoveredAtSeconds"] == 12.5);
  CHECK(j["levels"]["b"]["timeToRecoverSeconds"] == 0.0);
  CHECK(j["levels"]["c"]["recoveredAtSeconds"].is_null());
  CHECK(j["levels"]["c"]["timeToRecoverSeconds"].is_null());
  CHECK_THAT(j["levels"]["c"]["reason"].get<std::string>(),
             Catch::Contains("before the next event (from 50 s: 3 rejected"));
  CHECK_FALSE(j["levels"].contains("d"));
}

TEST_CASE("drift-sweep-fence-midway: workload-low never rejects after the fence at 4m30s",
          "[recovery]") {
  const test_support::ScratchDir scratch("apfsim-recovery");
  sim::RunRequest request;
  request.scenario_file = Scenario("drift-sweep-fence-midway.yaml");
  request.out_dir = scratch.path().string();
  request.quiet = true;
  request.window = sim::ParseReportWindow("event:0..+2m");
  const nlohmann::json s = sim::RunScenario(request).summary;
  // The event window: spec.events[0] at 4m30s, [270 s, 390 s).
  CHECK(s["window"]["fromSeconds"] == 270.0);
  CHECK(s["window"]["toSeconds"] == 390.0);
  const nlohmann::json& r = s["recovery"];
  CHECK(r["event"] == 0);
  CHECK(r["atSeconds"] == 270.0);
  CHECK(r["untilSeconds"] == 900.0);
  // timeline.csv: the first sweep's last workload-low rejections are in [65 s, 66 s); from
  // 270 s no row of workload-low has one. Its bounds are its spec.expect upper bounds
  // (rejected.queue-full == 0 and rejected.time-out == 0 from 4m30s): recovered at the event.
  const nlohmann::json& low = r["levels"]["workload-low"];
  CHECK(low["boundsFrom"] == "spec.expect");
  CHECK(low["recoveredAtSeconds"] == 270.0);
  CHECK(low["timeToRecoverSeconds"] == 0.0);
  // tenant-sweep meets its wall in the second and third sweeps: its last time-out
  // rejections (84 on apiserver-0) are in [693 s, 694 s), so it recovers at 694 s, 424 s
  // after the event. Its expect bounds are lower bounds only: the default, no rejection.
  const nlohmann::json& fence = r["levels"]["tenant-sweep"];
  CHECK(fence["boundsFrom"] == "default");
  CHECK(fence["recoveredAtSeconds"] == 694.0);
  CHECK(fence["timeToRecoverSeconds"] == 424.0);
  CHECK(r["levels"]["global-default"]["timeToRecoverSeconds"] == 0.0);
}

TEST_CASE("drift-sweep-fence-midway with the fence during the first sweep recovers in 1 s",
          "[recovery]") {
  const test_support::ScratchDir scratch("apfsim-recovery");
  sim::RunRequest request;
  request.scenario_file = Scenario("drift-sweep-fence-midway.yaml");
  request.overrides = {"events.0.at=65s"};
  request.out_dir = scratch.path().string();
  request.quiet = true;
  const nlohmann::json s = sim::RunScenario(request).summary;
  // timeline.csv (seed 1): workload-low rejects queue-full in [61 s, 62 s) (207), ...,
  // [64 s, 65 s) (2) and [65 s, 66 s) (1, after the fence); none from 66 s. It recovers at 66 s, 1
  // s after 65 s.
  CHECK(s["recovery"]["atSeconds"] == 65.0);
  CHECK(s["recovery"]["levels"]["workload-low"]["recoveredAtSeconds"] == 66.0);
  CHECK(s["recovery"]["levels"]["workload-low"]["timeToRecoverSeconds"] == 1.0);
}

TEST_CASE("a run without events has no recovery, and refuses --recovered-when", "[recovery]") {
  const test_support::ScratchDir scratch("apfsim-recovery");
  sim::RunRequest request;
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.yaml";
  request.out_dir = scratch.path().string();
  request.quiet = true;
  CHECK_FALSE(sim::RunScenario(request).summary.contains("recovery"));
  request.recovered_when = sim::ParseRecoveredWhen("rejected=0");
  CHECK_THAT(Refusal("--recovered-when", [&] { sim::RunScenario(request); }),
             Catch::Contains("no spec.events to recover from"));
}

TEST_CASE("recovery with --recovered-from N is measured from event N until the next event",
          "[recovery]") {
  // tests/fixtures/sweep/mini-drift-events.yaml: an apply at 8 s, a restart at 12 s and a
  // resources change at 20 s, in a 30 s run. From event 1 the intervals considered are
  // [12 s, 20 s): the next event ends them.
  const test_support::ScratchDir scratch("apfsim-recovery");
  sim::RunRequest request;
  request.scenario_file =
      std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/sweep/mini-drift-events.yaml";
  request.out_dir = scratch.path().string();
  request.quiet = true;
  CHECK(sim::RunScenario(request).summary["recovery"]["event"] == 0);
  request.recovered_from = 1;
  const nlohmann::json r = sim::RunScenario(request).summary["recovery"];
  CHECK(r["event"] == 1);
  CHECK(r["atSeconds"] == 12.0);
  CHECK(r["untilSeconds"] == 20.0);
  request.recovered_from = 2;
  CHECK(sim::RunScenario(request).summary["recovery"]["untilSeconds"] == 30.0);  // the end
  request.recovered_from = 3;
  CHECK_THAT(Refusal("--recovered-from", [&] { sim::RunScenario(request); }),
             Catch::Contains("spec.events[3]: the scenario has 3 events"));
  // And a scenario without events refuses it, as it refuses --recovered-when.
  request.scenario_file = std::string(APFSIM_SOURCE_DIR) + "/tests/fixtures/report/tiny.yaml";
  request.recovered_from = 0;
  CHECK_THAT(Refusal("--recovered-from", [&] { sim::RunScenario(request); }),
             Catch::Contains("no spec.events to recover from"));
}

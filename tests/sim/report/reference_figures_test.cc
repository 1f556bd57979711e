// sim/report/reference_figures.h: a run beside the figures its incident states. The
// summaries are written here by hand, so every measured value and tolerance is the one
// computed in the comments; the figure is seed 000's "Roughly 1,400 were rejected on
// arrival" and 449, a run's count of the first sweep's distinct LISTs rejected.
#include "sim/report/reference_figures.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/report/replications.h"

namespace {

nlohmann::json Summary(double queue_full, double time_out) {
  return {{"priorityLevels",
           {{"workload-low",
             {{"nominalCL", 245},
              {"rejected",
               {{"queue-full", queue_full}, {"time-out", time_out}, {"concurrency-limit", 0}}},
              {"waitSeconds", {{"p50", 0.1}, {"p99", 2.5}, {"max", nullptr}}}}}}},
          {"clients", {{"argocd", {{"http429", 0}}}}}};
}

sim::ReferenceFigure Figure(const std::string& metric, double value, bool approx,
                            const std::string& reason = "") {
  sim::ReferenceFigure f;
  f.section = "priorityLevels";
  f.subject = "workload-low";
  f.metric = metric;
  f.value = value;
  f.approx = approx;
  f.tolerance_percent = approx ? sim::kApproxTolerancePercent : sim::kReferenceTolerancePercent;
  f.reason = reason;
  return f;
}

sim::ScenarioReference Seed000(std::vector<sim::ReferenceFigure> figures) {
  return {"seeds/000", std::move(figures)};
}

}  // namespace

TEST_CASE("a run outside a figure's tolerance gets one line with the scenario's reason",
          "[report][reference]") {
  const sim::ScenarioReference ref = Seed000(
      {Figure("rejected", 1400, true, "other service accounts keep workload-low above its floor")});
  // 440 queue-full + 9 time-out = 449; ~1,400 ± 25% is 1,050 to 1,750.
  const nlohmann::json j = sim::ReferenceJson(ref, Summary(440, 9));
  CHECK(j["figures"][0]["measured"] == 449);
  CHECK(j["figures"][0]["differs"] == true);
  const std::vector<std::string> lines = sim::ReferenceDifferences(j);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        "seeds/000 reports ~1,400 rejected in workload-low; this run 449, outside ±25%: other "
        "service accounts keep workload-low above its floor");
}

TEST_CASE("a run within a figure's tolerance gets no line", "[report][reference]") {
  // 1,100 is 21% below 1,400: within an approx figure's 25%, outside an exact one's 10%.
  const nlohmann::json approx =
      sim::ReferenceJson(Seed000({Figure("rejected", 1400, true)}), Summary(1100, 0));
  CHECK(approx["figures"][0]["differs"] == false);
  CHECK_FALSE(approx["figures"][0].contains("line"));
  CHECK(sim::ReferenceDifferences(approx).empty());
  const nlohmann::json exact =
      sim::ReferenceJson(Seed000({Figure("rejected", 1400, false)}), Summary(1100, 0));
  REQUIRE(sim::ReferenceDifferences(exact).size() == 1);
  CHECK(sim::ReferenceDifferences(exact)[0] ==
        "seeds/000 reports 1,400 rejected in workload-low; this run 1,100, outside ±10%: the "
        "scenario gives no reason");
  // The edge belongs to the tolerance: 1,260 is exactly 10% below.
  CHECK(sim::ReferenceJson(Seed000({Figure("rejected", 1400, false)}),
                           Summary(1260, 0))["figures"][0]["differs"] == false);
  // A stated 0 is met by 0 only.
  CHECK(sim::ReferenceJson(Seed000({Figure("rejected", 0, false)}),
                           Summary(0, 0))["figures"][0]["differs"] == false);
  CHECK(sim::ReferenceJson(Seed000({Figure("rejected", 0, false)}),
                           Summary(1, 0))["figures"][0]["differs"] == true);
}

TEST_CASE("a figure the run has no value of differs", "[report][reference]") {
  sim::ReferenceFigure missing = Figure("rejected", 10, false, "the level is not configured");
  missing.subject = "tenant-sweep";
  sim::ReferenceFigure null_wait = Figure("waitSeconds.max", 15, true);
  const nlohmann::json j = sim::ReferenceJson(Seed000({missing, null_wait}), Summary(0, 0));
  CHECK(j["figures"][0]["measured"].is_null());
  const std::vector<std::string> lines = sim::ReferenceDifferences(j);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "seeds/000 reports 10 rejected in tenant-sweep; this run has no value of it: the level "
        "is not configured");
  CHECK(lines[1].find("reports ~15.0 s waitSeconds.max in workload-low;") != std::string::npos);
}

TEST_CASE("over seeds a figure is judged on the seeds' mean, their range given",
          "[report][reference]") {
  const sim::ScenarioReference ref = Seed000({Figure("rejected", 1400, true, "why")});
  // 345, 449 and 582: the mean is 458.67, whole from 100: "459".
  std::vector<nlohmann::json> summaries;
  for (double rejected : {345.0, 449.0, 582.0}) {
    nlohmann::json s = Summary(rejected, 0);
    s["reference"] = sim::ReferenceJson(ref, s);
    summaries.push_back(s);
  }
  const nlohmann::json j = sim::ReferenceOverSeeds({&summaries[0], &summaries[1], &summaries[2]});
  CHECK(j["figures"][0]["seeds"] == nlohmann::json{{"n", 3}, {"min", 345}, {"max", 582}});
  REQUIRE(sim::ReferenceDifferences(j).size() == 1);
  CHECK(sim::ReferenceDifferences(j)[0] ==
        "seeds/000 reports ~1,400 rejected in workload-low; this run 459 (the mean of 3 seeds, "
        "345 to 582), outside ±25%: why");
  CHECK(sim::ReferenceOverSeeds({}).is_null());
  CHECK(sim::ReferenceJson(Seed000({}), Summary(0, 0)).is_null());
}

TEST_CASE("a windowed figure folds the rows its probes name", "[report][reference]") {
  sim::ReferenceFigure f = Figure("rejected", 1400, true);
  f.windowed = true;
  f.window_from = 60 * apf::kSecond;
  f.window_to = 120 * apf::kSecond;
  const std::vector<sim::Expectation> probes = sim::ReferenceProbes(Seed000({f}));
  // A level's "rejected" is its three reasons.
  REQUIRE(probes.size() == 3);
  CHECK(probes[0].field == "rejected.queue-full");
  CHECK(probes[2].field == "rejected.concurrency-limit");
  CHECK(probes[1].window_from == 60 * apf::kSecond);
  sim::ExpectationWindows windows(probes);
  sim::LevelRow in{}, out{};
  in.counters.rejected[0] = 400;
  in.counters.rejected[1] = 49;
  out.counters.rejected[0] = 1000;  // the interval at 2m is outside [1m, 2m)
  windows.OnLevelRow(60 * apf::kSecond, 0, "workload-low", in);
  windows.OnLevelRow(120 * apf::kSecond, 0, "workload-low", out);
  const nlohmann::json j = sim::ReferenceJson(Seed000({f}), Summary(5000, 0), &windows, 0);
  CHECK(j["figures"][0]["measured"] == 449);
  REQUIRE(sim::ReferenceDifferences(j).size() == 1);
  CHECK(sim::ReferenceDifferences(j)[0].find("rejected in workload-low in [60 s, 120 s); this "
                                             "run 449,") != std::string::npos);
}

TEST_CASE("replications.json judges the reference on the seeds' mean, not figure by figure",
          "[report][reference][replications]") {
  const sim::ScenarioReference ref = Seed000({Figure("nominalCL", 200, false, "why")});
  std::vector<nlohmann::json> summaries;
  for (std::uint64_t seed : {1, 2}) {
    nlohmann::json s = Summary(0, 0);
    s["scenario"] = "drift-sweep";
    s["seed"] = seed;
    s["reference"] = sim::ReferenceJson(ref, s);
    summaries.push_back(s);
  }
  const nlohmann::json r = sim::ReplicationsJson(summaries, {1, 2});
  // nominalCL is 245 in both seeds: 22.5% above 200, outside 10%.
  CHECK(r["reference"]["figures"][0]["measured"] == 245);
  REQUIRE(sim::ReferenceDifferences(r["reference"]).size() == 1);
  CHECK(sim::ReferenceDifferences(r["reference"])[0] ==
        "seeds/000 reports 200 nominalCL in workload-low; this run 245 (in each of 2 seeds), "
        "outside ±10%: why");
}

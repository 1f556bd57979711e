#include "sim/run_scenario.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "sim/duration.h"
#include "sim/expectations.h"
#include "sim/overlay.h"
#include "sim/run_report.h"
#include "sim/scenario_flowcontrol.h"
#include "sim/scenario_loader.h"
#include "sim/world.h"

namespace sim {

RunOutcome RunScenario(const RunRequest& request) {
  std::vector<std::string> overrides = request.overrides;
  FlowControlManifests overlay_manifests;
  for (const std::string& file : request.overlay_files) {
    Overlay overlay = LoadOverlay(file);
    overrides.insert(overrides.end(), overlay.sets.begin(), overlay.sets.end());
    overlay_manifests.Append(std::move(overlay.manifests));
  }
  Scenario scenario = LoadScenario(request.scenario_file, overrides);
  if (request.seed) scenario.seed = *request.seed;
  if (request.interval) {
    std::string why;
    auto interval = ParseDuration(*request.interval, &why);
    if (!interval || *interval < apf::kMillisecond) {
      throw InputError({"--interval", 0, 0}, "", interval ? "must be at least 1ms" : why);
    }
    scenario.interval = *interval;
  }
  const FlowControlSetup flow_control = BuildScenarioFlowControl(scenario, &overlay_manifests);
  CheckExpectationLevels(scenario, flow_control.config);

  RunOutcome outcome;
  outcome.out_dir = request.out_dir.empty() ? "out/" + scenario.name : request.out_dir;
  RunReport report(scenario, outcome.out_dir, request.write_timelines);
  ExpectationWindows windows(scenario.expectations);
  report.set_forward(&windows);
  WorldOptions options;
  options.trace = request.trace;
  if (!request.trace.empty()) report.EnableTrace();
  const auto wall_start = std::chrono::steady_clock::now();
  bool showed_progress = false;
  if (request.progress) {
    options.progress = [&](apf::Nanos now) {
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      if (wall > 1.0) {
        std::fprintf(stderr, "\r%s: %s of %s simulated (%.0f%%)", scenario.name.c_str(),
                     FormatDuration(now).c_str(), FormatDuration(scenario.duration).c_str(),
                     100.0 * static_cast<double>(now) / static_cast<double>(scenario.duration));
        showed_progress = true;
      }
      return true;
    };
  }
  World world(scenario, &flow_control.config, options, &report);
  report.set_world(&world);
  world.Run();
  if (showed_progress) std::fprintf(stderr, "\r\033[K");
  report.Commit();
  outcome.summary = report.Summary();
  outcome.scenario_name = scenario.name;
  outcome.expectations = EvaluateExpectations(scenario.expectations, outcome.summary, &windows);
  outcome.table = RunReport::SummaryTable(outcome.summary, !request.quiet && ::isatty(1));
  return outcome;
}

}  // namespace sim

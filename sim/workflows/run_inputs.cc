#include "sim/workflows/run_inputs.h"

#include <cstdio>
#include <utility>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/scenario/expectation_paths.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/overlay.h"

namespace sim {
namespace {

std::vector<std::string> InertInputWarnings(const ResolvedRun& run,
                                            const FlowControlManifests& overlay_manifests) {
  std::vector<std::string> warnings;
  const Scenario& s = run.scenario;
  for (std::size_t c = 0; c < s.clients.size(); ++c) {
    for (std::size_t t = 0; t < s.clients[c].traffic.size(); ++t) {
      const TrafficSpec& traffic = s.clients[c].traffic[t];
      if (traffic.kind != TrafficSpec::Kind::kTrace && traffic.start >= s.duration) {
        warnings.push_back(FormatInputError(
            traffic.where,
            "spec.clients[" + std::to_string(c) + "].traffic[" + std::to_string(t) + "]",
            "warning: starts at " + FormatDuration(traffic.start) +
                ", at or after the run's end (" + FormatDuration(s.duration) +
                "): it sends no call in this run"));
      }
    }
  }
  for (std::size_t m = 0; m < s.marks.size(); ++m) {
    if (s.marks[m].at > s.duration) {
      warnings.push_back(
          FormatInputError(s.marks[m].where, "spec.marks[" + std::to_string(m) + "].at",
                           "warning: at " + FormatDuration(s.marks[m].at) +
                               ", after the run's end (" + FormatDuration(s.duration) +
                               "): it marks nothing in this run and is left out of its outputs"));
    }
  }
  // With APF off the MaxInFlight filter takes no FlowSchema or priority level: the
  // apiserver stores the objects an apply or delete changes, and no filter reads them.
  if (!s.apiservers.enable_priority_and_fairness) {
    for (std::size_t e = 0; e < s.events.size(); ++e) {
      if (!s.events[e].changes_flow_control()) continue;
      warnings.push_back(FormatInputError(
          s.events[e].where, "spec.events[" + std::to_string(e) + "]." + s.events[e].action,
          "warning: has no effect in this run: apiservers.enablePriorityAndFairness is false, "
          "and the MaxInFlight filter classifies nothing (the objects are stored, and used "
          "once APF is on)"));
    }
  }
  if (!run.flow_control.config.dangling_flow_schemas.empty()) {
    FlowControlManifests manifests = ScenarioManifests(s);
    FlowControlManifests overlays = overlay_manifests;
    manifests.Append(std::move(overlays));
    for (const std::string& name : run.flow_control.config.dangling_flow_schemas) {
      std::string level;
      for (const auto& fs : run.flow_control.objects.flow_schemas) {
        if (fs.metadata.name == name) level = fs.spec.priority_level_name;
      }
      const std::string field = "spec.priorityLevelConfiguration.name";
      const ManifestSource* source = manifests.FindSource("FlowSchema", name);
      warnings.push_back(FormatInputError(
          source ? source->LocationOf(field) : SourceLocation{s.file, 0, 0}, field,
          "warning: FlowSchema \"" + name + "\" names the priority level \"" + level +
              "\", which does not exist: the apiserver marks it Dangling and skips it, so it "
              "matches no request in this run (apfsim lint says more)"));
    }
  }
  return warnings;
}

}  // namespace

ResolvedRun ResolveRunInputs(const RunInputs& inputs) {
  std::vector<std::string> overrides = inputs.overrides;
  FlowControlManifests overlay_manifests;
  // Where each overlay `set` value came from, so that an error in one is blamed on it.
  std::vector<std::pair<std::string, SourceLocation>> overlay_sets;
  for (const std::string& file : inputs.overlay_files) {
    Overlay overlay = LoadOverlay(file);
    overrides.insert(overrides.end(), overlay.sets.begin(), overlay.sets.end());
    for (std::size_t i = 0; i < overlay.sets.size(); ++i) {
      overlay_sets.emplace_back(overlay.sets[i], overlay.set_where[i]);
    }
    overlay_manifests.Append(std::move(overlay.manifests));
  }
  ResolvedRun run;
  try {
    run.scenario = LoadScenario(inputs.scenario_file, overrides);
  } catch (const InputError& e) {
    // An override's error names the --set text, or the field it set in the scenario (on no
    // line of it); one that an overlay's `set` made is the overlay's.
    if (e.where().line == 0) {
      for (const auto& [text, where] : overlay_sets) {
        const std::string field = "spec." + text.substr(0, text.find('='));
        const std::string& f = e.field_path();
        if (f == text || f == field || f.rfind(field + ".", 0) == 0 ||
            f.rfind(field + "[", 0) == 0) {
          throw InputError(where, f, e.message() + " (set by this overlay)");
        }
      }
    }
    throw;
  }
  run.sets = overrides;
  if (inputs.seed) run.scenario.seed = *inputs.seed;
  if (inputs.interval) {
    std::string why;
    auto interval = ParseDuration(*inputs.interval, &why);
    if (!interval || *interval < apf::kMillisecond) {
      throw InputError({"--interval", 0, 0}, "", interval ? "must be at least 1ms" : why);
    }
    run.scenario.interval = *interval;
  }
  run.flow_control = BuildScenarioFlowControl(run.scenario, &overlay_manifests);
  CheckExpectationLevels(run.scenario, run.flow_control.config, run.flow_control.event_configs);
  run.warnings = InertInputWarnings(run, overlay_manifests);
  run.warnings.insert(run.warnings.end(), run.flow_control.reset_warnings.begin(),
                      run.flow_control.reset_warnings.end());
  std::erase_if(run.scenario.marks, [&](const Mark& m) { return m.at > run.scenario.duration; });
  return run;
}

void PrintRunWarnings(const ResolvedRun& run, std::set<std::string>* shown) {
  for (const std::string& w : run.warnings) {
    if (shown->insert(w).second) std::fprintf(stderr, "%s\n", w.c_str());
  }
}

}  // namespace sim

#include "sim/workflows/check.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include "sim/io/input_error.h"
#include "sim/io/output_set.h"
#include "sim/io/yaml_input.h"
#include "sim/workflows/replicate.h"
#include "sim/workflows/run.h"
#include "sim/workflows/run_inputs.h"

namespace sim {
namespace {

// Flow-control manifests (FlowSchemas, PriorityLevelConfigurations, a kubectl List of
// them) that scenarios reference by file often sit next to them, so `apfsim check
// scenarios/*.yaml` passes them over, saying so; anything else must be a Scenario.
bool IsFlowControlManifest(const std::string& file) {
  const std::vector<YAML::Node> docs = LoadYamlFile(file);
  if (docs.empty()) return false;
  for (const YAML::Node& doc : docs) {
    if (!doc.IsMap() || !doc["apiVersion"] || !doc["apiVersion"].IsScalar()) return false;
    const std::string api_version = doc["apiVersion"].Scalar();
    const bool list = api_version == "v1" && doc["kind"] && doc["kind"].IsScalar() &&
                      doc["kind"].Scalar() == "List";
    if (!list && api_version.rfind("flowcontrol.apiserver.k8s.io/", 0) != 0) return false;
  }
  return true;
}

// The scenario's name is known only once it is loaded; the file's stem stands in for it
// (in --out, and for a scenario that fails to load), as two scenarios in one check are told
// apart by their files.
std::string FileStem(const std::string& file) {
  const std::string base = file.substr(file.find_last_of('/') + 1);
  return base.substr(0, base.find_last_of('.'));
}

// Runs one scenario (on every seed of --seeds) and gathers its verdicts.
void RunChecks(const CheckRequest& checking, const std::string& label, ScenarioCheck& check) {
  RunRequest request;
  request.scenario_file = check.file;
  request.overrides = checking.overrides;
  request.overlay_files = checking.overlay_files;
  request.seed = checking.seed;
  request.quiet = true;
  request.budget = checking.budget;
  if (!checking.out.empty()) request.out_dir = checking.out + "/" + FileStem(check.file);
  const ResolvedRun resolved = ResolveRunInputs(request);
  check.name = resolved.scenario.name;
  if (!checking.quiet) {
    std::set<std::string> shown;
    PrintRunWarnings(resolved, &shown);
  }
  // The live line is cleared (the meter goes out of scope) before the verdicts.
  ProgressMeter progress(checking.progress, checking.quiet, label + check.name);
  if (progress.shown()) request.progress = &progress;
  if (checking.seeds.empty()) {
    check.results = RunScenario(resolved, request).expectations;
    return;
  }
  const ReplicationsOutcome outcome =
      RunReplications(resolved, request, checking.seeds, checking.jobs);
  std::vector<std::vector<ExpectationResult>> per_seed;
  for (const RunOutcome& run : outcome.runs) per_seed.push_back(run.expectations);
  check.results = CombineSeedVerdicts(per_seed, checking.seeds);
}

// An input error is this scenario's JUnit <error>; the other scenarios are still checked,
// and the exit code still says bad input.
void RecordError(const InputError& e, ScenarioCheck& check) {
  if (check.name.empty()) check.name = FileStem(check.file);
  check.error = e.what();
  std::error_code ignored;
  if (!e.where().file.empty() && std::filesystem::is_regular_file(e.where().file, ignored)) {
    check.error_file = e.where().file;
    check.error_line = e.where().line;
  }
  std::cerr << "apfsim check: error: " << e.what() << "\n";
}

}  // namespace

std::vector<ScenarioCheck> CheckScenarios(const CheckRequest& given) {
  // --out is one output set, a folder per scenario file: a check stopped between two
  // scenarios or seeds leaves the previous set whole. A scenario that fails to load still
  // counts; its folder is simply not in the new set.
  CheckRequest request = given;
  std::optional<OutputSet> set;
  if (!given.out.empty()) {
    std::vector<std::string> owned;
    for (const std::string& file : given.files) owned.push_back(FileStem(file));
    set.emplace(given.out, std::move(owned));
    request.out = set->staging_dir();
  }
  std::vector<ScenarioCheck> checks;
  for (const std::string& file : request.files) {
    ScenarioCheck check;
    check.file = file;
    const auto wall_start = std::chrono::steady_clock::now();
    try {
      if (IsFlowControlManifest(file)) {
        if (request.on_skipped) request.on_skipped(file);
        continue;
      }
      RunChecks(request, fmt::format("check {} of {}: ", checks.size() + 1, request.files.size()),
                check);
    } catch (const InputError& e) {
      RecordError(e, check);
    }
    check.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (request.on_checked) request.on_checked(check);
    checks.push_back(std::move(check));
  }
  if (set) set->Commit();
  return checks;
}

}  // namespace sim

// `apfsim check SCENARIO... [--junit FILE] [--out DIR] [--seed N | --seeds LIST] [--overlay F]`:
// runs each scenario and verifies its `spec.expect` assertions (sim/report/expectations.h),
// printing each as passed or failed with the value measured; with --seeds each scenario runs on
// every seed and an assertion's verdict is reached over them (CombineSeedVerdicts). Exit 1 when any
// failed, 2 on bad input. A scenario that fails to load or to run is reported and the others are
// still checked. --junit writes the verdicts as JUnit XML, whole or not at all, so that CI systems
// show one test per assertion and one error per scenario not checked.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/run_options.h"
#include "sim/io/input_error.h"
#include "sim/io/output_file.h"
#include "sim/io/terminal.h"
#include "sim/io/yaml_input.h"
#include "sim/report/junit.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/replicate.h"
#include "sim/workflows/run.h"
#include "sim/workflows/run_inputs.h"

namespace po = boost::program_options;

namespace sim::cli {
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

int RunCheck(const Args& args) {
  po::options_description options("apfsim check options");
  std::vector<std::string> scenarios, sets, overlays;
  std::string junit, out_dir;
  bool quiet = false;
  options.add_options()("scenario", po::value(&scenarios)->composing(), "scenario files")(
      "junit", po::value(&junit), "write the verdicts as JUnit XML to this file")(
      "out", po::value(&out_dir),
      "folder for the runs' outputs, one subfolder per scenario "
      "(default out/<scenario name>)")("seed", po::value<std::uint64_t>(),
                                       "override every scenario's seed")(
      "set", po::value(&sets)->composing(), "override a scenario value: PATH=VALUE (repeatable)")(
      "overlay", po::value(&overlays)->composing(),
      "apply this overlay to every scenario: flow-control manifests and/or an Overlay "
      "document (repeatable), e.g. to confirm apfsim tune's fix.yaml on other seeds")(
      "quiet", po::bool_switch(&quiet), "print only failed assertions and the totals");
  AddRunBudgetOptions(options);
  AddSeedsOptions(options, true);
  AddProgressOption(options);
  po::positional_options_description positional;
  positional.add("scenario", -1);
  po::variables_map values;
  if (!ParseCommandLine(
          args, "apfsim check SCENARIO... [options]", options, &positional, values,
          "apfsim check scenarios/drift-sweep.yaml\n"
          "apfsim check scenarios/*.yaml --quiet --junit check.xml --progress always")) {
    return kExitOk;
  }
  if (scenarios.empty()) throw po::error("at least one scenario file is required");
  const bool colour = !quiet && ColourWanted(1);
  const ProgressMode progress_mode = ProgressModeFrom(values);
  auto paint = [&](const char* code, const std::string& t) {
    return colour ? std::string("\033[") + code + "m" + t + "\033[0m" : t;
  };

  const RunBudget budget = RunBudgetFrom(values);
  const SeedsOptions seeds = SeedsOptionsFrom(values);
  const InterruptGuard interrupt_guard;
  std::vector<ScenarioCheck> checks;
  int passed_total = 0, failed_total = 0, errors_total = 0;
  int checked = 0;
  for (const std::string& file : scenarios) {
    // The scenario's name is known only once it is loaded; the file's stem stands in for
    // it (in --out, and for a scenario that fails to load), as two scenarios in one check
    // are told apart by their files.
    std::string stem = file.substr(file.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find_last_of('.'));
    ScenarioCheck check;
    check.file = file;
    const auto wall_start = std::chrono::steady_clock::now();
    try {
      if (IsFlowControlManifest(file)) {
        if (!quiet) {
          std::cout << file << ": skipped, a flow-control manifest and not a Scenario\n\n";
        }
        continue;
      }
      RunRequest request;
      request.scenario_file = file;
      request.overrides = sets;
      request.overlay_files = overlays;
      if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
      request.quiet = true;
      request.budget = budget;
      if (!out_dir.empty()) request.out_dir = out_dir + "/" + stem;
      const ResolvedRun resolved = ResolveRunInputs(request);
      check.name = resolved.scenario.name;
      // The live line is cleared (the meter goes out of scope) before the verdicts.
      ProgressMeter progress(
          progress_mode, quiet,
          fmt::format("check {} of {}: {}", checked + 1, scenarios.size(), check.name));
      if (progress.shown()) request.progress = &progress;
      if (seeds.seeds.empty()) {
        check.results = RunScenario(resolved, request).expectations;
      } else {
        const ReplicationsOutcome outcome =
            RunReplications(resolved, request, seeds.seeds, seeds.jobs);
        std::vector<std::vector<ExpectationResult>> per_seed;
        for (const RunOutcome& run : outcome.runs) per_seed.push_back(run.expectations);
        check.results = CombineSeedVerdicts(per_seed, seeds.seeds);
      }
    } catch (const InputError& e) {
      // Reported as this scenario's JUnit <error>; the other scenarios are still checked,
      // and the exit code still says bad input.
      if (check.name.empty()) check.name = stem;
      check.error = e.what();
      std::error_code ignored;
      if (!e.where().file.empty() && std::filesystem::is_regular_file(e.where().file, ignored)) {
        check.error_file = e.where().file;
        check.error_line = e.where().line;
      }
      std::cerr << "apfsim check: error: " << e.what() << "\n";
    }
    ++checked;
    check.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    std::cout << check.name << " (" << file << ")\n";
    if (check.error) {
      std::cout << "  " << paint("31", "ERROR") << "  could not be checked: " << *check.error
                << "\n";
      std::cout << check.name << ": not checked\n\n";
      ++errors_total;
      checks.push_back(std::move(check));
      continue;
    }
    int passed = 0, failed = 0;
    for (const ExpectationResult& r : check.results) {
      (r.passed ? passed : failed) += 1;
      if (quiet && r.passed) continue;
      const Expectation& e = r.expectation;
      std::cout << "  " << (r.passed ? paint("32", "PASS") : paint("31", "FAIL")) << "  "
                << DescribeExpectation(e) << ": measured " << FormatMeasured(r.measured);
      if (!r.seeds.empty()) std::cout << " (" << DescribeSeedVerdict(r) << ")";
      if (!e.description.empty()) std::cout << "  (" << e.description << ")";
      if (!r.passed) std::cout << "  [" << file << ":" << e.where.line << "]";
      std::cout << "\n";
    }
    if (check.results.empty()) std::cout << "  no expectations (spec.expect is empty)\n";
    std::cout << check.name << ": " << passed << " passed, " << failed << " failed\n\n";
    passed_total += passed;
    failed_total += failed;
    checks.push_back(std::move(check));
  }
  if (checked > 1) {
    std::cout << "total: " << passed_total << " passed, " << failed_total << " failed";
    if (errors_total > 0) std::cout << ", " << errors_total << " not checked (errors)";
    std::cout << " in " << checked << " scenarios\n";
  }
  if (!junit.empty()) WriteOutputFile(junit, JunitXml(checks));
  if (errors_total > 0) return kExitBadInput;
  return failed_total > 0 ? kExitExpectationFailed : kExitOk;
}

const Registration kCheck(
    {"", "check", "run scenarios and verify their spec.expect assertions (JUnit XML for CI)",
     RunCheck});

}  // namespace
}  // namespace sim::cli

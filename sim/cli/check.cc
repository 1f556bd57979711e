// `apfsim check SCENARIO... [--junit FILE] [--out DIR] [--seed N]`: runs each scenario and
// verifies its `spec.expect` assertions (sim/report/expectations.h), printing each as passed or
// failed with the value measured. Exit 1 when any failed, 2 on bad input. --junit writes
// the verdicts as JUnit XML, whole or not at all, so that CI systems show one test per
// assertion.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/run_options.h"
#include "sim/io/output_file.h"
#include "sim/io/terminal.h"
#include "sim/io/yaml_input.h"
#include "sim/report/junit.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/run.h"

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
  std::vector<std::string> scenarios, sets;
  std::string junit, out_dir;
  bool quiet = false;
  options.add_options()("scenario", po::value(&scenarios)->composing(), "scenario files")(
      "junit", po::value(&junit), "write the verdicts as JUnit XML to this file")(
      "out", po::value(&out_dir),
      "folder for the runs' outputs, one subfolder per scenario "
      "(default out/<scenario name>)")("seed", po::value<std::uint64_t>(),
                                       "override every scenario's seed")(
      "set", po::value(&sets)->composing(), "override a scenario value: PATH=VALUE (repeatable)")(
      "quiet", po::bool_switch(&quiet), "print only failed assertions and the totals");
  AddRunBudgetOptions(options);
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
  const InterruptGuard interrupt_guard;
  std::vector<ScenarioCheck> checks;
  int passed_total = 0, failed_total = 0;
  int checked = 0;
  for (const std::string& file : scenarios) {
    if (IsFlowControlManifest(file)) {
      if (!quiet) std::cout << file << ": skipped, a flow-control manifest and not a Scenario\n\n";
      continue;
    }
    ++checked;
    RunRequest request;
    request.scenario_file = file;
    request.overrides = sets;
    if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
    request.quiet = true;
    request.budget = budget;
    if (!out_dir.empty()) {
      // The scenario's name is known only once it is loaded; the file's stem stands in
      // for it, as two scenarios in one check are told apart by their files.
      std::string stem = file.substr(file.find_last_of('/') + 1);
      stem = stem.substr(0, stem.find_last_of('.'));
      request.out_dir = out_dir + "/" + stem;
    }
    const auto wall_start = std::chrono::steady_clock::now();
    const ResolvedRun resolved = ResolveRunInputs(request);
    RunOutcome outcome;
    {
      ProgressMeter progress(
          progress_mode, quiet,
          fmt::format("check {} of {}: {}", checked, scenarios.size(), resolved.scenario.name));
      if (progress.shown()) request.progress = &progress;
      outcome = RunScenario(resolved, request);
    }  // the live line is cleared before the verdicts
    ScenarioCheck check;
    check.name = outcome.scenario_name;
    check.file = file;
    check.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    check.results = std::move(outcome.expectations);
    int passed = 0, failed = 0;
    std::cout << check.name << " (" << file << ")\n";
    for (const ExpectationResult& r : check.results) {
      (r.passed ? passed : failed) += 1;
      if (quiet && r.passed) continue;
      const Expectation& e = r.expectation;
      std::cout << "  " << (r.passed ? paint("32", "PASS") : paint("31", "FAIL")) << "  "
                << DescribeExpectation(e) << ": measured " << FormatMeasured(r.measured);
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
    std::cout << "total: " << passed_total << " passed, " << failed_total << " failed in "
              << checked << " scenarios\n";
  }
  if (!junit.empty()) WriteOutputFile(junit, JunitXml(checks));
  return failed_total > 0 ? kExitExpectationFailed : kExitOk;
}

const Registration kCheck(
    {"", "check", "run scenarios and verify their spec.expect assertions (JUnit XML for CI)",
     RunCheck});

}  // namespace
}  // namespace sim::cli

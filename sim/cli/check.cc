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
#include "sim/cli/flags.h"
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

// The scenario's name is known only once it is loaded; the file's stem stands in for it
// (in --out, and for a scenario that fails to load), as two scenarios in one check are told
// apart by their files.
std::string FileStem(const std::string& file) {
  const std::string base = file.substr(file.find_last_of('/') + 1);
  return base.substr(0, base.find_last_of('.'));
}

// Runs one scenario (on every seed of --seeds) and gathers its verdicts.
void RunChecks(const ScenarioFlags& flags, const std::string& label, ScenarioCheck& check) {
  RunRequest request;
  request.scenario_file = check.file;
  request.overrides = flags.sets;
  request.overlay_files = flags.overlays;
  request.seed = flags.seed;
  request.quiet = true;
  request.budget = flags.budget;
  if (!flags.out.empty()) request.out_dir = flags.out + "/" + FileStem(check.file);
  const ResolvedRun resolved = ResolveRunInputs(request);
  check.name = resolved.scenario.name;
  // The live line is cleared (the meter goes out of scope) before the verdicts.
  ProgressMeter progress(flags.progress, flags.quiet, label + check.name);
  if (progress.shown()) request.progress = &progress;
  if (flags.seeds.empty()) {
    check.results = RunScenario(resolved, request).expectations;
    return;
  }
  const ReplicationsOutcome outcome = RunReplications(resolved, request, flags.seeds, flags.jobs);
  std::vector<std::vector<ExpectationResult>> per_seed;
  for (const RunOutcome& run : outcome.runs) per_seed.push_back(run.expectations);
  check.results = CombineSeedVerdicts(per_seed, flags.seeds);
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

struct Totals {
  int passed = 0, failed = 0, errors = 0, checked = 0;
};

// Prints one scenario's verdicts (only the failed ones with --quiet) and counts them.
void PrintVerdicts(const ScenarioCheck& check, bool quiet, bool colour, Totals& totals) {
  auto paint = [&](const char* code, const std::string& t) {
    return colour ? std::string("\033[") + code + "m" + t + "\033[0m" : t;
  };
  std::cout << check.name << " (" << check.file << ")\n";
  if (check.error) {
    std::cout << "  " << paint("31", "ERROR") << "  could not be checked: " << *check.error << "\n"
              << check.name << ": not checked\n\n";
    ++totals.errors;
    return;
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
    if (!r.passed) std::cout << "  [" << check.file << ":" << e.where.line << "]";
    std::cout << "\n";
  }
  if (check.results.empty()) std::cout << "  no expectations (spec.expect is empty)\n";
  std::cout << check.name << ": " << passed << " passed, " << failed << " failed\n\n";
  totals.passed += passed;
  totals.failed += failed;
}

void PrintTotals(const Totals& totals) {
  if (totals.checked <= 1) return;
  std::cout << "total: " << totals.passed << " passed, " << totals.failed << " failed";
  if (totals.errors > 0) std::cout << ", " << totals.errors << " not checked (errors)";
  std::cout << " in " << totals.checked << " scenarios\n";
}

int RunCheck(const Args& args) {
  po::options_description options("apfsim check options");
  AddTableFlags("check", options);
  po::positional_options_description positional;
  positional.add("scenario", -1);
  po::variables_map values;
  if (!ParseCommandLine(
          args, "apfsim check SCENARIO... [options]", options, &positional, values,
          "apfsim check scenarios/drift-sweep.yaml\n"
          "apfsim check scenarios/*.yaml --quiet --junit check.xml --progress always")) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  if (flags.scenarios.empty()) throw po::error("at least one scenario file is required");
  const bool colour = !flags.quiet && ColourWanted(1);
  const InterruptGuard interrupt_guard;
  std::vector<ScenarioCheck> checks;
  Totals totals;
  for (const std::string& file : flags.scenarios) {
    ScenarioCheck check;
    check.file = file;
    const auto wall_start = std::chrono::steady_clock::now();
    try {
      if (IsFlowControlManifest(file)) {
        if (!flags.quiet) {
          std::cout << file << ": skipped, a flow-control manifest and not a Scenario\n\n";
        }
        continue;
      }
      RunChecks(flags, fmt::format("check {} of {}: ", totals.checked + 1, flags.scenarios.size()),
                check);
    } catch (const InputError& e) {
      RecordError(e, check);
    }
    ++totals.checked;
    check.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    PrintVerdicts(check, flags.quiet, colour, totals);
    checks.push_back(std::move(check));
  }
  PrintTotals(totals);
  if (values.count("junit")) WriteOutputFile(values["junit"].as<std::string>(), JunitXml(checks));
  if (totals.errors > 0) return kExitBadInput;
  return totals.failed > 0 ? kExitExpectationFailed : kExitOk;
}

const Registration kCheck(
    {"", "check", "run scenarios and verify their spec.expect assertions (JUnit XML for CI)",
     RunCheck});

}  // namespace
}  // namespace sim::cli

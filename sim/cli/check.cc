// `apfsim check SCENARIO... [--junit FILE] [--out DIR] [--seed N | --seeds LIST] [--overlay F]`:
// runs each scenario and verifies its `spec.expect` assertions (sim/workflows/check.h),
// printing each as passed or failed with the value measured; with --seeds an assertion's
// verdict is reached over the seeds. Exit 1 when any failed, 2 on bad input. --junit writes
// the verdicts as JUnit XML, whole or not at all, so that CI systems show one test per
// assertion and one error per scenario not checked.
#include "sim/workflows/check.h"

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/output_file.h"
#include "sim/io/terminal.h"
#include "sim/report/check_text.h"
#include "sim/workflows/interrupt.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunCheck(const Args& args) {
  po::variables_map values;
  if (!ParseTableCommand(
          args, "check", "apfsim check SCENARIO... [options]",
          "apfsim check scenarios/drift-sweep.yaml\n"
          "apfsim check scenarios/*.yaml --quiet --junit check.xml --progress always",
          values, -1)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  if (flags.scenarios.empty()) throw po::error("at least one scenario file is required");
  const bool colour = !flags.quiet && ColourWanted(1);
  CheckTotals totals;
  CheckRequest request;
  FillRequest(flags, request);
  request.files = flags.scenarios;
  request.out = flags.out;
  request.on_checked = [&](const ScenarioCheck& check) {
    std::cout << CheckVerdictsText(check, flags.quiet, colour, totals) << std::flush;
  };
  request.on_skipped = [&](const std::string& file) {
    if (!flags.quiet)
      std::cout << file << ": skipped, a flow-control manifest and not a Scenario\n\n";
  };
  const InterruptGuard interrupt_guard;
  const std::vector<ScenarioCheck> checks = CheckScenarios(request);
  std::cout << CheckTotalsText(totals);
  if (values.count("junit")) WriteOutputFile(values["junit"].as<std::string>(), JunitXml(checks));
  if (totals.errors > 0) return kExitBadInput;
  return totals.failed > 0 ? kExitExpectationFailed : kExitOk;
}

const Registration kCheck(
    {"", "check", "run scenarios and verify their spec.expect assertions (JUnit XML for CI)",
     RunCheck});

}  // namespace
}  // namespace sim::cli

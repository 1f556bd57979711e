// `apfsim run SCENARIO`: replays a scenario and writes its outputs (sim/report/run_report.h).
#include "sim/workflows/run.h"

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/replicate.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunRun(const Args& args) {
  po::variables_map values;
  if (!ParseTableCommand(
          args, "run", "apfsim run SCENARIO [options]",
          "apfsim run scenarios/drift-sweep.yaml\n"
          "apfsim run scenarios/drift-sweep.yaml --out out/ds-300 \\\n"
          "    --set flowControl.priorityLevels.workload-low.nominalConcurrencyShares=300\n"
          "apfsim run scenarios/drift-sweep.yaml --trace tenant-operator --progress always",
          values)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  RunRequest request;
  FillRequest(flags, request);
  if (values.count("trace")) request.trace = values["trace"].as<std::string>();
  const InterruptGuard interrupt_guard;
  const ResolvedRun resolved = ResolveRunInputs(request);
  // The live line is cleared (the meter goes out of scope) before the table.
  ProgressMeter progress(flags.progress, request.quiet, resolved.scenario.name);
  if (progress.shown()) request.progress = &progress;
  if (!flags.seeds.empty()) {
    const ReplicationsOutcome outcome = RunReplications(resolved, request, flags.seeds, flags.jobs);
    progress.Clear();
    if (!request.quiet) {
      std::cout << outcome.table << "\noutputs in " << outcome.out_dir
                << "/ (seed-N/ per seed, replications.json)\n";
    }
    return kExitOk;
  }
  const RunOutcome outcome = RunScenario(resolved, request);
  progress.Clear();
  if (!request.quiet) std::cout << outcome.table << "\noutputs in " << outcome.out_dir << "/\n";
  return kExitOk;
}

const Registration kRun({"", "run", "replay a scenario and write its timelines and summary",
                         RunRun});

}  // namespace
}  // namespace sim::cli

// `apfsim run SCENARIO`: replays a scenario and writes its outputs (sim/report/run_report.h).
#include "sim/workflows/run.h"

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/openmetrics_options.h"
#include "sim/cli/run_options.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/replicate.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunRun(const Args& args) {
  po::options_description options("apfsim run options");
  RunRequest request;
  std::vector<std::string> sets;
  options.add_options()("scenario", po::value(&request.scenario_file)->required(),
                        "the scenario file (- reads standard input)")(
      "out", po::value(&request.out_dir), "output folder (default out/<scenario name>)")(
      "seed", po::value<std::uint64_t>(), "override the scenario's seed")(
      "set", po::value(&sets)->composing(), "override a scenario value: PATH=VALUE (repeatable)")(
      "overlay", po::value(&request.overlay_files)->composing(),
      "apply this overlay: flow-control manifests and/or an Overlay document of --set values "
      "(repeatable; scenarios/README.md), e.g. a fix written by apfsim tune")(
      "interval", po::value<std::string>(), "report interval, e.g. 1s (default: the scenario's)")(
      "trace", po::value(&request.trace), "write trace.jsonl for this client or priority level")(
      "window", po::value<std::string>(),
      "also give every figure over this part of the run, e.g. 6m..8m (summary.json's "
      "\"window\"; the tables show it)")("quiet", po::bool_switch(&request.quiet),
                                         "print nothing but errors");
  AddRunBudgetOptions(options);
  AddOpenMetricsOptions(options);
  AddSeedsOptions(options, true);
  AddProgressOption(options);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map values;
  if (!ParseCommandLine(
          args, "apfsim run SCENARIO [options]", options, &positional, values,
          "apfsim run scenarios/drift-sweep.yaml\n"
          "apfsim run scenarios/drift-sweep.yaml --out out/ds-300 \\\n"
          "    --set flowControl.priorityLevels.workload-low.nominalConcurrencyShares=300\n"
          "apfsim run scenarios/drift-sweep.yaml --trace tenant-operator --progress always")) {
    return kExitOk;
  }
  request.overrides = sets;
  if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
  if (values.count("interval")) request.interval = values["interval"].as<std::string>();
  if (values.count("window"))
    request.window = ParseReportWindow(values["window"].as<std::string>());
  request.budget = RunBudgetFrom(values);
  request.openmetrics = OpenMetricsFrom(values);
  const ProgressMode progress_mode = ProgressModeFrom(values);
  const SeedsOptions seeds = SeedsOptionsFrom(values);
  const InterruptGuard interrupt_guard;
  const ResolvedRun resolved = ResolveRunInputs(request);
  if (!seeds.seeds.empty()) {
    ReplicationsOutcome outcome;
    {
      ProgressMeter progress(progress_mode, request.quiet, resolved.scenario.name);
      if (progress.shown()) request.progress = &progress;
      outcome = RunReplications(resolved, request, seeds.seeds, seeds.jobs);
    }  // the live line is cleared before the table
    if (!request.quiet) {
      std::cout << outcome.table << "\noutputs in " << outcome.out_dir
                << "/ (seed-N/ per seed, replications.json)\n";
    }
    return kExitOk;
  }
  RunOutcome outcome;
  {
    ProgressMeter progress(progress_mode, request.quiet, resolved.scenario.name);
    if (progress.shown()) request.progress = &progress;
    outcome = RunScenario(resolved, request);
  }  // the live line is cleared before the table
  if (!request.quiet) {
    std::cout << outcome.table << "\noutputs in " << outcome.out_dir << "/\n";
  }
  return kExitOk;
}

const Registration kRun({"", "run", "replay a scenario and write its timelines and summary",
                         RunRun});

}  // namespace
}  // namespace sim::cli

// `apfsim run SCENARIO`: replays a scenario and writes its outputs (sim/report/run_report.h).
#include "sim/workflows/run.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/openmetrics_options.h"
#include "sim/cli/run_options.h"
#include "sim/workflows/interrupt.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunRun(const Args& args) {
  po::options_description options("apfsim run options");
  RunRequest request;
  std::vector<std::string> sets;
  options.add_options()("scenario", po::value(&request.scenario_file)->required(),
                        "the scenario file")("out", po::value(&request.out_dir),
                                             "output folder (default out/<scenario name>)")(
      "seed", po::value<std::uint64_t>(), "override the scenario's seed")(
      "set", po::value(&sets)->composing(), "override a scenario value: PATH=VALUE (repeatable)")(
      "interval", po::value<std::string>(), "report interval, e.g. 1s (default: the scenario's)")(
      "trace", po::value(&request.trace), "write trace.jsonl for this client or priority level")(
      "quiet", po::bool_switch(&request.quiet), "print nothing but errors");
  AddRunBudgetOptions(options);
  AddOpenMetricsOptions(options);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map values;
  if (!ParseCommandLine(args, "apfsim run SCENARIO [options]", options, &positional, values)) {
    return kExitOk;
  }
  request.overrides = sets;
  if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
  if (values.count("interval")) request.interval = values["interval"].as<std::string>();
  request.budget = RunBudgetFrom(values);
  request.openmetrics = OpenMetricsFrom(values);
  request.progress = !request.quiet && ::isatty(2);
  const InterruptGuard interrupt_guard;
  const RunOutcome outcome = RunScenario(request);
  if (!request.quiet) {
    std::cout << outcome.table << "\noutputs in " << outcome.out_dir << "/\n";
  }
  return kExitOk;
}

const Registration kRun({"", "run", "replay a scenario and write its timelines and summary",
                         RunRun});

}  // namespace
}  // namespace sim::cli

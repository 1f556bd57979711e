// `apfsim run SCENARIO`: replays a scenario and writes its outputs (sim/report/run_report.h).
#include "sim/workflows/run.h"

#include <charconv>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/input_error.h"
#include "sim/report/interval_figures.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/replicate.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

// --trace-sample FRACTION: a decimal number in (0, 1].
double ParseTraceSample(const std::string& text) {
  double fraction = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, fraction);
  if (text.empty() || error != std::errc() || stop != end) {
    throw InputError({"--trace-sample", 0, 0}, "",
                     "expected a fraction of the calls, e.g. 0.1 (got \"" + text + "\")");
  }
  if (!(fraction > 0 && fraction <= 1)) {
    throw InputError({"--trace-sample", 0, 0}, "",
                     "must be more than 0 and at most 1 (got \"" + text + "\")");
  }
  return fraction;
}

// The flags that narrow --trace: each needs it.
void ReadTraceFlags(const po::variables_map& values, RunRequest& request) {
  if (values.count("trace")) request.trace = values["trace"].as<std::string>();
  for (const char* flag : {"trace-window", "trace-sample", "trace-flow", "trace-max-bytes"}) {
    if (request.trace.empty() && values.count(flag) && !values[flag].defaulted()) {
      throw InputError({std::string("--") + flag, 0, 0}, "",
                       "needs --trace NAME (the client or priority level to trace)");
    }
  }
  if (values.count("trace-window")) {
    request.trace_window =
        ParseReportWindow(values["trace-window"].as<std::string>(), "--trace-window");
  }
  if (values.count("trace-sample")) {
    request.trace_sample = ParseTraceSample(values["trace-sample"].as<std::string>());
  }
  if (values.count("trace-flow")) {
    request.trace_flows = values["trace-flow"].as<std::vector<std::string>>();
  }
  request.trace_max_bytes = values["trace-max-bytes"].as<std::uint64_t>();
}

int RunRun(const Args& args) {
  po::variables_map values;
  if (!ParseTableCommand(
          args, "run", "apfsim run SCENARIO [options]",
          "apfsim run scenarios/drift-sweep.yaml\n"
          "apfsim run scenarios/drift-sweep.yaml --out out/ds-300 \\\n"
          "    --set flowControl.priorityLevels.workload-low.nominalConcurrencyShares=300\n"
          "apfsim run scenarios/drift-sweep.yaml --trace tenant-operator --progress always\n"
          "apfsim run scenarios/drift-sweep.yaml --trace workload-low --trace-window 1m..1m2s",
          values)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  RunRequest request;
  FillRequest(flags, request);
  ReadTraceFlags(values, request);
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

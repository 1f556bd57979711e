// `apfsim sweep SCENARIO --vary PATH=LIST...`: a grid of runs tabulated in sweep.csv, and
// `apfsim sweep merge PART...`: a sharded sweep's parts joined (sim/workflows/sweep.h).
#include "sim/workflows/sweep.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/input_file.h"
#include "sim/io/output_file.h"
#include "sim/report/plot_tool.h"
#include "sim/workflows/interrupt.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunMerge(const Args& args) {
  po::options_description options("apfsim sweep merge options");
  std::vector<std::string> parts;
  std::string out = "sweep.csv";
  options.add_options()("part", po::value(&parts)->composing()->required(),
                        "a part file (sweep.part-I-of-N.csv)")(
      "out", po::value(&out), "the merged file (default sweep.csv)");
  po::positional_options_description positional;
  positional.add("part", -1);
  po::variables_map values;
  if (!ParseCommandLine(args, "apfsim sweep merge PART... [--out FILE]", options, &positional,
                        values,
                        "apfsim sweep merge results/sweep.part-*-of-4.csv --out sweep.csv")) {
    return kExitOk;
  }
  std::vector<std::string> texts;
  for (const std::string& p : parts) {
    texts.push_back(ReadInputFile(p));
  }
  WriteOutputFile(out, MergeSweepParts(texts, parts));
  std::cout << "merged " << parts.size() << " parts into " << out << "\n";
  return kExitOk;
}

int RunSweepCommand(const Args& args) {
  if (!args.empty() && args[0] == "merge") return RunMerge(Args(args.begin() + 1, args.end()));
  po::variables_map values;
  if (!ParseTableCommand(
          args, "sweep",
          "apfsim sweep SCENARIO --vary PATH=LIST [--vary ...] [options]\n"
          "       apfsim sweep merge PART... [--out FILE]",
          "apfsim sweep scenarios/drift-sweep.yaml --vary \\\n"
          "    flowControl.priorityLevels.workload-low.nominalConcurrencyShares=50..200:50\n"
          "apfsim sweep scenarios/drift-sweep.yaml --vary apiservers.maxRequestsInflight=400,600 "
          "\\\n"
          "    --shard 0/4 --out results --progress always",
          values)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  SweepRequest request;
  FillRequest(flags, request);
  request.timelines = values["timelines"].as<bool>();
  for (const std::string& v : values["vary"].as<std::vector<std::string>>()) {
    request.axes.push_back(ParseSweepAxis(v));
  }
  if (values.count("shard")) request.shard = ParseSweepShard(values["shard"].as<std::string>());
  const InterruptGuard interrupt_guard;
  const SweepOutcome outcome = RunSweep(request);
  if (!request.shard && !flags.no_plot) {
    std::string why;
    // A --subtitle line (the run's provenance) may be added to these arguments.
    const std::vector<std::string> plot_args = {outcome.csv_path, "--out",
                                                outcome.out_dir + "/sweep.png", "--scenario",
                                                outcome.scenario_name};
    if (!RunPlotTool("plot_sweep.py", plot_args, &why)) {
      std::cerr << "apfsim sweep: no plot: " << why << "\n";
    }
  }
  if (!flags.quiet) {
    std::cout << outcome.table << "\n" << outcome.runs << " runs; " << outcome.csv_path << "\n";
  }
  return kExitOk;
}

const Registration kSweep({"", "sweep",
                           "run a scenario over a grid of values and tabulate the outcomes",
                           RunSweepCommand});

}  // namespace
}  // namespace sim::cli

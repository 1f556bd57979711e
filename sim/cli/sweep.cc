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
#include "sim/cli/run_options.h"
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
  po::options_description options("apfsim sweep options");
  SweepRequest request;
  std::vector<std::string> varies;
  std::string shard;
  options.add_options()("scenario", po::value(&request.scenario_file)->required(),
                        "the scenario file")(
      "vary", po::value(&varies)->composing()->required(),
      "PATH=LIST: a --set path and its values, a,b,c or FROM..TO:STEP (repeatable: the grid "
      "is every combination, the first --vary outermost)")(
      "set", po::value(&request.overrides)->composing(),
      "override a value in every run: PATH=VALUE (repeatable)")(
      "seed", po::value<std::uint64_t>(), "the seed of every run (default: the scenario's)")(
      "jobs,j", po::value(&request.jobs), "runs at once (default: one per core)")(
      "out", po::value(&request.out_dir), "output folder (default out/<scenario name>-sweep)")(
      "shard", po::value(&shard),
      "I/N: run only the grid points whose index is I modulo N (I from 0) and write "
      "sweep.part-I-of-N.csv; join the parts with `apfsim sweep merge`")(
      "timelines", po::bool_switch(&request.timelines),
      "also write each run's timeline.csv and clients.csv under runs/<index>/")(
      "no-plot", "do not draw sweep.png")("quiet", "print nothing but errors");
  AddRunBudgetOptions(options);
  AddSeedsOptions(options, false);
  AddProgressOption(options);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map values;
  if (!ParseCommandLine(
          args,
          "apfsim sweep SCENARIO --vary PATH=LIST [--vary ...] [options]\n"
          "       apfsim sweep merge PART... [--out FILE]",
          options, &positional, values,
          "apfsim sweep scenarios/drift-sweep.yaml --vary \\\n"
          "    flowControl.priorityLevels.workload-low.nominalConcurrencyShares=50..200:50\n"
          "apfsim sweep scenarios/drift-sweep.yaml --vary apiservers.maxRequestsInflight=400,600 "
          "\\\n"
          "    --shard 0/4 --out results --progress always")) {
    return kExitOk;
  }
  for (const std::string& v : varies) request.axes.push_back(ParseSweepAxis(v));
  if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
  request.seeds = SeedsOptionsFrom(values).seeds;
  if (!shard.empty()) request.shard = ParseSweepShard(shard);
  if (values.count("jobs") && request.jobs < 1) {
    throw InputError({"--jobs", 0, 0}, "", "must be at least 1");
  }
  const bool quiet = values.count("quiet") > 0;
  request.quiet = quiet;
  request.progress = ProgressModeFrom(values);
  request.budget = RunBudgetFrom(values);
  const InterruptGuard interrupt_guard;
  const SweepOutcome outcome = RunSweep(request);
  if (!request.shard && !values.count("no-plot")) {
    std::string why;
    // A --subtitle line (the run's provenance) may be added to these arguments.
    const std::vector<std::string> plot_args = {outcome.csv_path, "--out",
                                                outcome.out_dir + "/sweep.png", "--scenario",
                                                outcome.scenario_name};
    if (!RunPlotTool("plot_sweep.py", plot_args, &why)) {
      std::cerr << "apfsim sweep: no plot: " << why << "\n";
    }
  }
  if (!quiet) {
    std::cout << outcome.table << "\n" << outcome.runs << " runs; " << outcome.csv_path << "\n";
  }
  return kExitOk;
}

const Registration kSweep({"", "sweep",
                           "run a scenario over a grid of values and tabulate the outcomes",
                           RunSweepCommand});

}  // namespace
}  // namespace sim::cli

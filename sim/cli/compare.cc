// `apfsim compare SCENARIO (--with OTHER.yaml | --overlay FIX.yaml | --after-set PATH=VALUE)`:
// two runs on the same traffic and one table of what changed (sim/workflows/compare.h).
#include "sim/workflows/compare.h"

#include <unistd.h>

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/openmetrics_options.h"
#include "sim/cli/run_options.h"
#include "sim/report/plot_tool.h"
#include "sim/workflows/interrupt.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunCompareCommand(const Args& args) {
  po::options_description options("apfsim compare options");
  CompareRequest request;
  options.add_options()("scenario", po::value(&request.scenario_file)->required(),
                        "the scenario (the before run)")("with", po::value(&request.with_file),
                                                         "the after run is this scenario instead")(
      "overlay", po::value(&request.overlay_files)->composing(),
      "the after run is the scenario with this overlay: flow-control manifests and/or an "
      "Overlay document of --set values (repeatable; scenarios/README.md)")(
      "set", po::value(&request.overrides)->composing(),
      "override a value in both runs: PATH=VALUE (repeatable)")(
      "after-set", po::value(&request.after_overrides)->composing(),
      "override a value in the after run only: PATH=VALUE (repeatable)")(
      "before-set", po::value(&request.before_overrides)->composing(),
      "override a value in the before run only: PATH=VALUE (repeatable), e.g. to weigh "
      "a flag change (before) against a fix (--with)")(
      "seed", po::value<std::uint64_t>(), "the seed of both runs (default: the scenario's)")(
      "interval", po::value<std::string>(),
      "report interval of both runs, e.g. 1s (default: the scenario's)")(
      "out", po::value(&request.out_dir),
      "also write DIR/before, DIR/after, DIR/compare.json and DIR/compare.png")(
      "no-plot", "with --out, do not draw compare.png");
  AddRunBudgetOptions(options);
  AddOpenMetricsOptions(options);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map values;
  if (!ParseCommandLine(args,
                        "apfsim compare SCENARIO (--with OTHER.yaml | --overlay FIX.yaml | "
                        "--after-set PATH=VALUE | --before-set PATH=VALUE) [options]",
                        options, &positional, values)) {
    return kExitOk;
  }
  if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
  if (values.count("interval")) request.interval = values["interval"].as<std::string>();
  request.budget = RunBudgetFrom(values);
  request.openmetrics = OpenMetricsFrom(values);
  const InterruptGuard interrupt_guard;
  const CompareOutcome outcome = RunCompare(request);
  std::cout << CompareTable(outcome.comparison, ::isatty(1));
  if (!outcome.out_dir.empty()) {
    const std::string& dir = outcome.out_dir;
    if (!values.count("no-plot")) {
      std::string why;
      if (!RunPlotTool(
              "plot.py",
              {"--compare", dir + "/before", dir + "/after", "--out", dir + "/compare.png"},
              &why)) {
        std::cerr << "apfsim compare: no plot: " << why << "\n";
      }
    }
    std::cout << "\noutputs in " << dir << "/ (before/, after/, compare.json)\n";
  }
  return kExitOk;
}

const Registration kCompare({"", "compare",
                             "run a scenario before and after a change on the same traffic",
                             RunCompareCommand});

}  // namespace
}  // namespace sim::cli

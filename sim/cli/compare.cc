// `apfsim compare SCENARIO (--with OTHER.yaml | --overlay FIX.yaml | --after-set PATH=VALUE)`:
// two runs on the same traffic and one table of what changed (sim/workflows/compare.h).
#include "sim/workflows/compare.h"

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/openmetrics_options.h"
#include "sim/cli/run_options.h"
#include "sim/io/terminal.h"
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
      "window", po::value<std::string>(),
      "compare the figures over this part of the runs, e.g. 6m..8m")(
      "out", po::value(&request.out_dir),
      "also write DIR/before, DIR/after, DIR/compare.json and DIR/compare.png")(
      "no-plot", "with --out, do not draw compare.png");
  AddRunBudgetOptions(options);
  AddOpenMetricsOptions(options);
  AddSeedsOptions(options, true);
  AddProgressOption(options);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map values;
  if (!ParseCommandLine(args,
                        "apfsim compare SCENARIO (--with OTHER.yaml | --overlay FIX.yaml |\n"
                        "           --after-set PATH=VALUE | --before-set PATH=VALUE) [options]",
                        options, &positional, values,
                        "apfsim compare scenarios/drift-sweep.yaml --with "
                        "scenarios/drift-sweep-fenced.yaml\n"
                        "apfsim compare scenarios/drift-sweep.yaml --overlay "
                        "scenarios/seed000-fence.yaml --out out/fence\n"
                        "apfsim compare scenarios/drift-sweep.yaml --after-set "
                        "apiservers.maxRequestsInflight=600")) {
    return kExitOk;
  }
  if (values.count("seed")) request.seed = values["seed"].as<std::uint64_t>();
  if (values.count("interval")) request.interval = values["interval"].as<std::string>();
  if (values.count("window"))
    request.window = ParseReportWindow(values["window"].as<std::string>());
  request.budget = RunBudgetFrom(values);
  request.openmetrics = OpenMetricsFrom(values);
  const SeedsOptions seeds = SeedsOptionsFrom(values);
  request.seeds = seeds.seeds;
  request.jobs = seeds.jobs;
  request.progress = ProgressModeFrom(values);
  const InterruptGuard interrupt_guard;
  const CompareOutcome outcome = RunCompare(request);
  std::cout << CompareTable(outcome.comparison, ColourWanted(1));
  if (!outcome.out_dir.empty()) {
    const std::string& dir = outcome.out_dir;
    if (!values.count("no-plot")) {
      // Over seeds the picture is the first seed's pair of runs: a timeline is one run's.
      const std::string side =
          request.seeds.empty() ? "" : "/seed-" + std::to_string(request.seeds[0]);
      std::string why;
      if (!RunPlotTool("plot.py",
                       {"--compare", dir + "/before" + side, dir + "/after" + side, "--out",
                        dir + "/compare.png"},
                       &why)) {
        std::cerr << "apfsim compare: no plot: " << why << "\n";
      }
    }
    std::cout << "\noutputs in " << dir << "/ (before/, after/, compare.json"
              << (request.seeds.empty() ? "" : "; compare.png is the first seed's") << ")\n";
  }
  return kExitOk;
}

const Registration kCompare({"", "compare",
                             "run a scenario before and after a change on the same traffic",
                             RunCompareCommand});

}  // namespace
}  // namespace sim::cli

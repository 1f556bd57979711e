// `apfsim tune SCENARIO [--seeds LIST] [--budget RUNS] [--jobs N] [--out DIR]`: searches for
// the smallest configuration change under which the scenario's spec.expect holds on every
// seed (sim/workflows/tune.h), and writes it as an overlay, DIR/fix.yaml, with DIR/tune.json
// (every candidate tried) and DIR/compare.json (before and after the fix). Exit 0 when the
// fix holds, 1 when the budget ran out or the space was exhausted (the closest candidate is
// written), 2 on bad input.
#include "sim/workflows/tune.h"

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/text.h"
#include "sim/report/plot_tool.h"
#include "sim/workflows/interrupt.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunTuneCommand(const Args& args) {
  po::variables_map values;
  if (!ParseTableCommand(
          args, "tune", "apfsim tune SCENARIO [options]",
          "apfsim tune scenarios/goals/drift-sweep-goal.yaml --seeds 1..3 --out out/tune\n"
          "apfsim check scenarios/goals/drift-sweep-goal.yaml --overlay out/tune/fix.yaml "
          "--seeds 11..20",
          values)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  TuneRequest request;
  request.scenario_file = flags.scenario();
  request.out_dir = flags.out;
  request.budget = values["budget"].as<int>();
  if (values.count("only-levels")) {
    request.only_levels = Split(values["only-levels"].as<std::string>(), ',', EmptyParts::kSkip);
  }
  request.no_fence = values["no-fence"].as<bool>();
  request.keep_flags = values["keep-flags"].as<bool>();
  request.run_budget = flags.budget;
  request.seeds = flags.seeds.empty() ? std::vector<std::uint64_t>{1, 2, 3} : flags.seeds;
  request.jobs = flags.jobs;
  request.compare = !values["no-compare"].as<bool>();
  if (request.out_dir.empty()) {
    std::string stem = request.scenario_file.substr(request.scenario_file.find_last_of('/') + 1);
    request.out_dir = "out/" + stem.substr(0, stem.find_last_of('.')) + "-tune";
  }
  const InterruptGuard interrupt_guard;
  const TuneOutcome outcome = RunTune(request);
  std::cout << outcome.message;
  if (request.compare && !flags.no_plot) {
    const std::string side = "/seed-" + std::to_string(request.seeds[0]);
    std::string why;
    if (!RunPlotTool("plot.py",
                     {"--compare", request.out_dir + "/before" + side,
                      request.out_dir + "/after" + side, "--out", request.out_dir + "/compare.png"},
                     &why)) {
      std::cerr << "apfsim tune: no plot: " << why << "\n";
    }
  }
  std::cout << "\noutputs in " << request.out_dir << "/ (fix.yaml, tune.json"
            << (request.compare ? ", compare.json, before/, after/" : "") << ", candidates/)\n";
  return outcome.holds ? kExitOk : kExitExpectationFailed;
}

const Registration kTune({"", "tune",
                          "search for the smallest configuration change that meets spec.expect",
                          RunTuneCommand});

}  // namespace
}  // namespace sim::cli

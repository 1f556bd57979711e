// `apfsim tune SCENARIO [--seeds LIST] [--budget RUNS] [--time-budget DURATION] [--jobs N]
// [--out DIR]`: searches for the smallest configuration change under which the scenario's
// spec.expect holds on every seed (sim/workflows/tune.h), and writes it as DIR/fix.yaml (the
// objects, for kubectl apply), DIR/flags.txt (kube-apiserver flags) and
// DIR/check-overlay.yaml (both, for apfsim check --overlay), with DIR/tune.json (every
// candidate tried) and DIR/compare.json (before and after the fix). Exit 0 when the fix
// holds, 1 when a budget ran out or the space was exhausted (the closest candidate is
// written, and the assertion that blocks it named), 128 + the signal's number when SIGINT or
// SIGTERM stopped it (the best so far is written), 2 on bad input.
#include "sim/workflows/tune.h"

#include <fmt/format.h>

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/io/terminal.h"
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
          "apfsim check scenarios/goals/drift-sweep-goal.yaml --seeds 11..20 \\\n"
          "    --overlay out/tune/check-overlay.yaml\n"
          "apfsim lint --config out/tune/fix.yaml && kubectl apply -f out/tune/fix.yaml",
          values)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  TuneRequest request;
  FillRequest(flags, request);  // the scenario, --out, --set, --seeds, --jobs, the run budget
  request.max_runs = values["budget"].as<int>();
  if (values.count("only-levels")) {
    request.only_levels = Split(values["only-levels"].as<std::string>(), ',', EmptyParts::kSkip);
  }
  request.no_fence = values["no-fence"].as<bool>();
  request.keep_flags = values["keep-flags"].as<bool>();
  if (request.seeds.empty()) request.seeds = {1, 2, 3};
  request.compare = !values["no-compare"].as<bool>();
  if (values.count("time-budget")) {
    const std::string text = values["time-budget"].as<std::string>();
    std::string why;
    const std::optional<apf::Nanos> ns = ParseDuration(text, &why);
    if (!ns || *ns <= 0) {
      throw InputError({"--time-budget", 0, 0}, "",
                       ns ? fmt::format("must be more than 0 (got {})", text) : why);
    }
    request.time_budget_seconds = static_cast<double>(*ns) / 1e9;
  }
  // A search is long: its progress is shown off a terminal too unless --progress never
  // (`auto` is `always` for tune: a live line on a terminal, else a line every 10 s).
  request.progress = ChooseProgressStyle(
      flags.progress == ProgressMode::kNever ? ProgressMode::kNever : ProgressMode::kAlways,
      /*quiet=*/false, IsTerminal(2));
  if (request.out_dir.empty()) {
    std::string stem = request.scenario_file.substr(request.scenario_file.find_last_of('/') + 1);
    request.out_dir = "out/" + stem.substr(0, stem.find_last_of('.')) + "-tune";
  }
  const InterruptGuard interrupt_guard;
  const TuneOutcome outcome = RunTune(request);
  std::cout << outcome.message;
  if (outcome.interrupted_by != 0) {
    std::cout
        << "\noutputs in " << request.out_dir
        << "/ (fix.yaml, fix-1.yaml, flags.txt, check-overlay.yaml, tune.json, candidates/)\n";
    // main prints it and exits with the code of an interrupted run (128 + the signal).
    throw RunInterrupted(outcome.interrupted_by,
                         fmt::format("interrupted by {} after {} candidates ({} runs); the best "
                                     "found so far is kept in {}/",
                                     SignalName(outcome.interrupted_by), outcome.candidates,
                                     outcome.runs_spent, request.out_dir));
  }
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
  std::cout << "\noutputs in " << request.out_dir
            << "/ (fix.yaml, fix-1.yaml, flags.txt, check-overlay.yaml, tune.json"
            << (request.compare ? ", compare.json, before/, after/" : "") << ", candidates/)\n";
  return outcome.holds ? kExitOk : kExitExpectationFailed;
}

const Registration kTune({"", "tune",
                          "search for the smallest configuration change that meets spec.expect",
                          RunTuneCommand});

}  // namespace
}  // namespace sim::cli

// `apfsim compare SCENARIO (--with OTHER.yaml | --overlay FIX.yaml | --after-set PATH=VALUE)`:
// two runs on the same traffic and one table of what changed (sim/workflows/compare.h), which
// opens with each side's verdict (sim/report/verdict.h), then what the change moves per
// client request (sim/report/client_moves.h).
#include "sim/workflows/compare.h"

#include <iostream>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/terminal.h"
#include "sim/report/plot_tool.h"
#include "sim/workflows/interrupt.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

int RunCompareCommand(const Args& args) {
  po::variables_map values;
  if (!ParseTableCommand(args, "compare",
                         "apfsim compare SCENARIO (--with OTHER.yaml | --overlay FIX.yaml |\n"
                         "           --after-set PATH=VALUE | --before-set PATH=VALUE) [options]",
                         "apfsim compare scenarios/drift-sweep.yaml --with "
                         "scenarios/drift-sweep-fenced.yaml\n"
                         "apfsim compare scenarios/drift-sweep.yaml --overlay "
                         "scenarios/seed000-fence.yaml --out out/fence\n"
                         "apfsim compare scenarios/drift-sweep.yaml --after-set "
                         "apiservers.maxRequestsInflight=600",
                         values)) {
    return kExitOk;
  }
  const ScenarioFlags flags = ScenarioFlagsFrom(values);
  CompareRequest request;
  FillRequest(flags, request);
  if (values.count("with")) request.with_file = values["with"].as<std::string>();
  for (const auto& [flag, to] : {std::pair{"before-set", &request.before_overrides},
                                 std::pair{"after-set", &request.after_overrides}}) {
    if (values.count(flag)) *to = values[flag].as<std::vector<std::string>>();
  }
  const InterruptGuard interrupt_guard;
  const CompareOutcome outcome = RunCompare(request);
  // Flushed before plot.py writes its own lines, so that the verdict comes first in a pipe too.
  std::cout << CompareTable(outcome.comparison, ColourWanted(1)) << std::flush;
  if (outcome.out_dir.empty()) return kExitOk;
  const std::string& dir = outcome.out_dir;
  if (!flags.no_plot) {
    // Over seeds the picture is the first seed's pair of runs: a timeline is one run's.
    const std::string side =
        request.seeds.empty() ? "" : "/seed-" + std::to_string(request.seeds[0]);
    std::string why;
    if (!RunPlotTool("plot.py",
                     {"--compare", dir + "/before" + side, dir + "/after" + side, "--out",
                      dir + "/compare.png", "--compare-json", dir + "/compare.json"},
                     &why)) {
      std::cerr << "apfsim compare: no plot: " << why << "\n";
    }
  }
  std::cout << "\noutputs in " << dir << "/ (before/, after/, compare.json"
            << (request.seeds.empty() ? "" : "; compare.png is the first seed's") << ")\n";
  return kExitOk;
}

const Registration kCompare({"", "compare",
                             "run a scenario before and after a change on the same traffic; "
                             "a verdict line per side first",
                             RunCompareCommand});

}  // namespace
}  // namespace sim::cli

// Runs the Python drawing tools (tools/plot.py, tools/plot_sweep.py) from the commands that
// offer plots. The tools directory is $APFSIM_TOOLS, else tools/ beside the apfsim binary,
// one level above it (a build directory in the source tree) or in share/apfsim/ of its
// install prefix (`cmake --install`), else ./tools; the Python is the one
// tools/find-python.sh names. Plots are optional: a missing Python or matplotlib is
// reported, not fatal.
#ifndef SIM_REPORT_PLOT_TOOL_H_
#define SIM_REPORT_PLOT_TOOL_H_

#include <string>
#include <vector>

namespace sim {

// Runs tools/`script` with `args`; returns true when it succeeded, otherwise false with
// the reason in *why (the tool's own messages go to stderr).
bool RunPlotTool(const std::string& script, const std::vector<std::string>& args, std::string* why);

}  // namespace sim

#endif  // SIM_REPORT_PLOT_TOOL_H_

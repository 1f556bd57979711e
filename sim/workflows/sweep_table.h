// The table `apfsim sweep` prints in the terminal: one row per grid point with the varied
// values and the figures that changed most across the grid, so that a sweep can be read
// without opening sweep.csv. The candidates are, per priority level, its rejections (all
// reasons) and its wait max with its wait p99 beside it, and per client its 429s and latency
// p99; a figure that is the same at every point is left out, and of the others the ones with
// the largest spread relative to their size are shown, as many as fit 120 characters
// (sweep.csv has them all). A level's wait ranks by its max, the figure that shows a burst
// (a whole-run p99 of 0 hides hundreds of ten-second waits), and its p99 comes with it.
// Over seeds (`sweep --seeds`) each cell is the mean over the point's seeds and "±" half its
// 95% interval, as compare prints them. Tested by tests/sim/workflows/sweep_table_test.cc.
#ifndef SIM_WORKFLOWS_SWEEP_TABLE_H_
#define SIM_WORKFLOWS_SWEEP_TABLE_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/workflows/sweep.h"

namespace sim {

// A --set path as a person reads it: the object and the field, e.g.
// "flowControl.priorityLevels.workload-low.nominalConcurrencyShares" is {"workload-low",
// "nominalConcurrencyShares"}, "...workload-low.spec.limited.limitResponse.queuing.handSize"
// is {"workload-low", "handSize"}, "apiservers.maxRequestsInflight" is {"apiservers",
// "maxRequestsInflight"}. tools/apfplot/sweep.py's readable_path() does the same for the
// plot's axes.
std::pair<std::string, std::string> ReadableSetPath(const std::string& path);

// The table of the points `indices` (grid indices) with `runs` (summary.json of each seed's
// run of each point, in the same order), at most `max_figures` figure columns (a wait max
// and its p99 go together, even past that).
std::string SweepTable(const std::vector<SweepAxis>& axes,
                       const std::vector<std::vector<std::string>>& grid,
                       const std::vector<std::size_t>& indices,
                       const std::vector<std::vector<nlohmann::json>>& runs,
                       std::size_t max_figures = 6);

// The same for one run per point.
std::string SweepTable(const std::vector<SweepAxis>& axes,
                       const std::vector<std::vector<std::string>>& grid,
                       const std::vector<std::size_t>& indices,
                       const std::vector<nlohmann::json>& summaries, std::size_t max_figures = 6);

}  // namespace sim

#endif  // SIM_WORKFLOWS_SWEEP_TABLE_H_

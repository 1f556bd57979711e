// The verdict of one side of `apfsim compare`: the levels that rejected requests, with how
// many, and the worst queue wait, in one line a reader takes in before any table
// ("workload-low 1,126 rejected, wait max 10.9 s in workload-low"; "none rejected" when no
// level rejected any, "no queue wait" when no request waited). compare.json holds it per side
// ("verdict"); compare's table, its page and compare.png open with VerdictLine.
//
// Over seeds each count is the mean over the seeds ± half its 95% interval (as compare's
// table gives changes), a level counts when it rejected in any seed, and the worst wait is
// the level whose mean wait max is largest.
//
// Tested by tests/sim/report/verdict_test.cc.
#ifndef SIM_REPORT_VERDICT_H_
#define SIM_REPORT_VERDICT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sim {

// One side's verdict from its runs' priorityLevels (summary.json's, or its window's): one
// per seed, in seed order.
std::string SideVerdict(const std::vector<const nlohmann::json*>& priority_levels);

// "before: <verdict>; after: <verdict> (seed 1)", or with " (20 seeds, mean ± half its 95%
// interval)", from compare.json.
std::string VerdictLine(const nlohmann::json& comparison);

}  // namespace sim

#endif  // SIM_REPORT_VERDICT_H_

// The static per-level numbers a reader of a flow-control configuration wants next to it:
// each level's nominal concurrency limit and the bounds borrowing moves it within, at a
// given server concurrency limit (doc/model.md#nominal-seats), and the most seats one request may
// take there (doc/model.md#max-seats), for every level of a digested configuration at once. Used by
// `apfsim explain` and `apfsim lint`; the numbers come from the allocation model
// (apf/allocation/priority_level_limits.h).
#ifndef SIM_FLOWCONTROL_SUMMARY_H_
#define SIM_FLOWCONTROL_SUMMARY_H_

#include <cstdint>
#include <vector>

#include "apf/config/flow_control_config.h"

namespace sim {

inline constexpr int kDefaultServerConcurrencyLimit = 400 + 200;  // the two in-flight flags

struct LevelLimits {
  std::int64_t nominal_cl = 0;    // ceil(serverCL * NCS / shareSum)
  std::int64_t lendable_cl = 0;   // round(nominalCL * lendablePercent / 100)
  std::int64_t borrowing_cl = 0;  // round(nominalCL * borrowingLimitPercent / 100), else serverCL
  std::int64_t min_cl = 0;        // nominalCL - lendableCL
  std::int64_t max_cl = 0;        // nominalCL + borrowingCL
  // Queue levels only: max(1, min(ceil(0.15 nominalCL), nominalCL / handSize)); 0 otherwise.
  std::uint64_t max_seats = 0;
};

// Σ nominalConcurrencyShares over every level, exempt included.
double ShareSum(const apf::FlowControlConfig& config);

// One entry per config.priority_levels, in the same order.
std::vector<LevelLimits> StaticLevelLimits(const apf::FlowControlConfig& config,
                                           int server_concurrency_limit);

}  // namespace sim

#endif  // SIM_FLOWCONTROL_SUMMARY_H_

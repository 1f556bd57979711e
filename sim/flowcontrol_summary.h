// The static per-level numbers a reader of a flow-control configuration wants next to it:
// each level's nominal concurrency limit and the bounds borrowing moves it within, at a
// given server concurrency limit (apf_controller.go finishQueueSetReconfigsLocked,
// APF-SPEC 3.1), and the most seats one request may take there (APF-SPEC 3.2). Used by
// `apfsim explain` and `apfsim lint`; the allocation model computes the live values.
#ifndef SIM_FLOWCONTROL_SUMMARY_H_
#define SIM_FLOWCONTROL_SUMMARY_H_

#include <cstdint>
#include <vector>

#include "apf/flowcontrol_config.h"

namespace sim {

inline constexpr int kDefaultServerConcurrencyLimit = 400 + 200;  // the two in-flight flags

struct LevelLimits {
  int nominal_cl = 0;    // ceil(serverCL * NCS / shareSum)
  int lendable_cl = 0;   // round(nominalCL * lendablePercent / 100)
  int borrowing_cl = 0;  // round(nominalCL * borrowingLimitPercent / 100), else serverCL
  int min_cl = 0;        // nominalCL - lendableCL
  int max_cl = 0;        // nominalCL + borrowingCL
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

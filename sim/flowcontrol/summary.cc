#include "sim/flowcontrol/summary.h"

#include "apf/allocation/priority_level_limits.h"

namespace sim {

double ShareSum(const apf::FlowControlConfig& config) {
  double sum = 0;
  for (const apf::PriorityLevel& pl : config.priority_levels) sum += pl.nominal_concurrency_shares;
  return sum;
}

std::vector<LevelLimits> StaticLevelLimits(const apf::FlowControlConfig& config,
                                           int server_concurrency_limit) {
  const double share_sum = ShareSum(config);
  std::vector<LevelLimits> out;
  for (const apf::PriorityLevel& pl : config.priority_levels) {
    const apf::PriorityLevelLimits l =
        apf::ComputePriorityLevelLimits(pl.AllocationSpec(), server_concurrency_limit, share_sum);
    LevelLimits limits{l.nominal_cl, l.lendable_cl, l.borrowing_cl, l.min_cl, l.max_cl, 0};
    if (pl.queues_requests()) {
      limits.max_seats = apf::PriorityLevelMaxSeats(l.nominal_cl, pl.queuing.hand_size);
    }
    out.push_back(limits);
  }
  return out;
}

}  // namespace sim

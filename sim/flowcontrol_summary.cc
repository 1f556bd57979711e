#include "sim/flowcontrol_summary.h"

#include <algorithm>
#include <cmath>

#include "apf/seat_seconds.h"

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
    LevelLimits l;
    l.nominal_cl = share_sum > 0 ? static_cast<int>(std::ceil(
                                       static_cast<double>(server_concurrency_limit) *
                                       static_cast<double>(pl.nominal_concurrency_shares) /
                                       share_sum))
                                 : 0;
    l.lendable_cl = static_cast<int>(
        apf::GoRound(static_cast<double>(l.nominal_cl) * pl.lendable_percent / 100));
    l.borrowing_cl =
        pl.borrowing_limit_percent
            ? static_cast<int>(apf::GoRound(static_cast<double>(l.nominal_cl) *
                                            static_cast<double>(*pl.borrowing_limit_percent) / 100))
            : server_concurrency_limit;
    l.min_cl = l.nominal_cl - l.lendable_cl;
    l.max_cl = l.nominal_cl + l.borrowing_cl;
    if (pl.queues_requests()) {
      const double by_percent = std::ceil(static_cast<double>(l.nominal_cl) * 0.15);
      const double by_hand = static_cast<double>(static_cast<std::int32_t>(l.nominal_cl) /
                                                 pl.queuing.hand_size);
      l.max_seats = static_cast<std::uint64_t>(std::max(1.0, std::min(by_percent, by_hand)));
    }
    out.push_back(l);
  }
  return out;
}

}  // namespace sim

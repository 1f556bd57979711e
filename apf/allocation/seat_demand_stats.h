// What the allocation remembers of a priority level's seat demand between adjustments
// (doc/model.md#seat-demand; apf_controller.go seatDemandStats): the last period's high watermark,
// mean and standard deviation, and a smoothed demand that rises at once with the
// envelope (mean plus one standard deviation) and decays with a half-life of about 30
// periods (5 minutes) when demand falls.
#ifndef APF_ALLOCATION_SEAT_DEMAND_STATS_H_
#define APF_ALLOCATION_SEAT_DEMAND_STATS_H_

#include <cstdint>

#include "apf/queueing/seat_demand_integrator.h"

namespace apf {

// apf_controller.go seatDemandSmoothingCoefficient, and its complement. Go computes
// `1 - seatDemandSmoothingCoefficient` exactly, as an untyped constant, so it is the
// double nearest 0.023, not the double 1 - 0.977 (which is 0.02300000000000002).
inline constexpr double kSeatDemandSmoothingCoefficient = 0.977;
inline constexpr double kSeatDemandSmoothingComplement = 0.023;

struct SeatDemandStats {
  double avg = 0;
  double std_dev = 0;
  std::int64_t high_watermark = 0;  // a Go int
  double smoothed = 0;

  // Folds in one period's integrator results. The high watermark always follows the
  // period's max (rounded half away from zero); the other figures change only when the
  // period had a positive duration, and a NaN deviation (negative variance from
  // rounding) counts as 0.
  void Update(const SeatDemandResults& period);
};

}  // namespace apf

#endif  // APF_ALLOCATION_SEAT_DEMAND_STATS_H_

#include "apf/allocation/seat_demand_stats.h"

#include <algorithm>
#include <cmath>

#include "apf/base/go_numeric.h"

namespace apf {

void SeatDemandStats::Update(const SeatDemandResults& period) {
  high_watermark = GoFloatToInt64(GoRound(period.max));
  if (period.duration_seconds <= 0) return;
  const double deviation = std::isnan(period.std_dev) ? 0 : period.std_dev;
  avg = period.average;
  std_dev = deviation;
  const double envelope = period.average + deviation;
  smoothed = std::max(envelope, kSeatDemandSmoothingCoefficient * smoothed +
                                    kSeatDemandSmoothingComplement * envelope);
}

}  // namespace apf

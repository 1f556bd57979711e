#include "apf/queueing/seat_demand_integrator.h"

#include <cmath>
#include <limits>

#include "apf/base/go_numeric.h"

namespace apf {

SeatDemandResults SeatDemandIntegrator::GetResults(Nanos now) {
  Update(now);
  SeatDemandResults r;
  r.min = min_;
  r.max = max_;
  r.duration_seconds = elapsed_seconds_;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (elapsed_seconds_ <= 0) {
    r.average = nan;
    r.std_dev = nan;
    return r;
  }
  r.average = integral_x_ / elapsed_seconds_;
  const double variance = integral_xx_ / elapsed_seconds_ - r.average * r.average;
  r.std_dev = variance >= 0 ? std::sqrt(variance) : nan;
  return r;
}

SeatDemandResults SeatDemandIntegrator::Reset(Nanos now) {
  SeatDemandResults r = GetResults(now);
  elapsed_seconds_ = integral_x_ = integral_xx_ = 0;
  min_ = max_ = x_;
  return r;
}

}  // namespace apf

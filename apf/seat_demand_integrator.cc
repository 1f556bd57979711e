#include "apf/seat_demand_integrator.h"

#include <cmath>
#include <limits>

#include "apf/go_numeric.h"

namespace apf {

void SeatDemandIntegrator::Update(Nanos now) {
  const double dt = GoDurationSeconds(now - last_time_);
  last_time_ = now;
  // The same operations in the same order as Moments.Add(ConstantMoments(dt, x)).
  elapsed_seconds_ = elapsed_seconds_ + dt;
  integral_x_ = integral_x_ + x_ * dt;
  integral_xx_ = integral_xx_ + x_ * x_ * dt;
}

void SeatDemandIntegrator::Set(Nanos now, double seats) {
  Update(now);
  x_ = seats;
  if (seats < min_) min_ = seats;
  if (seats > max_) max_ = seats;
}

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

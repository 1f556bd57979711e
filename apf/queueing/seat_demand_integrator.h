// The time integral of one priority level's seat demand (seats in use plus seats waiting
// in its queue set), mirroring fairqueuing/integrator.go: the allocation reads and resets
// it every adjustment period (doc/model.md#seat-demand). The queue set calls Set() at every change.
#ifndef APF_QUEUEING_SEAT_DEMAND_INTEGRATOR_H_
#define APF_QUEUEING_SEAT_DEMAND_INTEGRATOR_H_

#include "apf/base/go_numeric.h"
#include "apf/base/virtual_time.h"

namespace apf {

struct SeatDemandResults {
  double duration_seconds = 0;  // ∫dt over the period
  double average = 0;           // time-weighted; NaN when the duration is 0
  double std_dev = 0;           // NaN when the duration is 0 or the variance is negative
  double min = 0;
  double max = 0;
};

class SeatDemandIntegrator {
 public:
  explicit SeatDemandIntegrator(Nanos now) : last_time_(now) {}

  // The demand changed to `seats` at `now` (times never decrease). Inline: the queue set
  // calls it at every change of its seats.
  void Set(Nanos now, double seats) {
    Update(now);
    x_ = seats;
    if (seats < min_) min_ = seats;
    if (seats > max_) max_ = seats;
  }
  void Add(Nanos now, double delta_seats) { Set(now, x_ + delta_seats); }
  double current() const { return x_; }

  // The statistics from the last reset to `now`.
  SeatDemandResults GetResults(Nanos now);
  // The statistics to `now`, then starts a new period whose min and max are the
  // current demand.
  SeatDemandResults Reset(Nanos now);

 private:
  void Update(Nanos now) {
    const double dt = GoDurationSeconds(now - last_time_);
    last_time_ = now;
    // The same operations in the same order as Moments.Add(ConstantMoments(dt, x)).
    elapsed_seconds_ = elapsed_seconds_ + dt;
    integral_x_ = integral_x_ + x_ * dt;
    integral_xx_ = integral_xx_ + x_ * x_ * dt;
  }

  Nanos last_time_;
  double x_ = 0;
  double elapsed_seconds_ = 0;
  double integral_x_ = 0;
  double integral_xx_ = 0;
  double min_ = 0;  // zero before the first reset, as Go's zero value
  double max_ = 0;
};

}  // namespace apf

#endif  // APF_QUEUEING_SEAT_DEMAND_INTEGRATOR_H_

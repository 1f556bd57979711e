// The seat-demand integrator (doc/model.md#seat-demand, fairqueuing/integrator.go), on demand
// histories whose moments are computed by hand in the comments.
#include "apf/queueing/seat_demand_integrator.h"

#include <catch2/catch.hpp>
#include <cmath>

using apf::kSecond;

TEST_CASE("seat demand integrates time-weighted mean, deviation and max", "[integrator]") {
  apf::SeatDemandIntegrator igr(0);
  igr.Set(0, 10);            // 10 seats for 2 s
  igr.Set(2 * kSecond, 30);  // 30 seats for 2 s
  auto r = igr.Reset(4 * kSecond);
  // mean = (10*2 + 30*2)/4 = 20; E[X^2] = (100*2 + 900*2)/4 = 500; var = 500 - 400 = 100.
  CHECK(r.duration_seconds == 4.0);
  CHECK(r.average == 20.0);
  CHECK(r.std_dev == 10.0);
  CHECK(r.max == 30.0);
  CHECK(r.min == 0.0);  // Go's zero value before the first reset
  // After a reset min and max start at the current demand, 30.
  igr.Set(5 * kSecond, 5);
  r = igr.Reset(6 * kSecond);
  CHECK(r.max == 30.0);
  CHECK(r.min == 5.0);
  CHECK(r.average == 17.5);  // (30*1 + 5*1)/2
}

TEST_CASE("a zero-length period reports NaN moments", "[integrator]") {
  apf::SeatDemandIntegrator igr(7);
  auto r = igr.Reset(7);
  CHECK(r.duration_seconds == 0);
  CHECK(std::isnan(r.average));
  CHECK(std::isnan(r.std_dev));
}

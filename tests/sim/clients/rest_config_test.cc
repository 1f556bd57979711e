// client-go's rest.Config QPS and Burst as the RESTClient's rate limiter
// (sim/clients/rest_config.h, doc/model.md#client-rate-limiter). Delays worked out by hand in the
// comments; they also agree with golang.org/x/time/rate's rate.go run on the same sequence under
// Go.
#include "sim/clients/rest_config.h"

#include <catch2/catch.hpp>

#include "apf/base/virtual_time.h"

using apf::kNever;

namespace {

apf::Nanos WaitDelay(apf::RateLimiter& bucket, apf::Nanos now) {
  const apf::RateLimiter::WaitResult w = bucket.Wait(now, kNever);
  REQUIRE(w.status == apf::RateLimiter::WaitStatus::kGranted);
  return w.delay_ns;
}

}  // namespace

TEST_CASE("QPS is a float32 widened to float64, as rate.Limit(qps) does", "[rest_config]") {
  // rest.Config.QPS is a float32: 0.1f is 13421773 * 2^-27 = 0.100000001490116..., so one
  // token takes 1/0.100000001490116 s = 9.99999985098838... s -> 9999999850 ns, not 10 s.
  // Two tokens: 19999999701.97... -> 19999999701 ns.
  auto bucket = sim::NewRestClientRateLimiter(0.1f, 1);
  REQUIRE(bucket.has_value());
  CHECK(WaitDelay(*bucket, 0) == 0);
  CHECK(WaitDelay(*bucket, 0) == 9999999850);
  CHECK(WaitDelay(*bucket, 0) == 19999999701);
}

TEST_CASE("rest.Config QPS and Burst: 0 means 5 and 10, negative QPS means no limiter",
          "[rest_config]") {
  // doc/model.md#client-rate-limiter, rest/config.go RESTClientForConfigAndClient.
  auto defaults = sim::NewRestClientRateLimiter(0, 0);
  REQUIRE(defaults.has_value());
  CHECK(defaults->limit() == 5.0);
  CHECK(defaults->burst() == 10);
  auto only_qps = sim::NewRestClientRateLimiter(1000, 0);  // seed 000's tenant-operator
  REQUIRE(only_qps.has_value());
  CHECK(only_qps->burst() == 10);
  // controller-runtime >= v0.21 sets QPS = -1 when it was 0
  // (doc/model.md#controller-runtime-limits).
  CHECK_FALSE(sim::NewRestClientRateLimiter(-1, 0).has_value());
  CHECK_FALSE(sim::NewRestClientRateLimiter(-1, 500).has_value());
}

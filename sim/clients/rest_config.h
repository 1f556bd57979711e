// How client-go's rest.Config turns its QPS and Burst into the RESTClient's rate limiter
// (k8s.io/client-go rest/config.go, doc/model.md#client-rate-limiter). The limiter itself is
// golang.org/x/time/rate's, apf/base/rate_limiter.h.
//
// Tested by tests/sim/clients/rest_config_test.cc.
#ifndef SIM_CLIENTS_REST_CONFIG_H_
#define SIM_CLIENTS_REST_CONFIG_H_

#include <optional>

#include "apf/base/rate_limiter.h"

namespace sim {

// rest/config.go DefaultQPS (a float32) and DefaultBurst.
inline constexpr float kDefaultClientQps = 5.0f;
inline constexpr int kDefaultClientBurst = 10;

// rest.RESTClientForConfigAndClient when Config.RateLimiter is nil: QPS 0 means 5, Burst 0
// means 10, and a negative QPS means no limiter at all (controller-runtime >= v0.21 sets
// QPS = -1); otherwise flowcontrol.NewTokenBucketRateLimiter(qps, burst), which widens the
// float32 QPS, so 0.1 is 0.10000000149...
std::optional<apf::RateLimiter> NewRestClientRateLimiter(float qps, int burst);

}  // namespace sim

#endif  // SIM_CLIENTS_REST_CONFIG_H_

#include "sim/clients/rest_config.h"

namespace sim {

std::optional<apf::RateLimiter> NewRestClientRateLimiter(float qps, int burst) {
  if (qps == 0.0f) qps = kDefaultClientQps;
  if (burst == 0) burst = kDefaultClientBurst;
  if (!(qps > 0)) return std::nullopt;
  return apf::NewTokenBucketRateLimiter(qps, burst);
}

}  // namespace sim

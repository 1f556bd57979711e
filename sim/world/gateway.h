// The browser gateway in front of the apiservers (seed 003's krm-foyer, spec.gateway):
// each process of a client that goes `via: gateway` is one browser session, bounded
// before anything reaches Kubernetes by a token bucket of its own (-session-request-rate,
// -session-request-burst), a cap on its requests in flight
// (-max-session-concurrent-requests) and a cap on the gateway's
// (-max-concurrent-requests). Clock-free: Enter takes the virtual time and says whether
// the attempt passes or which 429 the gateway answers; the world schedules nothing for it.
// Tested by tests/sim/world/gateway_test.cc.
#ifndef SIM_WORLD_GATEWAY_H_
#define SIM_WORLD_GATEWAY_H_

#include <cstdint>

#include "apf/base/rate_limiter.h"
#include "apf/base/virtual_time.h"
#include "sim/clients/client_call.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One session's share of the gateway: its requests in flight. (Its rate bucket is the
// caller's, built from spec.gateway's session rate and burst.)
struct GatewaySession {
  int in_flight = 0;
};

// What summary.json reports of the gateway, and its requests in flight.
struct GatewayCounts {
  int in_flight = 0;
  std::uint64_t request_rate_exceeded = 0;
  std::uint64_t too_many_concurrent_requests = 0;
};

struct GatewayVerdict {
  bool passed = false;
  // When refused: the 429 the gateway answers, and the reason a trace gives.
  HttpResponse refusal;
  const char* reason = "";
};

class Gateway {
 public:
  explicit Gateway(const GatewaySpec& spec) : spec_(spec) {}

  // An attempt of a session at `now`. The session's bucket is asked first, so an attempt
  // refused for concurrency has spent its token. A passed attempt holds its place until
  // Leave.
  GatewayVerdict Enter(apf::Nanos now, apf::RateLimiter& session_bucket, GatewaySession& session);
  void Leave(GatewaySession& session) {
    --session.in_flight;
    --counts_.in_flight;
  }

  const GatewayCounts& counts() const { return counts_; }

 private:
  GatewaySpec spec_;
  GatewayCounts counts_;
};

}  // namespace sim

#endif  // SIM_WORLD_GATEWAY_H_

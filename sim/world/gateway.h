// The browser gateway in front of the apiservers (seed 003's krm-foyer, spec.gateway;
// doc/gateway.md): each process of a client that goes `via: gateway` is one browser
// session. Before anything reaches Kubernetes a session meets a token bucket of its own
// (-session-request-rate, -session-request-burst), a cap on its requests in flight
// (-max-session-concurrent-requests) and the replica's (-max-concurrent-requests), or, for
// a stream (/stream/v1), caps on its streams and the replica's (-max-session-streams,
// -max-streams). A response it let through stays counted until it ends, a watch's included,
// and is cut short at the response duration (-max-response-duration), at the first
// session check (-session-check-interval) that finds its session ended, or, a stream whose
// browser stopped reading, at the write timeout (-stream-write-timeout).
// Clock-free: Enter takes the virtual time and says whether the attempt passes or which
// answer the gateway gives; CutOf says when and why an open response is cut short.
// Tested by tests/sim/world/gateway_test.cc.
#ifndef SIM_WORLD_GATEWAY_H_
#define SIM_WORLD_GATEWAY_H_

#include <cstdint>

#include "apf/base/rate_limiter.h"
#include "apf/base/virtual_time.h"
#include "sim/clients/client_call.h"
#include "sim/scenario/scenario.h"

namespace sim {

// One session's share of the gateway: its requests and streams open, and how it ends.
struct GatewaySession {
  int in_flight = 0;
  int streams = 0;
  // The session's end: the earliest of its login lifetime and its logout (kNever: none).
  apf::Nanos ends_at = apf::kNever;
  // Session checks started from then on do not answer (each fails closed one interval later).
  apf::Nanos checks_hang_from = apf::kNever;
  // The browser stops reading its streams then (kNever: it reads on).
  apf::Nanos stops_reading_at = apf::kNever;
};

// Why an open response ends at the gateway's doing; the names are the seed's cause labels
// (krm_foyer_responses_cut_short_total{cause}), the write timeout's is the flag's.
enum class GatewayCut : std::uint8_t {
  kNone,
  kResponseDuration,    // response_duration
  kSessionEnded,        // session_ended
  kStreamWriteTimeout,  // stream_write_timeout: the stream ends, its browser stopped reading
};
const char* GatewayCutName(GatewayCut cut);

// What summary.json reports of the gateway, and its requests and streams open.
struct GatewayCounts {
  int in_flight = 0;
  int streams = 0;
  int peak_in_flight = 0;
  int peak_session_in_flight = 0;
  int peak_streams = 0;
  int peak_session_streams = 0;
  // Refusals by the bound that refused, as the metrics' bound label names it.
  std::uint64_t session_request_burst = 0;        // 429 RequestRateExceeded
  std::uint64_t session_concurrent_requests = 0;  // 429 TooManyConcurrentRequests
  std::uint64_t concurrent_requests = 0;          // 429 TooManyConcurrentRequests
  std::uint64_t session_streams = 0;              // 429 TooManyStreams
  std::uint64_t streams_refused = 0;              // 429 TooManyStreams (the replica's)
  std::uint64_t session_ended_refused = 0;        // 401: the session has ended
  // Responses cut short, by cause.
  std::uint64_t cut_response_duration = 0;
  std::uint64_t cut_session_ended = 0;
  std::uint64_t ended_stream_write_timeout = 0;
};

struct GatewayVerdict {
  bool passed = false;
  // When refused: the answer the gateway gives instead of the apiserver's, and the reason
  // a trace gives.
  HttpResponse refusal;
  const char* reason = "";
};

struct GatewayCutAt {
  apf::Nanos at = apf::kNever;
  GatewayCut cut = GatewayCut::kNone;
};

class Gateway {
 public:
  explicit Gateway(const GatewaySpec& spec) : spec_(spec) {}

  // An attempt of a session at `now`, a stream (/stream/v1) or a request through /k8s. An
  // ended session is answered 401 first; then the session's bucket is asked, so an attempt
  // refused for concurrency has spent its token. A passed attempt holds its place until
  // Leave with the same `stream`.
  GatewayVerdict Enter(apf::Nanos now, apf::RateLimiter& session_bucket, GatewaySession& session,
                       bool stream);
  void Leave(GatewaySession& session, bool stream);

  // When a response opened at `opened` is cut short, and why, if nothing ends it first:
  // the response duration; the first session check (every interval from `opened`) that
  // finds the session ended, or that does not answer within one interval; for a stream,
  // the write timeout after its browser stops reading.
  GatewayCutAt CutOf(apf::Nanos opened, const GatewaySession& session, bool stream) const;
  void CountCut(GatewayCut cut);

  const GatewayCounts& counts() const { return counts_; }
  const GatewaySpec& spec() const { return spec_; }

 private:
  GatewaySpec spec_;
  GatewayCounts counts_;
};

}  // namespace sim

#endif  // SIM_WORLD_GATEWAY_H_

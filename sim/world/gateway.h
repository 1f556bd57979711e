// The browser gateway in front of the apiservers (seed 003's krm-foyer, spec.gateway;
// doc/gateway.md): each process of a client that goes `via: gateway` is one browser
// session. Before anything reaches Kubernetes a session meets a token bucket of its own
// (-session-request-rate, -session-request-burst), a cap on its requests in flight
// (-max-session-concurrent-requests) and the replica's (-max-concurrent-requests), or, for
// a stream (/stream/v1), caps on its streams and the replica's (-max-session-streams,
// -max-streams). A response it let through stays counted until it ends, a watch's included,
// and is cut short at the response duration (-max-response-duration), at the first
// session check (-session-check-interval) that finds its session ended, or, a stream whose
// browser stopped reading, at the write timeout (-stream-write-timeout). An answer over the
// response-byte bound (-max-response-bytes, decoded) is a 502 ResponseTooLarge when its
// size is known before it starts, and is cut short at the bound otherwise.
// Clock-free: Enter takes the virtual time and says whether the attempt passes or which
// answer the gateway gives; CutOf says when and why an open response is cut short.
// Tested by tests/sim/world/gateway_test.cc.
#ifndef SIM_WORLD_GATEWAY_H_
#define SIM_WORLD_GATEWAY_H_

#include <array>
#include <cstdint>

#include "apf/base/rate_limiter.h"
#include "apf/base/virtual_time.h"
#include "sim/clients/client_call.h"
#include "sim/scenario/scenario.h"
#include "sim/world/compiled_request.h"
#include "sim/world/level_timeline.h"
#include "sim/world/service_time.h"

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
// (doc/gateway.md#what-the-results-show indexes clients.csv's columns by it: keep the order).
enum class GatewayCut : std::uint8_t {
  kNone,
  kResponseDuration,    // response_duration
  kSessionEnded,        // session_ended
  kStreamWriteTimeout,  // stream_write_timeout: the stream ends, its browser stopped reading
  kResponseBytes,       // response_bytes: byte L + 1 of an answer of unknown size arrived
};
const char* GatewayCutName(GatewayCut cut);

// Why the gateway answered instead of the apiserver: the reasons of its interruptions
// (krm_foyer_interruptions_total{reason}), and the 401 of an ended session.
enum class GatewayRefusal : std::uint8_t {
  kRequestRateExceeded,
  kTooManyConcurrentRequests,
  kTooManyStreams,
  kResponseTooLarge,
  kSessionEnded,  // 401: the session has ended; not a bound
};
const char* GatewayRefusalName(GatewayRefusal why);
static_assert(static_cast<int>(GatewayRefusal::kSessionEnded) + 1 == kGatewayRefusalKinds);
static_assert(static_cast<int>(GatewayCut::kResponseBytes) == kGatewayCutKinds);

// The decoded size of the answer to `request` that the world knows before the response
// starts: a LIST's objects (its page, `list`), a GET's one object of its resource; -1 when
// nothing is known (a write's answer, a subresource, a resource the scenario does not
// list). Its initial events are what a watch's stream carries (the world sends no other
// events); the stream's size is known only as it is counted.
std::int64_t KnownResponseBytes(const CompiledRequest& request, const apf::RequestInfo& info,
                                const ListResult& list, const Scenario& scenario);

// The bounds whose use krm_foyer_bound_usage_ratio{bound} observes (seed 003, "What is
// measured"), by the metrics' bound label; the request rate is a limit only.
enum class GatewayBound : std::uint8_t {
  kSessionRequestBurst,
  kSessionConcurrentRequests,
  kConcurrentRequests,
  kSessionStreams,
  kStreams,
  kResponseDuration,
  kResponseBytes,
};
inline constexpr int kGatewayBounds = 7;
const char* GatewayBoundName(GatewayBound bound);

// One bound's usage-ratio histogram at the seed's buckets, counted cumulatively as the
// exposition format writes them: le[i] counts the observations <= kUsageBuckets[i].
struct GatewayUsage {
  static constexpr std::array<double, 6> kUsageBuckets = {0.1, 0.25, 0.5, 0.75, 0.9, 1};
  std::array<std::uint64_t, 6> le{};
  std::uint64_t count = 0;
  double sum = 0;
  // A ratio above 1 (a response over its bound, counted when it is cut) is observed as 1.
  void Observe(double ratio);
};

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
  std::uint64_t response_too_large = 0;           // 502 ResponseTooLarge (response_bytes)
  // Responses cut short, by cause.
  std::uint64_t cut_response_duration = 0;
  std::uint64_t cut_session_ended = 0;
  std::uint64_t ended_stream_write_timeout = 0;
  std::uint64_t cut_response_bytes = 0;
  // How much of each bound what it let through used (metrics.prom's
  // krm_foyer_bound_usage_ratio), indexed by GatewayBound.
  std::array<GatewayUsage, kGatewayBounds> usage;
};

struct GatewayVerdict {
  bool passed = false;
  // When refused: the answer the gateway gives instead of the apiserver's, and the reason
  // a trace gives.
  HttpResponse refusal;
  const char* reason = "";
  GatewayRefusal why = GatewayRefusal::kRequestRateExceeded;
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
  // The usage of the two per-response bounds by a response let through: how long it was
  // open, when it ends; its decoded bytes, when the world knows them (at its start: the world
  // sends nothing after a watch's initial events). Usage only, never a refusal.
  void ObserveDuration(apf::Nanos open_for);
  void ObserveBytes(std::int64_t bytes);

  // The response-byte bound on an answer of `bytes` decoded bytes (-1: not known before it
  // starts). Up to the limit it passes; over it, the 502 when the size was known, else the
  // cut at byte limit + 1. A stream is many snapshots and changes, not one answer: the bound
  // does not apply to it.
  bool OverResponseBytes(std::int64_t bytes, bool stream) const {
    return !stream && bytes > spec_.max_response_bytes;
  }
  // The 502 ResponseTooLarge, decided on the apiserver's answer (the request reached
  // Kubernetes): no Retry-After, since waiting does not make the answer smaller.
  HttpResponse ResponseTooLarge();

  const GatewayCounts& counts() const { return counts_; }
  const GatewaySpec& spec() const { return spec_; }

 private:
  GatewayUsage& Usage(GatewayBound bound) { return counts_.usage[static_cast<int>(bound)]; }

  GatewaySpec spec_;
  GatewayCounts counts_;
};

}  // namespace sim

#endif  // SIM_WORLD_GATEWAY_H_

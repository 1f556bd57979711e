#include "sim/world/gateway.h"

#include <algorithm>
#include <cmath>

namespace sim {

const char* GatewayCutName(GatewayCut cut) {
  switch (cut) {
    case GatewayCut::kNone:
      return "";
    case GatewayCut::kResponseDuration:
      return "response_duration";
    case GatewayCut::kSessionEnded:
      return "session_ended";
    case GatewayCut::kStreamWriteTimeout:
      return "stream_write_timeout";
    case GatewayCut::kResponseBytes:
      return "response_bytes";
  }
  return "";
}

const char* GatewayRefusalName(GatewayRefusal why) {
  switch (why) {
    case GatewayRefusal::kRequestRateExceeded:
      return "RequestRateExceeded";
    case GatewayRefusal::kTooManyConcurrentRequests:
      return "TooManyConcurrentRequests";
    case GatewayRefusal::kTooManyStreams:
      return "TooManyStreams";
    case GatewayRefusal::kResponseTooLarge:
      return "ResponseTooLarge";
    case GatewayRefusal::kSessionEnded:
      return "SessionEnded";
  }
  return "";
}

const char* GatewayBoundName(GatewayBound bound) {
  switch (bound) {
    case GatewayBound::kSessionRequestBurst:
      return "session_request_burst";
    case GatewayBound::kSessionConcurrentRequests:
      return "session_concurrent_requests";
    case GatewayBound::kConcurrentRequests:
      return "concurrent_requests";
    case GatewayBound::kSessionStreams:
      return "session_streams";
    case GatewayBound::kStreams:
      return "streams";
    case GatewayBound::kResponseDuration:
      return "response_duration";
    case GatewayBound::kResponseBytes:
      return "response_bytes";
  }
  return "";
}

void GatewayUsage::Observe(double ratio) {
  ratio = std::clamp(ratio, 0.0, 1.0);
  for (std::size_t i = 0; i < kUsageBuckets.size(); ++i) {
    if (ratio <= kUsageBuckets[i]) ++le[i];
  }
  ++count;
  sum += ratio;
}

namespace {

double Ratio(double used, double limit) { return limit > 0 ? used / limit : 1.0; }

}  // namespace

std::int64_t KnownResponseBytes(const CompiledRequest& request, const apf::RequestInfo& info,
                                const ListResult& list, const Scenario& scenario) {
  if (request.is_list) return list.bytes;
  if (request.is_watch || request.resource < 0 || info.verb != "get" || !info.subresource.empty())
    return -1;
  return scenario.resources[static_cast<std::size_t>(request.resource)].average_bytes;
}

HttpResponse Gateway::ResponseTooLarge() {
  ++counts_.response_too_large;
  HttpResponse response;
  response.status_code = 502;
  response.body_is_status = true;
  response.body_message = "ResponseTooLarge";
  return response;
}

GatewayVerdict Gateway::Enter(apf::Nanos now, apf::RateLimiter& session_bucket,
                              GatewaySession& session, bool stream) {
  GatewayVerdict v;
  v.refusal.status_code = 429;
  v.refusal.body_is_status = true;
  if (now >= session.ends_at) {
    // The session's cookie is past its end: the 401 interruption, and the application
    // signs in again (doc/gateway.md#session-end). Not a bound: nothing is spent.
    v.refusal.status_code = 401;
    v.refusal.body_message = "Unauthorized";
    v.reason = "gateway: session ended (401)";
    v.why = GatewayRefusal::kSessionEnded;
    ++counts_.session_ended_refused;
    return v;
  }
  if (!session_bucket.Allow(now)) {
    // RequestRateExceeded carries the time until the session's next token, rounded up.
    const double missing = 1.0 - session_bucket.TokensAt(now);
    v.refusal.has_retry_after = true;
    v.refusal.retry_after_seconds =
        std::max(1, static_cast<int>(std::ceil(missing / spec_.session_request_rate)));
    v.refusal.body_message = "RequestRateExceeded";
    v.reason = "gateway: RequestRateExceeded (session_request_burst)";
    v.why = GatewayRefusal::kRequestRateExceeded;
    ++counts_.session_request_burst;
    return v;
  }
  // The burst's share spent, this attempt's token included; observed only if the attempt
  // is let through (refusals are not observed, seed 003).
  const double burst = spec_.session_request_burst;
  const double burst_used = Ratio(burst - session_bucket.TokensAt(now), burst);
  // A slot frees when another response ends: no Retry-After for these.
  v.why = stream ? GatewayRefusal::kTooManyStreams : GatewayRefusal::kTooManyConcurrentRequests;
  if (stream) {
    if (session.streams >= spec_.max_session_streams) {
      v.refusal.body_message = "TooManyStreams";
      v.reason = "gateway: TooManyStreams (session_streams)";
      ++counts_.session_streams;
    } else if (counts_.streams >= spec_.max_streams) {
      v.refusal.body_message = "TooManyStreams";
      v.reason = "gateway: TooManyStreams (streams)";
      ++counts_.streams_refused;
    } else {
      v.passed = true;
      ++session.streams;
      ++counts_.streams;
      counts_.peak_streams = std::max(counts_.peak_streams, counts_.streams);
      counts_.peak_session_streams = std::max(counts_.peak_session_streams, session.streams);
      Usage(GatewayBound::kSessionRequestBurst).Observe(burst_used);
      Usage(GatewayBound::kSessionStreams)
          .Observe(Ratio(session.streams, spec_.max_session_streams));
      Usage(GatewayBound::kStreams).Observe(Ratio(counts_.streams, spec_.max_streams));
    }
    return v;
  }
  if (session.in_flight >= spec_.max_session_concurrent_requests) {
    v.refusal.body_message = "TooManyConcurrentRequests";
    v.reason = "gateway: TooManyConcurrentRequests (session_concurrent_requests)";
    ++counts_.session_concurrent_requests;
  } else if (counts_.in_flight >= spec_.max_concurrent_requests) {
    v.refusal.body_message = "TooManyConcurrentRequests";
    v.reason = "gateway: TooManyConcurrentRequests (concurrent_requests)";
    ++counts_.concurrent_requests;
  } else {
    v.passed = true;
    ++session.in_flight;
    ++counts_.in_flight;
    counts_.peak_in_flight = std::max(counts_.peak_in_flight, counts_.in_flight);
    counts_.peak_session_in_flight = std::max(counts_.peak_session_in_flight, session.in_flight);
    Usage(GatewayBound::kSessionRequestBurst).Observe(burst_used);
    Usage(GatewayBound::kSessionConcurrentRequests)
        .Observe(Ratio(session.in_flight, spec_.max_session_concurrent_requests));
    Usage(GatewayBound::kConcurrentRequests)
        .Observe(Ratio(counts_.in_flight, spec_.max_concurrent_requests));
  }
  return v;
}

void Gateway::Leave(GatewaySession& session, bool stream) {
  if (stream) {
    --session.streams;
    --counts_.streams;
  } else {
    --session.in_flight;
    --counts_.in_flight;
  }
}

void Gateway::ObserveDuration(apf::Nanos open_for) {
  Usage(GatewayBound::kResponseDuration)
      .Observe(
          Ratio(static_cast<double>(open_for), static_cast<double>(spec_.max_response_duration)));
}

void Gateway::ObserveBytes(std::int64_t bytes) {
  Usage(GatewayBound::kResponseBytes)
      .Observe(Ratio(static_cast<double>(bytes), static_cast<double>(spec_.max_response_bytes)));
}

GatewayCutAt Gateway::CutOf(apf::Nanos opened, const GatewaySession& session, bool stream) const {
  GatewayCutAt out{opened + spec_.max_response_duration, GatewayCut::kResponseDuration};
  // The checks run at opened + k * interval, k >= 1. The first that either starts at or
  // after the session's end, or starts when checks hang, decides: an ended session is cut
  // at that check, a hanging check fails closed one interval later.
  const apf::Nanos interval = spec_.session_check_interval;
  const apf::Nanos decisive = std::min(session.ends_at, session.checks_hang_from);
  if (decisive != apf::kNever) {
    const apf::Nanos since = std::max<apf::Nanos>(decisive - opened, 1);
    const apf::Nanos check = opened + ((since + interval - 1) / interval) * interval;
    const apf::Nanos cut_at = check >= session.checks_hang_from ? check + interval : check;
    // At the same instant the duration is counted first: it is the response's own bound.
    if (cut_at < out.at) out = {cut_at, GatewayCut::kSessionEnded};
  }
  if (stream && session.stops_reading_at != apf::kNever) {
    const apf::Nanos ends = std::max(opened, session.stops_reading_at) + spec_.stream_write_timeout;
    if (ends < out.at) out = {ends, GatewayCut::kStreamWriteTimeout};
  }
  return out;
}

void Gateway::CountCut(GatewayCut cut) {
  switch (cut) {
    case GatewayCut::kNone:
      break;
    case GatewayCut::kResponseDuration:
      ++counts_.cut_response_duration;
      break;
    case GatewayCut::kSessionEnded:
      ++counts_.cut_session_ended;
      break;
    case GatewayCut::kStreamWriteTimeout:
      ++counts_.ended_stream_write_timeout;
      break;
    case GatewayCut::kResponseBytes:
      ++counts_.cut_response_bytes;
      break;
  }
}

}  // namespace sim

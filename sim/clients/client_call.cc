#include "sim/clients/client_call.h"

#include <algorithm>
#include <cassert>

#include "apf/base/go_numeric.h"
#include "sim/clients/client_error_text.h"

namespace sim {
namespace {

using apf::kSecond;
using apf::Nanos;
using WaitStatus = apf::RateLimiter::WaitStatus;

bool IsSuccessCode(int code) { return code == 101 || (code >= 200 && code <= 206); }

}  // namespace

const char* HttpMethodName(HttpMethod method) {
  switch (method) {
    case HttpMethod::kGet:
      return "GET";
    case HttpMethod::kPost:
      return "POST";
    case HttpMethod::kPut:
      return "PUT";
    case HttpMethod::kPatch:
      return "PATCH";
    case HttpMethod::kDelete:
      return "DELETE";
  }
  return "";
}

ClientCallState::TrackedError ClientCallState::ContextErr(Nanos now) const {
  TrackedError err;
  if (canceled_) {
    err.kind = TrackedError::Kind::kContextCanceled;
  } else if (now >= deadline_ns_) {
    err.kind = TrackedError::Kind::kContextDeadline;
  }
  return err;
}

void ClientCallState::TrackPreviousError(TrackedError err) {
  // withRetry.trackPreviousError: keep the two most recent errors, nil ones skipped as
  // "previous".
  if (current_err_.kind != TrackedError::Kind::kNil) previous_err_ = current_err_;
  current_err_ = err;
}

CallStep ClientCallState::WaitUntil(Nanos t) const {
  CallStep step;
  step.action = CallAction::kWait;
  step.wake_at_ns = t;
  return step;
}

CallStep ClientCallState::Finish(const CallContext& c, CallOutcome outcome, FinalError error,
                                 bool wrap_previous) {
  state_ = State::kDone;
  outcome_ = outcome;
  final_ = error;
  wrap_previous_ = wrap_previous;
  // Only a WATCH that succeeded keeps a timer: its stream's end.
  if (!(outcome == CallOutcome::kSucceeded && c.options.kind == CallKind::kWatch)) {
    timer_at_ns_ = apf::kNever;
  }
  return CallStep{};
}

CallStep ClientCallState::Start(const CallContext& c, Nanos now) {
  assert(state_ == State::kIdle);
  if (c.options.kind == CallKind::kDo && c.limiter != nullptr) {
    // Request.request: one tryThrottle under the caller's context, before the timeout
    // context exists, "so a throttled client does not time out before sending once".
    // Its error is returned as is: no retry state exists yet.
    const apf::RateLimiter::WaitResult w = c.limiter->Wait(now, deadline_ns_);
    switch (w.status) {
      case WaitStatus::kExceedsBurst:
        return Finish(c, CallOutcome::kRateLimiterError, {FinalError::Kind::kLimiterBurst}, false);
      case WaitStatus::kContextDone:
        return Finish(c, CallOutcome::kContextError, {FinalError::Kind::kContextDeadline}, false);
      case WaitStatus::kWouldExceedDeadline:
        return Finish(c, CallOutcome::kRateLimiterError, {FinalError::Kind::kLimiterDeadline},
                      false);
      case WaitStatus::kGranted:
        break;
    }
    token_wait_ns_ += w.delay_ns;
    if (w.delay_ns > 0) {
      timer_at_ns_ = w.reservation.time_to_act_ns;
      state_ = State::kFirstToken;
      return WaitUntil(now + w.delay_ns);
    }
  }
  return BeginAttempts(c, now);
}

CallStep ClientCallState::BeginAttempts(const CallContext& c, Nanos now) {
  // Request.request: context.WithTimeout(ctx, r.timeout) after the first token. A WATCH
  // has no such context (Request.Watch), only the per-attempt http.Client.Timeout.
  if (c.options.kind == CallKind::kDo && c.options.timeout_ns > 0) {
    deadline_ns_ = std::min(deadline_ns_, apf::AddSaturating(now, c.options.timeout_ns));
  }
  // withRetry.Before for the first attempt: the context check; the backoff manager is new
  // (one per Request), so its sleep is 0.
  if (ContextDone(now)) {
    const TrackedError err = ContextErr(now);
    TrackPreviousError(err);
    return Finish(
        c, CallOutcome::kContextError,
        {err.kind == TrackedError::Kind::kContextCanceled ? FinalError::Kind::kContextCanceled
                                                          : FinalError::Kind::kContextDeadline},
        true);
  }
  return Send(c, now);
}

inline CallStep ClientCallState::Send(const CallContext& c, Nanos now) {
  timer_at_ns_ = apf::kNever;
  // client.Do with a context that is already done fails before anything is written.
  if (ContextDone(now)) {
    return AfterAttemptError(
        c, now, canceled_ ? TransportError::kContextCanceled : TransportError::kContextDeadline);
  }
  ++attempts_sent_;
  state_ = State::kInFlight;
  Nanos abort_at = deadline_ns_;
  if (c.options.kind == CallKind::kWatch && c.options.timeout_ns > 0) {
    abort_at = std::min(abort_at, apf::AddSaturating(now, c.options.timeout_ns));
  }
  // For Do the http.Client.Timeout (attempt start + Timeout) is never before the context
  // deadline (first token + Timeout), so net/http leaves the context in charge.
  timer_at_ns_ = abort_at;
  CallStep step;
  step.action = CallAction::kSend;
  step.attempt = attempts_sent_;
  step.timeout_param_ns = c.options.timeout_ns;
  step.abort_at_ns = abort_at;
  return step;
}

void ClientCallState::UpdateUrlBackoff(const CallContext& c, Nanos now, int status_code) {
  if (!c.options.url_backoff.enabled) return;
  // URLBackoff.UpdateBackoffWithContext: 429 and codes above 499 step the backoff
  // (flowcontrol.Backoff.Next); anything else, transport errors (code 0) included, resets.
  if (status_code > 499 || status_code == 429) {
    const std::int64_t max = c.options.url_backoff.duration_seconds;
    if (!url_backoff_active_ || now - url_backoff_last_update_ns_ > max * 2 * kSecond) {
      url_backoff_seconds_ = c.options.url_backoff.base_seconds;
    } else {
      url_backoff_seconds_ =
          static_cast<std::int32_t>(std::min(std::int64_t{url_backoff_seconds_} * 2, max));
    }
    url_backoff_active_ = true;
    url_backoff_last_update_ns_ = now;
  } else {
    url_backoff_active_ = false;
    url_backoff_seconds_ = 0;
  }
}

bool ClientCallState::TransportRetryable(const CallContext& c, TransportError error) const {
  const bool probable_eof = error == TransportError::kConnectionReset ||
                            error == TransportError::kEOF || error == TransportError::kGoAway;
  if (c.options.kind == CallKind::kWatch) {
    // Request.Watch: net.IsProbableEOF or net.IsTimeout, for any verb.
    return probable_eof || error == TransportError::kClientTimeout ||
           error == TransportError::kContextDeadline;
  }
  // Request.request: only GET, on IsConnectionReset, IsProbableEOF or
  // IsHTTP2ConnectionLost. Client timeouts are not retried.
  return c.options.method == HttpMethod::kGet &&
         (probable_eof || error == TransportError::kHttp2ConnectionLost);
}

CallStep ClientCallState::OnResponse(const CallContext& c, Nanos now,
                                     const HttpResponse& response) {
  assert(state_ == State::kInFlight);
  response_status_ = static_cast<std::int16_t>(response.status_code);
  response_has_retry_after_ = response.has_retry_after;
  response_retry_after_seconds_ = response.retry_after_seconds;
  response_body_is_status_ = response.body_is_status;
  response_body_ = response.body_message.data();
  response_body_size_ = static_cast<std::uint32_t>(response.body_message.size());
  if (response.status_code == 429) ++http429_responses_;
  if (c.options.kind == CallKind::kWatch && response.status_code == 200) {
    return Finish(c, CallOutcome::kSucceeded, {}, false);
  }
  UpdateUrlBackoff(c, now, response.status_code);  // withRetry.After

  // withRetry.IsNextRetry, then checkWait.
  bool retry = false;
  if (!c.options.body_is_stream) {
    ++retry_attempts_;
    if (retry_attempts_ <= MaxRetries(c)) {
      const int code = response.status_code;
      retry = (code == 429 || code >= 500) && response.has_retry_after;
    }
  }
  TrackPreviousError(TrackedError{});  // a response is a nil error
  if (retry) {
    return BeforeRetry(c, now, static_cast<Nanos>(response.retry_after_seconds) * kSecond);
  }
  if (c.options.kind == CallKind::kDo) {
    // Request.request returns WrapPreviousError(nil) = nil; the error, if any, is the
    // Result's, built by transformResponse, and is never wrapped.
    if (IsSuccessCode(response.status_code)) return Finish(c, CallOutcome::kSucceeded, {}, false);
    return Finish(c, CallOutcome::kStatusError, {FinalError::Kind::kStatus}, false);
  }
  // Request.Watch wraps the transformed error with earlier attempts' errors.
  const FinalError::Kind kind = IsSuccessCode(response.status_code) ? FinalError::Kind::kWatchStatus
                                                                    : FinalError::Kind::kStatus;
  return Finish(c, CallOutcome::kStatusError, {kind}, true);
}

CallStep ClientCallState::OnTransportError(const CallContext& c, Nanos now, TransportError error) {
  assert(state_ == State::kInFlight);
  return AfterAttemptError(c, now, error);
}

CallStep ClientCallState::OnAbortTimer(const CallContext& c, Nanos now) {
  assert(state_ == State::kInFlight);
  return AfterAttemptError(
      c, now,
      now >= deadline_ns_ ? TransportError::kContextDeadline : TransportError::kClientTimeout);
}

CallStep ClientCallState::AfterAttemptError(const CallContext& c, Nanos now, TransportError error) {
  state_ = State::kIdle;
  UpdateUrlBackoff(c, now, 0);
  bool retry = false;
  if (!c.options.body_is_stream) {
    ++retry_attempts_;
    // A retryable error becomes a synthetic "500, Retry-After: 1" (retryAfterResponse).
    retry = retry_attempts_ <= MaxRetries(c) && TransportRetryable(c, error);
  }
  TrackPreviousError({TrackedError::Kind::kTransport, error});
  if (retry) return BeforeRetry(c, now, kSecond);
  if (c.options.kind == CallKind::kWatch && TransportRetryable(c, error)) {
    return Finish(c, CallOutcome::kEmptyWatch, {}, false);
  }
  return Finish(c, CallOutcome::kTransportError, {FinalError::Kind::kTransport, error}, true);
}

CallStep ClientCallState::BeforeRetry(const CallContext& c, Nanos now, Nanos retry_after_ns) {
  state_ = State::kIdle;
  // withRetry.Before: a done context ends the call before any sleep.
  if (ContextDone(now)) {
    const TrackedError err = ContextErr(now);
    TrackPreviousError(err);
    return Finish(
        c, CallOutcome::kContextError,
        {err.kind == TrackedError::Kind::kContextCanceled ? FinalError::Kind::kContextCanceled
                                                          : FinalError::Kind::kContextDeadline},
        true);
  }
  // delay = max(backoff manager's delay, Retry-After); NoBackoff's is 0, and a sleep of 0
  // (or of a negative Retry-After, which loses to 0) returns at once.
  const Nanos delay = std::max(UrlBackoffDelay(), retry_after_ns);
  if (delay > 0) {
    // SleepWithContext: the timer, or the context's end if that comes first.
    state_ = State::kRetrySleep;
    return WaitUntil(std::min(apf::AddSaturating(now, delay), deadline_ns_));
  }
  return ThrottleRetry(c, now);
}

CallStep ClientCallState::ThrottleRetry(const CallContext& c, Nanos now) {
  state_ = State::kIdle;
  if (c.limiter == nullptr) return Send(c, now);  // tryThrottleWithInfo returns at once
  // tryThrottleWithInfo under the timeout context. rate.Limiter.wait checks the burst,
  // then whether the context is done, then reserves within the deadline.
  apf::RateLimiter::WaitResult w;
  if (c.limiter->burst() < 1) {
    w.status = WaitStatus::kExceedsBurst;
  } else if (canceled_) {
    w.status = WaitStatus::kContextDone;
  } else {
    w = c.limiter->Wait(now, deadline_ns_);
  }
  if (w.status != WaitStatus::kGranted) {
    // Before: trackPreviousError(ctx.Err()), which is nil unless the context is done.
    const TrackedError ctx_err = ContextErr(now);
    TrackPreviousError(ctx_err);
    switch (w.status) {
      case WaitStatus::kExceedsBurst:
        return Finish(c, CallOutcome::kRateLimiterError, {FinalError::Kind::kLimiterBurst}, true);
      case WaitStatus::kWouldExceedDeadline:
        return Finish(c, CallOutcome::kRateLimiterError, {FinalError::Kind::kLimiterDeadline},
                      true);
      default:
        // Context errors pass through tryThrottleWithInfo unwrapped.
        return Finish(c, CallOutcome::kContextError,
                      {ctx_err.kind == TrackedError::Kind::kContextCanceled
                           ? FinalError::Kind::kContextCanceled
                           : FinalError::Kind::kContextDeadline},
                      true);
    }
  }
  token_wait_ns_ += w.delay_ns;
  if (w.delay_ns > 0) {
    timer_at_ns_ = w.reservation.time_to_act_ns;
    state_ = State::kRetryToken;
    return WaitUntil(now + w.delay_ns);
  }
  return Send(c, now);
}

CallStep ClientCallState::Wake(const CallContext& c, Nanos now) {
  switch (state_) {
    case State::kFirstToken:
      timer_at_ns_ = apf::kNever;
      return BeginAttempts(c, now);
    case State::kRetrySleep:
      return ThrottleRetry(c, now);
    case State::kRetryToken:
      return Send(c, now);
    default:
      assert(false && "Wake without a pending kWait");
      return CallStep{};
  }
}

CallStep ClientCallState::Cancel(const CallContext& c, Nanos now) {
  if (state_ == State::kDone) return CallStep{};
  canceled_ = true;
  switch (state_) {
    case State::kFirstToken:
      // rate.Limiter.wait: ctx.Done during the delay cancels the reservation.
      c.limiter->CancelAt(Reservation(c), now);
      return Finish(c, CallOutcome::kContextError, {FinalError::Kind::kContextCanceled}, false);
    case State::kRetrySleep:
      // The sleep ends early; the throttle (or, without a limiter, client.Do) then sees the
      // cancelled context.
      return ThrottleRetry(c, now);
    case State::kRetryToken:
      c.limiter->CancelAt(Reservation(c), now);
      TrackPreviousError({TrackedError::Kind::kContextCanceled});
      return Finish(c, CallOutcome::kContextError, {FinalError::Kind::kContextCanceled}, true);
    case State::kInFlight:
      return AfterAttemptError(c, now, TransportError::kContextCanceled);
    default:
      return Finish(c, CallOutcome::kContextError, {FinalError::Kind::kContextCanceled}, false);
  }
}

HttpResponse ClientCallState::last_response() const {
  HttpResponse r;
  r.status_code = response_status_;
  r.has_retry_after = response_has_retry_after_;
  r.retry_after_seconds = response_retry_after_seconds_;
  r.body_is_status = response_body_is_status_;
  r.body_message = std::string_view(response_body_, response_body_size_);
  return r;
}

std::string ClientCallState::ErrorMessage(const CallContext& c,
                                          const RequestDescription& request) const {
  if (outcome_ == CallOutcome::kPending || outcome_ == CallOutcome::kSucceeded ||
      outcome_ == CallOutcome::kEmptyWatch) {
    return "";
  }
  const auto url_error = [&](TransportError error) {
    return std::string(UrlErrorOp(c.options.method)) + " " + GoQuote(request.url) + ": " +
           TransportErrorText(error);
  };
  std::string message;
  switch (final_.kind) {
    case FinalError::Kind::kNone:
      break;
    case FinalError::Kind::kStatus:
      if (response_body_is_status_) {
        message = std::string(response_body_, response_body_size_);  // errors.FromObject(Status)
      } else {
        message = GenericServerResponseMessage(
            response_status_, c.options.method, request,
            TrimSpace(std::string_view(response_body_, response_body_size_)));
      }
      break;
    case FinalError::Kind::kWatchStatus:
      message = "for request " + std::string(request.url) +
                ", got status: " + std::to_string(response_status_);
      break;
    case FinalError::Kind::kTransport:
      message = url_error(final_.transport);
      break;
    case FinalError::Kind::kContextDeadline:
      message = "context deadline exceeded";
      break;
    case FinalError::Kind::kContextCanceled:
      message = "context canceled";
      break;
    case FinalError::Kind::kLimiterDeadline:
      message =
          "client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context "
          "deadline";
      break;
    case FinalError::Kind::kLimiterBurst:
      message =
          "client rate limiter Wait returned an error: rate: Wait(n=1) exceeds limiter's burst " +
          std::to_string(c.limiter != nullptr ? c.limiter->burst() : 0);
      break;
  }
  // withRetry.WrapPreviousError: only when an earlier attempt failed with an error whose
  // text differs; a url.Error is unwrapped to its inner error for the suffix.
  if (wrap_previous_ && previous_err_.kind != TrackedError::Kind::kNil) {
    std::string previous_full, previous_inner;
    switch (previous_err_.kind) {
      case TrackedError::Kind::kTransport:
        previous_full = url_error(previous_err_.transport);
        previous_inner = TransportErrorText(previous_err_.transport);
        break;
      case TrackedError::Kind::kContextDeadline:
        previous_full = previous_inner = "context deadline exceeded";
        break;
      case TrackedError::Kind::kContextCanceled:
        previous_full = previous_inner = "context canceled";
        break;
      case TrackedError::Kind::kNil:
        break;
    }
    if (message != previous_full) {
      message += " - error from a previous attempt: " + previous_inner;
    }
  }
  return message;
}

}  // namespace sim

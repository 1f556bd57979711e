// One logical client-go call (doc/model.md#retry-budget, #client-timeouts, #client-state-machine):
// rest.Request.Do or Watch with its token waits, HTTP attempts, Retry-After sleeps and the
// client-side deadline, as a clock-free state machine. The world drives it: each method takes the
// virtual time and returns a CallStep saying what to do next (wait until a time, send an attempt
// now, or nothing more: the call is done). The call never schedules anything itself.
//
// The sources are client-go rest/request.go (request, Watch, transformResponse) and
// rest/with_retry.go (IsNextRetry, checkWait, Before, WrapPreviousError):
// - one token per attempt (the first attempt of a WATCH takes none), from the RESTClient's
//   bucket, which the caller owns and may share between calls (doc/model.md#limiter-placement);
// - a retry only after a 429 or 5xx response whose Retry-After parses as an integer, or
//   after the synthetic "500, Retry-After: 1" of a retryable transport error; at most
//   max_retries (10) retries; the Retry-After sleep first, then the token; no jitter;
// - Config.Timeout: sent as ?timeout= on every attempt, and for Do a context deadline
//   taken after the first token that bounds every retry (doc/model.md#client-timeouts);
// - the error string the caller sees (doc/model.md#retry-exhausted), built on demand by
// ErrorMessage.
#ifndef SIM_CLIENTS_CLIENT_CALL_H_
#define SIM_CLIENTS_CLIENT_CALL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "apf/base/rate_limiter.h"
#include "apf/base/virtual_time.h"

namespace sim {

// Which rest.Request method runs the call.
enum class CallKind : std::uint8_t {
  kDo,     // Do / DoRaw (Request.request): GET, LIST, CREATE, UPDATE, PATCH, DELETE
  kWatch,  // Request.Watch: the first attempt takes no token; no context timeout
};

enum class HttpMethod : std::uint8_t { kGet, kPost, kPut, kPatch, kDelete };
const char* HttpMethodName(HttpMethod method);  // "GET", ...

// rest/client.go readExpBackoffConfig: KUBE_CLIENT_BACKOFF_BASE and _DURATION (integer
// seconds). Unset by default, which gives NoBackoff (doc/model.md#url-backoff).
struct UrlBackoffConfig {
  bool enabled = false;
  int base_seconds = 0;
  int duration_seconds = 0;
};

struct ClientCallOptions {
  CallKind kind = CallKind::kDo;
  HttpMethod method = HttpMethod::kGet;  // a LIST and a WATCH are GETs
  // Request.Body(io.Reader): never retried. Typed, dynamic and controller-runtime clients
  // send []byte bodies, so this stays false for them (doc/model.md#retryable).
  bool body_is_stream = false;
  int max_retries = 10;  // Request.MaxRetries; a negative value means 0
  // rest.Config.Timeout (0: none). Sent as ?timeout=; for Do also the context deadline
  // (set after the first token); for every attempt the http.Client.Timeout, which only a
  // WATCH can hit first (it has no context deadline of its own).
  apf::Nanos timeout_ns = 0;
  // The caller's own context deadline (kNever: none), e.g. a reconcile timeout.
  apf::Nanos caller_deadline_ns = apf::kNever;
  UrlBackoffConfig url_backoff;
};

// Ways an attempt can end without an HTTP response, as apimachinery's net predicates
// (IsConnectionReset, IsProbableEOF, IsHTTP2ConnectionLost, IsTimeout) classify them.
enum class TransportError : std::uint8_t {
  kConnectionReset,      // ECONNRESET ("connection reset by peer")
  kEOF,                  // io.EOF: the server closed the connection
  kGoAway,               // "http2: server sent GOAWAY and closed the connection"
  kHttp2ConnectionLost,  // "http2: client connection lost"
  kConnectionRefused,    // ECONNREFUSED: no server listening
  kClientTimeout,        // http.Client.Timeout fired before the response headers
  kContextDeadline,      // the call's context deadline fired during the attempt
  kContextCanceled,      // the caller cancelled during the attempt
};

// An HTTP response to one attempt. `body_message` must outlive the call (use constants).
struct HttpResponse {
  int status_code = 200;
  bool has_retry_after = false;  // a Retry-After header that strconv.Atoi accepts
  int retry_after_seconds = 0;
  // A JSON metav1.Status body (its message becomes the error verbatim), or a text body
  // such as APF's text/plain "Too many requests, please try again later."
  // (doc/model.md#retry-after).
  bool body_is_status = false;
  std::string_view body_message;
};

// The body APF's and MaxInFlight's 429s carry (tooManyRequests, http.Error).
inline constexpr std::string_view kTooManyRequestsBody =
    "Too many requests, please try again later.";

enum class CallAction : std::uint8_t {
  kWait,  // call Wake(wake_at_ns) at that time (a token wait or a Retry-After sleep)
  kSend,  // send attempt `attempt` to the server now; report OnResponse or
          // OnTransportError, or OnAbortTimer at abort_at_ns if it is still out then
  kDone,  // finished: see outcome() and ErrorMessage()
};

struct CallStep {
  CallAction action = CallAction::kDone;
  apf::Nanos wake_at_ns = 0;  // kWait
  int attempt = 0;            // kSend: 1 for the first attempt, 2.. for retries
  // kSend: the ?timeout= the server sees (0: none); the server derives its deadline and
  // APF queue-wait limit from it (doc/model.md#server-timeouts).
  apf::Nanos timeout_param_ns = 0;
  // kSend: the client abandons this attempt at this instant (context deadline, or the
  // http.Client.Timeout of a WATCH); kNever when nothing bounds it.
  apf::Nanos abort_at_ns = apf::kNever;
};

enum class CallOutcome : std::uint8_t {
  kPending,
  kSucceeded,         // Do: a 2xx response; Watch: 200, the stream is open
  kEmptyWatch,        // Watch: a retryable transport error outlived the retries;
                      // client-go returns an empty, already closed watch and no error
  kStatusError,       // an error response that was not retried (or ran out of retries)
  kTransportError,    // the last attempt failed without a response and was not retried
  kContextError,      // the context ended before an attempt could be sent
  kRateLimiterError,  // the token bucket refused (would exceed the deadline, or burst < 1)
};

// What the error text names: NewGenericServerResponse's "(<verb> <resource.group>
// <name>)" suffix and the url.Error of transport failures.
struct RequestDescription {
  std::string_view group;     // "" for the core group
  std::string_view resource;  // "pods"; empty when the request names no resource
  std::string_view name;      // the object's name, if the request names one
  std::string_view url;       // as url.Error prints it: Get "<url>": EOF
};

// What a call runs against: its request's options and its RESTClient's bucket (nullptr
// when it has none, QPS < 0). Both must outlive the call, and every method of one call
// must be given the same ones.
struct CallContext {
  const ClientCallOptions& options;
  apf::RateLimiter* limiter;
};

// The state of one call, without its context: the world holds hundreds of thousands of
// calls asleep at once (a Retry-After, a token), and each already knows its request and
// its process, so the context is passed in rather than kept twice. ClientCall,
// below, is the same call bound to its context, for callers that hold one call at a time.
class ClientCallState {
 public:
  // Inline: the world builds one for every call.
  explicit ClientCallState(const CallContext& c) : deadline_ns_(c.options.caller_deadline_ns) {}
  ClientCallState(const ClientCallState&) = delete;
  ClientCallState& operator=(const ClientCallState&) = delete;

  // Begins the call: the first token (Do only), then the first attempt.
  CallStep Start(const CallContext& c, apf::Nanos now);
  // At the wake_at_ns of a kWait.
  CallStep Wake(const CallContext& c, apf::Nanos now);
  // The in-flight attempt got a response.
  CallStep OnResponse(const CallContext& c, apf::Nanos now, const HttpResponse& response);
  // The in-flight attempt failed without a response.
  CallStep OnTransportError(const CallContext& c, apf::Nanos now, TransportError error);
  // At the abort_at_ns of a kSend whose attempt is still out: the client gives up on it
  // (context deadline, or http.Client.Timeout for a WATCH). The world must then cancel
  // the attempt at the server: if it is still queued in APF that is a "time-out"
  // rejection there (doc/model.md#cancellation-while-queued).
  CallStep OnAbortTimer(const CallContext& c, apf::Nanos now);
  // The caller's context is cancelled (a process stopping, a reconcile abandoned). If an
  // attempt was in flight the world must cancel it at the server as above. A token
  // reservation being waited for is handed back to the bucket.
  CallStep Cancel(const CallContext& c, apf::Nanos now);

  bool done() const { return state_ == State::kDone; }
  CallOutcome outcome() const { return outcome_; }
  bool attempt_in_flight() const { return state_ == State::kInFlight; }

  // Attempts that reached the server (each is one APF arrival), and how many of them were
  // retries (rest_client_request_retries_total).
  int attempts_sent() const { return attempts_sent_; }
  int retries_sent() const { return attempts_sent_ > 0 ? attempts_sent_ - 1 : 0; }
  int http429_responses() const { return http429_responses_; }
  // Time spent waiting for tokens (rest_client_rate_limiter_duration_seconds, summed).
  apf::Nanos token_wait_ns() const { return token_wait_ns_; }
  // The context deadline now in force (kNever: none).
  apf::Nanos deadline_ns() const { return deadline_ns_; }
  // Watch, after kSucceeded: the client closes the stream at this instant (the
  // http.Client.Timeout covers the body too, doc/model.md#client-timeouts); kNever when unbounded.
  // (In flight, the attempt's own abort time.)
  apf::Nanos stream_abort_at_ns() const {
    return state_ == State::kInFlight || state_ == State::kDone ? timer_at_ns_ : apf::kNever;
  }
  // The last response received (meaningful when one was).
  HttpResponse last_response() const;
  // For kTransportError: which failure.
  TransportError transport_error() const { return final_.transport; }

  // err.Error() of what the caller gets back, exactly as client-go builds it ("" when the
  // call succeeded). Allocates: call it for reports, not per event.
  std::string ErrorMessage(const CallContext& c, const RequestDescription& request) const;

 private:
  enum class State : std::uint8_t {
    kIdle,
    kFirstToken,
    kRetrySleep,
    kRetryToken,
    kInFlight,
    kDone
  };

  // An error value as withRetry tracks it (currentErr, previousErr): only transport
  // errors and context errors are ever tracked; a response is tracked as nil.
  struct TrackedError {
    enum class Kind : std::uint8_t {
      kNil,
      kTransport,
      kContextDeadline,
      kContextCanceled
    } kind = Kind::kNil;
    TransportError transport = TransportError::kEOF;
  };

  // The error that ends the call, before WrapPreviousError.
  struct FinalError {
    enum class Kind : std::uint8_t {
      kNone,
      kStatus,           // from the last response
      kWatchStatus,      // a WATCH got a non-200 2xx: "for request <url>, got status: N"
      kTransport,        // url.Error around `transport`
      kContextDeadline,  // "context deadline exceeded"
      kContextCanceled,  // "context canceled"
      kLimiterDeadline,  // client rate limiter ... would exceed context deadline
      kLimiterBurst,     // client rate limiter ... exceeds limiter's burst
    } kind = Kind::kNone;
    TransportError transport = TransportError::kEOF;
  };

  bool ContextDone(apf::Nanos now) const { return canceled_ || now >= deadline_ns_; }
  TrackedError ContextErr(apf::Nanos now) const;
  void TrackPreviousError(TrackedError err);

  CallStep BeginAttempts(const CallContext& c, apf::Nanos now);
  // Inline (it is used only in client_call.cc): every call's first attempt goes through it.
  inline CallStep Send(const CallContext& c, apf::Nanos now);
  CallStep BeforeRetry(const CallContext& c, apf::Nanos now, apf::Nanos retry_after_ns);
  CallStep ThrottleRetry(const CallContext& c, apf::Nanos now);
  CallStep AfterAttemptError(const CallContext& c, apf::Nanos now, TransportError error);
  bool TransportRetryable(const CallContext& c, TransportError error) const;
  void UpdateUrlBackoff(const CallContext& c, apf::Nanos now, int status_code);
  apf::Nanos UrlBackoffDelay() const {
    return url_backoff_active_ ? url_backoff_seconds_ * apf::kSecond : 0;
  }

  CallStep Finish(const CallContext& c, CallOutcome outcome, FinalError error, bool wrap_previous);
  CallStep WaitUntil(apf::Nanos t) const;
  // The reservation of the token being waited for (kFirstToken, kRetryToken), for CancelAt.
  apf::RateLimiter::Reservation Reservation(const CallContext& c) const {
    return {true, timer_at_ns_, c.limiter->limit()};
  }

  static int MaxRetries(const CallContext& c) {  // Request.MaxRetries
    return std::max(c.options.max_retries, 0);
  }

  // A call waiting for a token or a Retry-After should cost bytes: wide fields
  // first, one-byte ones last, and nothing kept that another field or state implies.
  apf::Nanos deadline_ns_;
  // Waiting for a token (kFirstToken, kRetryToken): the reservation's time to act (a
  // limiter's limit never changes, so that is all CancelAt needs of it). In flight, and
  // for a WATCH that succeeded: when the client abandons the attempt or closes the
  // stream (kNever: nothing bounds it).
  apf::Nanos timer_at_ns_ = apf::kNever;
  apf::Nanos token_wait_ns_ = 0;
  // URLBackoff's entry for the API server's host, private to this call because client-go
  // makes a new backoff manager in every NewRequest (doc/model.md#url-backoff). Its delay is
  // always whole seconds: a base of seconds doubled up to a cap of seconds.
  apf::Nanos url_backoff_last_update_ns_ = 0;
  std::int32_t url_backoff_seconds_ = 0;

  // The last response, its fields unpacked (an HttpResponse would pad to 32 bytes).
  std::uint32_t response_body_size_ = 0;
  const char* response_body_ = nullptr;
  std::int32_t response_retry_after_seconds_ = 0;

  int retry_attempts_ = 0;  // withRetry.attempts: responses and errors judged so far
  int attempts_sent_ = 0;
  int http429_responses_ = 0;
  std::int16_t response_status_ = 200;  // of the last response: an HTTP status, 100 to 599

  State state_ = State::kIdle;
  CallOutcome outcome_ = CallOutcome::kPending;
  bool canceled_ = false;
  bool response_has_retry_after_ = false;
  bool response_body_is_status_ = false;
  bool url_backoff_active_ = false;
  // After Finish, previous_err_ is what WrapPreviousError sees: nothing tracks an error
  // once the call is done.
  TrackedError current_err_;
  TrackedError previous_err_;
  FinalError final_;
  bool wrap_previous_ = false;
};

// A call bound to its context: ClientCallState's methods without the context argument.
class ClientCall : public ClientCallState {
 public:
  // `options` and `limiter` must outlive the call (see CallContext).
  ClientCall(const ClientCallOptions& options, apf::RateLimiter* limiter)
      : ClientCallState({options, limiter}), context_{options, limiter} {}
  ClientCall(ClientCallOptions&& options, apf::RateLimiter* limiter) = delete;

  CallStep Start(apf::Nanos now) { return ClientCallState::Start(context(), now); }
  CallStep Wake(apf::Nanos now) { return ClientCallState::Wake(context(), now); }
  CallStep OnResponse(apf::Nanos now, const HttpResponse& response) {
    return ClientCallState::OnResponse(context(), now, response);
  }
  CallStep OnTransportError(apf::Nanos now, TransportError error) {
    return ClientCallState::OnTransportError(context(), now, error);
  }
  CallStep OnAbortTimer(apf::Nanos now) { return ClientCallState::OnAbortTimer(context(), now); }
  CallStep Cancel(apf::Nanos now) { return ClientCallState::Cancel(context(), now); }
  std::string ErrorMessage(const RequestDescription& request) const {
    return ClientCallState::ErrorMessage(context(), request);
  }

 private:
  const CallContext& context() const { return context_; }
  CallContext context_;
};

}  // namespace sim

#endif  // SIM_CLIENTS_CLIENT_CALL_H_

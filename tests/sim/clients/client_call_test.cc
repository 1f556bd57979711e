// One client-go call (doc/model.md#retry-budget, #client-timeouts, #client-state-machine): which
// responses are retried and after how long, the token spent per attempt, the context deadline of
// Config.Timeout, and the exact error text the caller sees. Each expected number is worked out in a
// comment from the spec section it cites.
#include "sim/clients/client_call.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "apf/base/rate_limiter.h"
#include "sim/engine/random.h"

using apf::kMillisecond;
using apf::kNever;
using apf::kSecond;
using apf::Nanos;
using sim::CallAction;
using sim::CallKind;
using sim::CallOutcome;
using sim::ClientCall;
using sim::ClientCallOptions;
using sim::HttpMethod;
using sim::HttpResponse;
using sim::TransportError;

// A call holds its options by reference: these outlive every call of the file.
const sim::ClientCallOptions kDefaultOptions;

namespace {

constexpr char kPodsUrl[] = "https://10.0.0.1:6443/api/v1/namespaces/apf-lab/pods";
const sim::RequestDescription kListPods{"", "pods", "", kPodsUrl};

HttpResponse Status(int code) {
  HttpResponse r;
  r.status_code = code;
  return r;
}

HttpResponse TooManyRequests(int retry_after_seconds) {
  HttpResponse r;
  r.status_code = 429;
  r.has_retry_after = true;
  r.retry_after_seconds = retry_after_seconds;
  r.body_message = sim::kTooManyRequestsBody;
  return r;
}

// What the scripted server does with one attempt: answer after `latency_ns`, fail with a
// transport error after it, or never answer (the client's abort timer decides).
struct Reply {
  Nanos latency_ns = 0;
  std::optional<HttpResponse> response;
  std::optional<TransportError> error;
};

Reply Answer(const HttpResponse& response, Nanos latency_ns = 0) {
  return Reply{latency_ns, response, std::nullopt};
}
Reply Fail(TransportError error, Nanos latency_ns = 0) {
  return Reply{latency_ns, std::nullopt, error};
}
Reply Never() { return Reply{}; }

// Plays the world's part: waits out each kWait, answers each kSend from the script (the
// last reply repeats), and records when each attempt was sent and when and how it ended.
struct Run {
  std::vector<Nanos> sent_at;
  std::vector<Nanos> timeout_params;
  std::vector<Nanos> ended_at;  // when the attempt's answer, error or abort timer came
  // What the retry after each attempt must wait (doc/model.md#retryable, #retry-wait): the
  // response's Retry-After in whole seconds, or 1 s for a transport error or an abort (the
  // synthetic "500, Retry-After: 1"); -1 after a response without Retry-After, which is not
  // retried.
  std::vector<Nanos> retry_wait;
  Nanos done_at = -1;
};

Run Drive(ClientCall& call, Nanos start, const std::vector<Reply>& script) {
  Run run;
  Nanos now = start;
  sim::CallStep step = call.Start(now);
  size_t next = 0;
  for (int guard = 0; guard < 1000 && step.action != CallAction::kDone; ++guard) {
    if (step.action == CallAction::kWait) {
      REQUIRE(step.wake_at_ns >= now);
      now = step.wake_at_ns;
      step = call.Wake(now);
      continue;
    }
    run.sent_at.push_back(now);
    run.timeout_params.push_back(step.timeout_param_ns);
    const Reply& reply = script[std::min(next++, script.size() - 1)];
    const bool answered = reply.response.has_value() || reply.error.has_value();
    if (!answered || now + reply.latency_ns >= step.abort_at_ns) {
      REQUIRE(step.abort_at_ns != kNever);
      now = step.abort_at_ns;
      run.ended_at.push_back(now);
      run.retry_wait.push_back(kSecond);
      step = call.OnAbortTimer(now);
    } else if (reply.response) {
      now += reply.latency_ns;
      run.ended_at.push_back(now);
      run.retry_wait.push_back(
          reply.response->has_retry_after ? reply.response->retry_after_seconds * kSecond : -1);
      step = call.OnResponse(now, *reply.response);
    } else {
      now += reply.latency_ns;
      run.ended_at.push_back(now);
      run.retry_wait.push_back(kSecond);
      step = call.OnTransportError(now, *reply.error);
    }
  }
  REQUIRE(call.done());
  run.done_at = now;
  return run;
}

std::vector<Nanos> Seconds(std::initializer_list<double> s) {
  std::vector<Nanos> out;
  for (double x : s) out.push_back(std::llround(x * 1e9));
  return out;
}

}  // namespace

TEST_CASE("a 429 with Retry-After is retried after exactly that many seconds", "[client_call]") {
  // doc/model.md#retry-wait: wait = Retry-After x 1 s, no jitter. Attempt 1 at 0 gets a 429 with
  // Retry-After 3 after 10 ms; the retry goes at 3.010 s and succeeds.
  ClientCall call(kDefaultOptions, nullptr);
  const Run run = Drive(
      call, 0,
      {Answer(TooManyRequests(3), 10 * kMillisecond), Answer(Status(200), 10 * kMillisecond)});
  CHECK(run.sent_at == Seconds({0, 3.010}));
  CHECK(call.outcome() == CallOutcome::kSucceeded);
  CHECK(call.attempts_sent() == 2);
  CHECK(call.retries_sent() == 1);
  CHECK(call.http429_responses() == 1);
  CHECK(call.ErrorMessage(kListPods).empty());
}

TEST_CASE("after ten retries the caller gets the 429 as a StatusError", "[client_call]") {
  // doc/model.md#retry-budget: maxRetries 10, so 11 attempts. Every answer is an instant 429 with
  // Retry-After 2, so attempt k goes at 2(k-1) s: the last at 20 s. The text is
  // NewGenericServerResponse's for 429 with the "(get pods)" suffix (2.4), not wrapped
  // because no attempt failed with a transport error.
  ClientCall call(kDefaultOptions, nullptr);
  const Run run = Drive(call, 0, {Answer(TooManyRequests(2))});
  CHECK(run.sent_at == Seconds({0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
  CHECK(call.outcome() == CallOutcome::kStatusError);
  CHECK(call.last_response().status_code == 429);
  CHECK(call.http429_responses() == 11);
  CHECK(call.ErrorMessage(kListPods) ==
        "the server has received too many requests and has asked us to try again later "
        "(get pods)");
  // A named object of a non-core group: "(put deployments.apps foo)" (2.4).
  ClientCallOptions put;
  put.method = HttpMethod::kPut;
  put.max_retries = 0;
  ClientCall update(put, nullptr);
  Drive(update, 0, {Answer(TooManyRequests(1))});
  CHECK(update.ErrorMessage({"apps", "deployments", "foo", "https://x/apis/apps/v1"}) ==
        "the server has received too many requests and has asked us to try again later "
        "(put deployments.apps foo)");
}

TEST_CASE("each attempt takes a token, the Retry-After sleep comes before it", "[client_call]") {
  // doc/model.md#limiter-placement, #retry-storm: one token per attempt, retries included; on a
  // retry the sleep comes first and the token wait after it. A 1 QPS / burst 1 bucket; another
  // caller takes tokens at 0, 0 and 0 (waits 0, 1 s, 2 s: tokens -2 at t=0). Our call at 0 then
  // waits 3 s for its first token (tokens -3). The 429 (Retry-After 1) at 3 s -> sleep to
  // 4 s; the bucket then holds -3 + 4 = 1, minus 1 = 0: the retry goes at once at 4 s.
  apf::RateLimiter bucket(1, 1);
  for (int i = 0; i < 3; ++i) bucket.Wait(0, kNever);
  ClientCall call(kDefaultOptions, &bucket);
  const Run run = Drive(call, 0, {Answer(TooManyRequests(1)), Answer(Status(200))});
  CHECK(run.sent_at == Seconds({3, 4}));
  CHECK(call.token_wait_ns() == 3 * kSecond);
  CHECK(bucket.TokensAt(4 * kSecond) == 0.0);  // two tokens taken: one per attempt
}

TEST_CASE("synchronized retriers behind one bucket leave 1/qps apart", "[client_call]") {
  // doc/model.md#retry-storm: callers rejected together sleep the same Retry-After and are released
  // at t+S, then every 1/qps. Eight calls start at t=0 on one 2 QPS / burst 5 bucket: five
  // go at once (tokens 0), the others wait 0.5, 1.0 and 1.5 s (tokens -1, -2, -3). All
  // eight get a 429 with Retry-After 10 at 1.5 s and sleep to 11.5 s. The bucket then
  // holds -3 + 11.5*2 = 20, capped at 5: five retries go at 11.5 s, the others at 12.0,
  // 12.5 and 13.0 s.
  apf::RateLimiter bucket(2, 5);
  std::vector<std::unique_ptr<ClientCall>> calls;
  std::vector<Nanos> first_sent;
  for (int i = 0; i < 8; ++i) {
    calls.push_back(std::make_unique<ClientCall>(kDefaultOptions, &bucket));
    sim::CallStep step = calls.back()->Start(0);
    Nanos at = 0;
    if (step.action == CallAction::kWait) {
      at = step.wake_at_ns;
      step = calls.back()->Wake(at);
    }
    REQUIRE(step.action == CallAction::kSend);
    first_sent.push_back(at);
  }
  CHECK(first_sent == Seconds({0, 0, 0, 0, 0, 0.5, 1.0, 1.5}));
  std::vector<Nanos> retry_sent;
  for (auto& c : calls) {
    const sim::CallStep step = c->OnResponse(1500 * kMillisecond, TooManyRequests(10));
    REQUIRE(step.action == CallAction::kWait);
    CHECK(step.wake_at_ns == 11500 * kMillisecond);
  }
  for (auto& c : calls) {
    sim::CallStep step = c->Wake(11500 * kMillisecond);
    Nanos at = 11500 * kMillisecond;
    if (step.action == CallAction::kWait) {
      at = step.wake_at_ns;
      step = c->Wake(at);
    }
    REQUIRE(step.action == CallAction::kSend);
    retry_sent.push_back(at);
  }
  CHECK(retry_sent == Seconds({11.5, 11.5, 11.5, 11.5, 11.5, 12.0, 12.5, 13.0}));
}

TEST_CASE("only 429 and 5xx with an integer Retry-After are retried", "[client_call]") {
  // doc/model.md#retryable step 5 and section 7: a 504 request timeout has no Retry-After; a
  // 500 without it; 4xx other than 429 never, even with the header; a non-integer
  // Retry-After fails Atoi (has_retry_after false).
  struct Case {
    HttpResponse response;
    int expected_attempts;
  };
  HttpResponse with_header_404 = Status(404);
  with_header_404.has_retry_after = true;
  with_header_404.retry_after_seconds = 1;
  HttpResponse date_429 = Status(429);      // "Retry-After: Wed, 21 Oct 2015 07:28:00 GMT"
  HttpResponse shutdown_503 = Status(503);  // WithWaitGroup: 503 with Retry-After: 1
  shutdown_503.has_retry_after = true;
  shutdown_503.retry_after_seconds = 1;
  const std::vector<Case> cases = {
      {Status(504), 1}, {Status(500), 1}, {with_header_404, 1},
      {date_429, 1},    {Status(409), 1}, {shutdown_503, 11},
  };
  for (const Case& c : cases) {
    ClientCall call(kDefaultOptions, nullptr);
    Drive(call, 0, {Answer(c.response)});
    CHECK(call.attempts_sent() == c.expected_attempts);
    CHECK(call.outcome() == CallOutcome::kStatusError);
  }
}

TEST_CASE("error texts follow NewGenericServerResponse or the server's Status", "[client_call]") {
  // doc/model.md#retry-exhausted and apimachinery errors.NewGenericServerResponse.
  const auto text_of = [](const HttpResponse& response, HttpMethod method) {
    ClientCallOptions o;
    o.method = method;
    ClientCall call(o, nullptr);
    Drive(call, 0, {Answer(response)});
    return call.ErrorMessage(kListPods);
  };
  HttpResponse shutdown_503 = Status(503);
  shutdown_503.has_retry_after = true;
  shutdown_503.retry_after_seconds = 1;
  CHECK(text_of(shutdown_503, HttpMethod::kGet) ==
        "the server is currently unable to handle the request (get pods)");
  HttpResponse panic_500 = Status(500);
  panic_500.body_message = "internal \"boom\"\n";
  CHECK(text_of(panic_500, HttpMethod::kPost) ==
        "an error on the server (\"internal \\\"boom\\\"\") has prevented the request from "
        "succeeding (post pods)");
  // The apiserver's 504 is a JSON Status: its own message wins (timeout.go,
  // NewTimeoutError: "Timeout: " + message).
  HttpResponse timeout_504 = Status(504);
  timeout_504.body_is_status = true;
  timeout_504.body_message = "Timeout: request did not complete within the allotted timeout";
  CHECK(text_of(timeout_504, HttpMethod::kGet) ==
        "Timeout: request did not complete within the allotted timeout");
  CHECK(text_of(Status(418), HttpMethod::kDelete) ==
        "the server responded with the status code 418 but did not return more information "
        "(delete pods)");
}

TEST_CASE("Retry-After 0 and negative values retry at once", "[client_call]") {
  // doc/model.md#retryable: "Retry-After: 0 -> immediate retry"; a negative timer fires at once.
  ClientCall call(kDefaultOptions, nullptr);
  const Run run = Drive(call, 0,
                        {Answer(TooManyRequests(0), kSecond), Answer(TooManyRequests(-5), kSecond),
                         Answer(Status(200))});
  CHECK(run.sent_at == Seconds({0, 1, 2}));
}

TEST_CASE("MaxRetries 0 and stream bodies give a single attempt", "[client_call]") {
  // doc/model.md#retry-budget ("0 means no retries", negative clamped to 0) and 2.2 step 2.
  ClientCallOptions no_retries;
  no_retries.max_retries = -3;
  ClientCall a(no_retries, nullptr);
  Drive(a, 0, {Answer(TooManyRequests(1))});
  CHECK(a.attempts_sent() == 1);
  ClientCallOptions stream_body;
  stream_body.method = HttpMethod::kPost;
  stream_body.body_is_stream = true;
  ClientCall b(stream_body, nullptr);
  Drive(b, 0, {Answer(TooManyRequests(1))});
  CHECK(b.attempts_sent() == 1);
}

TEST_CASE("transport errors: GET retries after 1 s, writes fail at once", "[client_call]") {
  // doc/model.md#retryable step 4: a retryable error becomes "500 with Retry-After: 1", for GET
  // only in Do; a POST fails with the url.Error.
  ClientCall get(kDefaultOptions, nullptr);
  const Run run = Drive(get, 0,
                        {Fail(TransportError::kConnectionReset, 5 * kMillisecond),
                         Fail(TransportError::kHttp2ConnectionLost), Answer(Status(200))});
  CHECK(run.sent_at == Seconds({0, 1.005, 2.005}));
  CHECK(get.outcome() == CallOutcome::kSucceeded);

  ClientCallOptions post;
  post.method = HttpMethod::kPost;
  ClientCall create(post, nullptr);
  Drive(create, 0, {Fail(TransportError::kEOF)});
  CHECK(create.attempts_sent() == 1);
  CHECK(create.outcome() == CallOutcome::kTransportError);
  CHECK(create.ErrorMessage(kListPods) == std::string("Post \"") + kPodsUrl + "\": EOF");

  // Connection refused is not retried by Do even for GET.
  ClientCall refused(kDefaultOptions, nullptr);
  Drive(refused, 0, {Fail(TransportError::kConnectionRefused)});
  CHECK(refused.attempts_sent() == 1);
}

TEST_CASE("an earlier transport error is appended to the final error", "[client_call]") {
  // doc/model.md#retry-exhausted, withRetry.WrapPreviousError. GET: EOF at 0 (retry at 1 s), then a
  // 429 with Retry-After 10 at 1 s, with a 5 s Timeout (deadline 5 s): Before finds the context
  // alive, the sleep is cut at 5 s, the limiter's Wait sees the context done: "context deadline
  // exceeded", wrapped with the EOF (unwrapped from its url.Error).
  ClientCallOptions o;
  o.timeout_ns = 5 * kSecond;
  apf::RateLimiter bucket(5, 10);
  ClientCall call(o, &bucket);
  const Run run = Drive(call, 0, {Fail(TransportError::kEOF), Answer(TooManyRequests(10))});
  CHECK(run.sent_at == Seconds({0, 1}));
  CHECK(run.done_at == 5 * kSecond);
  CHECK(call.outcome() == CallOutcome::kContextError);
  CHECK(call.ErrorMessage(kListPods) ==
        "context deadline exceeded - error from a previous attempt: EOF");

  // The same failure twice is not repeated: EOF, EOF then no retries left -> the url.Error
  // alone (its text equals the previous one).
  ClientCallOptions one_retry;
  one_retry.max_retries = 1;
  ClientCall twice(one_retry, nullptr);
  Drive(twice, 0, {Fail(TransportError::kEOF)});
  CHECK(twice.ErrorMessage(kListPods) == std::string("Get \"") + kPodsUrl + "\": EOF");
}

TEST_CASE("Config.Timeout bounds every retry and is sent as ?timeout=", "[client_call]") {
  // doc/model.md#client-timeouts, the leader-election client: Timeout 5 s. Attempts at 0 and 3 s
  // get 429s with Retry-After 3; the second sleep would end at 6 s but the context ends at 5 s.
  // Without a limiter client.Do then runs with a done context and fails before sending: the
  // url.Error "context deadline exceeded". Two attempts reached the server, each with ?timeout=5s.
  ClientCallOptions o;
  o.method = HttpMethod::kPut;
  o.timeout_ns = 5 * kSecond;
  ClientCall call(o, nullptr);
  const Run run = Drive(call, 0, {Answer(TooManyRequests(3))});
  CHECK(run.sent_at == Seconds({0, 3}));
  CHECK(run.timeout_params == std::vector<Nanos>{5 * kSecond, 5 * kSecond});
  CHECK(run.done_at == 5 * kSecond);
  CHECK(call.outcome() == CallOutcome::kTransportError);
  CHECK(call.ErrorMessage({"coordination.k8s.io", "leases", "kcm",
                           "https://10.0.0.1:6443/apis/coordination.k8s.io/v1/leases/kcm"}) ==
        "Put \"https://10.0.0.1:6443/apis/coordination.k8s.io/v1/leases/kcm\": context "
        "deadline exceeded");
}

TEST_CASE("the first token wait is not bounded by Config.Timeout", "[client_call]") {
  // doc/model.md#limiter-placement: the first tryThrottle runs before the timeout context exists. A
  // drained 1 QPS bucket makes the first token wait 8 s; Timeout 5 s then runs from 8 s:
  // an attempt that never answers is abandoned at 13 s.
  apf::RateLimiter bucket(1, 1);
  for (int i = 0; i < 8; ++i) bucket.Wait(0, kNever);  // tokens 1 - 8 = -7
  ClientCallOptions o;
  o.timeout_ns = 5 * kSecond;
  ClientCall call(o, &bucket);
  const Run run = Drive(call, 0, {Never()});
  CHECK(run.sent_at == Seconds({8}));
  CHECK(run.done_at == 13 * kSecond);
  CHECK(call.deadline_ns() == 13 * kSecond);
  CHECK(call.outcome() == CallOutcome::kTransportError);  // GET: a timeout is not retried
  CHECK(call.ErrorMessage(kListPods) ==
        std::string("Get \"") + kPodsUrl + "\": context deadline exceeded");
}

TEST_CASE("a retry token that would come after the deadline fails the call", "[client_call]") {
  // doc/model.md#token-bucket step 4: Wait fails at once if the token comes after the deadline.
  // 1 QPS / burst 1; Timeout 10 s. Attempt 1 at 0 (token 1 -> 0). The 429 (Retry-After
  // 1) at 0 -> sleep to 1 s. Meanwhile another caller took 20 tokens at 0 (-20), so at
  // 1 s the bucket holds -19 and the token would come 20 s later, past the 10 s deadline.
  apf::RateLimiter bucket(1, 1);
  ClientCallOptions o;
  o.timeout_ns = 10 * kSecond;
  ClientCall call(o, &bucket);
  sim::CallStep step = call.Start(0);
  REQUIRE(step.action == CallAction::kSend);
  for (int i = 0; i < 20; ++i) bucket.Wait(0, kNever);
  step = call.OnResponse(0, TooManyRequests(1));
  REQUIRE(step.action == CallAction::kWait);
  step = call.Wake(step.wake_at_ns);
  CHECK(step.action == CallAction::kDone);
  CHECK(call.outcome() == CallOutcome::kRateLimiterError);
  CHECK(call.ErrorMessage(kListPods) ==
        "client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context "
        "deadline");
  CHECK(bucket.TokensAt(kSecond) == -19.0);  // nothing taken by the refusal
}

TEST_CASE("an abandoned attempt is reported for the server to cancel", "[client_call]") {
  // doc/model.md#cancellation-while-queued: the client's context fires while the attempt waits in
  // APF; the world cancels it at the server, where it counts as a "time-out" rejection. The step
  // tells the world when: abort_at_ns = the deadline (Timeout 30 s, first token at 0).
  ClientCallOptions o;
  o.timeout_ns = 30 * kSecond;
  ClientCall call(o, nullptr);
  sim::CallStep step = call.Start(0);
  REQUIRE(step.action == CallAction::kSend);
  CHECK(step.abort_at_ns == 30 * kSecond);
  CHECK(call.attempt_in_flight());
  step = call.OnAbortTimer(30 * kSecond);
  CHECK(step.action == CallAction::kDone);
  CHECK_FALSE(call.attempt_in_flight());
  // And a caller's cancel during an attempt: "context canceled".
  ClientCall cancelled(kDefaultOptions, nullptr);
  REQUIRE(cancelled.Start(0).action == CallAction::kSend);
  CHECK(cancelled.Cancel(2 * kSecond).action == CallAction::kDone);
  CHECK(cancelled.ErrorMessage(kListPods) ==
        std::string("Get \"") + kPodsUrl + "\": context canceled");
}

TEST_CASE("cancelling while waiting for a token gives the token back", "[client_call]") {
  // doc/model.md#token-bucket step 5: 1 QPS / burst 1 drained at 0 (tokens 0); our call's first
  // token waits 1 s (tokens -1). Cancelled at 0.5 s: the reservation is the last one, so
  // its token comes back: tokens at 0.5 s = -1 + 0.5 + 1 = 0.5.
  apf::RateLimiter bucket(1, 1);
  bucket.Wait(0, kNever);
  ClientCall call(kDefaultOptions, &bucket);
  sim::CallStep step = call.Start(0);
  REQUIRE(step.action == CallAction::kWait);
  CHECK(step.wake_at_ns == kSecond);
  step = call.Cancel(500 * kMillisecond);
  CHECK(step.action == CallAction::kDone);
  CHECK(call.outcome() == CallOutcome::kContextError);
  CHECK(call.ErrorMessage(kListPods) == "context canceled");
  CHECK(bucket.TokensAt(500 * kMillisecond) == 0.5);
  CHECK(call.attempts_sent() == 0);
}

TEST_CASE("a caller deadline the first token cannot meet fails before sending", "[client_call]") {
  // doc/model.md#client-state-machine first line: the limiter error, wrapped by
  // tryThrottleWithInfo.
  apf::RateLimiter bucket(5, 1);
  bucket.Wait(0, kNever);  // next token at 200 ms
  ClientCallOptions o;
  o.caller_deadline_ns = 100 * kMillisecond;
  ClientCall call(o, &bucket);
  CHECK(call.Start(0).action == CallAction::kDone);
  CHECK(call.outcome() == CallOutcome::kRateLimiterError);
  CHECK(call.ErrorMessage(kListPods) ==
        "client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context "
        "deadline");
}

TEST_CASE("a WATCH sends its first attempt without a token, retries take one", "[client_call]") {
  // doc/model.md#limiter-placement: "the first attempt is not rate limited", retries are. A 1 QPS /
  // burst 1 bucket: the first attempt leaves it full (1 token); the 429 (Retry-After 2)
  // retry at 2 s takes it (0 tokens).
  apf::RateLimiter bucket(1, 1);
  ClientCallOptions o;
  o.kind = CallKind::kWatch;
  ClientCall watch(o, &bucket);
  const Run run = Drive(watch, 0, {Answer(TooManyRequests(2)), Answer(Status(200))});
  CHECK(run.sent_at == Seconds({0, 2}));
  CHECK(watch.outcome() == CallOutcome::kSucceeded);
  CHECK(bucket.TokensAt(2 * kSecond) == 0.0);
}

TEST_CASE("a WATCH whose EOFs outlive the retries returns an empty watch", "[client_call]") {
  // doc/model.md#reflector-loop: Request.Watch returns watch.NewEmptyWatch() when a retryable
  // transport error survives all retries: 11 attempts, 1 s apart, no error.
  ClientCallOptions o;
  o.kind = CallKind::kWatch;
  ClientCall watch(o, nullptr);
  const Run run = Drive(watch, 0, {Fail(TransportError::kEOF)});
  CHECK(run.sent_at.size() == 11);
  CHECK(run.sent_at.back() == 10 * kSecond);
  CHECK(watch.outcome() == CallOutcome::kEmptyWatch);
  CHECK(watch.ErrorMessage(kListPods).empty());
}

TEST_CASE("a WATCH's http.Client.Timeout bounds each attempt and the stream", "[client_call]") {
  // doc/model.md#client-timeouts effect 1: Config.Timeout becomes http.Client.Timeout, which bounds
  // each attempt, body included. Timeout 30 s: attempt 1 at 0 gets no headers by 30 s ->
  // a client timeout, retryable for a WATCH (IsTimeout) -> retry at 31 s, answered 200
  // at 31.5 s; the stream is then cut by the client at 31 + 30 = 61 s.
  ClientCallOptions o;
  o.kind = CallKind::kWatch;
  o.timeout_ns = 30 * kSecond;
  ClientCall watch(o, nullptr);
  const Run run = Drive(watch, 0, {Never(), Answer(Status(200), 500 * kMillisecond)});
  CHECK(run.sent_at == Seconds({0, 31}));
  CHECK(watch.outcome() == CallOutcome::kSucceeded);
  CHECK(watch.stream_abort_at_ns() == 61 * kSecond);
}

TEST_CASE("a WATCH's abort time is known in flight, a finished Do call keeps none",
          "[client_call]") {
  // The world bounds a watch's stream while its attempt is still in flight, so the
  // attempt's abort time must read back then: sent at 5 s with Timeout 30 s -> 35 s.
  ClientCallOptions o;
  o.kind = CallKind::kWatch;
  o.timeout_ns = 30 * kSecond;
  ClientCall watch(o, nullptr);
  const sim::CallStep step = watch.Start(5 * kSecond);
  REQUIRE(step.action == CallAction::kSend);
  CHECK(step.abort_at_ns == 35 * kSecond);
  CHECK(watch.stream_abort_at_ns() == 35 * kSecond);
  // A Do call's timer (its context deadline while in flight) is gone once it is done.
  ClientCallOptions get;
  get.timeout_ns = 10 * kSecond;
  ClientCall call(get, nullptr);
  REQUIRE(call.Start(0).abort_at_ns == 10 * kSecond);
  CHECK(call.stream_abort_at_ns() == 10 * kSecond);
  call.OnResponse(kMillisecond, Status(404));
  CHECK(call.outcome() == CallOutcome::kStatusError);
  CHECK(call.stream_abort_at_ns() == apf::kNever);
  // The last response reads back whole, its body included (kept as a pointer and size).
  CHECK(call.last_response().status_code == 404);
  CHECK_FALSE(call.last_response().has_retry_after);
}

TEST_CASE("a call waiting in its client costs at most 80 bytes of client-go state",
          "[client_call]") {
  // Hundreds of thousands of calls sleep through Retry-Afters at once, so each
  // byte here is hundreds of kilobytes there. 80 is what the fields need packed: four
  // times, the body pointer, six 4-byte counters and values, a 2-byte status and 13 bytes
  // of states (79, aligned to 8); the context (options, bucket) is the caller's. With the
  // world's own 32 bytes and the 16-byte posted wake-up that makes 128 (World::Call).
  CHECK(sizeof(sim::ClientCallState) <= 80);
}

TEST_CASE("a WATCH error response is wrapped with an earlier transport error", "[client_call]") {
  // Request.Watch returns WrapPreviousError(transformErr): EOF, then a 403 whose Status
  // message is used verbatim.
  ClientCallOptions o;
  o.kind = CallKind::kWatch;
  ClientCall watch(o, nullptr);
  HttpResponse forbidden = Status(403);
  forbidden.body_is_status = true;
  forbidden.body_message = "pods is forbidden: User \"x\" cannot watch resource \"pods\"";
  Drive(watch, 0, {Fail(TransportError::kEOF), Answer(forbidden)});
  CHECK(watch.ErrorMessage(kListPods) ==
        "pods is forbidden: User \"x\" cannot watch resource \"pods\" - error from a previous "
        "attempt: EOF");
}

TEST_CASE("the optional URL backoff doubles up to its cap and loses to a longer Retry-After",
          "[client_call]") {
  // doc/model.md#url-backoff with KUBE_CLIENT_BACKOFF_BASE=1, _DURATION=8: after each 429 the
  // backoff is 1, 2, 4, 8, 8 s (Next: base, then min(2*prev, 8)); the sleep is
  // max(Retry-After, backoff). Retry-After 1 throughout -> sleeps 1, 2, 4, 8, 8; a
  // Retry-After of 20 on the 6th response beats the backoff's 8.
  ClientCallOptions o;
  o.url_backoff = {true, 1, 8};
  ClientCall call(o, nullptr);
  const Run run =
      Drive(call, 0,
            {Answer(TooManyRequests(1)), Answer(TooManyRequests(1)), Answer(TooManyRequests(1)),
             Answer(TooManyRequests(1)), Answer(TooManyRequests(1)), Answer(TooManyRequests(20)),
             Answer(Status(200))});
  CHECK(run.sent_at == Seconds({0, 1, 3, 7, 15, 23, 43}));
}

TEST_CASE("property: at most 11 attempts, one token each, each retry its wait after the answer",
          "[client_call]") {
  // Invariants of doc/model.md#retry-budget, #retry-wait, #limiter-placement over random server
  // behaviour: attempts <= max_retries + 1; a Do call spends exactly one token per attempt sent (a
  // WATCH one fewer); the call always ends; and a retry is sent exactly its wait after the answer
  // that asked for it (2.3: wait = Retry-After x 1 s, no jitter, no other delay here: no
  // URL backoff and a bucket that never makes anyone wait). So send times never go back,
  // but they need not increase: "Retry-After: 0 -> immediate retry" (2.2), and with a
  // zero latency the retry goes at the instant of the attempt it repeats. Seeds 19 and 158
  // draw that case; seed 11 is the one this test had first.
  std::map<std::uint64_t, int> same_instant_retries;  // by seed
  for (const std::uint64_t seed : {11, 19, 158}) {
    sim::Random rng(seed, "client-call-property");
    for (int trial = 0; trial < 300; ++trial) {
      INFO("seed " << seed << ", trial " << trial);
      ClientCallOptions o;
      o.kind = rng.UniformInt(4) == 0 ? CallKind::kWatch : CallKind::kDo;
      o.max_retries = static_cast<int>(rng.UniformInt(12));
      o.timeout_ns =
          rng.UniformInt(2) == 0 ? 0 : static_cast<Nanos>(1 + rng.UniformInt(60)) * kSecond;
      // A bucket that never makes anyone wait and refills only 1e-12 tokens per second, so
      // the tokens taken can be read off it.
      apf::RateLimiter bucket(1e-12, 1000000);
      ClientCall call(o, &bucket);
      std::vector<Reply> script;
      for (int i = 0; i < 15; ++i) {
        const Nanos latency = static_cast<Nanos>(rng.UniformInt(3000)) * kMillisecond;
        switch (rng.UniformInt(5)) {
          case 0:
            script.push_back(Answer(TooManyRequests(static_cast<int>(rng.UniformInt(5))), latency));
            break;
          case 1:
            script.push_back(Answer(Status(500 + static_cast<int>(rng.UniformInt(5))), latency));
            break;
          case 2:
            script.push_back(Fail(TransportError::kEOF, latency));
            break;
          case 3:
            script.push_back(Answer(TooManyRequests(1), latency));
            break;
          default:
            script.push_back(rng.UniformInt(3) == 0 ? Answer(Status(200), latency)
                                                    : Answer(TooManyRequests(2), latency));
        }
      }
      const Run run = Drive(call, 0, script);
      REQUIRE(call.attempts_sent() <= o.max_retries + 1);
      REQUIRE(static_cast<int>(run.sent_at.size()) == call.attempts_sent());
      const double tokens_used = 1000000.0 - bucket.TokensAt(run.done_at);
      const int expected =
          o.kind == CallKind::kDo ? call.attempts_sent() : std::max(0, call.attempts_sent() - 1);
      // (A Do call whose context ended during a sleep takes no token for the unsent attempt.)
      REQUIRE(tokens_used == Approx(expected).margin(1e-6));
      for (size_t i = 1; i < run.sent_at.size(); ++i) {
        // Only a response with Retry-After, an error or an abort is retried (2.2).
        REQUIRE(run.retry_wait[i - 1] >= 0);
        REQUIRE(run.sent_at[i] == run.ended_at[i - 1] + run.retry_wait[i - 1]);
        REQUIRE(run.sent_at[i] >= run.sent_at[i - 1]);
        if (run.sent_at[i] == run.sent_at[i - 1]) ++same_instant_retries[seed];
      }
    }
  }
  // Seeds 19 and 158 do reach the case that strictly increasing send times got wrong.
  CHECK(same_instant_retries[19] > 0);
  CHECK(same_instant_retries[158] > 0);
}

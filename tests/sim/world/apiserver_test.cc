// One apiserver replica's decisions (sim/world/apiserver.h): the request timeout's 504,
// EventRateLimit's refusal, the answers, and what a LIST returns. The replicas here run
// with APF off (MaxInFlight), which needs no FlowControl configuration.
#include "sim/world/apiserver.h"

#include <catch2/catch.hpp>

using apf::kMicrosecond;
using apf::kSecond;

namespace {

sim::Scenario MaxInFlightScenario() {
  sim::Scenario s;
  s.seed = 1;
  s.apiservers.enable_priority_and_fairness = false;
  s.apiservers.request_timeout = 60 * kSecond;
  return s;
}

sim::RequestTemplate Template(const std::string& verb, const std::string& resource) {
  sim::RequestTemplate t;
  t.verb = verb;
  t.resource = resource;
  t.namespace_ = "default";
  return t;
}

}  // namespace

TEST_CASE("a handler still running at the request timeout is answered 504 then", "[apiserver]") {
  const apf::Nanos timeout = 60 * kSecond;
  // Arrived at 0 and dispatched at 10 s: a 30 s handler is done at 40 s, in time.
  CHECK(sim::Apiserver::TimeoutAt(10 * kSecond, 0, 30 * kSecond, timeout, false) == apf::kNever);
  // Done exactly at the timeout: in time.
  CHECK(sim::Apiserver::TimeoutAt(10 * kSecond, 0, 50 * kSecond, timeout, false) == apf::kNever);
  // A 55 s handler would end at 65 s: the client gets 504 at 60 s.
  CHECK(sim::Apiserver::TimeoutAt(10 * kSecond, 0, 55 * kSecond, timeout, false) == 60 * kSecond);
  // Dispatched after the deadline had passed: 504 at once.
  CHECK(sim::Apiserver::TimeoutAt(70 * kSecond, 0, 1 * kSecond, timeout, false) == 70 * kSecond);
  // Long-running requests (watches, exec, ...) have no request timeout.
  CHECK(sim::Apiserver::TimeoutAt(10 * kSecond, 0, 500 * kSecond, timeout, true) == apf::kNever);

  const sim::HttpResponse r = sim::Apiserver::GatewayTimeout();
  CHECK(r.status_code == 504);
  CHECK(r.body_is_status);
  CHECK_FALSE(r.has_retry_after);
  CHECK(r.body_message ==
        "The server was unable to return a response in the time allotted, but may still be "
        "processing the request");
}

TEST_CASE("executing a slow request schedules its 504 at arrival + request timeout",
          "[apiserver]") {
  sim::Scenario s = MaxInFlightScenario();
  sim::RequestTemplate t = Template("get", "configmaps");
  t.service_time =
      sim::DurationDistribution{sim::DurationDistribution::Kind::kConstant, 90 * kSecond, 0};
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::CompiledRequest request;
  sim::CompileRequest(t, s, service_time, &request);
  sim::Apiserver server(0, s, nullptr, &service_time, nullptr);
  // Arrived at 5 s, dispatched at 10 s, runs 90 s (to 100 s): still running at 5 + 60 s.
  const sim::Execution e = server.Execute(10 * kSecond, 5 * kSecond, 0, request, request.info, "u");
  CHECK(e.service == 90 * kSecond);
  CHECK_FALSE(e.event_rejected());
  CHECK(e.timeout_at == 65 * kSecond);
  // A 30 s handler dispatched at the same time ends at 40 s: no 504.
  t.service_time->value = 30 * kSecond;
  CHECK(server.Execute(10 * kSecond, 5 * kSecond, 0, request, request.info, "u").timeout_at ==
        apf::kNever);
}

TEST_CASE("EventRateLimit refuses events past its burst, with a quick 429", "[apiserver]") {
  sim::Scenario s = MaxInFlightScenario();
  s.apiservers.event_rate_limits.push_back({"Server", 1, 2, 4096});  // 1 per second, burst 2
  sim::RequestTemplate t = Template("create", "events");
  t.service_time = sim::DurationDistribution{sim::DurationDistribution::Kind::kConstant,
                                             20 * apf::kMillisecond, 0};
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::CompiledRequest request;
  sim::CompileRequest(t, s, service_time, &request);
  sim::Apiserver server(0, s, nullptr, &service_time, nullptr);
  // The burst's two, then a refusal at the same instant.
  CHECK_FALSE(server.Execute(0, 0, 0, request, request.info, "u").event_rejected());
  CHECK_FALSE(server.Execute(0, 0, 0, request, request.info, "u").event_rejected());
  const sim::Execution refused = server.Execute(0, 0, 0, request, request.info, "u");
  CHECK(refused.event_rejected());
  CHECK(refused.service == 100 * kMicrosecond);  // refused before storage is touched
  const sim::HttpResponse r = sim::Apiserver::Answer(request, refused.event_refusal);
  CHECK(r.status_code == 429);
  // limitenforcer.go accept and apierrors.NewTooManyRequestsError: the Server key is "".
  CHECK(r.body_message == "Too many requests: limit reached on type Server for key ");
  CHECK(server.event_refusals().events == 1);
  CHECK(server.event_refusals().by_type[static_cast<size_t>(apf::EventLimitType::kServer)] == 1);
  CHECK_FALSE(r.has_retry_after);
  CHECK(r.body_is_status);
  // A second later one token is back.
  CHECK_FALSE(
      server.Execute(1 * kSecond, 1 * kSecond, 0, request, request.info, "u").event_rejected());
  // Not an event: never asked.
  sim::CompiledRequest pod;
  const sim::RequestTemplate pod_t = Template("create", "pods");
  sim::CompileRequest(pod_t, s, service_time, &pod);
  CHECK_FALSE(server.Execute(1 * kSecond, 1 * kSecond, 0, pod, pod.info, "u").event_rejected());
}

TEST_CASE("the handler's answers", "[apiserver]") {
  const sim::Scenario s = MaxInFlightScenario();
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::CompiledRequest create, get;
  const sim::RequestTemplate create_t = Template("create", "pods"), get_t = Template("get", "pods");
  sim::CompileRequest(create_t, s, service_time, &create);
  sim::CompileRequest(get_t, s, service_time, &get);
  CHECK(sim::Apiserver::Answer(create, {}).status_code == 201);
  CHECK(sim::Apiserver::Answer(get, {}).status_code == 200);
  const sim::HttpResponse r = sim::Apiserver::TooManyRequests(7);
  CHECK(r.status_code == 429);
  CHECK(r.has_retry_after);
  CHECK(r.retry_after_seconds == 7);
  CHECK_FALSE(r.body_is_status);
  CHECK(r.body_message == sim::kTooManyRequestsBody);
}

TEST_CASE("a LIST returns the scenario's objects, per namespace and limited", "[apiserver]") {
  sim::Scenario s = MaxInFlightScenario();
  sim::ResourceSpec pods;
  pods.resource = "pods";
  pods.objects = 1001;
  pods.average_bytes = 2000;
  for (int i = 0; i < 10; ++i) pods.namespace_names.push_back("ns-" + std::to_string(i));
  s.resources.push_back(pods);
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::Apiserver server(0, s, nullptr, &service_time, nullptr);
  sim::RequestTemplate t = Template("list", "pods");
  sim::CompiledRequest list;
  sim::CompileRequest(t, s, service_time, &list);
  // One namespace of ten holds ceil(1001 / 10) = 101 pods of 2000 bytes.
  sim::ListResult r = server.ListResultOf(list, list.info);
  CHECK(r.objects == 101);
  CHECK(r.bytes == 202000);
  // All namespaces: all 1001.
  apf::RequestInfo all = list.info;
  all.namespace_name.clear();
  CHECK(server.ListResultOf(list, all).objects == 1001);
  // ?limit=50 pages it.
  all.query.limit = 50;
  CHECK(server.ListResultOf(list, all).objects == 50);
  // A GET of a named object returns no list (a GET without a name is a LIST:
  // requestinfo.go NewRequestInfo).
  sim::CompiledRequest get;
  sim::RequestTemplate get_t = Template("get", "pods");
  get_t.name = "web-0";
  sim::CompileRequest(get_t, s, service_time, &get);
  CHECK(server.ListResultOf(get, get.info).objects == 0);
}

TEST_CASE("a watch stays open for its timeoutSeconds", "[apiserver]") {
  const sim::Scenario s = MaxInFlightScenario();
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::Apiserver server(0, s, nullptr, &service_time, nullptr);
  apf::RequestInfo watch;
  watch.verb = "watch";
  watch.query.timeout_seconds = 300;
  CHECK(server.WatchLifetime(watch) == 300 * kSecond);
  // Without one: MinRequestTimeout (1800 s) x U[1, 2).
  watch.query.timeout_seconds.reset();
  const apf::Nanos open = server.WatchLifetime(watch);
  CHECK(open >= 1800 * kSecond);
  CHECK(open < 3600 * kSecond);
}

TEST_CASE("on a shared backend the 504 is always scheduled at the request timeout", "[apiserver]") {
  // A backend's service time is full-speed work: how long the handler really runs depends
  // on how many share the cores later, so the deadline is kept (the world cancels it when
  // the handler returns first). A 1 s handler dispatched at 10 s of a 60 s timeout: 60 s.
  const apf::Nanos timeout = 60 * kSecond;
  CHECK(sim::Apiserver::TimeoutAt(10 * kSecond, 0, 1 * kSecond, timeout, false, true) ==
        60 * kSecond);
  CHECK(sim::Apiserver::TimeoutAt(70 * kSecond, 0, 1 * kSecond, timeout, false, true) ==
        70 * kSecond);
  CHECK(sim::Apiserver::TimeoutAt(10 * kSecond, 0, 1 * kSecond, timeout, true, true) ==
        apf::kNever);
}

TEST_CASE("a request's own ?timeout= sets its 504 when it is below --request-timeout",
          "[apiserver]") {
  // k8s.io/apiserver pkg/endpoints/filters/request_deadline.go withRequestDeadline: the
  // deadline is received + the ?timeout= when 0 < timeout < --request-timeout (60 s here),
  // else received + 60 s; pkg/server/filters/timeout.go answers 504 at that deadline.
  sim::Scenario s = MaxInFlightScenario();
  sim::RequestTemplate t = Template("get", "configmaps");
  t.service_time =
      sim::DurationDistribution{sim::DurationDistribution::Kind::kConstant, 90 * kSecond, 0};
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::CompiledRequest request;
  sim::CompileRequest(t, s, service_time, &request);
  sim::Apiserver server(0, s, nullptr, &service_time, nullptr);
  // Arrived at 1 s, dispatched at 2 s, runs 90 s.
  const auto timeout_at = [&](apf::Nanos user_timeout) {
    return server.Execute(2 * kSecond, 1 * kSecond, user_timeout, request, request.info, "u")
        .timeout_at;
  };
  CHECK(timeout_at(5 * kSecond) == 6 * kSecond);     // ?timeout=5s: 1 + 5 s, not 61 s
  CHECK(timeout_at(1) == 2 * kSecond);               // 1ns: past at dispatch, 504 at once
  CHECK(timeout_at(0) == 61 * kSecond);              // none, or ?timeout=0s: the flag's
  CHECK(timeout_at(-5 * kSecond) == 61 * kSecond);   // ?timeout=-5s parses; not > 0
  CHECK(timeout_at(60 * kSecond) == 61 * kSecond);   // not below the flag: the flag's
  CHECK(timeout_at(120 * kSecond) == 61 * kSecond);  // above it: the flag's
  CHECK(server.DeadlineTimeout(59 * kSecond) == 59 * kSecond);
  // A 3 s handler under ?timeout=5s is done at 5 s, before 6 s: no 504.
  t.service_time->value = 3 * kSecond;
  CHECK(timeout_at(5 * kSecond) == apf::kNever);
}

TEST_CASE("a ?timeout= that is not a Go duration is answered 400 with Go's message",
          "[apiserver]") {
  // request_deadline.go parseTimeout: fmt.Errorf("%s - %s", invalidTimeoutInURL, err) over
  // time.ParseDuration's error, answered apierrors.NewBadRequest.
  const sim::Scenario s = MaxInFlightScenario();
  const sim::ServiceTimeModel service_time(s.apiservers.service_time);
  sim::Apiserver server(0, s, nullptr, &service_time, nullptr);
  const sim::HttpResponse r = server.InvalidTimeout("5");
  CHECK(r.status_code == 400);
  CHECK(r.body_is_status);
  CHECK_FALSE(r.has_retry_after);
  CHECK(r.body_message ==
        "invalid timeout specified in the request URL - time: missing unit in duration \"5\"");
  CHECK(server.InvalidTimeout("5sec").body_message ==
        "invalid timeout specified in the request URL - time: unknown unit \"sec\" in duration "
        "\"5sec\"");
  CHECK(server.InvalidTimeout("abc").body_message ==
        "invalid timeout specified in the request URL - time: invalid duration \"abc\"");
  // The template keeps the value and says it is malformed; a well-formed one is parsed,
  // negative included (time.ParseDuration accepts a sign).
  sim::RequestTemplate t = Template("get", "configmaps");
  t.query = "timeout=5";
  sim::CompiledRequest bad;
  sim::CompileRequest(t, s, service_time, &bad);
  CHECK(bad.query_timeout_malformed);
  CHECK(bad.info.query.timeout == "5");
  t.query = "timeout=-5s";
  sim::CompiledRequest negative;
  sim::CompileRequest(t, s, service_time, &negative);
  CHECK_FALSE(negative.query_timeout_malformed);
  CHECK(negative.query_timeout == -5 * kSecond);
}

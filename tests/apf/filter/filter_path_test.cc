// Which requests skip APF, how long they may wait in a queue, and what a watch needs
// (doc/model.md#long-running-requests, #queue-wait-deadline, #watch-flow): longrunning.go with
// kube-apiserver's sets, request_deadline.go, getRequestWaitContext, the watch cache and
// handlers/get.go.
#include <catch2/catch.hpp>

#include "apf/classification/long_running.h"
#include "apf/classification/request_info.h"
#include "apf/filter/request_deadline.h"

using apf::kSecond;

TEST_CASE("Long-running requests other than watches skip APF", "[filterpath]") {
  auto skips = [](const char* method, const char* path) {
    return apf::SkipsPriorityAndFairness(apf::NewRequestInfo(method, path, ""));
  };
  // Every pods/log GET, follow or not; exec, attach, portforward, proxy.
  CHECK(skips("GET", "/api/v1/namespaces/a/pods/p/log"));
  CHECK(skips("POST", "/api/v1/namespaces/a/pods/p/exec"));
  CHECK(skips("POST", "/api/v1/namespaces/a/pods/p/attach"));
  CHECK(skips("POST", "/api/v1/namespaces/a/pods/p/portforward"));
  CHECK(skips("GET", "/api/v1/namespaces/a/services/s/proxy/x"));
  CHECK(skips("GET", "/api/v1/proxy/namespaces/a/services/s"));
  CHECK(skips("GET", "/debug/pprof/profile"));
  // Watches are long-running but go through APF.
  auto watch = apf::NewRequestInfo("GET", "/api/v1/pods", "watch=true");
  CHECK(apf::IsLongRunningRequest(watch));
  CHECK_FALSE(apf::SkipsPriorityAndFairness(watch));
  CHECK_FALSE(skips("GET", "/api/v1/namespaces/a/pods"));
  CHECK_FALSE(skips("GET", "/debug/pprof"));  // the prefix has a trailing slash
  CHECK_FALSE(skips("GET", "/metrics"));
}

TEST_CASE("The queue-wait limit is a quarter of the deadline, 15 s by default", "[filterpath]") {
  // Default --request-timeout 60 s: 15 s.
  CHECK(apf::QueueWaitLimitForRequest(false, std::nullopt) == 15 * kSecond);
  // ?timeout=10s: 2.5 s.
  CHECK(apf::QueueWaitLimitForRequest(false, 10 * kSecond) == 2500 * apf::kMillisecond);
  // A timeout of 0 or beyond the server's is ignored.
  CHECK(apf::QueueWaitLimitForRequest(false, 0) == 15 * kSecond);
  CHECK(apf::QueueWaitLimitForRequest(false, 90 * kSecond) == 15 * kSecond);
  CHECK(apf::QueueWaitLimitForRequest(false, 60 * kSecond) == 15 * kSecond);
  // Watches have no deadline: the default wait limit, whatever ?timeout= says.
  CHECK(apf::QueueWaitLimitForRequest(true, 10 * kSecond) == 15 * kSecond);
  // Go Duration division truncates: 7 ns / 4 = 1 ns.
  CHECK(apf::QueueWaitLimitForRequest(false, 7) == 1);
  // At most a minute: --request-timeout=300s gives 75 s, capped to 60.
  CHECK(apf::QueueWaitLimitForRequest(false, std::nullopt, 300 * kSecond) == apf::kMinute);
  CHECK(apf::QueueWaitLimitForRequest(true, std::nullopt, 300 * kSecond) == apf::kMinute);
  CHECK(apf::QueueWaitLimitForRequest(false, 200 * kSecond, 300 * kSecond) == 50 * kSecond);
}

TEST_CASE("Which watches send initial events", "[filterpath]") {
  auto sends = [](const char* query, bool gate = true) {
    return apf::WatchSendsInitialEvents(apf::ParseRequestQuery(query), gate);
  };
  CHECK(sends(""));  // legacy: current state first
  CHECK(sends("resourceVersion=0"));
  CHECK_FALSE(sends("resourceVersion=123"));
  CHECK(sends("resourceVersion=123&sendInitialEvents=true"));
  CHECK_FALSE(sends("sendInitialEvents=false"));
  CHECK_FALSE(sends("resourceVersion=0&sendInitialEvents=false"));
  // With WatchList off the parameter is dropped and resourceVersion decides.
  CHECK_FALSE(sends("resourceVersion=123&sendInitialEvents=true", false));
  CHECK(sends("sendInitialEvents=false", false));
}

TEST_CASE("A watch stays open timeoutSeconds, or 30 to 60 minutes", "[filterpath]") {
  CHECK(apf::WatchLifetime(300, apf::kDefaultMinRequestTimeout, 0.7) == 300 * kSecond);
  CHECK(apf::WatchLifetime(std::nullopt, apf::kDefaultMinRequestTimeout, 0.0) == 1800 * kSecond);
  CHECK(apf::WatchLifetime(0, apf::kDefaultMinRequestTimeout, 0.5) == 2700 * kSecond);
}

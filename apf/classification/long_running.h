// Which requests kube-apiserver treats as long-running, and what that means for flow
// control (doc/model.md#long-running-requests, #watch-flow): k8s.io/apiserver
// pkg/server/filters/longrunning.go BasicLongRunningRequestCheck with the sets kube-apiserver
// installs (verbs watch and proxy; subresources attach, exec, proxy, log and portforward;
// /debug/pprof/), the APF filter's rule that only non-watch long-running requests skip it, and the
// facts about a watch that the caller needs to hold and release its seats.
#ifndef APF_CLASSIFICATION_LONG_RUNNING_H_
#define APF_CLASSIFICATION_LONG_RUNNING_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "apf/base/virtual_time.h"
#include "apf/classification/request_info.h"

namespace apf {

// kube-apiserver's LongRunningFunc. (A generic apiserver without kube-apiserver's sets
// counts only `watch`; apfsim models kube-apiserver.)
// The compares go through string_view, so that each is a length test and an inline
// compare against the literal rather than a strlen and a call: these run several times
// per request. Inline: every request asks.
inline bool IsLongRunningRequest(const RequestInfo& request) {
  const std::string_view verb = request.verb;
  if (verb == "watch" || verb == "proxy") return true;
  if (request.is_resource_request) {
    const std::string_view s = request.subresource;
    if (s.empty()) return false;
    return s == "attach" || s == "exec" || s == "proxy" || s == "log" || s == "portforward";
  }
  return std::string_view(request.path).substr(0, 13) == "/debug/pprof/";
}

// priority-and-fairness.go Handle: long-running requests other than watches are served
// without being classified, estimated, queued or counted. This includes every pods/log
// GET, follow or not.
bool SkipsPriorityAndFairness(const RequestInfo& request);
// The same, for a caller that has already made the long-running test (inline: every
// request asks).
inline bool SkipsPriorityAndFairness(const RequestInfo& request, bool long_running) {
  return long_running && std::string_view(request.verb) != "watch";
}

// Whether a watch starts by sending the current state as synthetic events (watch cache
// watchCache.getAllEventsSinceLocked): with sendInitialEvents=true, or when
// sendInitialEvents is unset and resourceVersion is "" or "0". With the WatchList gate
// off the cache delegator drops sendInitialEvents first (CacheDelegator.Watch).
//
// Under APF a watch holds its seats from dispatch until its initialization signal
// (doc/model.md#watch-flow): for a watch-cache watch, once these initial events (and the bookmark
// that ends them, if asked for) are queued to the watcher; at once for a watch without
// initial events, an etcd-backed watch or one delegated to an aggregated server. The
// watch is registered in the WatchTracker at dispatch and forgotten when it ends.
bool WatchSendsInitialEvents(const RequestQuery& query, bool watch_list_gate);

// How long a watch stays open when the client does not close it
// (pkg/endpoints/handlers/get.go): `timeoutSeconds` seconds if given and non-zero,
// else MinRequestTimeout × (1 + u) for a uniform u in [0, 1), 1800-3600 s by default.
inline constexpr Nanos kDefaultMinRequestTimeout = 1800 * kSecond;
Nanos WatchLifetime(std::optional<std::int64_t> timeout_seconds, Nanos min_request_timeout,
                    double uniform01);

}  // namespace apf

#endif  // APF_CLASSIFICATION_LONG_RUNNING_H_

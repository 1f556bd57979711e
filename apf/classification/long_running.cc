#include "apf/classification/long_running.h"

#include <string_view>

#include "apf/base/go_numeric.h"

namespace apf {

bool SkipsPriorityAndFairness(const RequestInfo& request) {
  return SkipsPriorityAndFairness(request, IsLongRunningRequest(request));
}

bool WatchSendsInitialEvents(const RequestQuery& query, bool watch_list_gate) {
  std::optional<bool> send_initial_events =
      watch_list_gate ? query.send_initial_events : std::nullopt;
  if (send_initial_events.has_value()) return *send_initial_events;
  return query.resource_version.empty() || query.resource_version == "0";
}

Nanos WatchLifetime(std::optional<std::int64_t> timeout_seconds, Nanos min_request_timeout,
                    double uniform01) {
  // time.Duration(*TimeoutSeconds) * time.Second, wrapping like Go's int64.
  Nanos timeout = timeout_seconds.has_value()
                      ? static_cast<Nanos>(static_cast<std::uint64_t>(*timeout_seconds) *
                                           static_cast<std::uint64_t>(kSecond))
                      : 0;
  if (timeout == 0 && min_request_timeout > 0) {
    // time.Duration(float64(minRequestTimeout) * (rand.Float64() + 1.0))
    timeout = GoFloatToInt64(static_cast<double>(min_request_timeout) * (uniform01 + 1.0));
  }
  return timeout;
}

}  // namespace apf

// How long a request may wait in its APF queue (doc/model.md#queue-wait-deadline). Two filters
// decide it: WithRequestDeadline (pkg/endpoints/filters/request_deadline.go) gives every
// non-long-running request a deadline of receivedAt + timeout, where the `?timeout=`
// parameter can only shorten --request-timeout; getRequestWaitContext
// (pkg/server/filters/priority-and-fairness.go) then lets the request wait a quarter of
// that, or the default wait limit (--request-timeout / 4) when it has no deadline (every
// watch), never more than a minute.
//
// The wait limit bounds only the time in the queue; the handler runs with the original
// deadline. Times are measured from the request-received timestamp.
#ifndef APF_FILTER_REQUEST_DEADLINE_H_
#define APF_FILTER_REQUEST_DEADLINE_H_

#include <algorithm>
#include <optional>

#include "apf/base/virtual_time.h"

namespace apf {

inline constexpr Nanos kDefaultRequestTimeout = 60 * kSecond;  // --request-timeout
inline constexpr Nanos kMaxQueueWaitLimit = kMinute;           // getRequestWaitContext's cap

// The apiserver's default wait limit for requests without a deadline: RequestTimeout/4
// (pkg/server/config.go DefaultBuildHandlerChain), 15 s by default.
inline constexpr Nanos DefaultQueueWaitLimit(Nanos request_timeout) { return request_timeout / 4; }

// The timeout WithRequestDeadline sets for a non-long-running request: the user's
// `?timeout=` when it is > 0 and < request_timeout, else request_timeout. A `?timeout=`
// that is not a Go duration is answered 400 before flow control; the caller parses the
// value (RequestQuery::timeout) and handles that case.
inline Nanos RequestDeadlineTimeout(std::optional<Nanos> user_timeout, Nanos request_timeout) {
  if (user_timeout.has_value() && *user_timeout > 0 && *user_timeout < request_timeout) {
    return *user_timeout;
  }
  return request_timeout;
}

// getRequestWaitContext: a quarter of the deadline's distance from arrival (Go Duration
// division, truncating) when there is a deadline, else `default_wait_limit`; at most a
// minute. `deadline_timeout` is nullopt for long-running requests (watches).
inline Nanos QueueWaitLimit(std::optional<Nanos> deadline_timeout, Nanos default_wait_limit) {
  const Nanos limit = deadline_timeout.has_value() ? *deadline_timeout / 4 : default_wait_limit;
  return std::min(limit, kMaxQueueWaitLimit);
}

// Both steps for a request as kube-apiserver configures them: `long_running` from
// IsLongRunningRequest, `user_timeout` the parsed `?timeout=` if present. Inline, like the
// two above: the filter asks for every request.
inline Nanos QueueWaitLimitForRequest(bool long_running, std::optional<Nanos> user_timeout,
                                      Nanos request_timeout = kDefaultRequestTimeout) {
  std::optional<Nanos> deadline_timeout;
  if (!long_running) deadline_timeout = RequestDeadlineTimeout(user_timeout, request_timeout);
  return QueueWaitLimit(deadline_timeout, DefaultQueueWaitLimit(request_timeout));
}

}  // namespace apf

#endif  // APF_FILTER_REQUEST_DEADLINE_H_

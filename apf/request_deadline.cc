#include "apf/request_deadline.h"

#include <algorithm>

namespace apf {

Nanos RequestDeadlineTimeout(std::optional<Nanos> user_timeout, Nanos request_timeout) {
  if (user_timeout.has_value() && *user_timeout > 0 && *user_timeout < request_timeout) {
    return *user_timeout;
  }
  return request_timeout;
}

Nanos QueueWaitLimit(std::optional<Nanos> deadline_timeout, Nanos default_wait_limit) {
  Nanos limit = deadline_timeout.has_value() ? *deadline_timeout / 4 : default_wait_limit;
  return std::min(limit, kMaxQueueWaitLimit);
}

Nanos QueueWaitLimitForRequest(bool long_running, std::optional<Nanos> user_timeout,
                               Nanos request_timeout) {
  std::optional<Nanos> deadline_timeout;
  if (!long_running) deadline_timeout = RequestDeadlineTimeout(user_timeout, request_timeout);
  return QueueWaitLimit(deadline_timeout, DefaultQueueWaitLimit(request_timeout));
}

}  // namespace apf

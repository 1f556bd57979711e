// The Retry-After value APF puts on its 429s, per priority level (doc/model.md#retry-after):
// k8s.io/apiserver pkg/util/flowcontrol/dropped_requests_tracker.go. The value starts at
// 1 s, doubles (at most once per current value's seconds, up to 32) while a level keeps
// dropping at least 3×value requests per value-seconds, and steps down by 1 when it
// drops fewer than value requests in that window. It changes only when a drop lands in
// a new Unix second, so an idle level keeps its last value until its next drop.
//
// The filter records the drop first and reads the value second, so a 429 already
// reflects its own drop. One tracker exists per priority level per apiserver; the caller
// keeps them (keyed by level name) and creates one at the level's first drop.
#ifndef APF_FILTER_RETRY_AFTER_TRACKER_H_
#define APF_FILTER_RETRY_AFTER_TRACKER_H_

#include <cstdint>
#include <vector>

#include "apf/base/virtual_time.h"

namespace apf {

class RetryAfterTracker {
 public:
  static constexpr std::int64_t kMaxRetryAfterSeconds = 32;

  RetryAfterTracker() = default;
  RetryAfterTracker(const RetryAfterTracker&) = delete;
  RetryAfterTracker& operator=(const RetryAfterTracker&) = delete;
  RetryAfterTracker(RetryAfterTracker&&) = default;
  RetryAfterTracker& operator=(RetryAfterTracker&&) = default;

  // Records one dropped request at `unix_now`, a Unix time in ns: the real tracker keys
  // its history by time.Now().Unix(), so the caller passes its run's Unix epoch plus the
  // virtual time. (Second 0 is special: the state starts as if second 0 had already
  // been seen, so drops in it never start a new second. No real clock is ever there.)
  void RecordDroppedRequest(Nanos unix_now);

  // The Retry-After header value in seconds: 1 until the first drop.
  std::int64_t RetryAfterSeconds() const { return retry_after_; }

 private:
  struct SecondStat {
    std::int64_t unix_second;
    std::int64_t drops;
  };
  void AppendHistory(std::int64_t unix_second, std::int64_t drops);
  void UpdateRetryAfter(std::int64_t unix_second);

  std::vector<SecondStat> history_;  // seconds with drops before the current one, oldest first
  std::int64_t current_unix_ = 0;
  std::int64_t current_count_ = 0;
  std::int64_t retry_after_ = 1;
  std::int64_t retry_after_update_unix_ = 0;  // "we can bump at any time after the first drop"
};

}  // namespace apf

#endif  // APF_FILTER_RETRY_AFTER_TRACKER_H_

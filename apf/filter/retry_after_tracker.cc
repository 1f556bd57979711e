#include "apf/filter/retry_after_tracker.h"

#include <algorithm>

namespace apf {
namespace {

// time.Time.Unix(): whole seconds, rounded toward negative infinity.
std::int64_t UnixSecond(Nanos t) {
  std::int64_t s = t / kSecond;
  if (t % kSecond < 0) --s;
  return s;
}

}  // namespace

void RetryAfterTracker::RecordDroppedRequest(Nanos unix_now) {
  const std::int64_t now_second = UnixSecond(unix_now);
  if (now_second == current_unix_) {
    ++current_count_;
    return;
  }
  // A new second: the finished one joins the history (the very first drop appends the
  // initial (0, 0)), and only now may retryAfter change.
  AppendHistory(current_unix_, current_count_);
  current_unix_ = now_second;
  current_count_ = 1;
  UpdateRetryAfter(now_second);
}

void RetryAfterTracker::AppendHistory(std::int64_t unix_second, std::int64_t drops) {
  history_.push_back(SecondStat{unix_second, drops});
  // Entries older than min(2·retryAfter, 32) seconds before the finished second are never
  // needed again.
  const std::int64_t max_history = std::min(2 * retry_after_, kMaxRetryAfterSeconds);
  size_t keep_from = 0;
  while (keep_from < history_.size() &&
         unix_second - history_[keep_from].unix_second > max_history) {
    ++keep_from;
  }
  history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(keep_from));
}

void RetryAfterTracker::UpdateRetryAfter(std::int64_t unix_second) {
  // Drops in [unix_second − retryAfter, unix_second).
  std::int64_t dropped = 0;
  for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
    if (unix_second - it->unix_second > retry_after_) break;
    if (it->unix_second < unix_second) dropped += it->drops;
  }
  if (unix_second - retry_after_update_unix_ >= retry_after_ && dropped >= 3 * retry_after_) {
    // Like TCP: multiplicative increase, at most once per retryAfter seconds.
    retry_after_ = std::min(2 * retry_after_, kMaxRetryAfterSeconds);
    retry_after_update_unix_ = unix_second;
    return;
  }
  if (dropped < retry_after_ && retry_after_ > 1) --retry_after_;  // additive decrease
}

}  // namespace apf

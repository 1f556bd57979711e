#include "sim/world/backend.h"

#include <cassert>
#include <cmath>

namespace sim {

double Backend::rate() const {
  const double n = static_cast<double>(jobs_.size());
  if (n == 0 || n <= cores_) return 1.0;
  return cores_ / n;
}

void Backend::Advance(apf::Nanos now) {
  assert(now >= last_);
  work_clock_ += static_cast<double>(now - last_) * rate();
  last_ = now;
}

void Backend::Start(apf::Nanos now, std::uint64_t request_id, apf::Nanos work) {
  Advance(now);
  jobs_.push(Job{work_clock_ + static_cast<double>(work), next_sequence_++, request_id});
}

apf::Nanos Backend::NextCompletionTime() const {
  if (jobs_.empty()) return apf::kNever;
  const double remaining = jobs_.top().finish_work - work_clock_;
  if (remaining <= 0) return last_;
  return last_ + static_cast<apf::Nanos>(std::ceil(remaining / rate()));
}

std::uint64_t Backend::CompleteNext(apf::Nanos now) {
  Advance(now);
  const std::uint64_t id = jobs_.top().request_id;
  // Rounding the completion up to a whole nanosecond can leave the clock a hair short.
  if (work_clock_ < jobs_.top().finish_work) work_clock_ = jobs_.top().finish_work;
  jobs_.pop();
  return id;
}

}  // namespace sim

#include "sim/engine/engine.h"

#include <cassert>

namespace sim {

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kEndTime:
      return "end time reached";
    case StopReason::kEventBudget:
      return "event budget exhausted";
    case StopReason::kQueueEmpty:
      return "nothing left to happen";
    case StopReason::kStopRequested:
      return "stop requested";
  }
  return "?";
}

EventHandle Engine::At(apf::Nanos time, const Event& event) {
  assert(time >= now_);
  return queue_.Schedule(time, event);
}

void Engine::Post(apf::Nanos time, std::uint32_t arg) {
  assert(time >= now_);
  queue_.Post(time, arg);
}

StopReason Engine::Run(const RunLimits& limits) {
  stop_requested_ = false;
  std::uint64_t handled_here = 0;
  for (;;) {
    if (handled_here >= limits.max_events) return StopReason::kEventBudget;
    const apf::Nanos next = queue_.PeekTime();
    if (next == apf::kNever) return StopReason::kQueueEmpty;
    if (next >= limits.end_time) {
      now_ = limits.end_time;
      return StopReason::kEndTime;
    }
    const FiredEvent fired = queue_.PopPeeked();
    now_ = fired.time;
    ++handled_here;
    ++events_handled_;
    handler_->HandleEvent(now_, fired.event);
    if (stop_requested_) return StopReason::kStopRequested;
    if (limits.keep_going && handled_here % RunLimits::kPollEvery == 0 && !limits.keep_going()) {
      return StopReason::kStopRequested;
    }
  }
}

}  // namespace sim

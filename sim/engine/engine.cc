#include "sim/engine/engine.h"

#include <algorithm>
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

void Engine::Post(apf::Nanos time, std::uint32_t arg) {
  assert(time >= now_);
  queue_.Post(time, arg);
}

StopReason Engine::Run(const RunLimits& limits) {
  stop_requested_ = false;
  // The event budget and the poll share one count of events to pause at, so that between
  // pauses an event costs one comparison of them.
  const std::uint64_t start = events_handled_;
  std::uint64_t pause_at = start;
  const apf::Nanos end_time = limits.end_time;  // in a register: the handler cannot change it
  FiredEvent fired;                             // each event is popped into it
  for (;;) {
    if (events_handled_ == pause_at) {
      // Here only when a multiple of kPollEvery or the budget is reached.
      const std::uint64_t handled_here = events_handled_ - start;
      if (handled_here != 0 && handled_here % RunLimits::kPollEvery == 0 && limits.keep_going &&
          !limits.keep_going()) {
        return StopReason::kStopRequested;
      }
      if (handled_here >= limits.max_events) return StopReason::kEventBudget;
      pause_at = start + std::min(limits.max_events, handled_here + RunLimits::kPollEvery);
    }
    if (!queue_.PopBefore(end_time, fired)) {
      if (queue_.PeekTime() == apf::kNever) return StopReason::kQueueEmpty;
      now_ = end_time;
      return StopReason::kEndTime;
    }
    now_ = fired.time;
    ++events_handled_;
    handler_->HandleEvent(now_, fired.event);
    if (stop_requested_) return StopReason::kStopRequested;
  }
}

}  // namespace sim

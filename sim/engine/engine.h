// The virtual-time loop: owns the clock and the event queue and hands each event, in
// (time, insertion) order, to the one handler that the world registers. A run stops at a
// virtual end time, after an event budget, or when nothing is left to happen.
#ifndef SIM_ENGINE_ENGINE_H_
#define SIM_ENGINE_ENGINE_H_

#include <cassert>
#include <cstdint>
#include <functional>

#include "apf/base/virtual_time.h"
#include "sim/engine/event_queue.h"

namespace sim {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void HandleEvent(apf::Nanos now, const Event& event) = 0;
};

enum class StopReason { kEndTime, kEventBudget, kQueueEmpty, kStopRequested };
const char* StopReasonName(StopReason reason);

struct RunLimits {
  apf::Nanos end_time = apf::kNever;      // events at or after this instant do not fire
  std::uint64_t max_events = UINT64_MAX;  // events handled in this call at the most
  // Asked after every kPollEvery events whether to go on (a signal, a wall-clock budget);
  // false stops the run with kStopRequested. Polling by event count rather than by
  // virtual time is what catches a runaway scenario that never advances the clock.
  std::function<bool()> keep_going = nullptr;
  static constexpr std::uint64_t kPollEvery = 4096;
};

class Engine {
 public:
  // `posted_kind`: the kind of the events Post() schedules (EventQueue::Post).
  explicit Engine(EventHandler* handler, std::uint32_t posted_kind = 0)
      : handler_(handler), queue_(posted_kind) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  apf::Nanos now() const { return now_; }
  std::uint64_t events_handled() const { return events_handled_; }

  // Schedules at an absolute instant, which must not be in the past.
  EventHandle At(apf::Nanos time, const Event& event) {
    assert(time >= now_);
    return queue_.Schedule(time, event);
  }
  EventHandle After(apf::Nanos delay, const Event& event) { return At(now_ + delay, event); }
  // An event that is never cancelled, delivered as Event{posted_kind, arg, 0}: no slot.
  void Post(apf::Nanos time, std::uint32_t arg);
  bool Cancel(EventHandle handle) { return queue_.Cancel(handle); }
  size_t pending() const { return queue_.size(); }

  // Asks Run() to return after the event being handled.
  void RequestStop() { stop_requested_ = true; }

  // Runs until a limit is reached. After kEndTime the clock reads limits.end_time.
  StopReason Run(const RunLimits& limits);

 private:
  EventHandler* handler_;
  EventQueue queue_;
  apf::Nanos now_ = 0;
  std::uint64_t events_handled_ = 0;
  bool stop_requested_ = false;
};

}  // namespace sim

#endif  // SIM_ENGINE_ENGINE_H_

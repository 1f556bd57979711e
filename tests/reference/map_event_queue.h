// A deliberately simple event queue to check sim::EventQueue (sim/engine/event_queue.h)
// against: a std::map keyed by (time, sequence number), so events at one instant come out
// in the order they were scheduled, and a cancel is an erase by that key. Where the real
// queue uses radix buckets, a slot pool and generation-checked handles, this one has
// nothing to get wrong; on long random schedules with cancellations both must fire the
// same events in the same order.
//
// Tested by (and the reference of) tests/sim/engine/event_queue_test.cc.
#ifndef TESTS_REFERENCE_MAP_EVENT_QUEUE_H_
#define TESTS_REFERENCE_MAP_EVENT_QUEUE_H_

#include <cstdint>
#include <map>
#include <utility>

#include "apf/base/virtual_time.h"

namespace reference {

// Schedule returns the sequence number that, with the time, names the event for Cancel;
// Pop gives the earliest event's time and id, ties in scheduling order.
class MapEventQueue {
 public:
  std::uint64_t Schedule(apf::Nanos t, std::uint64_t id) {
    std::uint64_t seq = next_++;
    entries_.emplace(std::make_pair(t, seq), id);
    return seq;
  }
  bool Cancel(apf::Nanos t, std::uint64_t seq) {
    auto it = entries_.find({t, seq});
    if (it == entries_.end()) return false;
    entries_.erase(it);
    return true;
  }
  bool Pop(apf::Nanos* t, std::uint64_t* id) {
    if (entries_.empty()) return false;
    auto it = entries_.begin();
    *t = it->first.first;
    *id = it->second;
    entries_.erase(it);
    return true;
  }

 private:
  std::map<std::pair<apf::Nanos, std::uint64_t>, std::uint64_t> entries_;
  std::uint64_t next_ = 0;
};

}  // namespace reference

#endif  // TESTS_REFERENCE_MAP_EVENT_QUEUE_H_

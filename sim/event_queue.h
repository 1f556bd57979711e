// The engine's pending-event set: a 4-ary min-heap keyed by (time, insertion sequence), so
// events due at the same instant fire in the order they were scheduled.
//
// An Event is a small plain struct (a kind and two integer arguments that the owner
// interprets); there is no std::function and no allocation per event once the heap and
// the slot pool have grown to the run's peak population.
//
// Cancellation is lazy: Cancel() frees the event's slot, and Pop() discards heap entries
// whose slot no longer holds them. A cancelled entry costs its heap
// space until its time comes; Compact() (run automatically when more than half the heap
// is dead) reclaims it.
#ifndef SIM_EVENT_QUEUE_H_
#define SIM_EVENT_QUEUE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "apf/virtual_time.h"

// Limits of the packed entry id: 2^24 (16.7 million) events pending at once and 2^40
// (1.1e12) events scheduled in one run; beyond either the queue aborts with a message.

namespace sim {

struct Event {
  std::uint32_t kind = 0;  // what happens; the owner of the queue defines the values
  std::uint32_t arg32 = 0;
  std::uint64_t arg64 = 0;
};

// Names one scheduled event for Cancel(). A default handle names no event.
struct EventHandle {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

struct FiredEvent {
  apf::Nanos time;
  Event event;
};

class EventQueue {
 public:
  EventQueue() = default;
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  EventHandle Schedule(apf::Nanos time, const Event& event);

  // Cancels a pending event. Returns false when the handle's event already fired or was
  // cancelled (so a stale handle is harmless).
  bool Cancel(EventHandle handle);

  // Removes and returns the earliest live event, or nullopt when none is pending.
  std::optional<FiredEvent> Pop();

  // The time of the earliest live event, or apf::kNever.
  apf::Nanos PeekTime();

  bool empty() const { return live_ == 0; }
  size_t size() const { return live_; }  // live (not cancelled) events
  std::uint64_t scheduled_total() const { return next_sequence_; }

  // Drops cancelled entries from the heap.
  void Compact();

 private:
  // 16 bytes, so that a 4-ary node's children share a cache line. `id` packs the
  // insertion sequence (high 40 bits) above the slot (low 24 bits): comparing ids orders
  // by sequence, and a slot remembers the id of the event it holds, which tells a live
  // entry from a cancelled one.
  struct Entry {
    apf::Nanos time;
    std::uint64_t id;
  };
  struct Slot {
    Event event;
    std::uint64_t id = kNoId;  // the live event's id, or kNoId when free
    std::uint32_t generation = 0;
    std::uint32_t next_free = UINT32_MAX;
  };
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kNoId = UINT64_MAX;

  static bool Before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.id < b.id);
  }
  static std::uint32_t SlotOf(const Entry& e) {
    return static_cast<std::uint32_t>(e.id & ((1u << kSlotBits) - 1));
  }
  bool IsLive(const Entry& e) const { return slots_[SlotOf(e)].id == e.id; }
  void SiftUp(size_t index, Entry entry);
  void SiftDown(size_t index, Entry entry);
  void PopTop();
  void DiscardDeadTop();
  void FreeSlot(std::uint32_t slot);

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::uint32_t free_slot_ = UINT32_MAX;
  std::uint64_t next_sequence_ = 0;
  size_t live_ = 0;
};

}  // namespace sim

#endif  // SIM_EVENT_QUEUE_H_

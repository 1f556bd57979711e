#include "sim/event_queue.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace sim {

namespace {
constexpr size_t kArity = 4;
}

EventHandle EventQueue::Schedule(apf::Nanos time, const Event& event) {
  std::uint32_t slot;
  if (free_slot_ != UINT32_MAX) {
    slot = free_slot_;
    free_slot_ = slots_[slot].next_free;
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  if (slot >= (1u << kSlotBits) || next_sequence_ >= (std::uint64_t{1} << (64 - kSlotBits))) {
    std::fprintf(stderr, "apfsim: internal limit: more than 2^24 pending or 2^40 scheduled events\n");
    std::abort();
  }
  Slot& s = slots_[slot];
  s.event = event;
  s.id = (next_sequence_++ << kSlotBits) | slot;
  s.next_free = UINT32_MAX;
  heap_.emplace_back();
  SiftUp(heap_.size() - 1, Entry{time, s.id});
  ++live_;
  return EventHandle{slot, s.generation};
}

bool EventQueue::Cancel(EventHandle handle) {
  if (!handle.valid() || handle.slot >= slots_.size()) return false;
  const Slot& s = slots_[handle.slot];
  if (s.generation != handle.generation || s.id == kNoId) return false;
  FreeSlot(handle.slot);
  --live_;
  if (heap_.size() > 64 && heap_.size() > 2 * live_) Compact();
  return true;
}

void EventQueue::FreeSlot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  ++s.generation;  // invalidates every handle to the event
  s.id = kNoId;    // and its heap entry
  s.next_free = free_slot_;
  free_slot_ = slot;
}

std::optional<FiredEvent> EventQueue::Pop() {
  DiscardDeadTop();
  if (heap_.empty()) return std::nullopt;
  const Entry top = heap_[0];
  const std::uint32_t slot = SlotOf(top);
  FiredEvent fired{top.time, slots_[slot].event};
  PopTop();
  FreeSlot(slot);
  --live_;
  return fired;
}

apf::Nanos EventQueue::PeekTime() {
  DiscardDeadTop();
  return heap_.empty() ? apf::kNever : heap_[0].time;
}

void EventQueue::DiscardDeadTop() {
  while (!heap_.empty() && !IsLive(heap_[0])) PopTop();
}

void EventQueue::PopTop() {
  Entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDown(0, last);
}

void EventQueue::SiftUp(size_t index, Entry entry) {
  while (index > 0) {
    size_t parent = (index - 1) / kArity;
    if (!Before(entry, heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = entry;
}

void EventQueue::SiftDown(size_t index, Entry entry) {
  const size_t n = heap_.size();
  for (;;) {
    size_t first = index * kArity + 1;
    if (first >= n) break;
    size_t best = first;
    size_t end = first + kArity < n ? first + kArity : n;
    for (size_t c = first + 1; c < end; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    if (!Before(heap_[best], entry)) break;
    heap_[index] = heap_[best];
    index = best;
  }
  heap_[index] = entry;
}

void EventQueue::Compact() {
  size_t kept = 0;
  for (const Entry& e : heap_) {
    if (IsLive(e)) heap_[kept++] = e;
  }
  heap_.resize(kept);
  // Floyd's heap construction: sift down every internal node, last first.
  if (heap_.size() > 1) {
    for (size_t i = (heap_.size() - 2) / kArity + 1; i-- > 0;) SiftDown(i, heap_[i]);
  }
  assert(heap_.size() == live_);
}

}  // namespace sim

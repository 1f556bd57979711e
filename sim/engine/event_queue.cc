#include "sim/engine/event_queue.h"

#include <bit>
#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace sim {

inline int EventQueue::BucketOf(const Entry& e) const {
  if (e.time != last_.time) return 64 + std::bit_width(e.time ^ last_.time);
  if (e.id != last_.id) return std::bit_width(e.id ^ last_.id);
  return 0;
}

void EventQueue::AddBlock(Bucket& bucket) {
  Block* block = free_blocks_;
  if (block != nullptr) {
    free_blocks_ = block->next;
  } else {
    blocks_.push_back(std::make_unique<Block>());
    block = blocks_.back().get();
  }
  block->next = bucket.head;
  bucket.head = block;
  bucket.base = bucket.end = block->entries;
  bucket.limit = block->entries + kBlockEntries;
}

void EventQueue::PopBack(Bucket& bucket) {
  if (--bucket.end != bucket.base || bucket.head->next == nullptr) return;
  Block* block = bucket.head;
  bucket.head = block->next;
  bucket.base = bucket.head->entries;
  bucket.end = bucket.limit = bucket.base + kBlockEntries;
  block->next = free_blocks_;
  free_blocks_ = block;
}

void EventQueue::Clear(Bucket& bucket) {
  bucket.min = kAboveAll;
  if (bucket.head == nullptr) return;
  while (Block* block = bucket.head->next) {
    bucket.head->next = block->next;
    block->next = free_blocks_;
    free_blocks_ = block;
  }
  bucket.end = bucket.base;
}

inline void EventQueue::Place(const Entry& e) {
  const int b = BucketOf(e);
  Push(buckets_[b], e);
  occupied_[b >> 6] |= std::uint64_t{1} << (b & 63);
}

std::uint64_t EventQueue::IdOf(std::uint64_t sequence, std::uint64_t low) {
  if (sequence >= (std::uint64_t{1} << (64 - kSequenceShift))) {
    std::fprintf(stderr, "apfsim: internal limit: more than 2^39 scheduled events\n");
    std::abort();
  }
  return (sequence << kSequenceShift) | low;
}

EventHandle EventQueue::Schedule(apf::Nanos time, const Event& event) {
  return ScheduleWithSequence(time, next_sequence_++, event);
}

void EventQueue::ReserveSequences(std::uint64_t n) {
  if (next_sequence_ != 0) {
    std::fprintf(stderr, "apfsim: internal error: sequences reserved after scheduling\n");
    std::abort();
  }
  reserved_ = next_sequence_ = n;
}

EventHandle EventQueue::ScheduleReserved(apf::Nanos time, std::uint64_t sequence,
                                         const Event& event) {
  if (sequence >= reserved_) {
    std::fprintf(stderr, "apfsim: internal error: sequence %llu was not reserved\n",
                 static_cast<unsigned long long>(sequence));
    std::abort();
  }
  return ScheduleWithSequence(time, sequence, event);
}

EventHandle EventQueue::ScheduleWithSequence(apf::Nanos time, std::uint64_t sequence,
                                             const Event& event) {
  std::uint32_t slot;
  if (free_slot_ != UINT32_MAX) {
    slot = free_slot_;
    free_slot_ = slots_[slot].next_free;
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  if (slot >= (1u << kSlotBits)) {
    std::fprintf(stderr, "apfsim: internal limit: more than 2^24 events pending\n");
    std::abort();
  }
  Slot& s = slots_[slot];
  s.event = event;
  s.id = IdOf(sequence, slot);
  s.next_free = UINT32_MAX;
  AddEntry(Entry{TimeKey(time), s.id});
  return EventHandle{slot, s.generation};
}

void EventQueue::Post(apf::Nanos time, std::uint32_t arg) {
  if (arg >= (1u << kSlotBits)) {
    Schedule(time, Event{posted_kind_, arg, 0});
    return;
  }
  AddEntry(Entry{TimeKey(time), IdOf(next_sequence_++, kPosted | arg)});
}

void EventQueue::AddEntry(const Entry& entry) {
  // Only after PeekTime() looked at an event later than this one can the new key be
  // below the radix base; start the buckets afresh from it then.
  if (Before(entry, last_)) Rebuild(entry);
  Insert(entry);
  ++live_;
}

bool EventQueue::Cancel(EventHandle handle) {
  if (!handle.valid() || handle.slot >= slots_.size()) return false;
  const Slot& s = slots_[handle.slot];
  if (s.generation != handle.generation || s.id == kNoId) return false;
  FreeSlot(handle.slot);
  --live_;
  if (entries_ > 64 && entries_ > 2 * live_) Compact();
  return true;
}

void EventQueue::FreeSlot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  ++s.generation;  // invalidates every handle to the event
  s.id = kNoId;    // and its entry
  s.next_free = free_slot_;
  free_slot_ = slot;
}

bool EventQueue::SettleMinimum() {
  for (;;) {
    Bucket& zero = buckets_[0];
    while (!zero.empty() && !IsLive(zero.back())) {
      PopBack(zero);
      --entries_;
    }
    if (!zero.empty()) return true;
    occupied_[0] &= ~std::uint64_t{1};
    // The lowest non-empty bucket holds the minimum; it becomes the new base and every
    // entry of that bucket moves to a lower one.
    int b = -1;
    for (int w = 0; w < 3; ++w) {
      if (occupied_[w]) {
        b = w * 64 + std::countr_zero(occupied_[w]);
        break;
      }
    }
    if (b < 0) return false;
    // Cancelled entries move down with the live ones and are dropped in bucket 0:
    // telling them apart here would read every moved entry's slot, a likely cache miss,
    // while cancellations are few. A dead minimum is as good a base as a live one.
    Bucket& from = buckets_[b];
    occupied_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
    last_ = from.min;
    from.min = kAboveAll;
    // Every entry moves (Place, not Insert), so entries_ stays as it is.
    // Each full block is handed back as soon as its entries have moved, for the lower
    // buckets to take: a cascade of most of the pending entries then needs no second copy
    // of them. The head block stays with the bucket.
    Block* full = from.head->next;
    from.head->next = nullptr;
    for (const Entry* e = from.base; e != from.end; ++e) Place(*e);
    from.end = from.base;
    while (full != nullptr) {
      Block* next = full->next;
      for (const Entry& e : full->entries) Place(e);
      full->next = free_blocks_;
      free_blocks_ = full;
      full = next;
    }
  }
}

std::optional<FiredEvent> EventQueue::Pop() {
  if (!SettleMinimum()) return std::nullopt;
  const Entry top = buckets_[0].back();  // bucket 0 holds exactly the minimum
  PopBack(buckets_[0]);
  --entries_;
  --live_;
  if (IsPosted(top)) {
    return FiredEvent{TimeOf(top), Event{posted_kind_, SlotOf(top), 0}};
  }
  const std::uint32_t slot = SlotOf(top);
  FiredEvent fired{TimeOf(top), slots_[slot].event};
  FreeSlot(slot);
  return fired;
}

apf::Nanos EventQueue::PeekTime() {
  if (!SettleMinimum()) return apf::kNever;
  return TimeOf(buckets_[0].back());
}

void EventQueue::Rebuild(const Entry& new_last) {
  std::vector<Entry> all;
  all.reserve(entries_);
  for (Bucket& bucket : buckets_) {
    bucket.ForEach([&](const Entry& e) {
      if (IsLive(e)) all.push_back(e);
    });
    Clear(bucket);
  }
  occupied_[0] = occupied_[1] = occupied_[2] = 0;
  entries_ = 0;
  last_ = new_last;
  for (const Entry& e : all) Insert(e);
}

void EventQueue::Compact() {
  std::vector<Entry> kept;
  for (int b = 0; b < kBuckets; ++b) {
    Bucket& bucket = buckets_[b];
    if (bucket.empty()) continue;
    kept.clear();
    size_t held = 0;
    bucket.ForEach([&](const Entry& e) {
      ++held;
      if (IsLive(e)) kept.push_back(e);
    });
    entries_ -= held - kept.size();
    Clear(bucket);
    // The base is unchanged, so each entry belongs to this bucket still. Order within a
    // bucket does not matter: a cascade looks for its minimum, and bucket 0 holds one key.
    for (const Entry& e : kept) Push(bucket, e);
    if (kept.empty()) occupied_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
  }
  assert(entries_ == live_);
}

}  // namespace sim

#include "sim/engine/event_queue.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace sim {

void EventQueue::EntryList::Grow(size_t at_least) {
  const size_t capacity = std::max({at_least, 2 * capacity_, size_t{64}});
  auto data = std::make_unique_for_overwrite<Entry[]>(capacity);
  std::copy(begin(), end(), data.get());
  data_ = std::move(data);
  capacity_ = capacity;
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
  bucket.end = block->entries;
  bucket.limit = block->entries + kBlockEntries;
}

void EventQueue::Clear(Bucket& bucket) {
  bucket.min_time = UINT64_MAX;
  if (bucket.head == nullptr) return;
  while (Block* block = bucket.head->next) {
    bucket.head->next = block->next;
    block->next = free_blocks_;
    free_blocks_ = block;
  }
  bucket.end = bucket.head->entries;
}

inline void EventQueue::Insert(const Entry& e) {
  if (e.time > due_last_) {
    PlaceInBucket(e);
  } else {
    InsertDue(e);
  }
}

void EventQueue::InsertDue(const Entry& e) {
  // In (time, id) order among those waiting. A new event's sequence is the largest, so it
  // goes after those at its time; only a reserved one (ScheduleReserved) can go further
  // forward among them.
  if (due_waiting_ == 0) ResetDue();
  due_.push_back(e);
  const size_t head = due_.size() - 1 - due_waiting_;
  ++due_waiting_;
  size_t i = due_.size() - 1;
  for (; i > head && Before(e, due_[i - 1]); --i) due_[i] = due_[i - 1];
  due_[i] = e;
}

inline std::uint64_t EventQueue::IdOf(std::uint64_t sequence, std::uint64_t low) {
  if (sequence >= kSequenceLimit) {
    std::fprintf(stderr, "apfsim: internal limit: more than 2^39 scheduled events\n");
    std::abort();
  }
  return (sequence << kSequenceShift) | low;
}

inline void EventQueue::AddEntry(const Entry& entry) {
  // Only after PeekTime() looked at an event later than this one can the new time be
  // below the base; start the buckets afresh from it then.
  if (entry.time < base_time_) Rebuild(entry.time);
  Insert(entry);
  ++live_;
}

inline EventHandle EventQueue::ScheduleWithSequence(apf::Nanos time, std::uint64_t sequence,
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
  AddEntry(Entry{TimeKey(time), s.id});
  return EventHandle{slot, s.generation};
}

EventHandle EventQueue::ScheduleUncommon(apf::Nanos time, Event event) {
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

void EventQueue::Post(apf::Nanos time, std::uint32_t arg) {
  if (arg >= (1u << kSlotBits)) {
    Schedule(time, Event{posted_kind_, arg, 0});
    return;
  }
  AddEntry(Entry{TimeKey(time), IdOf(next_sequence_++, kPosted | arg)});
}

bool EventQueue::CancelValid(EventHandle handle) {
  if (handle.slot >= slots_.size()) return false;
  const Slot& s = slots_[handle.slot];
  if (s.generation != handle.generation || s.id == kNoId) return false;
  FreeSlot(handle.slot);
  --live_;
  ++dead_;
  if (live_ + dead_ > 64 && dead_ > live_) Compact();
  return true;
}

inline EventQueue::Bucket& EventQueue::TakeLowestBucket(int& level) {
  // The lowest non-empty bucket holds the earliest entries; its smallest time becomes the
  // base, and every entry of the bucket moves to the due list or to a lower level. Other
  // buckets stay where they are: the new base differs from the old only in this bucket's
  // level and below, so every other entry's highest differing bit is where it was.
  level = std::countr_zero(occupied_levels_);
  std::uint64_t& digits = occupied_digits_[level];
  const int digit = std::countr_zero(digits);
  digits &= digits - 1;
  if (digits == 0) occupied_levels_ &= ~(1u << level);
  Bucket& from = buckets_[level * kDigits + digit];
  base_time_ = from.min_time;
  due_last_ = base_time_;
  from.min_time = UINT64_MAX;
  return from;
}

inline bool EventQueue::SortIntoDue(Bucket& from, int level) {
  Entry* const first = from.head->entries;
  const std::ptrdiff_t n = from.end - first;
  if (level > kSortedLevels || n > kSortedEntries || from.head->next != nullptr) return false;
  // Every entry of the bucket lies in [base, the last time of its range], and every other
  // bucket's entries after it; new entries in that range join the due list in order.
  due_last_ = base_time_ | ((std::uint64_t{1} << (level * kDigitBits)) - 1);
  ResetDue();
  Entry* const sorted = due_.Append(static_cast<size_t>(n));
  for (std::ptrdiff_t i = 0; i < n; ++i) {  // a few entries: an insertion sort
    const Entry e = first[i];
    std::ptrdiff_t j = i;
    for (; j > 0 && Before(e, sorted[j - 1]); --j) sorted[j] = sorted[j - 1];
    sorted[j] = e;
  }
  from.end = first;
  due_waiting_ = static_cast<size_t>(n);
  return true;
}

inline void EventQueue::Cascade() {
  int level;
  Bucket& from = TakeLowestBucket(level);
  Entry* const first = from.head->entries;
  if (from.end == first + 1 && from.head->next == nullptr) {
    // The common case when events are sparse: the bucket's one entry becomes due.
    MakeLoneDue(*first);
    from.end = first;
    return;
  }
  if (!SortIntoDue(from, level)) MoveDown(from);
}

void EventQueue::MoveDown(Bucket& from) {
  // Cancelled entries move down with the live ones and are dropped from the due list:
  // telling them apart here would read every moved entry's slot, a likely cache miss,
  // while cancellations are few.
  auto move = [this](const Entry& e) {
    if (e.time == base_time_) {
      due_.push_back(e);
    } else {
      PlaceInBucket(e);
    }
  };
  // Each full block is handed back as soon as its entries have moved, for the lower
  // buckets to take: a cascade of most of the pending entries then needs no second copy
  // of them. The head block stays with the bucket.
  ResetDue();
  Entry* const first = from.head->entries;
  Block* full = from.head->next;
  from.head->next = nullptr;
  for (const Entry* e = first; e != from.end; ++e) move(*e);
  from.end = first;
  while (full != nullptr) {
    Block* next = full->next;
    for (const Entry& e : full->entries) move(e);
    full->next = free_blocks_;
    free_blocks_ = full;
    full = next;
  }
  // The due list was empty; the bucket's entries came in no particular order.
  due_waiting_ = due_.size();
  if (due_waiting_ > 1) std::sort(due_.begin(), due_.end(), IdBefore);
}

inline bool EventQueue::SettleMinimum() {
  for (;;) {
    for (; due_waiting_ != 0; --due_waiting_) {
      if (IsLive(DueHead())) return true;
      --dead_;
    }
    if (occupied_levels_ == 0) return false;
    Cascade();
  }
}

bool EventQueue::PopThrough(std::uint64_t last_key, FiredEvent& fired) {
  for (;;) {
    for (; due_waiting_ != 0; --due_waiting_) {
      const Entry e = DueHead();
      if (!IsLive(e)) {
        --dead_;
        continue;
      }
      if (e.time > last_key) return false;
      --due_waiting_;
      Fire(e, fired);
      return true;
    }
    if (occupied_levels_ == 0) return false;
    int level;
    Bucket& from = TakeLowestBucket(level);
    Entry* const first = from.head->entries;
    if (from.end == first + 1 && from.head->next == nullptr) {
      // The common case when events are sparse: the bucket's one entry is the earliest and
      // fires straight away, without a stop in the due list.
      const Entry e = *first;
      from.end = first;
      if (!IsLive(e)) {
        --dead_;
        continue;
      }
      if (e.time > last_key) {
        MakeLoneDue(e);
        return false;
      }
      Fire(e, fired);
      return true;
    }
    if (!SortIntoDue(from, level)) MoveDown(from);
  }
}

apf::Nanos EventQueue::PeekTime() {
  if (!SettleMinimum()) return apf::kNever;
  return TimeOf(DueHead());
}

template <typename F>
void EventQueue::ForEachBucket(F&& f) {
  for (std::uint32_t levels = occupied_levels_; levels != 0; levels &= levels - 1) {
    const int level = std::countr_zero(levels);
    for (std::uint64_t digits = occupied_digits_[level]; digits != 0; digits &= digits - 1) {
      f(level, std::countr_zero(digits));
    }
  }
}

void EventQueue::Rebuild(std::uint64_t new_base) {
  std::vector<Entry> all;
  all.reserve(live_);
  ForEachBucket([&](int level, int digit) {
    Bucket& bucket = buckets_[level * kDigits + digit];
    bucket.ForEach([&](const Entry& e) {
      if (IsLive(e)) all.push_back(e);
    });
    Clear(bucket);
  });
  for (size_t i = due_.size() - due_waiting_; i < due_.size(); ++i) {
    if (IsLive(due_[i])) all.push_back(due_[i]);
  }
  due_.clear();
  due_waiting_ = 0;
  occupied_levels_ = 0;
  std::fill(std::begin(occupied_digits_), std::end(occupied_digits_), 0);
  dead_ = 0;
  base_time_ = new_base;
  due_last_ = new_base;
  for (const Entry& e : all) {
    if (e.time == base_time_) {
      due_.push_back(e);
    } else {
      PlaceInBucket(e);
    }
  }
  due_waiting_ = due_.size();
  std::sort(due_.begin(), due_.end(), IdBefore);
}

void EventQueue::Compact() {
  std::vector<Entry> kept;
  ForEachBucket([&](int level, int digit) {
    Bucket& bucket = buckets_[level * kDigits + digit];
    kept.clear();
    size_t held = 0;
    bucket.ForEach([&](const Entry& e) {
      ++held;
      if (IsLive(e)) kept.push_back(e);
    });
    dead_ -= held - kept.size();
    Clear(bucket);
    // The base is unchanged, so each entry belongs to this bucket still. Order within a
    // bucket does not matter: a cascade sorts what becomes due.
    for (const Entry& e : kept) Push(bucket, e);
    if (kept.empty()) {
      occupied_digits_[level] &= ~(std::uint64_t{1} << digit);
      if (occupied_digits_[level] == 0) occupied_levels_ &= ~(1u << level);
    }
  });
  // The due list keeps its order.
  const size_t held = due_waiting_;
  Entry* kept_due = due_.begin();
  for (const Entry* e = due_.end() - due_waiting_; e != due_.end(); ++e) {
    if (IsLive(*e)) *kept_due++ = *e;
  }
  due_.Truncate(static_cast<size_t>(kept_due - due_.begin()));
  due_waiting_ = due_.size();
  dead_ -= held - due_.size();
  assert(dead_ == 0);
}

}  // namespace sim

// The engine's pending-event set, ordered by (time, insertion sequence), so events due at
// the same instant fire in the order they were scheduled.
//
// It is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan) whose buckets are digits of six
// bits, as in a hierarchical timing wheel, but exact. A radix heap needs every new key to
// be at least the last one taken out, which a discrete-event simulation guarantees: nothing
// is scheduled in the past. Relative to the base time (the last minimum), an entry belongs
// to the level of the six-bit group holding the highest bit in which its time differs from
// the base, and within the level to the bucket of its own digit there; lower levels and
// lower digits hold earlier times. When the due list is empty, the lowest non-empty bucket
// gives the new base (its smallest time) and its entries move down to lower levels or to
// the due list. So an entry moves at most once per level (eleven cover 64 bits), and in
// practice once or twice: with one-bit buckets (the previous design, over a 128-bit key of
// time and sequence) it moved about ten times, and that was a tenth of a run's
// instructions. Events due at the base time wait in the due list, sorted by
// sequence. A bucket of a few entries on a low level (a range of at most 262 us) goes to
// the due list whole instead, sorted by (time, sequence), and events scheduled into its
// range while they wait join them there in order. (If a caller peeks past the end of a run and then
// schedules before the peeked event, the buckets are rebuilt once; see Schedule.)
//
// An Event is a small plain struct (a kind and two integer arguments that the owner
// interprets); there is no std::function and no allocation per event once the buckets
// and the slot pool have grown to the run's peak population.
//
// Cancellation is lazy: Cancel() frees the event's slot, and entries whose slot no
// longer holds them are dropped when they surface. Compact() (run automatically when
// more than half the entries are dead) reclaims them sooner.
#ifndef SIM_ENGINE_EVENT_QUEUE_H_
#define SIM_ENGINE_EVENT_QUEUE_H_

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "apf/base/virtual_time.h"

// Limits of the packed entry id: 2^24 (16.7 million) cancellable events pending at once
// (and as many posted ones) and 2^39 (5.5e11) events scheduled in one run; beyond either
// the queue aborts with a message.

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
  // `posted_kind` is the kind Post() delivers.
  explicit EventQueue(std::uint32_t posted_kind = 0) : posted_kind_(posted_kind) {}
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  EventHandle Schedule(apf::Nanos time, const Event& event) {
    // The common case inline, in few instructions (every request schedules a few events):
    // a free slot to reuse (made under the slot limit), a time after due_last_, a sequence
    // under its limit, a bucket with room. Everything else is a tail call with no frame of
    // the caller's to keep, so that the callers need not save registers for it.
    const std::uint64_t key = TimeKey(time);
    if (free_slot_ == UINT32_MAX || key <= due_last_ || next_sequence_ >= kSequenceLimit) {
      return ScheduleUncommon(time, event);
    }
    const int level = LevelOf(key);
    const int digit = DigitOf(key, level);
    Bucket& bucket = buckets_[level * kDigits + digit];
    if (bucket.end == bucket.limit) return ScheduleUncommon(time, event);
    const std::uint32_t slot = free_slot_;
    Slot& s = slots_[slot];
    free_slot_ = s.next_free;
    s.event = event;
    s.id = (next_sequence_++ << kSequenceShift) | slot;
    ++live_;
    PushWithRoom(bucket, Entry{key, s.id});
    MarkOccupied(level, digit);
    return EventHandle{slot, s.generation};
  }

  // Events known before the run (a replay's arrivals) need not all wait in the queue to
  // keep their place among same-time events. Reserve their sequence numbers 0..n-1 before
  // scheduling anything, and schedule each with its own number when its turn comes: it
  // then fires among same-time events exactly as if it had been scheduled first, in that
  // order. Each should be scheduled no earlier, in (time, sequence), than the last event
  // taken out, e.g. when the one before it in its stream fires (else the queue rebuilds
  // its buckets: still right, but slow).
  void ReserveSequences(std::uint64_t n);
  EventHandle ScheduleReserved(apf::Nanos time, std::uint64_t sequence, const Event& event);

  // An event that is never cancelled and whose whole payload is one small number: it
  // fires as Event{posted_kind, arg, 0}, in the same (time, sequence) order as a
  // scheduled one. It costs only its 16-byte entry, where a scheduled event also holds a
  // 32-byte slot: a simulation with hundreds of thousands of clients asleep (a Retry-After,
  // a token wait) posts their wake-ups. An arg of 2^24 or more is scheduled
  // in a slot instead, to the same effect.
  void Post(apf::Nanos time, std::uint32_t arg);

  // Cancels a pending event. Returns false when the handle's event already fired or was
  // cancelled (so a stale handle is harmless).
  bool Cancel(EventHandle handle) {
    // Inline: most handles a caller cancels name nothing (no time-out was set).
    return handle.valid() && CancelValid(handle);
  }

  // Removes and returns the earliest live event, or nullopt when none is pending.
  std::optional<FiredEvent> Pop() {
    FiredEvent fired;
    if (!PopThrough(UINT64_MAX, fired)) return std::nullopt;
    return fired;
  }
  // Removes the earliest live event into `fired` and returns true if it is due before
  // `end`; otherwise takes nothing and returns false. The engine's loop in one call: a
  // peek and then a pop would look for the event twice. The event comes back through a
  // reference, not a std::optional: the loop reuses one FiredEvent, and the queue writes
  // it in place instead of building a return value to be copied out.
  bool PopBefore(apf::Nanos end, FiredEvent& fired) {
    // Inline, so that a loop with a fixed end tests it once, and so is the common case:
    // most events wait in the due list, live and due, and take no call.
    if (end == std::numeric_limits<apf::Nanos>::min()) return false;
    const std::uint64_t last_key = TimeKey(end) - 1;
    if (due_waiting_ != 0) {
      const Entry e = DueHead();
      if (IsLive(e) && e.time <= last_key) {
        --due_waiting_;
        Fire(e, fired);
        return true;
      }
    }
    return PopThrough(last_key, fired);
  }
  std::optional<FiredEvent> PopBefore(apf::Nanos end) {
    FiredEvent fired;
    if (!PopBefore(end, fired)) return std::nullopt;
    return fired;
  }

  // The time of the earliest live event, or apf::kNever.
  apf::Nanos PeekTime();

  bool empty() const { return live_ == 0; }
  size_t size() const { return live_; }  // live (not cancelled) events
  std::uint64_t scheduled_total() const { return next_sequence_; }

  // Drops cancelled entries.
  void Compact();

 private:
  // `id` packs the insertion sequence (high 39 bits) above a posted flag (bit 24) and the
  // slot, or a posted event's arg (low 24 bits): comparing ids orders by sequence, and a
  // slot remembers the id of the event it holds, which tells a live entry from a
  // cancelled one. A posted entry is always live.
  struct Entry {
    std::uint64_t time;  // the signed time with its sign bit flipped: unsigned order
    std::uint64_t id;
  };
  struct Slot {
    Event event;
    std::uint64_t id = kNoId;  // the live event's id, or kNoId when free
    std::uint32_t generation = 0;
    std::uint32_t next_free = UINT32_MAX;  // while free: the free slot after this one
  };
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kPosted = std::uint64_t{1} << kSlotBits;
  static constexpr int kSequenceShift = kSlotBits + 1;
  static constexpr std::uint64_t kSequenceLimit = std::uint64_t{1} << (64 - kSequenceShift);
  static constexpr std::uint64_t kNoId = UINT64_MAX;
  static constexpr int kDigitBits = 6;  // a level's occupancy is one 64-bit word
  // The levels whose buckets, when taken with at most kSortedEntries entries, are sorted
  // into the due list whole rather than moved down: their time ranges are short (level 3's
  // buckets span 262 us), so few events are scheduled into them while their entries wait.
  // In a simulation of a busy cluster most level-3 buckets hold two or three entries, each of
  // which would otherwise move once more and be taken from a bucket of its own.
  static constexpr int kSortedLevels = 3;
  static constexpr std::ptrdiff_t kSortedEntries = 16;
  static constexpr int kDigits = 1 << kDigitBits;
  static constexpr int kLevels = (64 + kDigitBits - 1) / kDigitBits;
  // The level of a time whose XOR with the base has its highest set bit at `b`: a load
  // where a division by six would be a multiplication and shifts.
  static constexpr auto kLevelOfTopBit = [] {
    std::array<std::uint8_t, 64> levels{};
    for (int b = 0; b < 64; ++b) levels[b] = static_cast<std::uint8_t>(b / kDigitBits);
    return levels;
  }();
  // The due list's storage: a vector's growth, but Append(n) hands out n places to write,
  // which a std::vector cannot without value-initializing them first (a bucket sorted
  // into the due list is written there in place).
  class EntryList {
   public:
    Entry* begin() const { return data_.get(); }
    Entry* end() const { return data_.get() + size_; }
    size_t size() const { return size_; }
    Entry& operator[](size_t i) const { return data_[i]; }
    void clear() { size_ = 0; }
    void Truncate(size_t size) { size_ = size; }
    Entry* Append(size_t n) {
      if (capacity_ - size_ < n) Grow(size_ + n);
      Entry* const at = data_.get() + size_;
      size_ += n;
      return at;
    }
    void push_back(const Entry& e) { *Append(1) = e; }

   private:
    void Grow(size_t at_least);
    std::unique_ptr<Entry[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
  };
  // Entries cascade down through the buckets. Were a bucket a vector, it would keep the
  // capacity of its fullest moment: with hundreds of thousands of events pending the
  // buckets held several times the entries' own bytes, and a doubling vector briefly holds
  // its old and new arrays. A bucket is a stack of fixed blocks instead, and
  // every bucket takes blocks from one free list and gives them back when it empties them:
  // the queue holds its most entries ever pending, plus a partly filled block per bucket.
  static constexpr int kBlockEntries = 256;  // 4 KiB
  struct Block {
    Entry entries[kBlockEntries];
    Block* next;  // the block filled before this one in its bucket; or the next free block
  };
  // A bucket keeps its last block when it empties, as a vector keeps its capacity, so that
  // the low buckets, filled and emptied at every event, take no block each time.
  struct Bucket {
    Block* head = nullptr;   // the newest block, the only one that may be partly filled
    Entry* end = nullptr;    // past head's last entry; head is empty only if it is alone
    Entry* limit = nullptr;  // past head's last place
    // The smallest time pushed since the bucket was last emptied (kept up by Push, so that
    // a cascade need not look for it).
    std::uint64_t min_time = UINT64_MAX;
    template <typename F>
    void ForEach(F&& f) const {
      if (head == nullptr) return;
      for (const Entry* e = head->entries; e != end; ++e) f(*e);
      for (const Block* b = head->next; b != nullptr; b = b->next) {
        for (const Entry& e : b->entries) f(e);
      }
    }
  };

  static std::uint64_t TimeKey(apf::Nanos t) {
    return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63);
  }
  static apf::Nanos TimeOf(const Entry& e) {
    return static_cast<apf::Nanos>(e.time ^ (std::uint64_t{1} << 63));
  }
  static std::uint32_t SlotOf(const Entry& e) {
    return static_cast<std::uint32_t>(e.id & ((1u << kSlotBits) - 1));
  }
  static bool IdBefore(const Entry& a, const Entry& b) { return a.id < b.id; }
  static bool Before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.id < b.id;
  }
  static bool IsPosted(const Entry& e) { return (e.id & kPosted) != 0; }
  bool IsLive(const Entry& e) const { return IsPosted(e) || slots_[SlotOf(e)].id == e.id; }
  // The level and digit of the bucket of a time after due_last_ (so it differs from the
  // base).
  int LevelOf(std::uint64_t time) const {
    assert(time > due_last_ && due_last_ >= base_time_);
    return kLevelOfTopBit[63 - __builtin_clzll(time ^ base_time_)];
  }
  static int DigitOf(std::uint64_t time, int level) {
    return static_cast<int>(time >> (level * kDigitBits)) & (kDigits - 1);
  }
  void MarkOccupied(int level, int digit) {
    occupied_levels_ |= 1u << level;
    occupied_digits_[level] |= std::uint64_t{1} << digit;
  }
  // Puts an entry due after due_last_ in the bucket it belongs to.
  void PlaceInBucket(const Entry& e) {
    const int level = LevelOf(e.time);
    const int digit = DigitOf(e.time, level);
    Push(buckets_[level * kDigits + digit], e);
    MarkOccupied(level, digit);
  }
  // Puts a new entry, due no earlier than the base time, where it belongs, and counts it.
  void Insert(const Entry& e);
  // The id of the event with this sequence and low bits (a slot, or kPosted and an arg).
  static std::uint64_t IdOf(std::uint64_t sequence, std::uint64_t low);
  // Makes the due list's head the smallest live entry; false when there is none.
  bool SettleMinimum();
  // Removes the earliest live event into `fired` if its time key is at most `last_key`.
  bool PopThrough(std::uint64_t last_key, FiredEvent& fired);
  // Removes a live entry that is the earliest and writes its event to `fired`.
  void Fire(const Entry& e, FiredEvent& fired) {
    assert(IsLive(e));
    --live_;
    const std::uint32_t slot = SlotOf(e);
    fired.time = TimeOf(e);
    if (IsPosted(e)) {
      fired.event = Event{posted_kind_, slot, 0};
      return;
    }
    fired.event = slots_[slot].event;
    FreeSlot(slot);
  }
  // Empties the due list before entries are added to it while nothing waits there (see
  // due_waiting_).
  void ResetDue() {
    assert(due_waiting_ == 0);
    due_.clear();
  }
  // The first entry waiting in the due list (due_waiting_ > 0).
  const Entry& DueHead() const { return due_.end()[-static_cast<std::ptrdiff_t>(due_waiting_)]; }
  // Makes `e`, a cascaded bucket's lone entry, the due list's only one.
  void MakeLoneDue(const Entry& e) {
    ResetDue();
    due_.push_back(e);
    due_waiting_ = 1;
  }
  // Marks the lowest non-empty bucket empty and returns it and its level, its smallest time
  // becoming the base; its entries are still in it, for the caller to move.
  Bucket& TakeLowestBucket(int& level);
  // A bucket of a few entries on a level of short buckets goes to the due list whole,
  // sorted, instead of moving down: see kSortedLevels. True if it did. Inline, defined in
  // event_queue.cc, its only user.
  inline bool SortIntoDue(Bucket& from, int level);
  // Moves the lowest non-empty bucket's entries down, its smallest time becoming the base.
  void Cascade();
  void MoveDown(Bucket& from);  // Cascade's part for a bucket of more than one entry
  void FreeSlot(std::uint32_t slot) {
    Slot& s = slots_[slot];
    ++s.generation;  // invalidates every handle to the event
    s.id = kNoId;    // and its entry
    s.next_free = free_slot_;
    free_slot_ = slot;
  }
  bool CancelValid(EventHandle handle);  // Cancel for a handle that names some slot
  void Rebuild(std::uint64_t new_base);
  // Calls f(level, digit) for every non-empty bucket.
  template <typename F>
  void ForEachBucket(F&& f);
  void Push(Bucket& bucket, const Entry& e) {
    if (bucket.end == bucket.limit) AddBlock(bucket);
    PushWithRoom(bucket, e);
  }
  static void PushWithRoom(Bucket& bucket, const Entry& e) {  // bucket.end != bucket.limit
    *bucket.end++ = e;
    if (e.time < bucket.min_time) bucket.min_time = e.time;
  }
  void AddBlock(Bucket& bucket);
  void Clear(Bucket& bucket);
  void AddEntry(const Entry& e);
  void InsertDue(const Entry& e);
  EventHandle ScheduleWithSequence(apf::Nanos time, std::uint64_t sequence, const Event& event);
  // Schedule() when it needs a new slot, the time is at or before due_last_, the sequence
  // is at its limit or the bucket is full. The event comes by value, in two registers, so
  // that a caller's Schedule can end in a tail call.
  EventHandle ScheduleUncommon(apf::Nanos time, Event event);

  std::array<Bucket, kLevels * kDigits> buckets_;  // level * kDigits + digit
  Block* free_blocks_ = nullptr;
  std::vector<std::unique_ptr<Block>> blocks_;   // every block made (all buckets' and free)
  std::uint32_t occupied_levels_ = 0;            // bit l: level l has a non-empty bucket
  std::uint64_t occupied_digits_[kLevels] = {};  // bit d: bucket d of that level is non-empty
  std::uint64_t base_time_ = 0;                  // no entry is earlier than this
  // Entries due at or before this go to the due list; the buckets hold only later ones. It
  // is base_time_, or the last time of the range of a bucket sorted into the due list.
  std::uint64_t due_last_ = 0;
  // The entries due at or before due_last_, in (time, id) order: the last due_waiting_ of
  // due_. Those before them have fired. Taking an entry only counts it off, and the list
  // is emptied only when one is added to an empty list (ResetDue), which saves the pop
  // of a lone event (the common case, which never stops in the due list) the bookkeeping
  // of a head index and a clear.
  EntryList due_;
  size_t due_waiting_ = 0;
  size_t dead_ = 0;  // cancelled entries still in the buckets or the due list
  std::vector<Slot> slots_;
  std::uint32_t free_slot_ = UINT32_MAX;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t reserved_ = 0;  // sequences below this are the caller's
  size_t live_ = 0;
  std::uint32_t posted_kind_;
};

}  // namespace sim

#endif  // SIM_ENGINE_EVENT_QUEUE_H_

#include "apf/queueing/queue_set.h"

#include <algorithm>
#include <cassert>

namespace apf {

namespace {

// The epoch: when R reaches kHighR it is wound back by kRDecrement, and so is every
// reading taken from it (queueset.go rDecrement, highR).
constexpr SeatSeconds kRDecrement = kMaxSeatSeconds / 2;
constexpr SeatSeconds kHighR = kRDecrement + kRDecrement / 2;

// InitialSeats * G in SeatSeconds. SeatsTimesDuration(seats, 3 ms) computes
// round(seats * 3e6 / 10); below 2^31 seats the product and quotient are exact integers
// in float64, so the integer product is the same number without the rounding call.
SeatSeconds InitialWork(std::uint64_t initial_seats) {
  if (initial_seats < (std::uint64_t{1} << 31)) {
    return initial_seats * static_cast<SeatSeconds>(kEstimatedServiceDuration / 10);
  }
  return SeatsTimesDuration(static_cast<double>(initial_seats), kEstimatedServiceDuration);
}

// FinalSeats * AdditionalLatency in SeatSeconds; zero when either is (as the float
// expression gives, -0 included).
SeatSeconds FinalWork(const RequestSeats& seats) {
  if (seats.final_seats == 0 || seats.additional_latency == 0) return 0;
  return WholeSeatsTimesDuration(seats.final_seats, seats.additional_latency);
}

QueueSet::StartResult Rejected(QueueSet::StartOutcome outcome) {
  QueueSet::StartResult result;
  result.outcome = outcome;
  return result;
}

}  // namespace

Status QueueSet::CheckQueuingConfig(const QueuingConfig& config) {
  if (config.desired_num_queues <= 0) return Status::OK();
  Status dealer = Dealer::Check(config.desired_num_queues, config.hand_size);
  if (dealer.ok()) return dealer;
  return Status::Invalid(
      "the QueueSetConfig implies an invalid shuffle sharding config (DesiredNumQueues is "
      "deckSize): " +
      dealer.message());
}

QueueSet::QueueSet(Nanos now, const QueuingConfig& queuing, const DispatchingConfig& dispatching,
                   QueueSetListener* listener, SeatDemandIntegrator* demand)
    : listener_(listener), demand_(demand), queuing_(queuing), last_real_time_(now) {
  Status status = Reconfigure(now, queuing, dispatching);
  assert(status.ok());
  (void)status;
}

// ---------------------------------------------------------------------------------------
// Configuration (setConfiguration)

Status QueueSet::Reconfigure(Nanos now, const QueuingConfig& queuing,
                             const DispatchingConfig& dispatching) {
  Status status = CheckQueuingConfig(queuing);
  if (!status.ok()) return status;
  SyncTime(now);
  QueuingConfig installed = queuing;
  if (queuing.desired_num_queues > 0) {
    // Only growth acts now; surplus queues go by attrition as they empty (5.6).
    if (queuing.desired_num_queues > num_queues()) {
      AddQueues(queuing.desired_num_queues - num_queues());
    }
  } else {
    // Queues left over from Queue mode drain under their old limits.
    installed.queue_length_limit = queuing_.queue_length_limit;
    installed.hand_size = queuing_.hand_size;
  }
  queuing_ = installed;
  dispatching_ = dispatching;
  NoteSurplus();
  if (queuing.desired_num_queues > 0) {
    dealer_.emplace(queuing.desired_num_queues, queuing.hand_size);
  } else {
    dealer_.reset();
  }
  DispatchAsMuchAsPossible(now);
  return Status::OK();
}

void QueueSet::AddQueues(int count) {
  for (int i = 0; i < count; ++i) {
    Queue q;
    q.index = num_queues();
    q.listed = true;
    queue_order_.push_back(static_cast<std::uint32_t>(queues_.size()));
    queues_.push_back(q);
  }
  RebuildTree();
}

// ---------------------------------------------------------------------------------------
// The request pool and intrusive lists

inline std::uint32_t QueueSet::AllocateRequest() {
  std::uint32_t slot = free_slot_;
  if (slot == kNone) [[unlikely]] {
    slot = pool_slots_++;
    pool_.emplace_back();
  } else {
    free_slot_ = pool_[slot].next;
  }
  Request& r = pool_[slot];
  r.queue = r.prev = r.next = kNone;
  return slot;
}

void QueueSet::FreeRequest(std::uint32_t slot) {
  Request& r = pool_[slot];
  r.state = State::kFree;
  ++r.generation;
  r.next = free_slot_;
  free_slot_ = slot;
}

QueueSet::Request* QueueSet::Lookup(QueueSetHandle handle) {
  if (handle.slot >= pool_slots_) return nullptr;
  Request& r = pool_[handle.slot];
  if (r.generation != handle.generation || r.state == State::kFree) return nullptr;
  return &r;
}

void QueueSet::PushBack(List& list, std::uint32_t slot) {
  Request& r = pool_[slot];
  r.prev = list.tail;
  r.next = kNone;
  if (list.tail == kNone) {
    list.head = slot;
  } else {
    pool_[list.tail].next = slot;
  }
  list.tail = slot;
  ++list.length;
}

void QueueSet::Unlink(List& list, std::uint32_t slot) {
  Request& r = pool_[slot];
  if (r.prev == kNone) {
    list.head = r.next;
  } else {
    pool_[r.prev].next = r.next;
  }
  if (r.next == kNone) {
    list.tail = r.prev;
  } else {
    pool_[r.next].prev = r.prev;
  }
  r.prev = r.next = kNone;
  --list.length;
}

// ---------------------------------------------------------------------------------------
// R, the progress meter (syncTimeLocked, getVirtualTimeRatioLocked, advanceEpoch)

inline void QueueSet::SyncTime(Nanos now) {
  assert(now >= last_real_time_);
  // No time passed: R cannot move (round(ratio * 0) is 0) and was below highR already.
  if (now == last_real_time_) return;
  const Nanos elapsed = now - last_real_time_;
  last_real_time_ = now;
  const SeatSeconds previous = current_r_;
  current_r_ = previous + SeatsTimesDuration(VirtualTimeRatio(), elapsed);
  if (previous > current_r_) {
    ++counters_.impossible_states;  // "queueset::currentR overflow", logged and ignored
  } else if (current_r_ >= kHighR) {
    AdvanceEpoch();
  }
}

inline double QueueSet::VirtualTimeRatio() const {
  if (active_queues_ == 0) return 0;
  return std::min(static_cast<double>(seats_requested_),
                  static_cast<double>(dispatching_.concurrency_limit)) /
         static_cast<double>(active_queues_);
}

void QueueSet::AdvanceEpoch() {
  current_r_ -= kRDecrement;
  bool success = true;
  for (std::uint32_t slot : queue_order_) {
    Queue& q = queues_[slot];
    if (!q.active()) {
      // An idle queue's reading may be stale; the next enqueue overwrites it anyway.
      q.next_dispatch_r = 0;
      continue;
    }
    // A reading below the decrement wraps to near 2^64 (epoch_advance_total{success=
    // "false"}); a wrapped arrival R then lifts its queue's next dispatch there through
    // the anti-windup, and that queue waits behind all others.
    const SeatSeconds old_next = q.next_dispatch_r;
    q.next_dispatch_r -= kRDecrement;
    if (q.next_dispatch_r > old_next) success = false;
    for (std::uint32_t s = q.waiting.head; s != kNone; s = pool_[s].next) {
      const SeatSeconds old_arrival = pool_[s].arrival_r;
      pool_[s].arrival_r -= kRDecrement;
      if (pool_[s].arrival_r > old_arrival) success = false;
    }
  }
  ++(success ? counters_.epoch_advances : counters_.epoch_advance_failures);
  RebuildTree();
}

inline void QueueSet::SetDemand(Nanos now) {
  if (demand_) demand_->Set(now, static_cast<double>(total_seats_in_use_ + total_seats_waiting_));
}

void QueueSet::NoteActivity(Queue& q, bool was_active) {
  if (!q.listed) return;
  const bool active = q.active();
  if (active && !was_active) ++active_queues_;
  if (!active && was_active) --active_queues_;
}

// ---------------------------------------------------------------------------------------
// Arrival (StartRequest, shuffleShardAndRejectOrEnqueueLocked, enqueueToBoundLocked)

QueueSet::StartResult QueueSet::StartRequest(Nanos now, std::uint64_t id, const RequestSeats& seats,
                                             std::uint64_t flow_hash, RememberedHand* remembered) {
  SyncTime(now);
  if (queuing_.desired_num_queues < 1) {
    if (!CanAccommodate(seats.MaxSeats())) {
      ++counters_.rejected;
      ++counters_.rejected_concurrency_limit;
      return Rejected(StartOutcome::kRejectedConcurrencyLimit);
    }
    const std::uint32_t slot = AllocateRequest();
    Request& r = pool_[slot];
    r.id = id;
    r.seats = seats;
    r.arrival_ns = now;
    r.arrival_r = current_r_;
    DispatchWithoutQueue(now, slot);
    StartResult result;
    result.outcome = StartOutcome::kDispatchedWithoutQueue;
    result.handle = HandleOf(slot);
    result.dispatched = true;
    return result;
  }

  const int index = remembered ? ShuffleShard(dealer_->Deal(flow_hash, *remembered))
                               : ShuffleShard(dealer_->Deal(flow_hash));
  const std::uint32_t queue_slot = queue_order_[index];
  // The conjunctive rule (5.4): a full queue rejects only when every seat is taken.
  if (total_seats_in_use_ >= dispatching_.concurrency_limit &&
      queues_[queue_slot].waiting.length >= queuing_.queue_length_limit) {
    // The real code's deferred anti-windup runs on this path too. It changes something
    // only after an epoch advance wrapped a waiting request's arrival R (AdvanceEpoch).
    BoundNextDispatch(queue_slot);
    ++counters_.rejected;
    ++counters_.rejected_queue_full;
    return Rejected(StartOutcome::kRejectedQueueFull);
  }

  const std::uint32_t slot = AllocateRequest();
  Request& r = pool_[slot];
  Queue& q = queues_[queue_slot];
  r.id = id;
  r.seats = seats;
  r.arrival_ns = now;
  r.arrival_r = current_r_;
  r.queue = queue_slot;
  r.state = State::kWaiting;
  r.final_work = FinalWork(seats);
  r.total_work = InitialWork(seats.initial_seats) + r.final_work;

  StartResult result;
  result.outcome = StartOutcome::kQueued;
  result.handle = HandleOf(slot);
  result.queue_index = index;
  const bool was_active = q.active();
  if (!was_active) q.next_dispatch_r = current_r_;  // the queue starts at the current R
  if (total_requests_waiting_ == 0 && total_seats_in_use_ < dispatching_.concurrency_limit &&
      CanAccommodate(seats.MaxSeats()) && dispatch_arrivals_at_once_) {
    // The anti-windup bound that the enqueue applies, with this request as the head.
    if (q.next_dispatch_r < current_r_) q.next_dispatch_r = current_r_;
    // The dispatch would find this queue alone holding a request, unless its finish is
    // the maximum, which the real scan never chooses.
    if (q.next_dispatch_r + r.total_work != kMaxSeatSeconds) {
      DispatchArrival(now, slot, index, was_active);
      result.dispatched = true;
      return result;
    }
  }
  PushBack(q.waiting, slot);
  const std::int64_t max_seats = seats.MaxSeats();
  q.initial_seats_sum += static_cast<std::int64_t>(seats.initial_seats);
  q.max_seats_sum += max_seats;
  q.total_work_sum += r.total_work;
  if (q.listed) seats_requested_ += max_seats;
  NoteActivity(q, was_active);
  ++total_requests_waiting_;
  total_seats_waiting_ += max_seats;
  SetDemand(now);
  BoundNextDispatch(queue_slot);
  quiet_slot_ = arrival_in_result_ ? slot : kNone;
  DispatchAsMuchAsPossible(now);
  quiet_slot_ = kNone;
  result.dispatched = pool_[slot].state == State::kExecuting;
  return result;
}

// The enqueue and the dispatch that follows it at once when nothing else waits and the
// request fits, in one step: every sum, the R inputs, the seat demand and the dispatch
// tree end as the two steps leave them. The queue's waiting sums and the level's waiting
// count go up and back down; the level's waiting seats keep the drift of a trimmed
// request (5.10); the demand is set once, to the value both steps set at this instant;
// the queue's tree key rises and falls back to "nothing waiting", so it is left alone.
inline void QueueSet::DispatchArrival(Nanos now, std::uint32_t slot, int index, bool was_active) {
  Request& r = pool_[slot];
  Queue& q = queues_[r.queue];
  const std::int64_t untrimmed_max_seats = r.seats.MaxSeats();
  TrimFinalSeats(r);
  const std::int64_t max_seats = r.seats.MaxSeats();
  total_seats_waiting_ += untrimmed_max_seats - max_seats;
  robin_index_ = index;
  BeginExecuting(now, slot, q, max_seats);
  if (q.listed) seats_requested_ += max_seats;
  NoteActivity(q, was_active);
  SetDemand(now);
  q.next_dispatch_r += r.total_work;  // the virtual cost is the full estimated work
  ++counters_.dispatched;
  if (listener_ && !arrival_in_result_) listener_->OnDispatched(now, HandleOf(slot), r.id);
}

int QueueSet::ShuffleShard(const Hand& hand) {
  // Visiting the hand from a rotating offset keeps overlapping hands from always
  // favouring the same queue; ties go to the first visited.
  const int offset = static_cast<int>(enqueues_ % hand.size);
  ++enqueues_;
  // With nothing waiting anywhere every queue's waiting work is zero: the first visited
  // wins, as the visit below would find.
  if (total_requests_waiting_ == 0) return hand[offset];
  int best = -1;
  SeatSeconds best_work = kMaxSeatSeconds;
  for (int i = 0, at = offset; i < hand.size; ++i, at = at + 1 == hand.size ? 0 : at + 1) {
    const int index = hand[at];
    const SeatSeconds work = queues_[queue_order_[index]].total_work_sum;
    if (work < best_work) {
      best_work = work;
      best = index;
    }
  }
  if (best < 0) {
    // Every queue's waiting work is the maximum: the real code indexes queues[-1].
    ++counters_.impossible_states;
    best = hand[offset];
  }
  return best;
}

// ---------------------------------------------------------------------------------------
// Dispatch (dispatchAsMuchAsPossibleLocked, dispatchLocked, findDispatchQueueToBoundLocked)

bool QueueSet::CanAccommodate(std::int64_t seats) const {
  if (queuing_.desired_num_queues < 0) return true;  // Exempt
  if (seats > dispatching_.concurrency_limit) {
    // Too wide for the level: it runs alone, once nothing else is in its initial phase.
    return total_requests_executing_ == 0;
  }
  return total_seats_in_use_ + seats <= dispatching_.concurrency_limit;
}

void QueueSet::DispatchAsMuchAsPossible(Nanos now) {
  while (total_requests_waiting_ != 0 && total_seats_in_use_ < dispatching_.concurrency_limit &&
         DispatchOne(now)) {
  }
}

std::optional<int> QueueSet::FindDispatchPosition() {
  const int n = num_queues();
  if (n == 0) return std::nullopt;
  // The real scan visits robinIndex+1, ..., wrapping, and moves robinIndex as it goes,
  // so a full scan leaves it at its start taken modulo n (-1 becomes n-1).
  const int start = (robin_index_ + 1) % n;
  robin_index_ = (start + n - 1) % n;
  if (dispatch_by_scan_) {
    int best = -1;
    SeatSeconds best_finish = kMaxSeatSeconds;
    for (int i = 0, position = start; i < n; ++i, position = position + 1 == n ? 0 : position + 1) {
      const Queue& q = queues_[queue_order_[position]];
      if (q.waiting.head == kNone) continue;
      const SeatSeconds finish = q.next_dispatch_r + pool_[q.waiting.head].total_work;
      if (finish < best_finish) {
        best_finish = finish;
        best = position;
      }
    }
    if (best < 0) return std::nullopt;
    return best;
  }
  // A single queue with a finite finish is the scan's choice wherever it starts.
  if (finite_leaves_ == 0) return std::nullopt;
  if (finite_leaves_ == 1) return finite_positions_;
  FixTree();
  // The root holds the least finish and its leftmost queue. The scan from `start` meets
  // that queue first unless an equal finish lies at or after `start`.
  const TreeNode& least = tree_[1];
  if (least.key == kMaxSeatSeconds) return std::nullopt;
  if (least.position >= start) return least.position;
  const TreeNode later = TreeMin(start, n);
  return later.key == least.key ? later.position : least.position;
}

void QueueSet::set_dispatch_by_scan(bool scan) {
  dispatch_by_scan_ = scan;
  if (!scan) RebuildTree();
}

bool QueueSet::DispatchOne(Nanos now) {
  const std::optional<int> position = FindDispatchPosition();
  if (!position) {
    // Requests wait but no listed queue holds one: the real code dereferences nil.
    ++counters_.impossible_states;
    return false;
  }
  const std::uint32_t queue_slot = queue_order_[*position];
  Queue& q = queues_[queue_slot];
  const std::uint32_t slot = q.waiting.head;
  Request& r = pool_[slot];
  if (!CanAccommodate(r.seats.MaxSeats())) {
    // Head-of-line block for the whole level; robinIndex stays put.
    ++counters_.dispatch_no_accommodation;
    return false;
  }
  Unlink(q.waiting, slot);
  const std::int64_t untrimmed_max_seats = r.seats.MaxSeats();
  q.initial_seats_sum -= static_cast<std::int64_t>(r.seats.initial_seats);
  q.max_seats_sum -= untrimmed_max_seats;
  q.total_work_sum -= r.total_work;

  // The trim comes after the queue sums were reduced and before the level's waiting
  // seats are, which then drift by the trimmed amount (5.10).
  TrimFinalSeats(r);
  robin_index_ = *position;
  const std::int64_t max_seats = r.seats.MaxSeats();
  --total_requests_waiting_;
  total_seats_waiting_ -= max_seats;
  BeginExecuting(now, slot, q, max_seats);
  if (q.listed) seats_requested_ += max_seats - untrimmed_max_seats;
  SetDemand(now);
  q.next_dispatch_r += r.total_work;  // the virtual cost is the full estimated work
  BoundNextDispatch(queue_slot);
  ++counters_.dispatched;
  if (listener_ && slot != quiet_slot_) listener_->OnDispatched(now, HandleOf(slot), r.id);
  return true;
}

inline void QueueSet::BeginExecuting(Nanos now, std::uint32_t slot, Queue& q,
                                     std::int64_t max_seats) {
  Request& r = pool_[slot];
  r.state = State::kExecuting;
  r.start_ns = now;
  ++total_requests_executing_;
  total_seats_in_use_ += max_seats;
  PushBack(q.executing, slot);
  q.seats_in_use += max_seats;
}

// Final seats beyond the limit are reshaped to the limit for longer, keeping the final
// work (5.10).
void QueueSet::TrimFinalSeats(Request& r) const {
  if (r.seats.final_seats > static_cast<std::uint64_t>(dispatching_.concurrency_limit)) {
    r.seats.final_seats = static_cast<std::uint64_t>(dispatching_.concurrency_limit);
    r.seats.additional_latency =
        DurationPerSeat(r.final_work, static_cast<double>(dispatching_.concurrency_limit));
  }
}

void QueueSet::DispatchWithoutQueue(Nanos now, std::uint32_t slot) {
  Request& r = pool_[slot];
  r.final_work = FinalWork(r.seats);
  r.total_work = InitialWork(r.seats.initial_seats) + r.final_work;
  r.state = State::kExecuting;
  r.start_ns = now;
  ++total_requests_executing_;
  total_seats_in_use_ += r.seats.MaxSeats();
  PushBack(queueless_executing_, slot);
  SetDemand(now);
  ++counters_.dispatched;
  if (listener_ && !arrival_in_result_) listener_->OnDispatched(now, HandleOf(slot), r.id);
}

// The anti-windup hack: a queue's next dispatch never precedes its oldest waiting
// request's arrival in R.
inline void QueueSet::BoundNextDispatch(std::uint32_t queue_slot) {
  Queue& q = queues_[queue_slot];
  if (q.waiting.head != kNone) {
    const SeatSeconds arrival_r = pool_[q.waiting.head].arrival_r;
    if (q.next_dispatch_r < arrival_r) q.next_dispatch_r = arrival_r;
  }
  RefreshKey(q);
}

// ---------------------------------------------------------------------------------------
// Finish and seat release (finishRequestLocked, removeQueueIfEmptyLocked)

Nanos QueueSet::Finish(Nanos now, QueueSetHandle handle) {
  Request* found = Lookup(handle);
  assert(found && found->state == State::kExecuting);
  if (!found || found->state != State::kExecuting) return now;
  const std::uint32_t slot = handle.slot;
  SyncTime(now);
  Request& r = pool_[slot];
  --total_requests_executing_;
  const Nanos service = now - r.start_ns;
  if (r.queue != kNone) {
    Queue& q = queues_[r.queue];
    Unlink(q.executing, slot);
    NoteActivity(q, true);
    // Correct the queue's R by the measured service time S against the estimate G
    // (wrapping, so a long S moves it forward), on the initial seats only.
    q.next_dispatch_r -=
        WholeSeatsTimesDuration(r.seats.initial_seats, kEstimatedServiceDuration - service);
    BoundNextDispatch(r.queue);
  } else {
    Unlink(queueless_executing_, slot);
  }
  Nanos release_ns = now;
  if (r.seats.additional_latency <= 0) {
    ReleaseSeatsOf(now, slot);
  } else {
    r.state = State::kLingering;
    release_ns = now + r.seats.additional_latency;
  }
  DispatchAsMuchAsPossible(now);
  return release_ns;
}

void QueueSet::ReleaseSeats(Nanos now, QueueSetHandle handle) {
  Request* found = Lookup(handle);
  assert(found && found->state == State::kLingering);
  if (!found || found->state != State::kLingering) return;
  SyncTime(now);
  ReleaseSeatsOf(now, handle.slot);
  DispatchAsMuchAsPossible(now);
}

inline void QueueSet::ReleaseSeatsOf(Nanos now, std::uint32_t slot) {
  Request& r = pool_[slot];
  const std::int64_t max_seats = r.seats.MaxSeats();
  const std::uint32_t queue_slot = r.queue;
  total_seats_in_use_ -= max_seats;
  SetDemand(now);
  FreeRequest(slot);
  if (queue_slot == kNone) return;
  Queue& q = queues_[queue_slot];
  q.seats_in_use -= max_seats;
  if (q.listed) seats_requested_ -= max_seats;
  // Only a set with surplus queues (after a reconfiguration to fewer) drops one.
  if (surplus_queues_) RemoveQueueIfEmpty(queue_slot);
}

void QueueSet::RemoveQueueIfEmpty(std::uint32_t queue_slot) {
  const Queue& q = queues_[queue_slot];
  if (q.active()) return;
  // The real code removes the queue at the *recorded index* of the releasing request's
  // queue. For a queue already dropped (another of its requests lingered) that index is
  // stale and names some other queue, which is then dropped instead; an index past the
  // end panics there.
  const int index = q.index;
  if (index >= num_queues()) {
    ++counters_.impossible_states;
    return;
  }
  Unlist(queue_order_[index]);
  queue_order_.erase(queue_order_.begin() + index);
  for (int i = index; i < num_queues(); ++i) queues_[queue_order_[i]].index = i;
  if (robin_index_ >= index) --robin_index_;
  NoteSurplus();
  RebuildTree();
}

void QueueSet::Unlist(std::uint32_t queue_slot) {
  Queue& q = queues_[queue_slot];
  seats_requested_ -= q.seats_in_use + q.max_seats_sum;
  if (q.active()) --active_queues_;
  q.listed = false;
}

// ---------------------------------------------------------------------------------------
// Time-out while waiting (request.wait, the decisionCancel branch)

bool QueueSet::TimeOut(Nanos now, QueueSetHandle handle) {
  Request* found = Lookup(handle);
  if (!found || found->state != State::kWaiting) return false;
  const std::uint32_t slot = handle.slot;
  SyncTime(now);
  Request& r = pool_[slot];
  const std::uint32_t queue_slot = r.queue;
  Queue& q = queues_[queue_slot];
  Unlink(q.waiting, slot);
  const std::int64_t max_seats = r.seats.MaxSeats();
  q.initial_seats_sum -= static_cast<std::int64_t>(r.seats.initial_seats);
  q.max_seats_sum -= max_seats;
  q.total_work_sum -= r.total_work;
  if (q.listed) seats_requested_ -= max_seats;
  NoteActivity(q, true);
  --total_requests_waiting_;
  total_seats_waiting_ -= max_seats;
  ++counters_.rejected;
  ++counters_.cancelled;  // never Timedout: that counter does not move (5.10)
  ++counters_.rejected_time_out;
  SetDemand(now);
  FreeRequest(slot);
  BoundNextDispatch(queue_slot);
  // No dispatch here: the next arrival, finish, release or reconfiguration does it.
  return true;
}

// ---------------------------------------------------------------------------------------
// The dispatch tree

void QueueSet::RefreshKey(const Queue& q) {
  if (!q.listed || dispatch_by_scan_) return;
  SeatSeconds key = kMaxSeatSeconds;
  if (q.waiting.head != kNone) key = q.next_dispatch_r + pool_[q.waiting.head].total_work;
  // Most calls find the key unchanged (a queue with nothing waiting stays at the
  // maximum); only a change takes the call below.
  if (tree_[tree_leaves_ + q.index].key != key) SetLeafKey(q.index, key);
}

void QueueSet::SetLeafKey(int position, SeatSeconds key) {
  TreeNode& leaf = tree_[tree_leaves_ + position];
  if ((leaf.key == kMaxSeatSeconds) != (key == kMaxSeatSeconds)) {
    finite_leaves_ += key == kMaxSeatSeconds ? -1 : 1;
    finite_positions_ ^= position;
  }
  leaf.key = key;
  if (!leaf_dirty_[position]) {
    leaf_dirty_[position] = 1;
    dirty_leaves_.push_back(position);
  }
}

// Recomputes every inner node above a changed leaf, each path up to the root: a node's
// last recomputation comes after its children's, so every node ends as the winner of its
// final children, whatever the order of the paths.
void QueueSet::FixTree() {
  for (const int position : dirty_leaves_) {
    leaf_dirty_[position] = 0;
    for (int node = (tree_leaves_ + position) / 2; node >= 1; node /= 2) {
      const TreeNode& left = tree_[2 * node];
      const TreeNode& right = tree_[2 * node + 1];
      tree_[node] = right.key < left.key ? right : left;
    }
  }
  dirty_leaves_.clear();
}

void QueueSet::RebuildTree() {
  if (dispatch_by_scan_) return;
  tree_leaves_ = 1;
  while (tree_leaves_ < num_queues()) tree_leaves_ *= 2;
  tree_.assign(2 * tree_leaves_, TreeNode{});
  leaf_dirty_.assign(tree_leaves_, 0);
  dirty_leaves_.clear();
  finite_leaves_ = finite_positions_ = 0;
  for (int i = 0; i < num_queues(); ++i) {
    const Queue& q = queues_[queue_order_[i]];
    TreeNode& leaf = tree_[tree_leaves_ + i];
    leaf.position = i;
    if (q.waiting.head != kNone) leaf.key = q.next_dispatch_r + pool_[q.waiting.head].total_work;
    if (leaf.key != kMaxSeatSeconds) {
      ++finite_leaves_;
      finite_positions_ ^= i;
    }
  }
  for (int node = tree_leaves_ - 1; node >= 1; --node) {
    const TreeNode& left = tree_[2 * node];
    const TreeNode& right = tree_[2 * node + 1];
    tree_[node] = right.key < left.key ? right : left;
  }
}

// The least key among positions [begin, end), the leftmost of equals.
QueueSet::TreeNode QueueSet::TreeMin(int begin, int end) const {
  TreeNode left_part, right_part;
  int lo = begin + tree_leaves_;
  int hi = end + tree_leaves_;
  while (lo < hi) {
    if (lo & 1) {
      const TreeNode& node = tree_[lo++];
      if (node.key < left_part.key) left_part = node;
    }
    if (hi & 1) {
      const TreeNode& node = tree_[--hi];
      if (!(right_part.key < node.key)) right_part = node;
    }
    lo /= 2;
    hi /= 2;
  }
  return right_part.key < left_part.key ? right_part : left_part;
}

// ---------------------------------------------------------------------------------------
// Views

int QueueSet::queues_with_waiting() const {
  int count = 0;
  for (std::uint32_t slot : queue_order_) count += queues_[slot].waiting.length > 0 ? 1 : 0;
  return count;
}

QueueSetQueueView QueueSet::queue(int index) const {
  const Queue& q = queues_[queue_order_[index]];
  QueueSetQueueView v;
  v.index = index;
  v.waiting_requests = q.waiting.length;
  v.executing_requests = q.executing.length;
  v.seats_in_use = q.seats_in_use;
  v.next_dispatch_r = q.next_dispatch_r;
  v.initial_seats_sum = q.initial_seats_sum;
  v.max_seats_sum = q.max_seats_sum;
  v.total_work_sum = q.total_work_sum;
  return v;
}

QueueSetRequestView QueueSet::View(const Request& r) const {
  QueueSetRequestView v;
  v.id = r.id;
  v.arrival_ns = r.arrival_ns;
  if (r.state != State::kWaiting) v.start_ns = r.start_ns;
  v.seats = r.seats;
  v.arrival_r = r.arrival_r;
  return v;
}

QueueSetRequestView QueueSet::request(QueueSetHandle handle) const {
  assert(handle.slot < pool_.size() && pool_[handle.slot].generation == handle.generation);
  return View(pool_[handle.slot]);
}

}  // namespace apf

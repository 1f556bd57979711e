// The fair-queuing QueueSet of one priority level, mirroring k8s.io/apiserver
// pkg/util/flowcontrol/fairqueuing/queueset/queueset.go (doc/model.md#queue-set): shuffle-sharded
// queues, the progress meter R in SeatSeconds, dispatch by least virtual finish, seats
// held through the additional latency, time-out removal, queueless Exempt and Reject
// levels, and reconfiguration of a live set. It makes the same decision at the same
// nanosecond as the real code on the same inputs, quirks included.
//
// The queue set is clock-free and schedules nothing. Each operation takes the current
// virtual time (never earlier than the last one). Dispatches happen inside StartRequest,
// Finish, ReleaseSeats and Reconfigure and are reported through QueueSetListener; the
// caller then schedules the request's completion, its seat release (Finish says when)
// and its wait time-out. The set feeds the level's SeatDemandIntegrator at every change
// of seats in use plus seats waiting, as the real code does.
//
// Requests come from a pool that grows to the peak population and is then reused: the
// steady state allocates nothing. The dispatch choice, a scan over all queues in the real
// code, is a tournament tree over the queues' virtual finish times here (same decisions,
// O(log queues)); tests/apf/queueing/queue_set_reference_test.cc checks it against a plain scan.
#ifndef APF_QUEUEING_QUEUE_SET_H_
#define APF_QUEUEING_QUEUE_SET_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "apf/base/status.h"
#include "apf/base/virtual_time.h"
#include "apf/queueing/seat_demand_integrator.h"
#include "apf/queueing/seat_seconds.h"
#include "apf/queueing/shuffle_sharding.h"

namespace apf {

// The fixed service-time estimate G that turns seats into work (queueset.go
// estimatedServiceDuration, set in Complete): 3 ms, not the 60 s of the early KEP text.
inline constexpr Nanos kEstimatedServiceDuration = 3 * kMillisecond;

// fairqueuing.QueuingConfig. desired_num_queues is -1 for an Exempt level (no limit at
// all), 0 for a Reject-type level (concurrency limit only, no queues) and the number of
// queues otherwise.
struct QueuingConfig {
  int desired_num_queues = 0;
  int queue_length_limit = 0;
  int hand_size = 0;
};

// fairqueuing.DispatchingConfig: the level's current concurrency limit (currentCL) and
// the denominator of its utilisation gauges.
struct DispatchingConfig {
  int concurrency_limit = 0;
  int concurrency_denominator = 0;
};

// The seats a request occupies and how long it keeps them after it finishes, as the work
// estimator computed them (request.WorkEstimate, doc/model.md#work-estimation). The field names are
// those of apf::WorkEstimate in apf/estimation/work_estimator.h.
struct RequestSeats {
  std::uint64_t initial_seats = 1;  // held while the request executes
  std::uint64_t final_seats = 0;    // held from its finish for additional_latency
  Nanos additional_latency = 0;

  // Seats are reserved at max(initial, final) from dispatch to the end of the latency.
  std::int64_t MaxSeats() const {
    return static_cast<std::int64_t>(initial_seats >= final_seats ? initial_seats : final_seats);
  }
};

// Names one request the queue set holds, from StartRequest until it leaves (rejected,
// timed out, or its seats released). A stale handle is recognised by its generation.
struct QueueSetHandle {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class QueueSetListener {
 public:
  virtual ~QueueSetListener() = default;
  // The request `id` (the caller's number given to StartRequest) began executing at
  // `now`; it may be the request whose StartRequest is running. The listener must not
  // call back into the queue set: it schedules the completion and returns.
  virtual void OnDispatched(Nanos now, QueueSetHandle request, std::uint64_t id) = 0;
};

// A request as the debug dumps show it (doc/model.md#debug-dumps dump_requests).
struct QueueSetRequestView {
  std::uint64_t id = 0;
  Nanos arrival_ns = 0;
  std::optional<Nanos> start_ns;  // none while waiting
  RequestSeats seats;             // final seats and latency after any reshape at dispatch
  SeatSeconds arrival_r = 0;      // R when it was enqueued
};

// One queue as dump_queues shows it. The sums are over waiting requests.
struct QueueSetQueueView {
  int index = 0;
  std::int64_t waiting_requests = 0;    // PendingRequests
  std::int64_t executing_requests = 0;  // initial phase only
  std::int64_t seats_in_use = 0;        // includes seats held through the latency
  SeatSeconds next_dispatch_r = 0;
  std::int64_t initial_seats_sum = 0;
  std::int64_t max_seats_sum = 0;
  SeatSeconds total_work_sum = 0;
};

// The cumulative counters of the dump and of the metrics that count.
struct QueueSetCounters {
  std::int64_t dispatched = 0;  // every executed request, queueless ones included
  std::int64_t rejected = 0;    // queue-full + concurrency-limit + time-out
  std::int64_t timedout =
      0;  // never incremented, as in the real code (doc/model.md#counters-and-oddities)
  std::int64_t cancelled = 0;  // removals from a queue at the wait deadline
  std::int64_t rejected_queue_full = 0;
  std::int64_t rejected_concurrency_limit = 0;
  std::int64_t rejected_time_out = 0;
  std::int64_t dispatch_no_accommodation = 0;  // head-of-line blocks (5.5)
  std::int64_t epoch_advances = 0;             // epoch_advance_total{success="true"}
  std::int64_t epoch_advance_failures = 0;     // epoch_advance_total{success="false"}
  // States in which kube-apiserver logs an "impossible" error or panics (R overflow, a
  // dispatch scan that finds no queue, a queue removal by a stale index). The model
  // carries on without the impossible step; a report should flag any non-zero count.
  std::int64_t impossible_states = 0;
};

class QueueSet {
 public:
  enum class StartOutcome {
    kQueued,                   // enqueued; may already be dispatched (the listener says)
    kDispatchedWithoutQueue,   // Exempt or Reject-type level: executing now
    kRejectedQueueFull,        // reason "queue-full"
    kRejectedConcurrencyLimit  // reason "concurrency-limit" (Reject-type level)
  };
  struct StartResult {
    StartOutcome outcome = StartOutcome::kQueued;
    QueueSetHandle handle;    // invalid when rejected
    int queue_index = -1;     // the queue chosen by shuffle sharding, or -1
    bool dispatched = false;  // the request itself began executing within the call
    bool rejected() const {
      return outcome == StartOutcome::kRejectedQueueFull ||
             outcome == StartOutcome::kRejectedConcurrencyLimit;
    }
  };

  // checkConfig: OK for queueless levels, else NewDealer's verdict on (queues, handSize)
  // wrapped as the real code wraps it.
  static Status CheckQueuingConfig(const QueuingConfig& config);

  // A new set at `now` (BeginConstruction + Complete). `queuing` must pass
  // CheckQueuingConfig. The listener and the integrator (which may be null) must outlive
  // the set.
  QueueSet(Nanos now, const QueuingConfig& queuing, const DispatchingConfig& dispatching,
           QueueSetListener* listener, SeatDemandIntegrator* demand);
  QueueSet(const QueueSet&) = delete;
  QueueSet& operator=(const QueueSet&) = delete;

  // BeginConfigChange + Complete: adds queues if more are desired (fewer go by
  // attrition), installs the new limits, keeps the old queue length limit and hand size
  // when going queueless, then dispatches as much as possible. An invalid queuing config
  // changes nothing.
  Status Reconfigure(Nanos now, const QueuingConfig& queuing, const DispatchingConfig& dispatching);

  // A request arrives (StartRequest). `id` is the caller's, echoed to the listener;
  // `flow_hash` picks the hand of queues (0 when the level has at most one queue).
  // `remembered`, when given, is the flow's own memo of its hand (the caller keeps one per
  // flow): the hand is taken from it instead of dealt whenever it still stands.
  StartResult StartRequest(Nanos now, std::uint64_t id, const RequestSeats& seats,
                           std::uint64_t flow_hash, RememberedHand* remembered = nullptr);

  // The dispatched request's handler returned (for a watch: its initialization ended).
  // Returns when its seats are released: `now` when there is no additional latency (they
  // already are), else now + the latency, when the caller must call ReleaseSeats.
  Nanos Finish(Nanos now, QueueSetHandle request);

  // The end of a finished request's additional latency: frees its seats and dispatches.
  void ReleaseSeats(Nanos now, QueueSetHandle request);

  // The request's wait context ended (the wait deadline, or the client went away). If it
  // is still waiting it is removed, counted as rejected for "time-out", and true is
  // returned; nothing is dispatched. Otherwise nothing happens and false is returned.
  bool TimeOut(Nanos now, QueueSetHandle request);

  // Chooses the queue to dispatch from by scanning every queue, as queueset.go does,
  // instead of by the tree. The decisions are the same; this exists so the benchmark can
  // show what the tree saves.
  void set_dispatch_by_scan(bool scan);

  // Enqueues every arrival and then dispatches, as queueset.go does, instead of
  // dispatching at once an arrival that nothing waits before and that fits. The outcome
  // is the same; this exists so tests can compare the two.
  void set_dispatch_arrivals_at_once(bool at_once) { dispatch_arrivals_at_once_ = at_once; }

  // Reports the arriving request's own dispatch within StartRequest only through
  // StartResult::dispatched, not also through the listener: a caller that acts on the
  // result needs no callback, which costs a virtual call per request. Dispatches of other
  // requests are reported through the listener as always.
  void set_report_arrival_in_result(bool in_result) { arrival_in_result_ = in_result; }

  // --- State for reports and dumps.
  const QueuingConfig& queuing_config() const { return queuing_; }
  const DispatchingConfig& dispatching_config() const { return dispatching_; }
  const QueueSetCounters& counters() const { return counters_; }
  bool is_idle() const { return total_requests_waiting_ == 0 && total_requests_executing_ == 0; }
  std::int64_t waiting_requests() const { return total_requests_waiting_; }
  std::int64_t executing_requests() const { return total_requests_executing_; }
  std::int64_t seats_in_use() const { return total_seats_in_use_; }
  // The sum of waiting MaxSeats as the real code keeps it: it drifts upward when a
  // too-wide request's final seats are trimmed at dispatch (doc/model.md#counters-and-oddities).
  std::int64_t seats_waiting() const { return total_seats_waiting_; }
  SeatSeconds current_r() const { return current_r_; }
  // Queues with at least one waiting request (dump_priority_levels ActiveQueues).
  int queues_with_waiting() const;
  int num_queues() const { return static_cast<int>(queue_order_.size()); }
  QueueSetQueueView queue(int index) const;
  QueueSetRequestView request(QueueSetHandle handle) const;

  // Visits the waiting requests of queue `index` in order, then its executing ones
  // (dispatch order), then the executing requests of no queue: the dump_requests rows.
  template <typename F>
  void ForEachWaiting(int index, F&& visit) const {
    ForEachInList(queues_[queue_order_[index]].waiting, visit);
  }
  template <typename F>
  void ForEachExecuting(int index, F&& visit) const {
    ForEachInList(queues_[queue_order_[index]].executing, visit);
  }
  template <typename F>
  void ForEachQueuelessExecuting(F&& visit) const {
    ForEachInList(queueless_executing_, visit);
  }

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  enum class State : std::uint8_t { kFree, kWaiting, kExecuting, kLingering };

  struct Request {
    std::uint64_t id = 0;
    Nanos arrival_ns = 0;
    Nanos start_ns = 0;
    SeatSeconds arrival_r = 0;
    SeatSeconds total_work = 0;  // initial + final work, fixed at enqueue
    SeatSeconds final_work = 0;
    RequestSeats seats;
    std::uint32_t queue = kNone;  // slot in queues_, or kNone
    std::uint32_t prev = kNone;   // links in the one list the request is on
    std::uint32_t next = kNone;
    std::uint32_t generation = 0;
    State state = State::kFree;
  };

  struct List {
    std::uint32_t head = kNone;
    std::uint32_t tail = kNone;
    std::int64_t length = 0;
  };

  // A queue lives in a stable slot of queues_ for the life of the set, so requests can
  // point at it after it is dropped from queue_order_ (as Go requests keep their *queue).
  struct Queue {
    List waiting;
    List executing;
    std::int64_t initial_seats_sum = 0;  // over waiting requests
    std::int64_t max_seats_sum = 0;
    SeatSeconds total_work_sum = 0;
    SeatSeconds next_dispatch_r = 0;
    std::int64_t seats_in_use = 0;
    int index = 0;        // position in queue_order_; stale once the queue is dropped
    bool listed = false;  // in queue_order_
    bool active() const { return waiting.length > 0 || executing.length > 0; }
  };

  // The dispatch choice: a min tree over positions in queue_order_ of each queue's
  // virtual finish (nextDispatchR + head's work), kMaxSeatSeconds when it has no waiting
  // request (a finish of exactly the maximum is never chosen by the real scan either).
  struct TreeNode {
    SeatSeconds key = kMaxSeatSeconds;
    int position = -1;
  };

  template <typename F>
  void ForEachInList(const List& list, F& visit) const {
    for (std::uint32_t s = list.head; s != kNone; s = pool_[s].next) visit(View(pool_[s]));
  }
  QueueSetRequestView View(const Request& r) const;

  std::uint32_t AllocateRequest();
  void FreeRequest(std::uint32_t slot);
  Request* Lookup(QueueSetHandle handle);
  QueueSetHandle HandleOf(std::uint32_t slot) const { return {slot, pool_[slot].generation}; }
  void PushBack(List& list, std::uint32_t slot);
  void Unlink(List& list, std::uint32_t slot);

  void SyncTime(Nanos now);
  double VirtualTimeRatio() const;
  void AdvanceEpoch();
  void SetDemand(Nanos now);
  bool CanAccommodate(std::int64_t seats) const;
  int ShuffleShard(const Hand& hand);
  void DispatchAsMuchAsPossible(Nanos now);
  bool DispatchOne(Nanos now);
  std::optional<int> FindDispatchPosition();
  void DispatchWithoutQueue(Nanos now, std::uint32_t slot);
  void DispatchArrival(Nanos now, std::uint32_t slot, int index, bool was_active);
  void TrimFinalSeats(Request& r) const;
  // The request in `slot`, of queue `q`, starts executing at `now` with `max_seats` seats
  // (trimmed): the part both dispatch paths share.
  void BeginExecuting(Nanos now, std::uint32_t slot, Queue& q, std::int64_t max_seats);
  void BoundNextDispatch(std::uint32_t queue);
  void ReleaseSeatsOf(Nanos now, std::uint32_t slot);
  // Drops the queue if it is empty; only called while there are surplus queues.
  void RemoveQueueIfEmpty(std::uint32_t queue);
  // Recomputes surplus_queues_ after the queues or the desired number changed.
  void NoteSurplus() { surplus_queues_ = num_queues() > queuing_.desired_num_queues; }

  // Bookkeeping of the sums the R rate needs, over listed queues only.
  void NoteActivity(Queue& q, bool was_active);
  void AddQueues(int count);
  void Unlist(std::uint32_t queue);
  void RefreshKey(const Queue& q);
  void SetLeafKey(int position, SeatSeconds key);
  void FixTree();
  void RebuildTree();
  TreeNode TreeMin(int begin, int end) const;

  QueueSetListener* listener_;
  SeatDemandIntegrator* demand_;

  QueuingConfig queuing_;
  DispatchingConfig dispatching_;
  std::optional<Dealer> dealer_;

  std::vector<Queue> queues_;               // every queue ever made, by slot
  std::vector<std::uint32_t> queue_order_;  // qs.queues: slots by index
  // More queues than desired (after a reconfiguration to fewer): a queue that empties
  // is dropped. Kept so that every seat release need not compare the two.
  bool surplus_queues_ = false;
  std::vector<TreeNode> tree_;  // 2 * tree_leaves_ nodes, root at 1
  int tree_leaves_ = 0;
  // Leaves are kept current, inner nodes only when a dispatch needs them (FixTree): most
  // dispatches find a single queue with a finite key, whose position the XOR names, and
  // need no tree at all. A leaf whose path above is stale is listed once in dirty_leaves_.
  std::vector<std::uint8_t> leaf_dirty_;  // by position
  std::vector<int> dirty_leaves_;
  int finite_leaves_ = 0;     // leaves with a key below kMaxSeatSeconds
  int finite_positions_ = 0;  // the XOR of their positions
  bool dispatch_by_scan_ = false;
  bool dispatch_arrivals_at_once_ = true;
  bool arrival_in_result_ = false;
  // While StartRequest dispatches in the general way with arrival_in_result_ set, the
  // arriving request's slot, whose dispatch the listener is not told; else kNone.
  std::uint32_t quiet_slot_ = kNone;

  std::vector<Request> pool_;
  std::uint32_t pool_slots_ = 0;  // pool_.size(), kept so that a handle check divides nothing
  std::uint32_t free_slot_ = kNone;
  List queueless_executing_;

  SeatSeconds current_r_ = 0;
  Nanos last_real_time_ = 0;
  int robin_index_ = 0;  // the last queue dispatched from; may be -1 after a removal
  std::int64_t total_requests_waiting_ = 0;
  std::int64_t total_requests_executing_ = 0;
  std::int64_t total_seats_in_use_ = 0;
  std::int64_t total_seats_waiting_ = 0;
  std::int64_t enqueues_ = 0;
  // Σ over listed queues of seats in use plus waiting MaxSeats, and the number of listed
  // queues with a waiting or executing request: the R rate's inputs, kept exactly.
  std::int64_t seats_requested_ = 0;
  int active_queues_ = 0;
  QueueSetCounters counters_;
};

}  // namespace apf

#endif  // APF_QUEUEING_QUEUE_SET_H_

// One kube-apiserver's flow-control filter, tying the models together as
// k8s.io/apiserver's priority-and-fairness.go and apf_controller.go do
// (doc/model.md#handler-chain): a request is classified (FlowSchema, priority level, flow), its
// work is estimated, and its level's queue set dispatches, queues or rejects it; a rejection
// carries the level's Retry-After; every 10 s the seats are re-divided among the levels. With
// priority and fairness disabled the MaxInFlight filter takes its place
// (doc/model.md#max-in-flight).
//
// Like every model it is clock-free and schedules nothing: the caller (the simulated
// apiserver) passes the time, starts execution when told a request was dispatched,
// calls Finish when the handler returns, ReleaseSeats when Finish says the seats are to
// be released later, TimeOut at the wait deadline that Start returned, and Adjust every
// kBorrowingAdjustmentPeriod.
//
// Reconfigure changes the configuration of a live filter as the config controller's
// sync does (apf_controller.go digestConfigObjects; doc/model.md#configuration-changes):
// levels keep their queue sets by name and are re-configured (BeginConfigChange +
// Complete), new ones get fresh queue sets, and a level whose object is gone is quiesced
// until idle, then removed. Levels and FlowSchemas keep the index they were first given,
// so that a caller's reports stay valid across changes: Foresee registers, before the
// run, the ones later configurations will bring.
//
// Tested by tests/apf/filter/flow_control_test.cc and flow_control_reconfigure_test.cc.
#ifndef APF_FILTER_FLOW_CONTROL_H_
#define APF_FILTER_FLOW_CONTROL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apf/allocation/concurrency_allocator.h"
#include "apf/base/virtual_time.h"
#include "apf/classification/classifier.h"
#include "apf/classification/request_info.h"
#include "apf/classification/user_info.h"
#include "apf/config/flow_control_config.h"
#include "apf/estimation/watch_tracker.h"
#include "apf/estimation/work_estimator.h"
#include "apf/filter/max_in_flight.h"
#include "apf/filter/retry_after_tracker.h"
#include "apf/queueing/queue_set.h"
#include "apf/queueing/seat_demand_integrator.h"

namespace apf {

struct FlowControlOptions {
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  bool enable_priority_and_fairness = true;
  Nanos request_timeout = 60 * kSecond;
  WorkEstimatorConfig estimator;
};

enum class RejectReason { kQueueFull, kTimeOut, kConcurrencyLimit, kMaxInFlight };
const char* RejectReasonName(RejectReason reason);  // the metric's reason label

// Names a request the filter holds, from Start until its seats are released.
struct FlowHandle {
  int level = -1;  // index of the priority level (APF) or the MaxInFlight pool; -1: untracked
  QueueSetHandle queue_set;
  bool valid() const { return level >= 0; }
};

struct Admission {
  enum class Outcome {
    kBypass,     // not subject to flow control (long-running, not a watch): just execute
    kExecuting,  // dispatched at once: execute now
    kWaiting,    // queued: the listener will say when it is dispatched; TimeOut at wait_deadline
    kRejected,   // 429 with retry_after_seconds
  };
  Outcome outcome = Outcome::kBypass;
  RejectReason reason = RejectReason::kQueueFull;
  int retry_after_seconds = 0;
  FlowHandle handle;
  int flow_schema = -1;  // FlowControl::flow_schema_name's index, -1 with APF off
  int queue = -1;        // the queue chosen by shuffle sharding
  std::uint64_t flow_hash = 0;
  WorkEstimate estimate;
  Nanos wait_deadline = kNever;
};

class FlowControlListener {
 public:
  virtual ~FlowControlListener() = default;
  // The waiting request `id` was dispatched at `now`: the caller starts executing it. It
  // must not call back into the filter.
  virtual void OnDispatched(Nanos now, std::uint64_t id) = 0;
};

// A priority level's (or MaxInFlight pool's) state for reports.
struct LevelState {
  const std::string* name = nullptr;
  int nominal_cl = 0;
  int current_cl = 0;
  int max_seats = 0;  // the work estimator's per-request cap, 0 when none
  std::int64_t executing_requests = 0;
  std::int64_t executing_seats = 0;
  std::int64_t waiting_requests = 0;
  std::int64_t waiting_seats = 0;
  int retry_after_seconds = 0;  // what a rejection would carry now
  const QueueSet* queue_set = nullptr;
};

// A level's occupancy alone: what the simulator reads after every change to a level,
// without the names and limits that LevelState gathers for reports.
struct LevelCounts {
  std::int64_t executing_requests = 0;
  std::int64_t executing_seats = 0;
  std::int64_t waiting_requests = 0;
  std::int64_t waiting_seats = 0;
};

// A caller's note of where the filter keeps one flow's hash and shuffle-shard hand, so that
// the next request of that flow skips the lookup by distinguisher. The filter fills it in
// and honours it only while its table of flows has not been rebuilt since.
struct FlowRef {
  std::uint32_t slot = 0;
  std::uint32_t epoch = 0;  // 0: empty (the filter's epochs start at 1)
  int flow_schema = -1;
};

// What a caller that sends many requests may hand FlowControl::Start instead of having it work out
// again what it already knows. Each is optional.
struct StartHints {
  // classifier()->SubjectsOf(user) (or from any classifier of the same configuration):
  // classification skips the rules whose subjects do not name the user.
  const SubjectMask* subjects = nullptr;
  // The request's classification exactly as classifier()->Classify gives it (a caller
  // that remembers FlowSchema choices); its distinguisher must view live strings.
  const Classification* classification = nullptr;
  // Replaces the work estimator's answer as it stands (a what-if: no level's maximum
  // seats caps it).
  const WorkEstimate* estimate = nullptr;
  // The caller's note for this request's flow, read and updated by Start. The caller hands
  // one note only to requests of one distinguisher (say, one user's ByUser flows); the
  // note also names the FlowSchema, which must match the request's for it to be used.
  FlowRef* flow = nullptr;
};

class FlowControl : private QueueSetListener {
 public:
  // `config` and `object_stats` must outlive the filter.
  FlowControl(Nanos now, const FlowControlOptions& options, const FlowControlConfig* config,
              const ObjectStatsSource* object_stats, FlowControlListener* listener);
  FlowControl(const FlowControl&) = delete;
  FlowControl& operator=(const FlowControl&) = delete;

  // A request arrives. `id` is echoed to the listener; `user_timeout` is the parsed
  // `?timeout=` when present.
  Admission Start(Nanos now, std::uint64_t id, const UserInfo& user, const RequestInfo& request,
                  std::optional<Nanos> user_timeout, const StartHints& hints = {});

  // The handler returned (a watch: its initialization ended). Returns when the seats are
  // released: `now`, or later, when the caller must call ReleaseSeats.
  // Both inline: they only pass the handle on to the level's queue set.
  Nanos Finish(Nanos now, const FlowHandle& handle);
  void ReleaseSeats(Nanos now, const FlowHandle& handle);

  // The wait deadline passed, or the client gave up, while the request may still be
  // queued. Returns true, with the Retry-After of the 429, when it was removed.
  bool TimeOut(Nanos now, const FlowHandle& handle, int* retry_after_seconds);

  // The periodic re-division of seats (every kBorrowingAdjustmentPeriod).
  void Adjust(Nanos now);

  // Gives every priority level and FlowSchema of `later` (configurations Reconfigure will
  // be given, each of which must outlive the filter) its index now, after those of the
  // current configuration, in order of first appearance. A level not yet configured
  // reports no seats and receives no requests. Call before the first Start.
  void Foresee(const std::vector<const FlowControlConfig*>& later);
  // The configuration objects changed at `now` (the controller's digestion): `next` (one
  // Foresee was given) is classified against from now on. Each level's allocation,
  // queue set and work-estimator cap follow it at once, and the seats are re-divided once,
  // as digestConfigObjects does; the 10 s re-division keeps its own rhythm. The flows'
  // hashes and hands are forgotten, so every FlowRef is stale (flows are classified and
  // dealt anew), and classifier() is a new classifier.
  void Reconfigure(Nanos now, const FlowControlConfig* next);

  bool apf_enabled() const { return options_.enable_priority_and_fairness; }
  // The configuration in force now.
  const FlowControlConfig& config() const { return *config_; }
  // The FlowSchemas by the index Admission::flow_schema gives: the first configuration's
  // in matching order, then those Foresee registered.
  int flow_schema_count() const { return static_cast<int>(flow_schema_names_.size()); }
  const std::string& flow_schema_name(int index) const { return flow_schema_names_[index]; }
  const Classifier* classifier() const { return classifier_.get(); }
  const ConcurrencyAllocator* allocator() const { return allocator_.get(); }
  WatchTracker& watches() { return watches_; }
  int level_count() const { return max_in_flight_ ? 2 : static_cast<int>(levels_.size()); }
  LevelState level(int index) const;
  // Inline: the simulator reads a level's counts after every change to it.
  LevelCounts counts(int index) const;

 private:
  struct Level {
    std::string name;
    PriorityLevel spec;
    std::unique_ptr<SeatDemandIntegrator> demand;
    std::unique_ptr<QueueSet> queue_set;
    RetryAfterTracker retry_after;
    bool ever_dropped = false;
    // The allocator's entry and the work estimator's per-request cap for this level, kept
    // here so that a request does not look the level up by name: the cap changes only when
    // the levels are digested, the entry is re-read after every re-division.
    const PriorityLevelAllocation* alloc = nullptr;  // null: not configured now
    std::uint64_t max_seats = 0;
    // Its object is gone but requests remain: the allocation keeps it until idle
    // (processOldPLsLocked); the filter then digests again (maybeReap).
    bool quiescing = false;
  };

  // The level's index in levels_, or -1.
  int LevelIndexOf(std::string_view name) const;
  // Digests `config_` again once a quiescing level's queue set is idle (maybeReap).
  void ReapIfIdle(Nanos now, const Level& level);
  // The allocator's digestion of config_'s levels, and the queue sets set to it.
  void Digest(Nanos now);

  void OnDispatched(Nanos now, QueueSetHandle request, std::uint64_t id) override;
  void ApplyAllocation(Nanos now);
  int RecordDrop(Nanos now, Level& level);
  // Start for a classified request subject to flow control. Always inlined: most
  // callers hand Start the classification, and the call would cost a tenth of Admit.
  [[gnu::always_inline]] Admission Admit(Nanos now, std::uint64_t id, const RequestInfo& request,
                                         bool long_running, std::optional<Nanos> user_timeout,
                                         const StartHints& hints, const Classification& c);
  // Start for a request the classifier has yet to classify (no hint).
  [[gnu::noinline]] Admission ClassifyAndAdmit(Nanos now, std::uint64_t id, const UserInfo& user,
                                               const RequestInfo& request, bool long_running,
                                               std::optional<Nanos> user_timeout,
                                               const StartHints& hints);
  Admission StartMaxInFlight(Nanos now, const UserInfo& user, const RequestInfo& request,
                             bool long_running);

  FlowControlOptions options_;
  const FlowControlConfig* config_;
  FlowControlListener* listener_;
  std::unique_ptr<Classifier> classifier_;
  std::unique_ptr<ConcurrencyAllocator> allocator_;
  WatchTracker watches_;
  WorkEstimator estimator_;
  // APF: the first configuration's priority_levels order, then Foresee's; off: readonly,
  // mutating. level_of_[i] is the index here of config_->priority_levels[i], and
  // flow_schema_of_[i] the reported index of config_->flow_schemas[i].
  std::vector<Level> levels_;
  std::vector<int> level_of_;
  std::vector<int> flow_schema_of_;
  std::vector<std::string> flow_schema_names_;
  std::unique_ptr<MaxInFlightFilter> max_in_flight_;
  std::vector<std::string> pool_names_;
  // Flow hashes by (FlowSchema, distinguisher): SHA-256 costs more than everything else
  // the filter does for a request, and a simulation sees the same flows again and again.
  // An open-addressing table (linear probing, power-of-two size) keyed by a hash of the
  // pair: one probe into a flat array in the common case, two cache lines per entry.
  // Entries compare exactly, so a collision costs a comparison, never a wrong hash. Each
  // flow also keeps the hand its level's queue set last dealt it: dealing costs more than
  // looking the flow up.
  struct alignas(64) CachedFlow {
    std::uint64_t key = 0;
    int flow_schema = -1;  // -1: an empty slot
    std::uint64_t hash = 0;
    std::string distinguisher;
    RememberedHand hand;
  };
  // The flow's entry, or null when the level does not hash flows (the hash is then 0).
  CachedFlow* CachedFlowOf(const Classification& c);
  std::vector<CachedFlow> flow_hashes_;  // size a power of two, at most half full
  size_t cached_flows_ = 0;
  // Counts the rebuilds of flow_hashes_ (the only times an entry moves): a FlowRef of an
  // older epoch names a slot that may hold another flow.
  std::uint32_t flows_epoch_ = 1;
};

inline Nanos FlowControl::Finish(Nanos now, const FlowHandle& handle) {
  if (!handle.valid()) return now;
  if (max_in_flight_) {
    max_in_flight_->Release(handle.level == 0 ? InFlightKind::kReadOnly : InFlightKind::kMutating);
    return now;
  }
  const Level& level = levels_[handle.level];
  const Nanos released = level.queue_set->Finish(now, handle.queue_set);
  if (level.quiescing) [[unlikely]]
    ReapIfIdle(now, level);
  return released;
}

inline void FlowControl::ReleaseSeats(Nanos now, const FlowHandle& handle) {
  if (!handle.valid() || max_in_flight_) return;
  levels_[handle.level].queue_set->ReleaseSeats(now, handle.queue_set);
}

inline LevelCounts FlowControl::counts(int index) const {
  LevelCounts c;
  if (max_in_flight_) {
    const InFlightKind kind = index == 0 ? InFlightKind::kReadOnly : InFlightKind::kMutating;
    c.executing_requests = c.executing_seats = max_in_flight_->in_flight(kind);
    return c;
  }
  const QueueSet& qs = *levels_[index].queue_set;
  c.executing_requests = qs.executing_requests();
  c.executing_seats = qs.seats_in_use();
  c.waiting_requests = qs.waiting_requests();
  c.waiting_seats = qs.seats_waiting();
  return c;
}

}  // namespace apf

#endif  // APF_FILTER_FLOW_CONTROL_H_

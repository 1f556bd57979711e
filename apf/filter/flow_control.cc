#include "apf/filter/flow_control.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string_view>

#include "apf/allocation/priority_level_limits.h"
#include "apf/classification/long_running.h"
#include "apf/filter/request_deadline.h"

namespace apf {

const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kQueueFull:
      return "queue-full";
    case RejectReason::kTimeOut:
      return "time-out";
    case RejectReason::kConcurrencyLimit:
      return "concurrency-limit";
    case RejectReason::kMaxInFlight:
      return "max-in-flight";
  }
  return "?";
}

namespace {

PriorityLevelAllocationSpec AllocationSpecOf(const PriorityLevel& pl) {
  PriorityLevelAllocationSpec spec;
  spec.name = pl.name;
  spec.type = pl.exempt() ? PriorityLevelType::kExempt : PriorityLevelType::kLimited;
  spec.nominal_concurrency_shares = pl.nominal_concurrency_shares;
  spec.lendable_percent = pl.lendable_percent;
  if (!pl.exempt()) spec.borrowing_limit_percent = pl.borrowing_limit_percent;
  if (pl.queues_requests()) spec.queuing_hand_size = pl.queuing.hand_size;
  return spec;
}

// a == b for two strings of the same size. From 4 to 16 bytes (most distinguishers) it
// compares the first and last words in place: a call to memcmp would cost a quarter of
// the flow lookup that asks.
bool SameBytesOfSameSize(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n >= 8 && n <= 16) {
    std::uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a.data(), 8);
    std::memcpy(&a1, a.data() + n - 8, 8);
    std::memcpy(&b0, b.data(), 8);
    std::memcpy(&b1, b.data() + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4 && n < 8) {
    std::uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a.data(), 4);
    std::memcpy(&a1, a.data() + n - 4, 4);
    std::memcpy(&b0, b.data(), 4);
    std::memcpy(&b1, b.data() + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  return a == b;
}

QueuingConfig QueuingOf(const PriorityLevel& pl) {
  QueuingConfig q;
  q.desired_num_queues = pl.DesiredNumQueues();
  if (pl.queues_requests()) {
    q.queue_length_limit = pl.queuing.queue_length_limit;
    q.hand_size = pl.queuing.hand_size;
  }
  return q;
}

}  // namespace

FlowControl::FlowControl(Nanos now, const FlowControlOptions& options,
                         const FlowControlConfig* config, const ObjectStatsSource* object_stats,
                         FlowControlListener* listener)
    : options_(options),
      config_(config),
      listener_(listener),
      estimator_(options.estimator, object_stats, &watches_) {
  // The FlowSchemas' indices, with APF off too (the caller sizes its tables by them).
  for (size_t i = 0; config_ && i < config_->flow_schemas.size(); ++i) {
    flow_schema_of_.push_back(static_cast<int>(i));
    flow_schema_names_.push_back(config_->flow_schemas[i].metadata.name);
  }
  if (!options_.enable_priority_and_fairness) {
    max_in_flight_ = std::make_unique<MaxInFlightFilter>(options_.max_requests_inflight,
                                                         options_.max_mutating_requests_inflight);
    pool_names_ = {"readonly", "mutating"};
    return;
  }
  classifier_ = std::make_unique<Classifier>(*config_);
  allocator_ = std::make_unique<ConcurrencyAllocator>(ServerConcurrencyLimit(
      options_.max_requests_inflight, options_.max_mutating_requests_inflight));
  std::vector<PriorityLevelAllocationSpec> specs;
  levels_.resize(config_->priority_levels.size());
  for (size_t i = 0; i < levels_.size(); ++i) {
    const PriorityLevel& pl = config_->priority_levels[i];
    levels_[i].name = pl.name;
    levels_[i].spec = pl;
    levels_[i].demand = std::make_unique<SeatDemandIntegrator>(now);
    specs.push_back(AllocationSpecOf(pl));
    level_of_.push_back(static_cast<int>(i));
  }
  // The first digestion: every level is new, so no demand is read and nothing is idle.
  ConcurrencyAllocator::DigestOutcome outcome;
  Status s = allocator_->Digest(
      specs, [&](const std::string&) { return SeatDemandResults{}; },
      [](const std::string&) { return true; }, &outcome);
  assert(s.ok());
  (void)s;
  for (Level& level : levels_) {
    const PriorityLevelAllocation* alloc = allocator_->Find(level.name);
    level.alloc = alloc;
    level.max_seats = allocator_->GetMaxSeats(level.name);
    level.queue_set = std::make_unique<QueueSet>(
        now, QueuingOf(level.spec),
        DispatchingConfig{static_cast<int>(alloc->current_cl),
                          static_cast<int>(alloc->concurrency_denominator)},
        static_cast<QueueSetListener*>(this), level.demand.get());
    level.queue_set->set_report_arrival_in_result(true);
  }
}

int FlowControl::LevelIndexOf(std::string_view name) const {
  for (size_t i = 0; i < levels_.size(); ++i) {
    if (levels_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void FlowControl::Foresee(const std::vector<const FlowControlConfig*>& later) {
  if (max_in_flight_) return;
  for (const FlowControlConfig* config : later) {
    for (const PriorityLevel& pl : config->priority_levels) {
      if (LevelIndexOf(pl.name) >= 0) continue;
      // Not configured yet: an idle queue set of no seats that no request reaches, so
      // that reports can read it. Reconfigure replaces it when the level is introduced.
      Level& level = levels_.emplace_back();
      level.name = pl.name;
      level.spec = pl;
      level.demand = std::make_unique<SeatDemandIntegrator>(0);
      level.queue_set =
          std::make_unique<QueueSet>(0, QueuingOf(pl), DispatchingConfig{0, 1},
                                     static_cast<QueueSetListener*>(this), level.demand.get());
      level.queue_set->set_report_arrival_in_result(true);
    }
    for (const FlowSchema& fs : config->flow_schemas) {
      if (std::find(flow_schema_names_.begin(), flow_schema_names_.end(), fs.metadata.name) ==
          flow_schema_names_.end()) {
        flow_schema_names_.push_back(fs.metadata.name);
      }
    }
  }
}

void FlowControl::Reconfigure(Nanos now, const FlowControlConfig* next) {
  if (max_in_flight_) return;
  config_ = next;
  classifier_ = std::make_unique<Classifier>(*config_);
  level_of_.clear();
  for (const PriorityLevel& pl : config_->priority_levels) {
    const int i = LevelIndexOf(pl.name);
    assert(i >= 0);  // Foresee registered it
    levels_[i].spec = pl;
    level_of_.push_back(i);
  }
  flow_schema_of_.clear();
  for (const FlowSchema& fs : config_->flow_schemas) {
    const auto it =
        std::find(flow_schema_names_.begin(), flow_schema_names_.end(), fs.metadata.name);
    assert(it != flow_schema_names_.end());
    flow_schema_of_.push_back(static_cast<int>(it - flow_schema_names_.begin()));
  }
  // Every flow is hashed and dealt its hand anew: a FlowSchema may have moved to another
  // level, and a level's dealer may have changed shape. Bumping the epoch makes every
  // caller's FlowRef stale.
  flow_hashes_.clear();
  cached_flows_ = 0;
  ++flows_epoch_;
  Digest(now);
}

void FlowControl::Digest(Nanos now) {
  std::vector<PriorityLevelAllocationSpec> specs;
  for (const PriorityLevel& pl : config_->priority_levels) specs.push_back(AllocationSpecOf(pl));
  ConcurrencyAllocator::DigestOutcome outcome;
  Status s = allocator_->Digest(
      specs,
      [&](const std::string& name) { return levels_[LevelIndexOf(name)].demand->Reset(now); },
      [&](const std::string& name) { return levels_[LevelIndexOf(name)].queue_set->is_idle(); },
      &outcome);
  assert(s.ok());  // the configuration was validated and digested before
  (void)s;
  for (const std::string& name : outcome.introduced) {
    // BeginConstruction + Complete: a new queue set and seat-demand integrator, from now.
    Level& level = levels_[LevelIndexOf(name)];
    const PriorityLevelAllocation* alloc = allocator_->Find(name);
    level.demand = std::make_unique<SeatDemandIntegrator>(now);
    level.queue_set = std::make_unique<QueueSet>(
        now, QueuingOf(level.spec),
        DispatchingConfig{static_cast<int>(alloc->current_cl),
                          static_cast<int>(alloc->concurrency_denominator)},
        static_cast<QueueSetListener*>(this), level.demand.get());
    level.queue_set->set_report_arrival_in_result(true);
  }
  for (Level& level : levels_) {
    const PriorityLevelAllocation* alloc = allocator_->Find(level.name);
    level.alloc = alloc;
    level.quiescing = alloc && alloc->quiescing;
    level.max_seats = alloc ? allocator_->GetMaxSeats(level.name) : 0;
  }
  // The introduced sets were completed above; Complete on the others installs the new
  // queuing shape and limit and dispatches what now fits.
  ApplyAllocation(now);
}

void FlowControl::ReapIfIdle(Nanos now, const Level& level) {
  if (level.queue_set->is_idle()) Digest(now);
}

int FlowControl::RecordDrop(Nanos now, Level& level) {
  // The filter records the drop first and reads the value second, so the 429 already
  // reflects this drop (doc/model.md#retry-after).
  level.retry_after.RecordDroppedRequest(kVirtualEpochUnixNanos + now);
  level.ever_dropped = true;
  return static_cast<int>(level.retry_after.RetryAfterSeconds());
}

Admission FlowControl::Start(Nanos now, std::uint64_t id, const UserInfo& user,
                             const RequestInfo& request, std::optional<Nanos> user_timeout,
                             const StartHints& hints) {
  const bool long_running = IsLongRunningRequest(request);
  if (!options_.enable_priority_and_fairness) {
    return StartMaxInFlight(now, user, request, long_running);
  }
  if (SkipsPriorityAndFairness(request, long_running)) return Admission{};  // kBypass
  if (hints.classification) {
    return Admit(now, id, request, long_running, user_timeout, hints, *hints.classification);
  }
  return ClassifyAndAdmit(now, id, user, request, long_running, user_timeout, hints);
}

Admission FlowControl::ClassifyAndAdmit(Nanos now, std::uint64_t id, const UserInfo& user,
                                        const RequestInfo& request, bool long_running,
                                        std::optional<Nanos> user_timeout,
                                        const StartHints& hints) {
  const RequestDigest digest = MakeRequestDigest(user, request);
  const Classification c = hints.subjects ? classifier_->Classify(digest, *hints.subjects)
                                          : classifier_->Classify(digest);
  return Admit(now, id, request, long_running, user_timeout, hints, c);
}

inline Admission FlowControl::Admit(Nanos now, std::uint64_t id, const RequestInfo& request,
                                    bool long_running, std::optional<Nanos> user_timeout,
                                    const StartHints& hints, const Classification& c) {
  Admission a;
  const int level_index = level_of_[c.priority_level];
  Level& level = levels_[level_index];
  a.flow_schema = flow_schema_of_[c.flow_schema];
  CachedFlow* flow;
  if (FlowRef* ref = hints.flow;
      ref && ref->epoch == flows_epoch_ && ref->flow_schema == c.flow_schema) {
    flow = &flow_hashes_[ref->slot];
  } else {
    flow = CachedFlowOf(c);
    if (ref && flow) {
      *ref = FlowRef{static_cast<std::uint32_t>(flow - flow_hashes_.data()), flows_epoch_,
                     c.flow_schema};
    }
  }
  a.flow_hash = flow ? flow->hash : 0;
  a.estimate =
      hints.estimate ? *hints.estimate : estimator_.Estimate(&request, level.max_seats, now);
  a.wait_deadline =
      now + QueueWaitLimitForRequest(long_running, user_timeout, options_.request_timeout);

  const QueueSet::StartResult r = level.queue_set->StartRequest(
      now, id,
      RequestSeats{a.estimate.initial_seats, a.estimate.final_seats, a.estimate.additional_latency},
      a.flow_hash, flow ? &flow->hand : nullptr);
  a.handle = FlowHandle{level_index, r.handle};
  a.queue = r.queue_index;
  switch (r.outcome) {
    case QueueSet::StartOutcome::kRejectedQueueFull:
      a.outcome = Admission::Outcome::kRejected;
      a.reason = RejectReason::kQueueFull;
      a.retry_after_seconds = RecordDrop(now, level);
      break;
    case QueueSet::StartOutcome::kRejectedConcurrencyLimit:
      a.outcome = Admission::Outcome::kRejected;
      a.reason = RejectReason::kConcurrencyLimit;
      a.retry_after_seconds = RecordDrop(now, level);
      break;
    case QueueSet::StartOutcome::kDispatchedWithoutQueue:
      a.outcome = Admission::Outcome::kExecuting;
      break;
    case QueueSet::StartOutcome::kQueued:
      a.outcome = r.dispatched ? Admission::Outcome::kExecuting : Admission::Outcome::kWaiting;
      break;
  }
  return a;
}

FlowControl::CachedFlow* FlowControl::CachedFlowOf(const Classification& c) {
  if (!c.uses_flow_hash) return nullptr;
  // The slot key: a multiply-xorshift hash over the distinguisher eight bytes at a time
  // (a byte-at-a-time hash was a tenth of a whole simulation's time).
  const std::string_view d = c.distinguisher;
  std::uint64_t key = (static_cast<std::uint64_t>(c.flow_schema) << 32) ^ d.size();
  size_t i = 0;
  for (; i + 8 <= d.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, d.data() + i, 8);  // a fixed size: one load, not a call
    key = (key ^ word) * 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
  }
  if (i < d.size()) {
    // The last bytes, read with as few loads as their count allows: the last eight
    // (overlapping bytes already mixed), or the first and last four, or three bytes. The
    // size is in the key, so each way reads a distinct set of strings.
    std::uint64_t word = 0;
    if (d.size() >= 8) {
      std::memcpy(&word, d.data() + d.size() - 8, 8);
    } else if (d.size() >= 4) {
      std::uint32_t first, last;
      std::memcpy(&first, d.data(), 4);
      std::memcpy(&last, d.data() + d.size() - 4, 4);
      word = first | (static_cast<std::uint64_t>(last) << 32);
    } else {
      word = static_cast<unsigned char>(d[0]) |
             static_cast<std::uint64_t>(static_cast<unsigned char>(d[d.size() / 2])) << 8 |
             static_cast<std::uint64_t>(static_cast<unsigned char>(d[d.size() - 1])) << 16;
    }
    key = (key ^ word) * 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
  }
  // MurmurHash3's fmix64: every input bit reaches the low bits that pick the slot, so
  // distinguishers that differ only in a few bytes ("app-1", "app-2") do not cluster.
  key ^= key >> 33;
  key *= 0xFF51AFD7ED558CCDULL;
  key ^= key >> 33;
  key *= 0xC4CEB9FE1A85EC53ULL;
  key ^= key >> 33;
  if (flow_hashes_.empty()) {
    flow_hashes_.resize(1024);
    ++flows_epoch_;
  }
  size_t mask = flow_hashes_.size() - 1;
  size_t slot = key & mask;
  for (; flow_hashes_[slot].flow_schema >= 0; slot = (slot + 1) & mask) {
    CachedFlow& f = flow_hashes_[slot];
    if (f.key == key && f.flow_schema == c.flow_schema && f.distinguisher.size() == d.size() &&
        SameBytesOfSameSize(f.distinguisher, d)) {
      return &f;
    }
  }
  const std::uint64_t hash = classifier_->FlowHash(c);
  // Bound the memory of a run with endless distinct flows: start afresh past 2^20.
  if (cached_flows_ >= (size_t{1} << 20)) {
    flow_hashes_.assign(1024, CachedFlow{});
    cached_flows_ = 0;
    ++flows_epoch_;
  } else if (2 * (cached_flows_ + 1) > flow_hashes_.size()) {
    ++flows_epoch_;
    std::vector<CachedFlow> old(flow_hashes_.size() * 2);
    old.swap(flow_hashes_);
    for (CachedFlow& f : old) {
      if (f.flow_schema < 0) continue;
      size_t s = f.key & (flow_hashes_.size() - 1);
      while (flow_hashes_[s].flow_schema >= 0) s = (s + 1) & (flow_hashes_.size() - 1);
      flow_hashes_[s] = std::move(f);
    }
  }
  mask = flow_hashes_.size() - 1;
  for (slot = key & mask; flow_hashes_[slot].flow_schema >= 0; slot = (slot + 1) & mask) {
  }
  flow_hashes_[slot] = CachedFlow{key, c.flow_schema, hash, std::string(c.distinguisher), {}};
  ++cached_flows_;
  return &flow_hashes_[slot];
}

Admission FlowControl::StartMaxInFlight(Nanos now, const UserInfo& user, const RequestInfo& request,
                                        bool long_running) {
  (void)now;
  Admission a;
  const MaxInFlightFilter::Outcome o = max_in_flight_->Admit(request, long_running, user.groups);
  const int pool = o.kind == InFlightKind::kReadOnly ? 0 : 1;
  a.estimate = WorkEstimate{1, 0, 0};
  switch (o.decision) {
    case MaxInFlightFilter::Decision::kServedUntracked:
      break;  // kBypass
    case MaxInFlightFilter::Decision::kServed:
    case MaxInFlightFilter::Decision::kServedUnlimited:
      a.outcome = Admission::Outcome::kExecuting;
      a.handle.level = pool;
      break;
    case MaxInFlightFilter::Decision::kServedPrivileged:
      a.outcome = Admission::Outcome::kExecuting;  // no slot taken: nothing to release
      break;
    case MaxInFlightFilter::Decision::kRejected:
      a.outcome = Admission::Outcome::kRejected;
      a.reason = RejectReason::kMaxInFlight;
      a.retry_after_seconds = static_cast<int>(MaxInFlightFilter::kRetryAfterSeconds);
      a.handle.level = pool;  // for reports: the pool that was full
      break;
  }
  return a;
}

// Only requests other than the one being started come here: Start reports its own
// dispatch as kExecuting (set_report_arrival_in_result).
void FlowControl::OnDispatched(Nanos now, QueueSetHandle, std::uint64_t id) {
  listener_->OnDispatched(now, id);
}

bool FlowControl::TimeOut(Nanos now, const FlowHandle& handle, int* retry_after_seconds) {
  if (!handle.valid() || max_in_flight_) return false;
  Level& level = levels_[handle.level];
  if (!level.queue_set->TimeOut(now, handle.queue_set)) return false;
  *retry_after_seconds = RecordDrop(now, level);
  // The request's Finish saw the set idle (queueset.go request.wait): maybeReap.
  if (level.quiescing) ReapIfIdle(now, level);
  return true;
}

void FlowControl::Adjust(Nanos now) {
  if (!allocator_) return;
  // A quiescing level is no longer in config_ but still takes part.
  allocator_->Adjust([&](const std::string& name) {
    const int i = LevelIndexOf(name);
    assert(i >= 0);
    return levels_[i].demand->Reset(now);
  });
  ApplyAllocation(now);
}

void FlowControl::ApplyAllocation(Nanos now) {
  for (Level& level : levels_) {
    const PriorityLevelAllocation* alloc = allocator_->Find(level.name);
    level.alloc = alloc;
    if (!alloc) continue;  // not configured now: its set is idle
    Status s = level.queue_set->Reconfigure(
        now, QueuingOf(level.spec),
        DispatchingConfig{static_cast<int>(alloc->current_cl),
                          static_cast<int>(alloc->concurrency_denominator)});
    assert(s.ok());
    (void)s;
  }
}

LevelState FlowControl::level(int index) const {
  LevelState s;
  if (max_in_flight_) {
    const InFlightKind kind = index == 0 ? InFlightKind::kReadOnly : InFlightKind::kMutating;
    s.name = &pool_names_[index];
    s.nominal_cl = s.current_cl = static_cast<int>(max_in_flight_->limit(kind));
    s.executing_requests = s.executing_seats = max_in_flight_->in_flight(kind);
    s.retry_after_seconds = static_cast<int>(MaxInFlightFilter::kRetryAfterSeconds);
    return s;
  }
  const Level& level = levels_[index];
  const PriorityLevelAllocation* alloc = level.alloc;
  s.name = &level.name;
  s.nominal_cl = alloc ? static_cast<int>(alloc->limits.nominal_cl) : 0;  // not configured now
  s.current_cl = alloc ? static_cast<int>(alloc->current_cl) : 0;
  s.max_seats = static_cast<int>(level.max_seats);
  s.executing_requests = level.queue_set->executing_requests();
  s.executing_seats = level.queue_set->seats_in_use();
  s.waiting_requests = level.queue_set->waiting_requests();
  s.waiting_seats = level.queue_set->seats_waiting();
  s.retry_after_seconds =
      level.ever_dropped ? static_cast<int>(level.retry_after.RetryAfterSeconds()) : 1;
  s.queue_set = level.queue_set.get();
  return s;
}

}  // namespace apf

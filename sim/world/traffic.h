// Traffic generation for the patterns of a client's `traffic` list (scenarios/README.md,
// "Traffic"): poisson, constant, sweep, closedLoop and watch, and the replay of recorded
// rows (trace traffic and spec.auditLog). The informer pattern is the world's (it drives
// a reflector). Clock-free, in the style of the apf/ models: each generator is told the
// virtual time and its random stream, decides, and returns the call to issue now and when
// it wants to run next; the world issues the call and schedules the event.
// Tested by tests/sim/world/traffic_test.cc.
#ifndef SIM_WORLD_TRAFFIC_H_
#define SIM_WORLD_TRAFFIC_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "apf/base/virtual_time.h"
#include "sim/engine/random.h"
#include "sim/scenario/replay_source.h"
#include "sim/scenario/scenario.h"
#include "sim/world/service_time.h"

namespace sim {

// What a generator wants done: issue the spec's call `call` (-1: none) with this
// namespace draw, and run again at `next` (kNever: not until something ends).
struct TrafficStep {
  int call = -1;
  std::uint64_t namespace_draw = 0;
  apf::Nanos next = apf::kNever;
  // closedLoop: a pass through the calls ended with this call, after this long from its
  // first call's issue (-1: no pass ended).
  apf::Nanos iteration = -1;
};

// One generator of one process (a closedLoop pattern has one per worker).
class Traffic {
 public:
  Traffic() = default;
  // `per_period` is a sweep's calls per period (SweepCallsPerPeriod); unused otherwise.
  explicit Traffic(const TrafficSpec& spec, std::int64_t per_period = 1)
      : spec_(&spec), per_period_(per_period) {}

  // When the generator first runs: poisson after an exponential gap, constant at a random
  // phase within its period (so that many processes do not act in lockstep), closedLoop
  // after half a think time, the others at the start.
  apf::Nanos FirstAt(Random& rng) const;
  // The generator runs at `now`.
  TrafficStep Generate(apf::Nanos now, Random& rng);
  // A call it issued ended at `now` (`ok`: it succeeded; `was_watch`: it was a watch). A
  // closedLoop worker makes its next call or thinks; a watch backs off after a failure
  // (an opened watch is re-issued by the world when it ends).
  TrafficStep CallDone(apf::Nanos now, bool ok, bool was_watch, Random& rng);

 private:
  const TrafficSpec* spec_ = nullptr;
  std::int64_t per_period_ = 1;
  std::int64_t period_ = 0;    // sweep: the current period
  std::int64_t item_ = 0;      // sweep: the next call in the period; closedLoop: the call in flight
  int failures_ = 0;           // watch: consecutive failures, for the backoff
  apf::Nanos pass_start_ = 0;  // closedLoop: when the pass in flight issued its first call
};

// A sweep's calls per period: its count, or with `namespace: each` and no count one per
// namespace of the resource (`namespaces`), and at least one.
std::int64_t SweepCallsPerPeriod(const TrafficSpec& spec, std::int64_t namespaces);

// A `watch` pattern's delay after `failures` consecutive failures: 800 ms doubling up to
// 30 s, times U[1, 2), the reflector's backoff without its reset rule
// (doc/model.md#reflector-constants; informers run the whole sim::ReflectorBackoff).
apf::Nanos WatchRetryDelay(int failures, Random& rng);

// Replayed rows (a trace's or an audit log's): the next row, and which process sends it.
class Replay {
 public:
  // `client`: the trace's client; -1 for an audit log, whose rows name their client.
  Replay(std::unique_ptr<ReplaySource> source, int client)
      : source_(std::move(source)), client_(client) {}

  // Reads the next row; false when the source is exhausted.
  bool Next() { return source_->Next(&pending_); }
  ReplayRow& pending() { return pending_; }
  ReplaySource& source() { return *source_; }
  // The world's request (its index) for rows of `shape` (ReplayRow::shape), if it has one.
  const int* FindShape(std::string_view shape) const {
    const auto it = shapes_.find(shape);
    return it == shapes_.end() ? nullptr : &it->second;
  }
  // Whether the cache holds kMaxShapes: rows of further shapes compile one by one, so
  // that a trace whose every row differs keeps memory flat.
  bool shapes_full() const { return shapes_.size() >= kMaxShapes; }
  // Request `id` serves rows of `shape`, a view that must outlive the replay.
  void AddShape(std::string_view shape, int id) { shapes_.emplace(shape, id); }
  // Distinct requests a replay compiles once, apart from namespaces and names: a recorded
  // trace has a few hundred (verbs, resources, queries), and each costs about 1 KB.
  static constexpr std::size_t kMaxShapes = 4096;
  // The client of the pending row (-1: none of the scenario's clients).
  int client() const { return client_ >= 0 ? client_ : pending_.client; }
  // The process that sends the pending row, of a client whose processes are
  // [first_process, first_process + processes): the rows take turns over them (one turn
  // counter for all the source's rows).
  int TakeProcess(int first_process, int processes) {
    return first_process + static_cast<int>(rows_++ % (processes > 1 ? processes : 1));
  }

 private:
  std::unique_ptr<ReplaySource> source_;
  ReplayRow pending_;
  int client_;
  std::int64_t rows_ = 0;
  std::unordered_map<std::string_view, int> shapes_;  // views of World::ReplayShape::key
};

// Generate and CallDone run for every call: inline.
inline TrafficStep Traffic::Generate(apf::Nanos now, Random& rng) {
  const TrafficSpec& t = *spec_;
  TrafficStep s;
  switch (t.kind) {
    case TrafficSpec::Kind::kPoisson:
      s.call = 0;
      s.namespace_draw = rng.NextU64();
      s.next = now + static_cast<apf::Nanos>(rng.Exponential(t.rate) * 1e9);
      break;
    case TrafficSpec::Kind::kConstant:
      s.call = 0;
      s.namespace_draw = rng.NextU64();
      s.next = now + static_cast<apf::Nanos>(1e9 / t.rate);
      break;
    case TrafficSpec::Kind::kSweep: {
      // The period's calls are spread evenly over its first `within`; with `namespace:
      // each` the draw is the call's position, so each namespace is visited once.
      s.call = 0;
      s.namespace_draw = static_cast<std::uint64_t>(item_);
      ++item_;
      if (item_ >= per_period_) {
        item_ = 0;
        ++period_;
      }
      const apf::Nanos base = t.start + period_ * t.every;
      // within * item / per, split so that the product cannot overflow for a `within` of
      // years and a count of millions: (q*per + r) * item / per == q*item + r*item/per.
      s.next = base + t.within / per_period_ * item_ + t.within % per_period_ * item_ / per_period_;
      break;
    }
    case TrafficSpec::Kind::kClosedLoop:
      item_ = 0;
      pass_start_ = now;
      s.call = 0;
      s.namespace_draw = rng.NextU64();
      break;
    case TrafficSpec::Kind::kWatch:
      s.call = static_cast<int>(t.calls.size()) - 1;
      s.namespace_draw = rng.NextU64();
      break;
    case TrafficSpec::Kind::kInformer:  // the world's
    case TrafficSpec::Kind::kTrace:     // a Replay
      break;
  }
  return s;
}

inline TrafficStep Traffic::CallDone(apf::Nanos now, bool ok, bool was_watch, Random& rng) {
  const TrafficSpec& t = *spec_;
  TrafficStep s;
  if (t.kind == TrafficSpec::Kind::kClosedLoop) {
    ++item_;
    if (item_ < static_cast<std::int64_t>(t.calls.size())) {
      s.call = static_cast<int>(item_);
      s.namespace_draw = rng.NextU64();
    } else {
      s.next = now + SampleDuration(t.think, rng);
      s.iteration = now - pass_start_;
    }
  } else if (t.kind == TrafficSpec::Kind::kWatch) {
    if (ok) {
      failures_ = 0;
      if (!was_watch) s.next = now;
    } else {
      s.next = now + WatchRetryDelay(failures_, rng);
      ++failures_;
    }
  }
  return s;
}

}  // namespace sim

#endif  // SIM_WORLD_TRAFFIC_H_

// Throughput of one priority level's QueueSet under open-loop load, in requests per
// second of wall time. Each request arrives, is rejected or queued, runs for an
// exponential service time once dispatched, and times out after 15 s if still waiting;
// the driver is a minimal event loop (sim::EventQueue) and all randomness is drawn
// before timing starts.
//
// - WorkloadLow: the default workload-low level (245 seats, 128 queues, hand 6, queue
//   length 50) at 2,000 requests per virtual second, 90% 1-seat and 10% 10-seat, 50 ms
//   mean service: about 78% of the seats in use, little queuing.
// - Overload: the same level with 24 seats at 3,000 per second: queues full, most
//   requests rejected queue-full, the rest wait until dispatched or timed out.
// Each runs with the tournament-tree dispatch choice and with the linear scan over all
// queues that queueset.go does (decisions are identical; see
// tests/apf/queueing/queue_set_reference_test.cc). DriverOnly is the loop with every request run at
// once and no queue set: the share of the figures that is not the queue set's.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <vector>

#include "apf/queueing/queue_set.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/random.h"

namespace {

using apf::Nanos;

constexpr size_t kPlanned = 1 << 18;  // distinct requests drawn; the load cycles them
constexpr size_t kSlots = 1 << 16;    // more than ever in flight at once
constexpr int kFlows = 1000;
constexpr Nanos kWaitLimit = 15 * apf::kSecond;

struct Planned {
  Nanos gap;      // since the previous arrival
  Nanos service;  // once dispatched
  std::uint64_t flow_hash;
  apf::RequestSeats seats;
};

std::vector<Planned> Plan(double rate_per_second, std::uint64_t seed) {
  sim::Random random(seed, "queue-set-bench");
  std::vector<std::uint64_t> flows(kFlows);
  for (auto& f : flows) f = random.NextU64();
  std::vector<Planned> plan(kPlanned);
  for (Planned& p : plan) {
    p.gap = static_cast<Nanos>(random.Exponential(rate_per_second) * 1e9);
    p.service = static_cast<Nanos>(random.Exponential(1.0 / 0.050) * 1e9);
    p.flow_hash = flows[random.UniformInt(kFlows)];
    p.seats.initial_seats = random.Uniform01() < 0.9 ? 1 : 10;
  }
  return plan;
}

class Driver : public apf::QueueSetListener {
 public:
  Driver(const std::vector<Planned>& plan, int seats, bool dispatch_by_scan)
      : plan_(plan), queue_set_(0, {128, 50, 6}, {seats, seats}, this, &demand_), slots_(kSlots) {
    queue_set_.set_dispatch_by_scan(dispatch_by_scan);
  }

  void OnDispatched(Nanos now, apf::QueueSetHandle, std::uint64_t id) override {
    Slot& slot = slots_[id % kSlots];
    slot.dispatched = true;
    if (slot.time_out.valid()) events_.Cancel(slot.time_out);
    events_.Schedule(now + plan_[id % kPlanned].service, {kCompletion, 0, id});
  }

  // Runs everything due before the next arrival, then the arrival.
  void Step() {
    const Planned& p = plan_[next_ % kPlanned];
    const Nanos arrival = now_ + p.gap;
    while (events_.PeekTime() <= arrival) {
      const sim::FiredEvent e = *events_.Pop();
      Slot& slot = slots_[e.event.arg64 % kSlots];
      switch (e.event.kind) {
        case kCompletion: {
          const Nanos release = queue_set_.Finish(e.time, slot.handle);
          if (release > e.time) events_.Schedule(release, {kRelease, 0, e.event.arg64});
          break;
        }
        case kRelease:
          queue_set_.ReleaseSeats(e.time, slot.handle);
          break;
        case kTimeOut:
          slot.time_out = {};
          queue_set_.TimeOut(e.time, slot.handle);
          break;
      }
    }
    now_ = arrival;
    Slot& slot = slots_[next_ % kSlots];
    slot.dispatched = false;
    slot.time_out = {};
    const apf::QueueSet::StartResult r = queue_set_.StartRequest(now_, next_, p.seats, p.flow_hash);
    slot.handle = r.handle;
    if (r.outcome == apf::QueueSet::StartOutcome::kQueued && !slot.dispatched) {
      slot.time_out = events_.Schedule(now_ + kWaitLimit, {kTimeOut, 0, next_});
    }
    ++next_;
  }

  const apf::QueueSet& queue_set() const { return queue_set_; }
  std::uint64_t arrivals() const { return next_; }

 private:
  enum Kind : std::uint32_t { kCompletion, kRelease, kTimeOut };
  struct Slot {
    apf::QueueSetHandle handle;
    sim::EventHandle time_out;
    bool dispatched = false;
  };

  const std::vector<Planned>& plan_;
  apf::SeatDemandIntegrator demand_{0};
  apf::QueueSet queue_set_;
  sim::EventQueue events_;
  std::vector<Slot> slots_;
  Nanos now_ = 0;
  std::uint64_t next_ = 0;
};

void RunLevel(benchmark::State& state, double rate, int seats) {
  const std::vector<Planned> plan = Plan(rate, 1);
  auto driver = std::make_unique<Driver>(plan, seats, state.range(0) == 1);
  for (int i = 0; i < 200000; ++i) driver->Step();  // reach the steady state first
  for (auto _ : state) driver->Step();
  state.SetItemsProcessed(state.iterations());
  // The fate of the arrivals, as fractions of them.
  const apf::QueueSetCounters& c = driver->queue_set().counters();
  const double arrivals = static_cast<double>(driver->arrivals());
  state.counters["queue_full"] = static_cast<double>(c.rejected_queue_full) / arrivals;
  state.counters["timed_out"] = static_cast<double>(c.rejected_time_out) / arrivals;
}

}  // namespace

// Arg 0: tournament tree; 1: linear scan over the queues, as queueset.go.
static void BM_QueueSetWorkloadLow(benchmark::State& state) { RunLevel(state, 2000, 245); }
BENCHMARK(BM_QueueSetWorkloadLow)->Arg(0)->Arg(1);

static void BM_QueueSetOverload(benchmark::State& state) { RunLevel(state, 3000, 24); }
BENCHMARK(BM_QueueSetOverload)->Arg(0)->Arg(1);

// The driver alone: every request completes after its service, no queue set.
static void BM_QueueSetDriverOnly(benchmark::State& state) {
  const std::vector<Planned> plan = Plan(2000, 1);
  sim::EventQueue events;
  Nanos now = 0;
  std::uint64_t next = 0;
  for (auto _ : state) {
    const Planned& p = plan[next % kPlanned];
    now += p.gap;
    while (events.PeekTime() <= now) benchmark::DoNotOptimize(events.Pop());
    events.Schedule(now + p.service, {0, 0, next});
    ++next;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QueueSetDriverOnly);

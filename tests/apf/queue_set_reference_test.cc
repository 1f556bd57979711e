// The real apf::QueueSet against a deliberately simple second implementation
// (tests/reference/simple_queue_set.h): on random workloads both must make identical
// decisions at identical times and agree on R and every queue's state after every
// operation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <vector>

#include "apf/queue_set.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/random.h"
#include "tests/reference/simple_queue_set.h"

namespace {

using apf::Nanos;
using reference::SimpleQueueSet;

// Drives both implementations with the same random workload and compares them.
class Comparison : public apf::QueueSetListener {
 public:
  enum Kind : std::uint32_t { kArrival, kTimeOut, kCompletion, kRelease, kReconfigure };

  // Seats and durations are multiplied by the scales: large ones drive R through epochs.
  Comparison(std::uint64_t seed, std::uint64_t seat_scale, Nanos time_scale)
      : random_(seed),
        seat_scale_(seat_scale),
        time_scale_(time_scale),
        scan_(seed % 3 == 0),
        remember_hands_(seed % 2 == 0) {}

  void OnDispatched(Nanos now, apf::QueueSetHandle handle, std::uint64_t id) override {
    real_dispatches_.emplace_back(now, id);
    handles_[id] = handle;
  }

  void Run() {
    apf::QueuingConfig q = RandomQueuing();
    apf::DispatchingConfig d = RandomDispatching();
    INFO("queues " << q.desired_num_queues << " hand " << q.hand_size << " qll "
                   << q.queue_length_limit << " cl " << d.concurrency_limit);
    apf::QueueSet real(0, q, d, this, nullptr);
    // Every third workload checks the scan that the benchmark compares with the tree.
    real.set_dispatch_by_scan(scan_);
    SimpleQueueSet simple(0, q, d);

    // Flows with fixed hashes; requests of random widths, some wider than the limit,
    // some with final seats; times on a 1 ms grid half the time, to make ties.
    std::vector<std::uint64_t> flows(1 + random_.UniformInt(8));
    for (auto& f : flows) f = random_.NextU64();
    // Every other workload keeps each flow's hand, as the filter does, through
    // reconfigurations that change the deck and hand sizes under it.
    std::vector<apf::RememberedHand> hands(flows.size());
    const int count = 150 + static_cast<int>(random_.UniformInt(150));
    Nanos t = 0;
    for (int i = 0; i < count; ++i) {
      t += RandomDuration(2 * apf::kMillisecond);
      Spec s;
      s.flow = static_cast<int>(random_.UniformInt(flows.size()));
      s.hash = flows[s.flow];
      s.seats.initial_seats =
          (1 + random_.UniformInt(random_.Uniform01() < 0.8 ? 3 : 15)) * seat_scale_;
      if (random_.Uniform01() < 0.3) {
        s.seats.final_seats = random_.UniformInt(15) * seat_scale_;
        s.seats.additional_latency = RandomDuration(5 * apf::kMillisecond);
      }
      s.service = RandomDuration(8 * apf::kMillisecond);
      specs_.push_back(s);
      events_.Schedule(t, {kArrival, static_cast<std::uint32_t>(i), 0});
      events_.Schedule(t + RandomDuration(20 * apf::kMillisecond),
                       {kTimeOut, static_cast<std::uint32_t>(i), 0});
      if (random_.Uniform01() < 0.02) events_.Schedule(t, {kReconfigure, 0, 0});
    }

    while (std::optional<sim::FiredEvent> e = events_.Pop()) {
      const Nanos now = e->time;
      const std::uint32_t i = e->event.arg32;
      switch (e->event.kind) {
        case kArrival: {
          apf::QueueSet::StartResult r =
              real.StartRequest(now, i, specs_[i].seats, specs_[i].hash,
                                remember_hands_ ? &hands[specs_[i].flow] : nullptr);
          if (r.handle.valid()) handles_[i] = r.handle;
          int simple_queue = -1;
          const int outcome = simple.Start(now, i, specs_[i].seats, specs_[i].hash, &simple_queue);
          REQUIRE(static_cast<int>(r.outcome) == outcome);
          REQUIRE((r.outcome == apf::QueueSet::StartOutcome::kQueued ? r.queue_index : -1) ==
                  simple_queue);
          break;
        }
        case kTimeOut: {
          const bool real_removed = handles_.count(i) && real.TimeOut(now, handles_[i]);
          REQUIRE(real_removed == simple.TimeOut(now, i));
          break;
        }
        case kCompletion: {
          const Nanos release = real.Finish(now, handles_.at(i));
          REQUIRE(release == simple.Finish(now, i));
          if (release > now) events_.Schedule(release, {kRelease, i, 0});
          break;
        }
        case kRelease:
          real.ReleaseSeats(now, handles_.at(i));
          simple.Release(now, i);
          break;
        case kReconfigure: {
          apf::QueuingConfig nq = RandomQueuing();
          apf::DispatchingConfig nd = RandomDispatching();
          REQUIRE(real.Reconfigure(now, nq, nd).ok());
          simple.Reconfigure(now, nq, nd);
          ++reconfigurations_;
          break;
        }
      }
      // The same dispatches, in the same order, at the same times; schedule completions.
      REQUIRE(real_dispatches_ == simple.dispatched);
      for (const auto& [when, id] : real_dispatches_) {
        events_.Schedule(when + specs_[id].service,
                         {kCompletion, static_cast<std::uint32_t>(id), 0});
      }
      dispatches_ += real_dispatches_.size();
      real_dispatches_.clear();
      simple.dispatched.clear();
      CompareState(real, simple);
    }
    CHECK(real.is_idle());
    epochs_ = real.counters().epoch_advances + real.counters().epoch_advance_failures;
  }

  std::int64_t dispatches_ = 0;
  int reconfigurations_ = 0;
  std::int64_t epochs_ = 0;

 private:
  struct Spec {
    int flow = 0;
    std::uint64_t hash = 0;
    apf::RequestSeats seats;
    Nanos service = 0;
  };

  apf::QueuingConfig RandomQueuing() {
    const double kind = random_.Uniform01();
    if (kind < 0.1) return {0, 0, 0};  // Reject-type
    const int queues = 1 + static_cast<int>(random_.UniformInt(12));
    const int hand = 1 + static_cast<int>(random_.UniformInt(std::min(queues, 5)));
    return {queues, static_cast<int>(random_.UniformInt(6)), hand};
  }

  apf::DispatchingConfig RandomDispatching() {
    const int limit = static_cast<int>(random_.UniformInt(12) * seat_scale_);
    return {limit, limit};
  }

  Nanos RandomDuration(Nanos scale) {
    scale *= time_scale_;
    if (random_.Uniform01() < 0.5) {
      return static_cast<Nanos>(random_.UniformInt(3)) * (scale / 2);  // grid: ties
    }
    return static_cast<Nanos>(random_.Exponential(1.0) * static_cast<double>(scale));
  }

  static void CompareState(const apf::QueueSet& real, const SimpleQueueSet& simple) {
    REQUIRE(real.current_r() == simple.r_now);
    REQUIRE(real.waiting_requests() == simple.waiting);
    REQUIRE(real.executing_requests() == simple.executing);
    REQUIRE(real.seats_in_use() == simple.seats_in_use);
    REQUIRE(real.seats_waiting() == simple.seats_waiting);
    REQUIRE(real.counters().rejected == simple.rejected);
    REQUIRE(real.counters().cancelled == simple.cancelled);
    REQUIRE(real.counters().dispatch_no_accommodation == simple.no_accommodation);
    REQUIRE(real.counters().epoch_advances + real.counters().epoch_advance_failures ==
            simple.epochs);
    REQUIRE(real.num_queues() == static_cast<int>(simple.queues.size()));
    for (int i = 0; i < real.num_queues(); ++i) {
      const apf::QueueSetQueueView v = real.queue(i);
      const SimpleQueueSet::Queue& q = *simple.queues[i];
      REQUIRE(v.next_dispatch_r == q.next_dispatch_r);
      REQUIRE(v.waiting_requests == static_cast<std::int64_t>(q.waiting.size()));
      REQUIRE(v.executing_requests == static_cast<std::int64_t>(q.executing.size()));
      REQUIRE(v.seats_in_use == q.seats_in_use);
      REQUIRE(v.max_seats_sum == q.MaxSeatsSum());
      REQUIRE(v.total_work_sum == q.TotalWorkSum());
    }
  }

  sim::Random random_;
  std::uint64_t seat_scale_;
  Nanos time_scale_;
  bool scan_;
  bool remember_hands_;
  sim::EventQueue events_;
  std::vector<Spec> specs_;
  std::map<std::uint64_t, apf::QueueSetHandle> handles_;
  std::vector<std::pair<Nanos, std::uint64_t>> real_dispatches_;
};

}  // namespace

TEST_CASE("the queue set decides exactly as a plain full-scan implementation",
          "[queueset][reference]") {
  std::int64_t dispatches = 0;
  int reconfigurations = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    Comparison c(seed, 1, 1);
    c.Run();
    dispatches += c.dispatches_;
    reconfigurations += c.reconfigurations_;
  }
  // The workloads exercise what they are meant to: many dispatches and reconfigurations.
  CHECK(dispatches > 20000);
  CHECK(reconfigurations > 100);
}

TEST_CASE("the queue set agrees with the plain implementation through epoch advances",
          "[queueset][reference]") {
  // Requests of 1e8 seats and more, for tens of seconds, move R by 1e16 units per second
  // and more: past highR (1.38e19) in some 20 minutes of virtual time.
  std::int64_t epochs = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    Comparison c(seed, 100000000, 10000);
    c.Run();
    epochs += c.epochs_;
  }
  CHECK(epochs > 20);
}

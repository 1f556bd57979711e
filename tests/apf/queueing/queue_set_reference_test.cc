// The real apf::QueueSet against a deliberately simple second implementation
// (tests/reference/simple_queue_set.h): on random workloads both must make identical
// decisions at identical times and agree on R and every queue's state after every
// operation. Alongside, the real set is run a second time with every arrival enqueued
// before it is dispatched, as queueset.go does: it must end every operation in exactly the
// state of the one that dispatches fitting arrivals at once, its seat demand included.
// A third copy reports each arrival's own dispatch only in its StartResult, as the filter
// asks: the listener must hear every other dispatch, in the same order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "apf/queueing/queue_set.h"
#include "apf/queueing/seat_demand_integrator.h"
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
    apf::SeatDemandIntegrator real_demand(0);
    apf::QueueSet real(0, q, d, this, &real_demand);
    // Every third workload checks the scan that the benchmark compares with the tree.
    real.set_dispatch_by_scan(scan_);
    SimpleQueueSet simple(0, q, d);
    apf::SeatDemandIntegrator stepwise_demand(0);
    apf::QueueSet stepwise(0, q, d, &stepwise_, &stepwise_demand);
    stepwise.set_dispatch_by_scan(scan_);
    stepwise.set_dispatch_arrivals_at_once(false);
    // Every other workload has it enqueue arrivals first, so that an arrival's own
    // dispatch also comes from the general dispatch loop, among others.
    apf::QueueSet quiet(0, q, d, &quiet_, nullptr);
    quiet.set_dispatch_by_scan(scan_);
    quiet.set_report_arrival_in_result(true);
    quiet.set_dispatch_arrivals_at_once(remember_hands_);

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

    Nanos last = 0;
    while (std::optional<sim::FiredEvent> e = events_.Pop()) {
      const Nanos now = e->time;
      last = now;
      const std::uint32_t i = e->event.arg32;
      bool arrival_dispatched = false;
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
          const apf::QueueSet::StartResult sr =
              stepwise.StartRequest(now, i, specs_[i].seats, specs_[i].hash);
          if (sr.handle.valid()) stepwise_.handles[i] = sr.handle;
          REQUIRE(sr.outcome == r.outcome);
          REQUIRE(sr.queue_index == r.queue_index);
          const apf::QueueSet::StartResult qr =
              quiet.StartRequest(now, i, specs_[i].seats, specs_[i].hash);
          if (qr.handle.valid()) quiet_.handles[i] = qr.handle;
          REQUIRE(qr.outcome == r.outcome);
          REQUIRE(qr.queue_index == r.queue_index);
          arrival_dispatched = qr.dispatched;
          REQUIRE(r.dispatched == qr.dispatched);
          REQUIRE(sr.dispatched == qr.dispatched);
          break;
        }
        case kTimeOut: {
          const bool real_removed = handles_.count(i) && real.TimeOut(now, handles_[i]);
          REQUIRE(real_removed == simple.TimeOut(now, i));
          REQUIRE(real_removed ==
                  (stepwise_.handles.count(i) && stepwise.TimeOut(now, stepwise_.handles[i])));
          REQUIRE(real_removed ==
                  (quiet_.handles.count(i) && quiet.TimeOut(now, quiet_.handles[i])));
          break;
        }
        case kCompletion: {
          const Nanos release = real.Finish(now, handles_.at(i));
          REQUIRE(release == simple.Finish(now, i));
          REQUIRE(release == stepwise.Finish(now, stepwise_.handles.at(i)));
          REQUIRE(release == quiet.Finish(now, quiet_.handles.at(i)));
          if (release > now) events_.Schedule(release, {kRelease, i, 0});
          break;
        }
        case kRelease:
          real.ReleaseSeats(now, handles_.at(i));
          simple.Release(now, i);
          stepwise.ReleaseSeats(now, stepwise_.handles.at(i));
          quiet.ReleaseSeats(now, quiet_.handles.at(i));
          break;
        case kReconfigure: {
          apf::QueuingConfig nq = RandomQueuing();
          apf::DispatchingConfig nd = RandomDispatching();
          REQUIRE(real.Reconfigure(now, nq, nd).ok());
          simple.Reconfigure(now, nq, nd);
          REQUIRE(stepwise.Reconfigure(now, nq, nd).ok());
          REQUIRE(quiet.Reconfigure(now, nq, nd).ok());
          ++reconfigurations_;
          break;
        }
      }
      // The same dispatches, in the same order, at the same times; schedule completions.
      REQUIRE(real_dispatches_ == simple.dispatched);
      REQUIRE(stepwise_.dispatches == real_dispatches_);
      stepwise_.dispatches.clear();
      // The quiet set's listener hears all but the arrival, which the result reported.
      std::vector<std::pair<Nanos, std::uint64_t>> others = real_dispatches_;
      if (e->event.kind == kArrival) {
        const auto own =
            std::find(others.begin(), others.end(), std::make_pair(now, std::uint64_t{i}));
        REQUIRE((own != others.end()) == arrival_dispatched);
        if (own != others.end()) others.erase(own);
      }
      REQUIRE(quiet_.dispatches == others);
      quiet_.dispatches.clear();
      CompareSets(real, stepwise);
      CompareSets(real, quiet);
      REQUIRE(real_demand.current() == stepwise_demand.current());
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
    // The demand's statistics, bit for bit: the same changes at the same instants.
    const apf::SeatDemandResults a = real_demand.GetResults(last + apf::kSecond);
    const apf::SeatDemandResults b = stepwise_demand.GetResults(last + apf::kSecond);
    CHECK(std::memcmp(&a, &b, sizeof a) == 0);
  }

  std::int64_t dispatches_ = 0;
  int reconfigurations_ = 0;
  std::int64_t epochs_ = 0;

 private:
  // The stepwise set's own dispatches and handles.
  struct Recorder : apf::QueueSetListener {
    void OnDispatched(Nanos now, apf::QueueSetHandle handle, std::uint64_t id) override {
      dispatches.emplace_back(now, id);
      handles[id] = handle;
    }
    std::vector<std::pair<Nanos, std::uint64_t>> dispatches;
    std::map<std::uint64_t, apf::QueueSetHandle> handles;
  };

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

  // Everything a report can read of two queue sets, every request of them included.
  static void CompareSets(const apf::QueueSet& a, const apf::QueueSet& b) {
    REQUIRE(a.current_r() == b.current_r());
    REQUIRE(a.waiting_requests() == b.waiting_requests());
    REQUIRE(a.executing_requests() == b.executing_requests());
    REQUIRE(a.seats_in_use() == b.seats_in_use());
    REQUIRE(a.seats_waiting() == b.seats_waiting());
    REQUIRE(a.queues_with_waiting() == b.queues_with_waiting());
    const apf::QueueSetCounters& ca = a.counters();
    const apf::QueueSetCounters& cb = b.counters();
    REQUIRE(ca.dispatched == cb.dispatched);
    REQUIRE(ca.rejected == cb.rejected);
    REQUIRE(ca.cancelled == cb.cancelled);
    REQUIRE(ca.rejected_queue_full == cb.rejected_queue_full);
    REQUIRE(ca.rejected_concurrency_limit == cb.rejected_concurrency_limit);
    REQUIRE(ca.rejected_time_out == cb.rejected_time_out);
    REQUIRE(ca.dispatch_no_accommodation == cb.dispatch_no_accommodation);
    REQUIRE(ca.epoch_advances == cb.epoch_advances);
    REQUIRE(ca.epoch_advance_failures == cb.epoch_advance_failures);
    REQUIRE(ca.impossible_states == cb.impossible_states);
    REQUIRE(a.num_queues() == b.num_queues());
    auto requests = [](const apf::QueueSet& qs) {
      std::vector<std::vector<std::int64_t>> rows;
      auto row = [&](const apf::QueueSetRequestView& v) {
        rows.push_back({static_cast<std::int64_t>(v.id), v.arrival_ns, v.start_ns.value_or(-1),
                        static_cast<std::int64_t>(v.seats.initial_seats),
                        static_cast<std::int64_t>(v.seats.final_seats), v.seats.additional_latency,
                        static_cast<std::int64_t>(v.arrival_r)});
      };
      for (int i = 0; i < qs.num_queues(); ++i) {
        qs.ForEachWaiting(i, row);
        rows.push_back({});
        qs.ForEachExecuting(i, row);
        rows.push_back({});
      }
      qs.ForEachQueuelessExecuting(row);
      return rows;
    };
    REQUIRE(requests(a) == requests(b));
    for (int i = 0; i < a.num_queues(); ++i) {
      const apf::QueueSetQueueView va = a.queue(i);
      const apf::QueueSetQueueView vb = b.queue(i);
      REQUIRE(va.waiting_requests == vb.waiting_requests);
      REQUIRE(va.executing_requests == vb.executing_requests);
      REQUIRE(va.seats_in_use == vb.seats_in_use);
      REQUIRE(va.next_dispatch_r == vb.next_dispatch_r);
      REQUIRE(va.initial_seats_sum == vb.initial_seats_sum);
      REQUIRE(va.max_seats_sum == vb.max_seats_sum);
      REQUIRE(va.total_work_sum == vb.total_work_sum);
    }
  }

  sim::Random random_;
  std::uint64_t seat_scale_;
  Nanos time_scale_;
  bool scan_;
  bool remember_hands_;
  Recorder stepwise_;
  Recorder quiet_;
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

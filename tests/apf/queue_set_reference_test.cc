// A deliberately simple second implementation of the queue set (in the manner of RE2's
// comparative testers): queues are deques scanned in full exactly as queueset.go scans
// them, R's rate is recomputed from scratch at every sync, and queues are shared objects
// that requests point at, as Go's *queue. The real apf::QueueSet keeps running sums and
// a tournament tree instead; on random workloads both must make identical decisions at
// identical times and agree on R and every queue's state after every operation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "apf/queue_set.h"
#include "apf/shuffle_sharding.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/random.h"

namespace {

using apf::Nanos;
using apf::SeatSeconds;

constexpr SeatSeconds kRDecrement = apf::kMaxSeatSeconds / 2;
constexpr SeatSeconds kHighR = kRDecrement + kRDecrement / 2;

class SimpleQueueSet {
 public:
  struct Request;
  struct Queue {
    std::deque<Request*> waiting;
    std::vector<Request*> executing;
    SeatSeconds next_dispatch_r = 0;
    std::int64_t seats_in_use = 0;
    int index = 0;

    std::int64_t MaxSeatsSum() const {
      std::int64_t sum = 0;
      for (const Request* r : waiting) sum += r->seats.MaxSeats();
      return sum;
    }
    SeatSeconds TotalWorkSum() const {
      SeatSeconds sum = 0;
      for (const Request* r : waiting) sum += r->total_work;
      return sum;
    }
  };
  struct Request {
    std::uint64_t id;
    apf::RequestSeats seats;
    SeatSeconds arrival_r = 0, total_work = 0, final_work = 0;
    Nanos start = 0;
    std::shared_ptr<Queue> queue;
  };

  SimpleQueueSet(Nanos now, apf::QueuingConfig q, apf::DispatchingConfig d) : last_(now) {
    Reconfigure(now, q, d);
  }

  std::vector<std::pair<Nanos, std::uint64_t>> dispatched;
  std::vector<std::shared_ptr<Queue>> queues;
  apf::QueuingConfig qcfg;
  apf::DispatchingConfig dcfg;
  SeatSeconds r_now = 0;
  int robin = 0;
  std::int64_t waiting = 0, executing = 0, seats_in_use = 0, seats_waiting = 0, enqueues = 0;
  std::int64_t rejected = 0, cancelled = 0, no_accommodation = 0, epochs = 0;

  void Reconfigure(Nanos now, apf::QueuingConfig q, apf::DispatchingConfig d) {
    Sync(now);
    if (q.desired_num_queues > 0) {
      while (static_cast<int>(queues.size()) < q.desired_num_queues) {
        queues.push_back(std::make_shared<Queue>());
        queues.back()->index = static_cast<int>(queues.size()) - 1;
      }
    } else {
      q.queue_length_limit = qcfg.queue_length_limit;
      q.hand_size = qcfg.hand_size;
    }
    qcfg = q;
    dcfg = d;
    DispatchAll(now);
  }

  // Returns 0 queued, 1 queueless dispatch, 2 queue-full, 3 concurrency-limit.
  int Start(Nanos now, std::uint64_t id, apf::RequestSeats seats, std::uint64_t hash,
            int* queue_index) {
    Sync(now);
    *queue_index = -1;
    auto r = std::make_unique<Request>();
    r->id = id;
    r->seats = seats;
    r->arrival_r = r_now;
    r->final_work =
        apf::SeatsTimesDuration(static_cast<double>(seats.final_seats), seats.additional_latency);
    r->total_work = apf::SeatsTimesDuration(static_cast<double>(seats.initial_seats),
                                            apf::kEstimatedServiceDuration) +
                    r->final_work;
    if (qcfg.desired_num_queues < 1) {
      if (!Fits(seats.MaxSeats())) {
        ++rejected;
        return 3;
      }
      r->start = now;
      ++executing;
      seats_in_use += seats.MaxSeats();
      dispatched.emplace_back(now, id);
      requests_[id] = std::move(r);
      return 1;
    }
    apf::Hand hand = apf::Dealer(qcfg.desired_num_queues, qcfg.hand_size).Deal(hash);
    const int offset = static_cast<int>(enqueues % hand.size);
    ++enqueues;
    int best = -1;
    SeatSeconds best_work = apf::kMaxSeatSeconds;
    for (int i = 0; i < hand.size; ++i) {
      const int index = hand[(offset + i) % hand.size];
      if (queues[index]->TotalWorkSum() < best_work) {
        best_work = queues[index]->TotalWorkSum();
        best = index;
      }
    }
    std::shared_ptr<Queue> q = queues[best];
    if (seats_in_use >= dcfg.concurrency_limit &&
        static_cast<int>(q->waiting.size()) >= qcfg.queue_length_limit) {
      Bound(*q);  // Go's deferred bound runs on this path too
      ++rejected;
      return 2;
    }
    *queue_index = best;
    if (q->waiting.empty() && q->executing.empty()) q->next_dispatch_r = r_now;
    r->queue = q;
    q->waiting.push_back(r.get());
    ++waiting;
    seats_waiting += seats.MaxSeats();
    requests_[id] = std::move(r);
    Bound(*q);
    DispatchAll(now);
    return 0;
  }

  Nanos Finish(Nanos now, std::uint64_t id) {
    Sync(now);
    Request& r = *requests_.at(id);
    --executing;
    if (r.queue) {
      auto& ex = r.queue->executing;
      ex.erase(std::find(ex.begin(), ex.end(), &r));
      r.queue->next_dispatch_r -=
          apf::SeatsTimesDuration(static_cast<double>(r.seats.initial_seats),
                                  apf::kEstimatedServiceDuration - (now - r.start));
      Bound(*r.queue);
    }
    Nanos release = now;
    if (r.seats.additional_latency <= 0) {
      ReleaseNow(id);
    } else {
      release = now + r.seats.additional_latency;
    }
    DispatchAll(now);
    return release;
  }

  void Release(Nanos now, std::uint64_t id) {
    Sync(now);
    ReleaseNow(id);
    DispatchAll(now);
  }

  bool TimeOut(Nanos now, std::uint64_t id) {
    auto it = requests_.find(id);
    if (it == requests_.end() || !it->second->queue) return false;
    Request& r = *it->second;
    auto& w = r.queue->waiting;
    auto pos = std::find(w.begin(), w.end(), &r);
    if (pos == w.end()) return false;
    Sync(now);
    w.erase(pos);
    --waiting;
    seats_waiting -= r.seats.MaxSeats();
    ++rejected;
    ++cancelled;
    std::shared_ptr<Queue> q = r.queue;
    requests_.erase(it);
    Bound(*q);
    return true;
  }

 private:
  void Sync(Nanos now) {
    const Nanos dt = now - last_;
    last_ = now;
    int active = 0;
    std::int64_t requested = 0;
    for (const auto& q : queues) {
      requested += q->seats_in_use + q->MaxSeatsSum();
      if (!q->waiting.empty() || !q->executing.empty()) ++active;
    }
    const double ratio = active == 0 ? 0
                                     : std::min(static_cast<double>(requested),
                                                static_cast<double>(dcfg.concurrency_limit)) /
                                           active;
    const SeatSeconds previous = r_now;
    r_now += apf::SeatsTimesDuration(ratio, dt);
    if (previous <= r_now && r_now >= kHighR) {
      r_now -= kRDecrement;
      ++epochs;
      for (auto& q : queues) {
        if (q->waiting.empty() && q->executing.empty()) {
          q->next_dispatch_r = 0;
          continue;
        }
        q->next_dispatch_r -= kRDecrement;
        for (Request* r : q->waiting) r->arrival_r -= kRDecrement;
      }
    }
  }

  bool Fits(std::int64_t seats) const {
    if (qcfg.desired_num_queues < 0) return true;
    if (seats > dcfg.concurrency_limit) return executing == 0;
    return seats_in_use + seats <= dcfg.concurrency_limit;
  }

  void Bound(Queue& q) {
    if (!q.waiting.empty() && q.next_dispatch_r < q.waiting.front()->arrival_r) {
      q.next_dispatch_r = q.waiting.front()->arrival_r;
    }
  }

  void DispatchAll(Nanos now) {
    while (waiting != 0 && seats_in_use < dcfg.concurrency_limit && DispatchOne(now)) {
    }
  }

  bool DispatchOne(Nanos now) {
    const int n = static_cast<int>(queues.size());
    SeatSeconds best_finish = apf::kMaxSeatSeconds;
    Queue* best = nullptr;
    int best_index = 0;
    for (int i = 0; i < n; ++i) {
      robin = (robin + 1) % n;
      Queue* q = queues[robin].get();
      if (q->waiting.empty()) continue;
      const SeatSeconds finish = q->next_dispatch_r + q->waiting.front()->total_work;
      if (finish < best_finish) {
        best_finish = finish;
        best = q;
        best_index = robin;
      }
    }
    if (best == nullptr) return false;
    Request* r = best->waiting.front();
    if (!Fits(r->seats.MaxSeats())) {
      ++no_accommodation;
      return false;
    }
    best->waiting.pop_front();
    if (r->seats.final_seats > static_cast<std::uint64_t>(dcfg.concurrency_limit)) {
      r->seats.final_seats = static_cast<std::uint64_t>(dcfg.concurrency_limit);
      r->seats.additional_latency =
          apf::DurationPerSeat(r->final_work, static_cast<double>(dcfg.concurrency_limit));
    }
    robin = best_index;
    --waiting;
    seats_waiting -= r->seats.MaxSeats();
    r->start = now;
    ++executing;
    seats_in_use += r->seats.MaxSeats();
    best->executing.push_back(r);
    best->seats_in_use += r->seats.MaxSeats();
    best->next_dispatch_r += r->total_work;
    Bound(*best);
    dispatched.emplace_back(now, r->id);
    return true;
  }

  void ReleaseNow(std::uint64_t id) {
    auto it = requests_.find(id);
    Request& r = *it->second;
    seats_in_use -= r.seats.MaxSeats();
    std::shared_ptr<Queue> q = r.queue;
    if (q) q->seats_in_use -= r.seats.MaxSeats();
    requests_.erase(it);
    if (q && static_cast<int>(queues.size()) > qcfg.desired_num_queues && q->waiting.empty() &&
        q->executing.empty()) {
      const int index = q->index;
      if (index >= static_cast<int>(queues.size())) return;  // a panic in Go
      queues.erase(queues.begin() + index);
      for (int i = index; i < static_cast<int>(queues.size()); ++i) --queues[i]->index;
      if (robin >= index) --robin;
    }
  }

  Nanos last_;
  std::map<std::uint64_t, std::unique_ptr<Request>> requests_;
};

// Drives both implementations with the same random workload and compares them.
class Comparison : public apf::QueueSetListener {
 public:
  enum Kind : std::uint32_t { kArrival, kTimeOut, kCompletion, kRelease, kReconfigure };

  // Seats and durations are multiplied by the scales: large ones drive R through epochs.
  Comparison(std::uint64_t seed, std::uint64_t seat_scale, Nanos time_scale)
      : random_(seed), seat_scale_(seat_scale), time_scale_(time_scale), scan_(seed % 3 == 0) {}

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
    const int count = 150 + static_cast<int>(random_.UniformInt(150));
    Nanos t = 0;
    for (int i = 0; i < count; ++i) {
      t += RandomDuration(2 * apf::kMillisecond);
      Spec s;
      s.hash = flows[random_.UniformInt(flows.size())];
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
          apf::QueueSet::StartResult r = real.StartRequest(now, i, specs_[i].seats, specs_[i].hash);
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

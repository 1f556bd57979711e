// A deliberately simple second implementation of the fair-queuing queue set
// (doc/model.md#queue-set, Kubernetes' fairqueuing/queueset/queueset.go), in the manner of RE2's
// comparative testers: queues are deques scanned in full exactly as queueset.go scans them, R's
// rate is recomputed from scratch at every sync, and queues are shared objects that requests point
// at, as Go's *queue. The real apf::QueueSet keeps running sums and a tournament tree instead; on
// random workloads both must make identical decisions at identical times and agree on R and every
// queue's state after every operation. Slow on purpose: use it to check, never to simulate.
//
// Tested by (and the reference of) tests/apf/queueing/queue_set_reference_test.cc.
#ifndef TESTS_REFERENCE_SIMPLE_QUEUE_SET_H_
#define TESTS_REFERENCE_SIMPLE_QUEUE_SET_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "apf/queueing/queue_set.h"
#include "apf/queueing/shuffle_sharding.h"

namespace reference {

using apf::Nanos;
using apf::SeatSeconds;

// R's epoch advance (doc/model.md#virtual-time-r): at kHighR, R and every live queue's R go back by
// kRDecrement.
inline constexpr SeatSeconds kRDecrement = apf::kMaxSeatSeconds / 2;
inline constexpr SeatSeconds kHighR = kRDecrement + kRDecrement / 2;

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

}  // namespace reference

#endif  // TESTS_REFERENCE_SIMPLE_QUEUE_SET_H_

// A queue set driven by hand in tests: it records every dispatch the listener reports
// and keeps the handles by the tests' request ids, so a test reads as a timeline.
#ifndef TESTS_QUEUE_SET_TEST_HARNESS_H_
#define TESTS_QUEUE_SET_TEST_HARNESS_H_

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "apf/queueing/queue_set.h"
#include "apf/queueing/seat_demand_integrator.h"

namespace apf_test {

inline apf::RequestSeats Seats(std::uint64_t initial, std::uint64_t final = 0,
                               apf::Nanos additional_latency = 0) {
  apf::RequestSeats s;
  s.initial_seats = initial;
  s.final_seats = final;
  s.additional_latency = additional_latency;
  return s;
}

inline apf::QueuingConfig Queuing(int queues, int queue_length_limit, int hand_size) {
  return apf::QueuingConfig{queues, queue_length_limit, hand_size};
}

inline apf::DispatchingConfig Limit(int concurrency_limit) {
  return apf::DispatchingConfig{concurrency_limit, concurrency_limit};
}

class QueueSetHarness : public apf::QueueSetListener {
 public:
  QueueSetHarness(const apf::QueuingConfig& queuing, const apf::DispatchingConfig& dispatching)
      : demand(0), qs(std::make_unique<apf::QueueSet>(0, queuing, dispatching, this, &demand)) {}

  void OnDispatched(apf::Nanos now, apf::QueueSetHandle handle, std::uint64_t id) override {
    dispatches.emplace_back(now, id);
    handles[id] = handle;
  }

  // With hand size 1 the hash modulo the number of queues is the queue.
  apf::QueueSet::StartResult Arrive(apf::Nanos now, std::uint64_t id, std::uint64_t hash,
                                    const apf::RequestSeats& seats = Seats(1)) {
    apf::QueueSet::StartResult r = qs->StartRequest(now, id, seats, hash);
    handles[id] = r.handle;
    return r;
  }
  apf::Nanos Finish(apf::Nanos now, std::uint64_t id) { return qs->Finish(now, handles.at(id)); }
  void Release(apf::Nanos now, std::uint64_t id) { qs->ReleaseSeats(now, handles.at(id)); }
  bool TimeOut(apf::Nanos now, std::uint64_t id) { return qs->TimeOut(now, handles.at(id)); }

  // When `id` was dispatched, or -1.
  apf::Nanos DispatchedAt(std::uint64_t id) const {
    for (const auto& [time, which] : dispatches) {
      if (which == id) return time;
    }
    return -1;
  }
  std::vector<std::uint64_t> DispatchOrder() const {
    std::vector<std::uint64_t> ids;
    for (const auto& d : dispatches) ids.push_back(d.second);
    return ids;
  }

  apf::SeatDemandIntegrator demand;
  std::unique_ptr<apf::QueueSet> qs;
  std::vector<std::pair<apf::Nanos, std::uint64_t>> dispatches;
  std::map<std::uint64_t, apf::QueueSetHandle> handles;
};

}  // namespace apf_test

#endif  // TESTS_QUEUE_SET_TEST_HARNESS_H_

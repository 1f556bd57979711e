// The counters behind the apiserver_flowcontrol_* metrics (doc/model.md#metrics,
// pkg/util/flowcontrol/metrics/metrics.go), per replica, priority level and flow schema,
// updated by the world as requests are dispatched or rejected; sim/report/metrics_text.h
// prints them. Tested by tests/sim/report/metrics_text_test.cc.
#ifndef SIM_WORLD_FLOW_METRICS_H_
#define SIM_WORLD_FLOW_METRICS_H_

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "apf/base/virtual_time.h"

namespace sim {

// Counters by (replica, priority level, flow schema) that the world updates as requests
// are dispatched or rejected.
class FlowMetrics {
 public:
  // requestDurationSecondsBuckets: request_wait_duration_seconds and
  // request_execution_seconds.
  static constexpr std::array<double, 13> kWaitBuckets = {0,   .005, .02, .05, .1, .2, .5,
                                                          1.0, 2.0,  5.0, 10,  15, 30};
  struct WaitHistogram {
    std::array<std::uint64_t, kWaitBuckets.size()> buckets{};  // cumulative when printed
    std::uint64_t count = 0;
    double sum = 0;
    // Inline: a request observes two or three of these, most often a wait of 0.
    void Observe(apf::Nanos wait) {
      const double s = apf::ToSeconds(wait);
      for (std::size_t i = 0; i < kWaitBuckets.size(); ++i) {
        if (s <= kWaitBuckets[i]) {
          ++buckets[i];
          break;
        }
      }
      ++count;
      sum += s;
    }
  };
  struct Series {
    std::uint64_t dispatched = 0;
    // By the counted apf::RejectReason (sim/world/level_timeline.h kRejectionKinds).
    std::uint64_t rejected[3] = {0, 0, 0};
    WaitHistogram wait_executed;  // execute="true" (time-outs included, a quirk)
    WaitHistogram wait_rejected;  // execute="false": rejected on arrival
    // request_execution_seconds: dispatch to the handler's return (a watch: to its
    // initial events), type="regular" and type="watch".
    WaitHistogram execution_regular, execution_watch;
  };
  // The gauges apiserver_flowcontrol_current_{executing_requests,executing_seats,
  // inqueue_requests} of one (replica, level, flow schema), read off the filter's
  // requests when the metrics are written (World::CurrentFlowGauges).
  struct Gauges {
    std::int64_t executing_requests = 0, executing_seats = 0, inqueue_requests = 0;
  };
  using Key = std::tuple<int, int, int>;  // replica, level, flow schema (-1: none)

  // Sizes the table before the run: a flat array indexed by the key, so that a request's
  // counters are found without a search. Series never touched stay zero and print nothing.
  void Shape(int replicas, int levels, int flow_schemas);
  Series& At(int replica, int level, int flow_schema) {
    assert(replica < replicas_ && level < levels_ && flow_schema < flow_schemas_);
    return series_[(static_cast<std::size_t>(replica) * levels_ + level) * (flow_schemas_ + 1) +
                   (flow_schema + 1)];
  }
  // Every series in key order.
  std::vector<std::pair<Key, const Series*>> series() const;

 private:
  int replicas_ = 0, levels_ = 0, flow_schemas_ = 0;
  std::vector<Series> series_;
};

}  // namespace sim

#endif  // SIM_WORLD_FLOW_METRICS_H_

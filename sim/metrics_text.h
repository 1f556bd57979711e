// The apiserver_flowcontrol_* metrics of each simulated apiserver, with the real names,
// labels and buckets (APF-SPEC 7.2, pkg/util/flowcontrol/metrics/metrics.go), in the
// Prometheus text exposition format. Each replica's series carry an `instance` label.
#ifndef SIM_METRICS_TEXT_H_
#define SIM_METRICS_TEXT_H_

#include <array>
#include <cassert>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "apf/virtual_time.h"

namespace sim {

class World;

// Counters by (replica, priority level, flow schema) that the world updates as requests
// are dispatched or rejected.
class FlowMetrics {
 public:
  // request_wait_duration_seconds buckets.
  static constexpr std::array<double, 13> kWaitBuckets = {0,   .005, .02, .05, .1, .2, .5,
                                                          1.0, 2.0,  5.0, 10,  15, 30};
  struct WaitHistogram {
    std::array<std::uint64_t, kWaitBuckets.size()> buckets{};  // cumulative when printed
    std::uint64_t count = 0;
    double sum = 0;
    void Observe(apf::Nanos wait);
  };
  struct Series {
    std::uint64_t dispatched = 0;
    std::uint64_t rejected[3] = {0, 0, 0};  // queue-full, time-out, concurrency-limit
    WaitHistogram wait_executed;            // execute="true" (time-outs included, a quirk)
    WaitHistogram wait_rejected;            // execute="false": rejected on arrival
  };
  using Key = std::tuple<int, int, int>;  // replica, level, flow schema (-1: none)

  // Sizes the table before the run: a flat array indexed by the key, so that a request's
  // counters are found without a search. Series never touched stay zero and print nothing.
  void Shape(int replicas, int levels, int flow_schemas);
  Series& At(int replica, int level, int flow_schema) {
    assert(replica < replicas_ && level < levels_ && flow_schema < flow_schemas_);
    return series_[(static_cast<size_t>(replica) * levels_ + level) * (flow_schemas_ + 1) +
                   (flow_schema + 1)];
  }
  // Every series in key order.
  std::vector<std::pair<Key, const Series*>> series() const;

 private:
  int replicas_ = 0, levels_ = 0, flow_schemas_ = 0;
  std::vector<Series> series_;
};

std::string MetricsText(World& world);

}  // namespace sim

#endif  // SIM_METRICS_TEXT_H_

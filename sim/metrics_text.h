// The apiserver_flowcontrol_* metrics of each simulated apiserver, with the real names,
// labels and buckets (APF-SPEC 7.2, pkg/util/flowcontrol/metrics/metrics.go), in the
// Prometheus text exposition format. Each replica's series carry an `instance` label.
#ifndef SIM_METRICS_TEXT_H_
#define SIM_METRICS_TEXT_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

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
  using Key = std::tuple<int, int, int>;  // replica, level, flow schema

  Series& At(int replica, int level, int flow_schema) { return series_[{replica, level, flow_schema}]; }
  const std::map<Key, Series>& series() const { return series_; }

 private:
  std::map<Key, Series> series_;
};

std::string MetricsText(World& world);

}  // namespace sim

#endif  // SIM_METRICS_TEXT_H_

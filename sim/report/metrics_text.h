// The apiserver_flowcontrol_* metrics of each simulated apiserver, with the real names,
// labels and buckets (doc/model.md#metrics, pkg/util/flowcontrol/metrics/metrics.go), in the
// Prometheus text exposition format. Each replica's series carry an `instance` label.
#ifndef SIM_REPORT_METRICS_TEXT_H_
#define SIM_REPORT_METRICS_TEXT_H_

#include <string>

namespace sim {

class World;

std::string MetricsText(const World& world);

}  // namespace sim

#endif  // SIM_REPORT_METRICS_TEXT_H_

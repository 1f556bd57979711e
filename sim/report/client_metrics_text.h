// apfsim's own per-client series, in the Prometheus text format beside metrics.prom's
// apiserver_flowcontrol_* ones: each client's calls, attempts, outcomes and 429 answers so
// far (the figures of clients.csv, summed from the start), labelled `client`. They are
// what a client-go program's own metrics would count; apiservers do not see them.
// `apfsim run --openmetrics` writes them into metrics.om (sim/report/openmetrics.h).
// Tested by tests/sim/report/openmetrics_test.cc.
#ifndef SIM_REPORT_CLIENT_METRICS_TEXT_H_
#define SIM_REPORT_CLIENT_METRICS_TEXT_H_

#include <string>

namespace sim {

class World;

// The counters at the end of the last closed report interval.
std::string ClientMetricsText(const World& world);

}  // namespace sim

#endif  // SIM_REPORT_CLIENT_METRICS_TEXT_H_

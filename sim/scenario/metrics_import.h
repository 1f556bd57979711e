// Object counts from a /metrics scrape (scenarios/README.md, "spec.resourcesFromMetrics"):
// the apiserver's apiserver_storage_objects gauge (objects per resource in storage,
// `resource` "pods" for the core group and "deployments.apps" for others, the
// GroupResource's String()) or, from 1.34, apiserver_resource_objects{group, resource}
// (k8s.io/apiserver pkg/storage/etcd3/metrics/metrics.go, kubernetes#132965), which wins
// when both are there; and apiserver_resource_size_estimate_bytes{group, resource}
// (kubernetes#132893) for the average object size where present. Either count is -1 for
// a resource whose count could not be fetched: that resource is skipped. The scrape's
// apiserver_storage_size_bytes is per storage cluster, not per resource, and is ignored.
#ifndef SIM_SCENARIO_METRICS_IMPORT_H_
#define SIM_SCENARIO_METRICS_IMPORT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace sim {

// The resources of a Prometheus text-format scrape, sorted by group then resource, with
// `objects` and (when the size estimate names the resource and the count is positive)
// `average_bytes`; others keep ResourceSpec's default size. Sample lines that do not
// parse are InputErrors at `source`:line; unrelated metrics are ignored. Several series
// of one resource and gauge are summed. A resource whose count is -1 is left out and, if
// `skipped` is given, named there ("pods", "deployments.apps").
std::vector<ResourceSpec> ResourcesFromMetricsText(std::string_view text, const std::string& source,
                                                   std::vector<std::string>* skipped = nullptr);
std::vector<ResourceSpec> ResourcesFromMetricsFile(const std::string& path,
                                                   std::vector<std::string>* skipped = nullptr);

// One sample of a Prometheus text-format scrape.
struct MetricSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;  // may be NaN or infinite, as the format allows
  int line = 0;      // 1-based, in the scrape
};

// Every sample of a scrape, in order. A line that is neither a comment, blank, nor a sample
// `name{labels} value [timestamp]` is an InputError at `source`:line, so that a file that is
// not a scrape at all (a YAML file, an HTML error page) is refused at its first line.
std::vector<MetricSample> ParseMetricsText(std::string_view text, const std::string& source);

}  // namespace sim

#endif  // SIM_SCENARIO_METRICS_IMPORT_H_

// Object counts from a /metrics scrape (scenarios/README.md, "spec.resourcesFromMetrics"):
// the apiserver's apiserver_storage_objects gauge (objects per resource in storage) and,
// where present, apiserver_storage_size_bytes (bytes in storage per resource; with the
// count it gives the average object size). The `resource` label is "pods" for the core
// group and "deployments.apps" for others (the GroupResource's String()).
#ifndef SIM_SCENARIO_METRICS_IMPORT_H_
#define SIM_SCENARIO_METRICS_IMPORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace sim {

// The resources of a Prometheus text-format scrape, sorted by group then resource, with
// `objects` and (when the size metric names the resource and the count is positive)
// `average_bytes`; others keep ResourceSpec's default size. Sample lines that do not
// parse are InputErrors at `source`:line; unrelated metrics are ignored. Several series
// of one resource (several storage clusters) are summed.
std::vector<ResourceSpec> ResourcesFromMetricsText(std::string_view text,
                                                   const std::string& source);
std::vector<ResourceSpec> ResourcesFromMetricsFile(const std::string& path);

}  // namespace sim

#endif  // SIM_SCENARIO_METRICS_IMPORT_H_

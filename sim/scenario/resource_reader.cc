#include "sim/scenario/resource_reader.h"

#include <algorithm>
#include <cstdio>

#include "sim/scenario/metrics_import.h"
#include "sim/scenario/spec_values.h"

namespace sim {

ResourceSpec ReadResource(const YamlValue& v) {
  ResourceSpec r;
  YamlMap m = v.Map();
  r.api_group = m.StringOr("apiGroup", "");
  r.resource = m.Required("resource").String();
  r.objects = m.Int64Or("objects", 0);
  if (r.objects < 0) m.Required("objects").Fail("must not be negative");
  r.average_bytes = m.Int64Or("averageBytes", r.average_bytes);
  if (r.average_bytes < 0) m.Required("averageBytes").Fail("must not be negative");
  r.namespaces = static_cast<int>(m.Int64Or("namespaces", 0));
  if (r.namespaces < 0 || r.namespaces > 1000000) {
    m.Required("namespaces").Fail("must be between 0 and 1000000");
  }
  r.namespace_prefix = m.StringOr("namespacePrefix", r.namespace_prefix);
  if (auto names = m.Optional("namespaceNames")) {
    r.namespace_names = names->StringList();
    if (r.namespaces != 0 && r.namespaces != static_cast<int>(r.namespace_names.size())) {
      names->Fail("give either namespaces or namespaceNames");
    }
    r.namespaces = static_cast<int>(r.namespace_names.size());
  } else {
    for (int i = 0; i < r.namespaces; ++i) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%04d", i);
      r.namespace_names.push_back(r.namespace_prefix + buf);
    }
  }
  m.Finish();
  return r;
}

void ReadResourcesFromMetrics(const YamlValue& v, Scenario* s) {
  s->resources_from_metrics = ResolveScenarioFile(v, s->file);
  for (ResourceSpec& r :
       ResourcesFromMetricsFile(s->resources_from_metrics, &s->resources_skipped_from_metrics)) {
    const bool listed =
        std::any_of(s->resources.begin(), s->resources.end(), [&](const ResourceSpec& e) {
          return e.resource == r.resource && e.api_group == r.api_group;
        });
    if (!listed) s->resources.push_back(std::move(r));
  }
}

}  // namespace sim

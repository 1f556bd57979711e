#include "sim/world/flow_metrics.h"

namespace sim {

void FlowMetrics::Shape(int replicas, int levels, int flow_schemas) {
  replicas_ = replicas;
  levels_ = levels;
  flow_schemas_ = flow_schemas;
  series_.assign(static_cast<std::size_t>(replicas) * levels * (flow_schemas + 1), Series{});
}

std::vector<std::pair<FlowMetrics::Key, const FlowMetrics::Series*>> FlowMetrics::series() const {
  std::vector<std::pair<Key, const Series*>> out;
  std::size_t i = 0;
  for (int r = 0; r < replicas_; ++r) {
    for (int l = 0; l < levels_; ++l) {
      for (int fs = -1; fs < flow_schemas_; ++fs) out.emplace_back(Key{r, l, fs}, &series_[i++]);
    }
  }
  return out;
}

}  // namespace sim

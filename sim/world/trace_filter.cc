#include "sim/world/trace_filter.h"

#include <algorithm>

#include "sim/engine/random.h"

namespace sim {

bool TraceFilter::SampledCall(std::uint64_t call) const {
  return fraction >= 1 || UniformAt(seed, "trace-sample", call) < fraction;
}

bool TraceFilter::WantsFlow(std::string_view distinguisher) const {
  return flows.empty() || std::find(flows.begin(), flows.end(), distinguisher) != flows.end();
}

}  // namespace sim

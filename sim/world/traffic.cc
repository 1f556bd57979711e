#include "sim/world/traffic.h"

#include <algorithm>
#include <cmath>

#include "sim/world/service_time.h"

namespace sim {

apf::Nanos Traffic::FirstAt(Random& rng) const {
  const TrafficSpec& t = *spec_;
  apf::Nanos first = t.start;
  switch (t.kind) {
    case TrafficSpec::Kind::kPoisson:
      first += static_cast<apf::Nanos>(rng.Exponential(t.rate) * 1e9);
      break;
    case TrafficSpec::Kind::kConstant:
      first += static_cast<apf::Nanos>(rng.Uniform01() * 1e9 / t.rate);
      break;
    case TrafficSpec::Kind::kClosedLoop:
      first += SampleDuration(t.think, rng) / 2;
      break;
    default:
      break;
  }
  return first;
}

std::int64_t SweepCallsPerPeriod(const TrafficSpec& spec, std::int64_t namespaces) {
  std::int64_t n = spec.count;
  if (n == 0 && spec.calls[0].namespace_choice == RequestTemplate::NamespaceChoice::kEach)
    n = namespaces;
  return n > 0 ? n : 1;
}

apf::Nanos WatchRetryDelay(int failures, Random& rng) {
  const double base = std::min(0.8 * std::pow(2.0, failures), 30.0);
  return static_cast<apf::Nanos>(base * (1 + rng.Uniform01()) * 1e9);
}

}  // namespace sim

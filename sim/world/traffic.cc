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

TrafficStep Traffic::Generate(apf::Nanos now, Random& rng) {
  const TrafficSpec& t = *spec_;
  TrafficStep s;
  switch (t.kind) {
    case TrafficSpec::Kind::kPoisson:
      s.call = 0;
      s.namespace_draw = rng.NextU64();
      s.next = now + static_cast<apf::Nanos>(rng.Exponential(t.rate) * 1e9);
      break;
    case TrafficSpec::Kind::kConstant:
      s.call = 0;
      s.namespace_draw = rng.NextU64();
      s.next = now + static_cast<apf::Nanos>(1e9 / t.rate);
      break;
    case TrafficSpec::Kind::kSweep: {
      // The period's calls are spread evenly over its first `within`; with `namespace:
      // each` the draw is the call's position, so each namespace is visited once.
      s.call = 0;
      s.namespace_draw = static_cast<std::uint64_t>(item_);
      ++item_;
      if (item_ >= per_period_) {
        item_ = 0;
        ++period_;
      }
      const apf::Nanos base = t.start + period_ * t.every;
      s.next = base + t.within * item_ / per_period_;
      break;
    }
    case TrafficSpec::Kind::kClosedLoop:
      item_ = 0;
      s.call = 0;
      s.namespace_draw = rng.NextU64();
      break;
    case TrafficSpec::Kind::kWatch:
      s.call = static_cast<int>(t.calls.size()) - 1;
      s.namespace_draw = rng.NextU64();
      break;
    case TrafficSpec::Kind::kInformer:  // the world's
    case TrafficSpec::Kind::kTrace:     // a Replay
      break;
  }
  return s;
}

TrafficStep Traffic::CallDone(apf::Nanos now, bool ok, bool was_watch, Random& rng) {
  const TrafficSpec& t = *spec_;
  TrafficStep s;
  if (t.kind == TrafficSpec::Kind::kClosedLoop) {
    ++item_;
    if (item_ < static_cast<std::int64_t>(t.calls.size())) {
      s.call = static_cast<int>(item_);
      s.namespace_draw = rng.NextU64();
    } else {
      s.next = now + SampleDuration(t.think, rng);
    }
  } else if (t.kind == TrafficSpec::Kind::kWatch) {
    if (ok) {
      failures_ = 0;
      if (!was_watch) s.next = now;
    } else {
      s.next = now + ReflectorBackoff(failures_, rng);
      ++failures_;
    }
  }
  return s;
}

std::int64_t SweepCallsPerPeriod(const TrafficSpec& spec, std::int64_t namespaces) {
  std::int64_t n = spec.count;
  if (n == 0 && spec.calls[0].namespace_choice == RequestTemplate::NamespaceChoice::kEach)
    n = namespaces;
  return n > 0 ? n : 1;
}

apf::Nanos ReflectorBackoff(int failures, Random& rng) {
  const double base = std::min(0.8 * std::pow(2.0, failures), 30.0);
  return static_cast<apf::Nanos>(base * (1 + rng.Uniform01()) * 1e9);
}

}  // namespace sim

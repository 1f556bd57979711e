// How long a request executes on an apiserver: the scenario's rules (first match wins),
// then the built-in defaults. A rule gives a random base time and, for LISTs, a cost per
// object and per KiB returned, so a LIST of a big namespace takes longer than one of a
// small one. The draw uses the caller's stream, so it is reproducible.
#ifndef SIM_WORLD_SERVICE_TIME_H_
#define SIM_WORLD_SERVICE_TIME_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "apf/base/virtual_time.h"
#include "apf/classification/request_info.h"
#include "sim/engine/random.h"
#include "sim/scenario/scenario.h"

namespace sim {

// A drawn duration in nanoseconds, capped at 1e18 and rounded as std::llround rounds
// (halves away from zero), without libm's call for the ordinary values: every request's
// service time is rounded by it.
inline apf::Nanos RoundNanos(double ns) {
  ns = std::min(ns, 1e18);
  // From 2^52 on every double is a whole number; NaN and the values int64 cannot hold go
  // to llround itself.
  if (!(std::fabs(ns) < 0x1p52)) return static_cast<apf::Nanos>(std::llround(ns));
  // Both conversions are exact below 2^52, and so is the difference.
  const auto whole = static_cast<apf::Nanos>(ns);  // toward zero
  const double fraction = ns - static_cast<double>(whole);
  if (fraction >= 0.5) return whole + 1;
  if (fraction <= -0.5) return whole - 1;
  return whole;
}

// Draws one value of a duration distribution.
apf::Nanos SampleDuration(const DurationDistribution& d, Random& rng);

struct ListResult {
  bool from_cache = false;
  std::int64_t objects = 0;
  std::int64_t bytes = 0;
};

class ServiceTimeModel {
 public:
  explicit ServiceTimeModel(std::vector<ServiceTimeRule> rules);

  // The execution time of `request`; `list` describes what a LIST (or a watch's initial
  // events) returns.
  apf::Nanos Sample(const apf::RequestInfo& request, const ListResult& list, Random& rng) const;

  // Sample in two steps, for a caller that issues the same request many times: the rule
  // depends only on the request's verb, resource and subresource (and on whether a LIST is
  // served from the cache), so it can be looked up once per request template.
  int RuleIndex(const apf::RequestInfo& request, bool list_from_cache) const;
  apf::Nanos SampleRule(int rule, const ListResult& list, Random& rng) const;  // inline below

  // The built-in rules used after the scenario's (scenarios/README.md lists them).
  static std::vector<ServiceTimeRule> Defaults();

 private:
  const ServiceTimeRule* Match(const apf::RequestInfo& request, bool list_from_cache) const;
  std::vector<ServiceTimeRule> rules_;  // the scenario's, then the defaults
  // What SampleRule reads of a rule, together: a draw reads one entry, not a rule's strings'
  // neighbours and a separate table.
  struct RuleDraw {
    DurationDistribution time;
    bool lognormal = false;  // a lognormal time, its parameters precomputed
    double mu = 0;
    double sigma = 0;
    apf::Nanos per_object = 0;
    apf::Nanos per_kib = 0;
  };
  std::vector<RuleDraw> draws_;  // per rule
};

// Inline: every request that reaches a handler draws its time here.
inline apf::Nanos ServiceTimeModel::SampleRule(int rule_index, const ListResult& list,
                                               Random& rng) const {
  const RuleDraw& draw = draws_[static_cast<size_t>(rule_index)];
  apf::Nanos t = draw.lognormal ? RoundNanos(std::exp(rng.Normal(draw.mu, draw.sigma)))
                                : SampleDuration(draw.time, rng);
  t += draw.per_object * list.objects;
  t += draw.per_kib * (list.bytes / 1024);
  return std::max<apf::Nanos>(t, 1);
}

}  // namespace sim

#endif  // SIM_WORLD_SERVICE_TIME_H_

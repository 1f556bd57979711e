// How long a request executes on an apiserver: the scenario's rules (first match wins),
// then the built-in defaults. A rule gives a random base time and, for LISTs, a cost per
// object and per KiB returned, so a LIST of a big namespace takes longer than one of a
// small one. The draw uses the caller's stream, so it is reproducible.
#ifndef SIM_WORLD_SERVICE_TIME_H_
#define SIM_WORLD_SERVICE_TIME_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "apf/request_info.h"
#include "apf/virtual_time.h"
#include "sim/engine/random.h"
#include "sim/scenario/scenario.h"

namespace sim {

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
  apf::Nanos SampleRule(int rule, const ListResult& list, Random& rng) const;

  // The built-in rules used after the scenario's (scenarios/README.md lists them).
  static std::vector<ServiceTimeRule> Defaults();

 private:
  const ServiceTimeRule* Match(const apf::RequestInfo& request, bool list_from_cache) const;
  std::vector<ServiceTimeRule> rules_;  // the scenario's, then the defaults
  struct LognormalParams {
    bool precomputed = false;
    double mu = 0;
    double sigma = 0;
  };
  std::vector<LognormalParams> lognormal_;  // per rule, for lognormal times
};

}  // namespace sim

#endif  // SIM_WORLD_SERVICE_TIME_H_

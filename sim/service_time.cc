#include "sim/service_time.h"

#include <algorithm>
#include <cmath>

namespace sim {

apf::Nanos SampleDuration(const DurationDistribution& d, Random& rng) {
  using Kind = DurationDistribution::Kind;
  double ns = 0;
  switch (d.kind) {
    case Kind::kConstant: return d.value;
    case Kind::kExponential:
      ns = d.value > 0 ? rng.Exponential(1.0 / static_cast<double>(d.value)) : 0;
      break;
    case Kind::kLognormal:
      ns = d.value > 0 ? rng.LognormalMedianP99(static_cast<double>(d.value),
                                                 static_cast<double>(std::max(d.value, d.value2)))
                       : 0;
      break;
    case Kind::kUniform:
      ns = rng.Uniform(static_cast<double>(d.value), static_cast<double>(d.value2));
      break;
  }
  return static_cast<apf::Nanos>(std::llround(std::min(ns, 1e18)));
}

namespace {

DurationDistribution Lognormal(apf::Nanos median, apf::Nanos p99) {
  return {DurationDistribution::Kind::kLognormal, median, p99};
}

ServiceTimeRule Rule(std::vector<std::string> verbs, DurationDistribution time,
                     apf::Nanos per_object = 0, apf::Nanos per_kib = 0) {
  ServiceTimeRule r;
  r.verbs = std::move(verbs);
  r.time = time;
  r.per_object = per_object;
  r.per_kib = per_kib;
  return r;
}

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return list.empty() || std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

std::vector<ServiceTimeRule> ServiceTimeModel::Defaults() {
  using apf::kMicrosecond;
  using apf::kMillisecond;
  return {
      Rule({"get"}, Lognormal(2 * kMillisecond, 20 * kMillisecond)),
      Rule({"list"}, Lognormal(5 * kMillisecond, 50 * kMillisecond), 5 * kMicrosecond, kMicrosecond),
      Rule({"watch"}, {DurationDistribution::Kind::kConstant, kMillisecond, 0}, 5 * kMicrosecond,
           kMicrosecond),
      Rule({}, Lognormal(8 * kMillisecond, 60 * kMillisecond)),
  };
}

ServiceTimeModel::ServiceTimeModel(std::vector<ServiceTimeRule> rules) : rules_(std::move(rules)) {
  for (ServiceTimeRule& r : Defaults()) rules_.push_back(std::move(r));
}

const ServiceTimeRule* ServiceTimeModel::Match(const apf::RequestInfo& request,
                                               bool list_from_cache) const {
  for (const ServiceTimeRule& r : rules_) {
    if (!Contains(r.verbs, request.verb)) continue;
    if (!r.resources.empty()) {
      const std::string full =
          request.subresource.empty() ? request.resource : request.resource + "/" + request.subresource;
      if (!Contains(r.resources, request.resource) && !Contains(r.resources, full)) continue;
    }
    if (r.source == ServiceTimeRule::Source::kCache && !list_from_cache) continue;
    if (r.source == ServiceTimeRule::Source::kEtcd && list_from_cache) continue;
    return &r;
  }
  return &rules_.back();
}

apf::Nanos ServiceTimeModel::Sample(const apf::RequestInfo& request, const ListResult& list,
                                    Random& rng) const {
  const ServiceTimeRule* rule = Match(request, list.from_cache);
  apf::Nanos t = SampleDuration(rule->time, rng);
  t += rule->per_object * list.objects;
  t += rule->per_kib * (list.bytes / 1024);
  return std::max<apf::Nanos>(t, 1);
}

}  // namespace sim

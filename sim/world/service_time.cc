#include "sim/world/service_time.h"

#include <algorithm>
#include <cmath>

namespace sim {

apf::Nanos SampleDuration(const DurationDistribution& d, Random& rng) {
  using Kind = DurationDistribution::Kind;
  double ns = 0;
  switch (d.kind) {
    case Kind::kConstant:
      return d.value;
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
  return RoundNanos(ns);
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

// Whether `list` names the request's resource, as `resource` or `resource/subresource`,
// without building the joined string.
bool NamesResource(const std::vector<std::string>& list, const apf::RequestInfo& request) {
  const std::string& resource = request.resource;
  const std::string& sub = request.subresource;
  for (const std::string& entry : list) {
    if (entry == resource) return true;
    if (!sub.empty() && entry.size() == resource.size() + 1 + sub.size() &&
        entry.compare(0, resource.size(), resource) == 0 && entry[resource.size()] == '/' &&
        entry.compare(resource.size() + 1, sub.size(), sub) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<ServiceTimeRule> ServiceTimeModel::Defaults() {
  using apf::kMicrosecond;
  using apf::kMillisecond;
  return {
      Rule({"get"}, Lognormal(2 * kMillisecond, 20 * kMillisecond)),
      Rule({"list"}, Lognormal(5 * kMillisecond, 50 * kMillisecond), 5 * kMicrosecond,
           kMicrosecond),
      Rule({"watch"}, {DurationDistribution::Kind::kConstant, kMillisecond, 0}, 5 * kMicrosecond,
           kMicrosecond),
      Rule({}, Lognormal(8 * kMillisecond, 60 * kMillisecond)),
  };
}

ServiceTimeModel::ServiceTimeModel(std::vector<ServiceTimeRule> rules) : rules_(std::move(rules)) {
  for (ServiceTimeRule& r : Defaults()) rules_.push_back(std::move(r));
  // The same expressions as Random::LognormalMedianP99, evaluated once per rule instead of
  // once per request: the draws are bit for bit those of SampleDuration.
  draws_.resize(rules_.size());
  for (size_t i = 0; i < rules_.size(); ++i) {
    RuleDraw& draw = draws_[i];
    const DurationDistribution& d = rules_[i].time;
    draw.time = d;
    draw.per_object = rules_[i].per_object;
    draw.per_kib = rules_[i].per_kib;
    if (d.kind != DurationDistribution::Kind::kLognormal || d.value <= 0) continue;
    const double median = static_cast<double>(d.value);
    const double p99 = static_cast<double>(std::max(d.value, d.value2));
    draw.mu = std::log(median);
    draw.sigma = (std::log(p99) - draw.mu) / kNormalZ99;
    draw.lognormal = true;
  }
}

const ServiceTimeRule* ServiceTimeModel::Match(const apf::RequestInfo& request,
                                               bool list_from_cache) const {
  for (const ServiceTimeRule& r : rules_) {
    if (!Contains(r.verbs, request.verb)) continue;
    if (!r.resources.empty()) {
      if (!NamesResource(r.resources, request)) continue;
    }
    if (r.source == ServiceTimeRule::Source::kCache && !list_from_cache) continue;
    if (r.source == ServiceTimeRule::Source::kEtcd && list_from_cache) continue;
    return &r;
  }
  return &rules_.back();
}

int ServiceTimeModel::RuleIndex(const apf::RequestInfo& request, bool list_from_cache) const {
  return static_cast<int>(Match(request, list_from_cache) - rules_.data());
}

apf::Nanos ServiceTimeModel::Sample(const apf::RequestInfo& request, const ListResult& list,
                                    Random& rng) const {
  return SampleRule(RuleIndex(request, list.from_cache), list, rng);
}

}  // namespace sim

#include "sim/scenario/apiserver_reader.h"

#include "sim/scenario/feature_gates.h"
#include "sim/scenario/spec_values.h"

namespace sim {

void ReadApiservers(const YamlValue& v, ApiserverSpec* a) {
  YamlMap m = v.Map();
  if (auto r = m.Optional("replicas")) {
    const std::int64_t n = r->Int64();
    if (n < 1 || n > 1000) r->Fail("must be between 1 and 1000");
    a->replicas = static_cast<int>(n);
  }
  a->kubernetes_version = m.StringOr("kubernetesVersion", a->kubernetes_version);
  auto limit = [&](const char* key, int* out) {
    if (auto x = m.Optional(key)) {
      const std::int64_t n = x->Int64();
      if (n < 0 || n > 10000000) x->Fail("must be between 0 and 10000000");
      *out = static_cast<int>(n);
    }
  };
  limit("maxRequestsInflight", &a->max_requests_inflight);
  limit("maxMutatingRequestsInflight", &a->max_mutating_requests_inflight);
  a->request_timeout = m.DurationOr("requestTimeout", a->request_timeout);
  if (a->request_timeout <= 0) m.Required("requestTimeout").Fail("must be positive");
  a->min_request_timeout = m.DurationOr("minRequestTimeout", a->min_request_timeout);
  if (a->min_request_timeout <= 0) m.Required("minRequestTimeout").Fail("must be positive");
  a->enable_priority_and_fairness = m.BoolOr("enablePriorityAndFairness", true);
  if (a->enable_priority_and_fairness &&
      a->max_requests_inflight + a->max_mutating_requests_inflight <= 0) {
    v.Fail("with priority and fairness on, the two in-flight limits must add up to more than 0");
  }
  if (auto gates = m.Optional("featureGates")) {
    YamlMap g = gates->Map();
    for (std::string_view gate : kKnownFeatureGates) {
      if (g.Has(gate)) a->feature_gates[std::string(gate)] = g.Required(gate).Bool();
    }
    g.Finish();
  }
  a->consistent_list_from_cache = m.BoolOr("consistentListFromCache", true);
  a->load_balancing = m.StringOr("loadBalancing", a->load_balancing);
  if (a->load_balancing != "sticky" && a->load_balancing != "round-robin" &&
      a->load_balancing != "random" && a->load_balancing != "least-requests") {
    m.Required("loadBalancing").Fail("must be sticky, round-robin, random or least-requests");
  }
  if (auto b = m.Optional("backend")) {
    YamlMap bm = b->Map();
    a->backend_cores = bm.NumberOr("cores", 0);
    if (a->backend_cores < 0) bm.Required("cores").Fail("must not be negative");
    bm.Finish();
  }
  if (auto rules = m.Optional("serviceTime")) {
    for (const YamlValue& rv : rules->Items()) {
      YamlMap rm = rv.Map();
      ServiceTimeRule rule;
      if (auto match = rm.Optional("match")) {
        YamlMap mm = match->Map();
        if (mm.Has("verbs")) rule.verbs = mm.Required("verbs").StringList();
        if (mm.Has("resources")) rule.resources = mm.Required("resources").StringList();
        const std::string source = mm.StringOr("source", "any");
        if (source == "cache") {
          rule.source = ServiceTimeRule::Source::kCache;
        } else if (source == "etcd") {
          rule.source = ServiceTimeRule::Source::kEtcd;
        } else if (source != "any") {
          mm.Required("source").Fail("must be cache, etcd or any");
        }
        mm.Finish();
      }
      rule.time = ReadDistribution(rm.Required("time"));
      rule.per_object = rm.DurationOr("perObject", 0);
      rule.per_kib = rm.DurationOr("perKiB", 0);
      if (rule.per_object < 0) rm.Required("perObject").Fail("must not be negative");
      if (rule.per_kib < 0) rm.Required("perKiB").Fail("must not be negative");
      rm.Finish();
      a->service_time.push_back(rule);
    }
  }
  if (auto erl = m.Optional("eventRateLimit")) {
    YamlMap em = erl->Map();
    YamlValue limits = em.Required("limits");
    for (const YamlValue& lv : limits.Items()) {
      YamlMap lm = lv.Map();
      EventRateLimitSpec l;
      l.type = lm.Required("type").String();
      if (l.type != "Server" && l.type != "Namespace" && l.type != "User" &&
          l.type != "SourceAndObject") {
        lm.Required("type").Fail("must be Server, Namespace, User or SourceAndObject");
      }
      l.qps = lm.Required("qps").Number();
      if (!(l.qps > 0)) lm.Required("qps").Fail("must be positive");
      CheckRateNotTiny(lm.Required("qps"), l.qps);
      l.burst = lm.Required("burst").Int64();
      if (l.burst <= 0) lm.Required("burst").Fail("must be positive");
      l.cache_size = lm.Int64Or("cacheSize", l.cache_size);
      if (l.cache_size < 0) lm.Required("cacheSize").Fail("must not be negative");
      lm.Finish();
      a->event_rate_limits.push_back(l);
    }
    if (a->event_rate_limits.empty()) limits.Fail("needs at least one limit");
    em.Finish();
  }
  m.Finish();
}

}  // namespace sim

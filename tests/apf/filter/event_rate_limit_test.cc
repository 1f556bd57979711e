// The EventRateLimit admission plugin (seed 002). Its buckets, golang.org/x/time/rate
// Limiters built by client-go's flowcontrol.NewTokenBucketRateLimiter, are tested in
// tests/apf/base/rate_limiter_test.cc.
#include "apf/filter/event_rate_limit.h"

#include <catch2/catch.hpp>
#include <string>

#include "apf/classification/request_info.h"

using apf::EventLimitType;
using apf::kMillisecond;
using apf::kSecond;

namespace {

apf::EventAttributes Event(std::string ns, std::string user) {
  apf::EventAttributes e;
  e.involved_object_namespace = ns;
  e.namespace_name = std::move(ns);
  e.user_name = std::move(user);
  e.source_component = std::string("crashy-controller");
  e.involved_object_kind = std::string("Pod");
  e.involved_object_name = std::string("p");
  return e;
}

apf::EventRateLimitConfig Config(std::initializer_list<apf::EventRateLimitConfig::Limit> limits) {
  apf::EventRateLimitConfig c;
  c.limits = limits;
  return c;
}

}  // namespace

TEST_CASE("A namespace bucket of qps 50, burst 100 admits 100 at once, then 50 a second",
          "[eventratelimit][seed002]") {
  // Seed 002's config: type Namespace, qps 50, burst 100, cacheSize 2000.
  apf::EventRateLimit plugin(Config({{EventLimitType::kNamespace, 50, 100, 2000}}));
  const apf::Nanos t0 = 5 * kSecond;
  int admitted = 0;
  for (int i = 0; i < 150; ++i) admitted += plugin.Admit(Event("a", "u"), t0).admitted;
  CHECK(admitted == 100);
  // One second later 50 tokens have accrued (1.0 s × 50/s), and no more.
  admitted = 0;
  for (int i = 0; i < 150; ++i) admitted += plugin.Admit(Event("a", "u"), t0 + kSecond).admitted;
  CHECK(admitted == 50);
  // Sustained: one event every 20 ms is exactly the rate and is always admitted, over a
  // minute; a 51st event in any such second would not be.
  for (int i = 1; i <= 3000; ++i) {
    REQUIRE(plugin.Admit(Event("a", "u"), t0 + kSecond + i * 20 * kMillisecond).admitted);
  }
  CHECK_FALSE(plugin.Admit(Event("a", "u"), t0 + kSecond + 3000 * 20 * kMillisecond).admitted);
  // Other namespaces have their own full buckets.
  admitted = 0;
  for (int i = 0; i < 150; ++i) admitted += plugin.Admit(Event("b", "u"), t0).admitted;
  CHECK(admitted == 100);
}

TEST_CASE("One full bucket among several rejects the event, and the others still pay",
          "[eventratelimit][seed002]") {
  // Seed 002's three limits. Every enforcer takes its token when it can, even when
  // another rejects (Plugin.Validate collects all errors).
  apf::EventRateLimit plugin(Config({{EventLimitType::kNamespace, 50, 100, 2000},
                                     {EventLimitType::kUser, 10, 50, 0},
                                     {EventLimitType::kServer, 5000, 20000, 0}}));
  const apf::Nanos t = 0;
  for (int i = 0; i < 50; ++i) REQUIRE(plugin.Admit(Event("a", "alice"), t).admitted);
  // alice's user bucket is empty: her event in namespace b is rejected by limit 1 only...
  auto rejected = plugin.Admit(Event("b", "alice"), t);
  CHECK_FALSE(rejected.admitted);
  CHECK(rejected.rejected_limits == 0b010);
  // ...and it still took a token from namespace b: bob and carol (50 each by the user
  // limit) get 99 there together, not 100.
  int admitted = 0;
  for (int i = 0; i < 50; ++i) admitted += plugin.Admit(Event("b", "bob"), t).admitted;
  for (int i = 0; i < 60; ++i) admitted += plugin.Admit(Event("b", "carol"), t).admitted;
  CHECK(admitted == 99);
  // A fresh user is now rejected by namespace b alone.
  CHECK(plugin.Admit(Event("b", "dave"), t).rejected_limits == 0b001);
}

TEST_CASE("The least recently used bucket is evicted, and comes back full", "[eventratelimit]") {
  // The plugin keeps per-key buckets in a golang-lru cache (eventratelimit/cache.go):
  // lruCache.get calls Cache.Get, which marks a key most recently used, and Cache.Add
  // evicts the least recently used key when full. Burst 1 at one instant: a cached bucket
  // that has admitted once rejects, a fresh one admits, so each Admit below tells whether
  // its key was still cached.
  apf::EventRateLimit plugin(Config({{EventLimitType::kNamespace, 1, 1, 2}}));
  CHECK(plugin.Admit(Event("a", "u"), 0).admitted);
  CHECK(plugin.Admit(Event("b", "u"), 0).admitted);
  // Rejected, but the lookup makes a the most recently used: b is now the oldest, though
  // a was added first.
  CHECK_FALSE(plugin.Admit(Event("a", "u"), 0).admitted);
  CHECK(plugin.Admit(Event("c", "u"), 0).admitted);  // a new key: evicts b
  CHECK(plugin.cached_buckets(0) == 2);
  // a kept its empty bucket (evicting a instead, by insertion order, would admit here)...
  CHECK_FALSE(plugin.Admit(Event("a", "u"), 0).admitted);
  // ...and b comes back with a fresh, full one.
  CHECK(plugin.Admit(Event("b", "u"), 0).admitted);
  CHECK(plugin.cached_buckets(0) == 2);
}

TEST_CASE("SourceAndObject keys run their parts together", "[eventratelimit]") {
  // strings.Join(parts, ""): ("ab", "c") and ("a", "bc") share a bucket.
  apf::EventRateLimit plugin(Config({{EventLimitType::kSourceAndObject, 1, 1, 0}}));
  apf::EventAttributes one, two;
  one.source_component = std::string("ab");
  one.source_host = std::string("c");
  two.source_component = std::string("a");
  two.source_host = std::string("bc");
  CHECK(plugin.Admit(one, 0).admitted);
  CHECK_FALSE(plugin.Admit(two, 0).admitted);
}

TEST_CASE("EventRateLimit applies to core Event creates, updates and patches", "[eventratelimit]") {
  CHECK(apf::EventRateLimitApplies(apf::NewRequestInfo("POST", "/api/v1/namespaces/a/events", "")));
  CHECK(apf::EventRateLimitApplies(
      apf::NewRequestInfo("PATCH", "/api/v1/namespaces/a/events/e1", "")));
  CHECK(
      apf::EventRateLimitApplies(apf::NewRequestInfo("PUT", "/api/v1/namespaces/a/events/e1", "")));
  CHECK_FALSE(apf::EventRateLimitApplies(
      apf::NewRequestInfo("DELETE", "/api/v1/namespaces/a/events/e1", "")));
  CHECK_FALSE(apf::EventRateLimitApplies(
      apf::NewRequestInfo("POST", "/api/v1/namespaces/a/events", "dryRun=All")));
  CHECK_FALSE(apf::EventRateLimitApplies(
      apf::NewRequestInfo("POST", "/apis/events.k8s.io/v1/namespaces/a/events", "")));
  CHECK_FALSE(
      apf::EventRateLimitApplies(apf::NewRequestInfo("POST", "/api/v1/namespaces/a/pods", "")));
}

TEST_CASE("EventRateLimit configuration validation", "[eventratelimit]") {
  CHECK_FALSE(apf::ValidateEventRateLimitConfig(Config({})).ok());
  CHECK_FALSE(apf::ValidateEventRateLimitConfig(Config({{EventLimitType::kUser, 0, 1, 0}})).ok());
  CHECK_FALSE(apf::ValidateEventRateLimitConfig(Config({{EventLimitType::kUser, 1, 0, 0}})).ok());
  CHECK_FALSE(apf::ValidateEventRateLimitConfig(Config({{EventLimitType::kUser, 1, 1, -1}})).ok());
  CHECK(apf::ValidateEventRateLimitConfig(Config({{EventLimitType::kServer, 1, 1, -1}})).ok());
  CHECK(apf::EventLimitTypeName(EventLimitType::kSourceAndObject) == "SourceAndObject");
}

TEST_CASE("A refusal's message names the type and key of every bucket that refused",
          "[eventratelimit]") {
  // limitenforcer.go accept: "limit reached on type %v for key %v"; admission.go
  // Validate: utilerrors.NewAggregate of the refusals, in configuration order, wrapped by
  // apierrors.NewTooManyRequestsError ("Too many requests: %s"). A single refusal is not
  // bracketed; two are, joined by ", ".
  apf::EventRateLimit plugin(Config({{EventLimitType::kNamespace, 1, 1, 0},
                                     {EventLimitType::kUser, 1, 2, 0},
                                     {EventLimitType::kServer, 1, 3, 0}}));
  const apf::EventAttributes e = Event("team-7", "system:serviceaccount:buggy:event-recorder");
  const apf::Nanos t0 = kSecond;
  REQUIRE(plugin.Admit(e, t0).admitted);
  REQUIRE(plugin.Admit(e, t0).message ==
          "Too many requests: limit reached on type Namespace for key team-7");
  const auto both = plugin.Admit(e, t0);  // Namespace and User are empty, Server has 1 left
  REQUIRE(both.message ==
          "Too many requests: [limit reached on type Namespace for key team-7, limit reached on "
          "type User for key system:serviceaccount:buggy:event-recorder]");
  REQUIRE(both.rejected_limits == 0b011);
  // The Server key is "" (getServerKey): the text ends with "for key ".
  REQUIRE(plugin.Admit(e, t0).message ==
          "Too many requests: [limit reached on type Namespace for key team-7, limit reached on "
          "type User for key system:serviceaccount:buggy:event-recorder, limit reached on type "
          "Server for key ]");
}

TEST_CASE("Two refusals with the same text are written once, without brackets",
          "[eventratelimit]") {
  // utilerrors aggregate.Error drops a message already seen, and brackets only when more
  // than one distinct message remains.
  REQUIRE(apf::EventRateLimit::RefusalMessage(
              {{EventLimitType::kServer, ""}, {EventLimitType::kServer, ""}}) ==
          "Too many requests: limit reached on type Server for key ");
}

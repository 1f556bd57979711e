// The work estimator against seed 000 (the TenantBinding drift sweep), the worked
// examples of doc/model.md#list-estimate, #mutating-estimate, and the rules of
// list_work_estimator.go, mutating_work_estimator.go and width.go, each case computed by hand in
// its comment.
#include "apf/estimation/work_estimator.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "apf/classification/request_info.h"
#include "apf/queueing/seat_seconds.h"
#include "sim/engine/random.h"
#include "tests/support/request_support.h"

using apf::kMillisecond;
using apf::WorkEstimate;

namespace {

// Statistics and watcher counts as a case states them.
struct FixedStats final : apf::ObjectStatsSource {
  apf::ObjectStatsResult result;
  apf::ObjectStatsResult GetStats(std::string_view, std::string_view, apf::Nanos) const override {
    return result;
  }
};
struct FixedWatches final : apf::WatchCountSource {
  std::int64_t count = 0;
  std::int64_t InterestedWatchCount(const apf::RequestInfo&) const override { return count; }
};

struct Fixture {
  FixedStats stats;
  FixedWatches watches;
  bool size_based = true;
  bool watch_list = true;
  bool consistent_read_from_cache = true;

  void SetStats(std::int64_t count, std::int64_t avg_bytes,
                apf::ObjectStatsError error = apf::ObjectStatsError::kNone) {
    stats.result = {{count, avg_bytes}, error};
  }
  WorkEstimate Estimate(const apf::RequestInfo& request, std::uint64_t level_max_seats = 0) {
    apf::WorkEstimator estimator(
        apf::DefaultWorkEstimatorConfig(size_based, watch_list, consistent_read_from_cache), &stats,
        &watches);
    return estimator.Estimate(&request, level_max_seats, 0);
  }
};

apf::RequestInfo Request(std::string verb, std::string group, std::string resource,
                         std::string namespace_name, std::string query = "",
                         std::string name = "") {
  apf::RequestInfo r = test_support::ResourceRequest(
      std::move(verb), std::move(group), std::move(resource), std::move(namespace_name));
  r.name = std::move(name);
  r.query = apf::ParseRequestQuery(query);
  return r;
}

// doc/model.md#max-seats: maxSeats = max(1, min(ceil(nominalCL × 0.15), nominalCL / handSize)).
// Seed 000 gives the nominal limits at 600 seats: workload-low 245 (handSize 6),
// tenant-sweep 46 (handSize 2); global-default is 49 (handSize 6), leader-election 25
// (handSize 4) (doc/model.md#worked-allocation).
constexpr std::uint64_t kWorkloadLowMaxSeats = 37;    // min(ceil(36.75), 40)
constexpr std::uint64_t kTenantSweepMaxSeats = 7;     // min(ceil(6.9), 23)
constexpr std::uint64_t kGlobalDefaultMaxSeats = 8;   // min(ceil(7.35), 8)
constexpr std::uint64_t kLeaderElectionMaxSeats = 4;  // min(ceil(3.75), 6)

}  // namespace

TEST_CASE("Seed 000: a namespace LIST of 40,000 9 KB TenantBindings from the cache is 10 seats",
          "[estimator][seed000]") {
  // controller-runtime's API reader sends a LIST without resourceVersion: a consistent
  // read, which modern etcd lets the watch cache serve. 40,000 × 9 KB = 360 MB, capped
  // at 1 MB from the cache: 10 seats. Gate off: 40,000 / 100 = 400, capped at 10.
  Fixture f;
  f.SetStats(40000, 9000);
  auto list = Request("list", "platform.example.com", "tenantbindings", "tenant-a0412");
  CHECK(f.Estimate(list, kWorkloadLowMaxSeats) == WorkEstimate{10, 0, 0});
  f.size_based = false;
  CHECK(f.Estimate(list, kWorkloadLowMaxSeats) == WorkEstimate{10, 0, 0});
}

TEST_CASE(
    "Seed 000: a continue-token page of 500 is capped at 37 in workload-low, 7 in tenant-sweep",
    "[estimator][seed000]") {
  // A continue token goes to etcd: 500 × 9 KB = 4.5 MB, 45 seats before the level cap.
  Fixture f;
  f.SetStats(40000, 9000);
  auto page = Request("list", "platform.example.com", "tenantbindings", "tenant-a0412",
                      "limit=500&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");
  CHECK(f.Estimate(page, 0).initial_seats == 45);
  CHECK(f.Estimate(page, kWorkloadLowMaxSeats) == WorkEstimate{37, 0, 0});
  CHECK(f.Estimate(page, kTenantSweepMaxSeats) == WorkEstimate{7, 0, 0});
}

TEST_CASE("doc/model.md#list-estimate examples: 5000 pods of 10 KB", "[estimator]") {
  Fixture f;
  f.SetStats(5000, 10000);
  auto from_cache = Request("list", "", "pods", "", "resourceVersion=0");
  // 50 MB capped at 1 MB from the cache: 10 seats; 8 in global-default.
  CHECK(f.Estimate(from_cache).initial_seats == 10);
  CHECK(f.Estimate(from_cache, kGlobalDefaultMaxSeats).initial_seats == 8);
  // The same with a continue token and limit 500 (etcd): 5 MB = 50 seats; 37 in workload-low.
  auto page = Request("list", "", "pods", "", "limit=500&continue=abc");
  CHECK(f.Estimate(page).initial_seats == 50);
  CHECK(f.Estimate(page, kWorkloadLowMaxSeats).initial_seats == 37);
  // Count-based from the cache: ceil(5000/100) = 50, capped at min(cap, 10) = 10.
  f.size_based = false;
  CHECK(f.Estimate(from_cache).initial_seats == 10);
  CHECK(f.Estimate(from_cache, kWorkloadLowMaxSeats).initial_seats == 10);
}

TEST_CASE("doc/model.md#mutating-estimate examples: watcher fan-out of writes", "[estimator]") {
  Fixture f;
  auto create = Request("create", "", "configmaps", "default");
  // W = 25: ceil(2.5) = 3 final seats; 3 × 5 ms reshaped onto 3 seats is 5 ms.
  f.watches.count = 25;
  CHECK(f.Estimate(create) == WorkEstimate{1, 3, 5 * kMillisecond});
  // W = 1000: 100 final seats, capped at 10; 100 × 5 ms over 10 seats = 50 ms.
  f.watches.count = 1000;
  CHECK(f.Estimate(create) == WorkEstimate{1, 10, 50 * kMillisecond});
  CHECK(f.Estimate(create).MaxSeats() == 10);
  // In leader-election (cap 4): 500 ms of seat-time over 4 seats = 125 ms.
  CHECK(f.Estimate(create, kLeaderElectionMaxSeats) == WorkEstimate{1, 4, 125 * kMillisecond});
  // Below 10 watchers nothing is added.
  f.watches.count = 9;
  CHECK(f.Estimate(create) == WorkEstimate{1, 0, 0});
  f.watches.count = 10;
  CHECK(f.Estimate(create) == WorkEstimate{1, 1, 5 * kMillisecond});
}

TEST_CASE("Service account token requests are exempt from watcher fan-out", "[estimator]") {
  Fixture f;
  f.watches.count = 1000;
  auto token = Request("create", "", "serviceaccounts", "default", "", "builder");
  token.subresource = "token";
  CHECK(f.Estimate(token) == WorkEstimate{1, 0, 0});
  auto sa_update = Request("update", "", "serviceaccounts", "default", "", "builder");
  CHECK(f.Estimate(sa_update).final_seats == 10);
}

TEST_CASE("Dispatch by verb", "[estimator]") {
  Fixture f;
  f.SetStats(5000, 10000);
  f.watches.count = 1000;
  // get, deletecollection, proxy and non-resource reads are one seat.
  CHECK(f.Estimate(Request("get", "", "pods", "ns", "", "p")) == WorkEstimate{1, 0, 0});
  CHECK(f.Estimate(Request("deletecollection", "", "pods", "ns")) == WorkEstimate{1, 0, 0});
  CHECK(f.Estimate(Request("proxy", "", "nodes", "", "", "n1")) == WorkEstimate{1, 0, 0});
  // patch and delete go to the mutating estimator.
  CHECK(f.Estimate(Request("patch", "", "pods", "ns", "", "p")).final_seats == 10);
  CHECK(f.Estimate(Request("delete", "", "pods", "ns", "", "p")).final_seats == 10);
  // A non-resource DELETE is a "delete" too.
  apf::RequestInfo non_resource;
  non_resource.verb = "delete";
  non_resource.path = "/logs/x";
  CHECK(f.Estimate(non_resource).final_seats == 10);
}

TEST_CASE("A request without RequestInfo is charged the level's maximum", "[estimator]") {
  Fixture f;
  apf::WorkEstimator estimator(apf::DefaultWorkEstimatorConfig(), &f.stats, &f.watches);
  CHECK(estimator.Estimate(nullptr, 0, 0) == WorkEstimate{100, 0, 0});  // max(100, 10)
  CHECK(estimator.Estimate(nullptr, 37, 0) == WorkEstimate{37, 0, 0});
  CHECK(estimator.Estimate(nullptr, 613, 0) == WorkEstimate{100, 0, 0});
  apf::WorkEstimator count_based(apf::DefaultWorkEstimatorConfig(false), &f.stats, &f.watches);
  CHECK(count_based.Estimate(nullptr, 0, 0) == WorkEstimate{10, 0, 0});  // max(10, 10)
}

TEST_CASE("Served from cache: the delegator's decision table", "[estimator]") {
  auto q = [](const char* query) { return apf::ParseRequestQuery(query); };
  // resourceVersionMatch decides first.
  CHECK(apf::ListDelegatedToStorage(q("resourceVersionMatch=Exact&resourceVersion=5"), true));
  CHECK_FALSE(
      apf::ListDelegatedToStorage(q("resourceVersionMatch=NotOlderThan&resourceVersion=5"), true));
  CHECK(apf::ListDelegatedToStorage(q("resourceVersionMatch=Bogus"), true));
  // Then a continue token, then a limited LIST at a specific resourceVersion.
  CHECK(apf::ListDelegatedToStorage(q("continue=abc&resourceVersion=0"), true));
  CHECK(apf::ListDelegatedToStorage(q("limit=500&resourceVersion=123"), true));
  CHECK_FALSE(apf::ListDelegatedToStorage(q("limit=500&resourceVersion=0"), true));
  CHECK_FALSE(apf::ListDelegatedToStorage(q("resourceVersion=123"), true));
  CHECK_FALSE(apf::ListDelegatedToStorage(q("resourceVersion=0"), false));
  // A consistent read is served from the cache only if etcd supports progress requests.
  CHECK_FALSE(apf::ListDelegatedToStorage(q(""), true));
  CHECK(apf::ListDelegatedToStorage(q(""), false));
  CHECK_FALSE(apf::ListDelegatedToStorage(q("limit=500"), true));
  CHECK(apf::ListDelegatedToStorage(q("limit=500"), false));
}

TEST_CASE("A consistent LIST costs the etcd price when etcd lacks watch-progress", "[estimator]") {
  // 40,000 × 9 KB with limit 500: from the cache 4.5 MB is capped to 1 MB (10 seats);
  // from etcd it is 45 seats.
  Fixture f;
  f.SetStats(40000, 9000);
  auto list = Request("list", "platform.example.com", "tenantbindings", "t", "limit=500");
  CHECK(f.Estimate(list).initial_seats == 10);
  f.consistent_read_from_cache = false;
  CHECK(f.Estimate(list).initial_seats == 45);
}

TEST_CASE("Selectors on an etcd LIST assume half the objects are loaded", "[estimator]") {
  // 600 objects of 1 KB at an exact resourceVersion with limit 100 (etcd).
  Fixture f;
  f.SetStats(600, 1000);
  auto plain = Request("list", "", "secrets", "ns", "limit=100&resourceVersion=7");
  auto labelled =
      Request("list", "", "secrets", "ns", "limit=100&resourceVersion=7&labelSelector=a%3Db");
  auto fielded =
      Request("list", "", "secrets", "ns", "limit=100&resourceVersion=7&fieldSelector=type%3Dx");
  // Size-based: 100 objects → 100 KB → 1 seat; with a selector max(100, 600/2) = 300 → 3.
  CHECK(f.Estimate(plain).initial_seats == 1);
  CHECK(f.Estimate(labelled).initial_seats == 3);
  CHECK(f.Estimate(fielded).initial_seats == 3);
  // Count-based: 2 × 100 = 200 objects → 2 seats; with a selector 600 + 100 = 700 → 7.
  f.size_based = false;
  CHECK(f.Estimate(plain).initial_seats == 2);
  CHECK(f.Estimate(labelled).initial_seats == 7);
  // From the cache the selector does not matter: the limited count (size) or all (count).
  auto cached = Request("list", "", "secrets", "ns", "limit=100&labelSelector=a%3Db");
  CHECK(f.Estimate(cached).initial_seats == 6);  // ceil(600 / 100)
  f.size_based = true;
  CHECK(f.Estimate(cached).initial_seats == 1);  // 100 × 1 KB
}

TEST_CASE("Single-object lists cost one object's worth", "[estimator]") {
  // Name set (from the path or fieldSelector=metadata.name=X): 1 object. With stale
  // statistics that object is 1.5 MB: 15 seats from etcd, 10 from the cache (1 MB cap).
  Fixture f;
  f.SetStats(5000, 10000);
  auto by_name = Request("list", "", "configmaps", "ns", "limit=500&resourceVersion=5", "cm");
  CHECK(f.Estimate(by_name).initial_seats == 1);
  f.SetStats(0, 0, apf::ObjectStatsError::kStale);
  CHECK(f.Estimate(by_name).initial_seats == 15);
  CHECK(f.Estimate(Request("list", "", "configmaps", "ns", "", "cm")).initial_seats == 10);
  f.size_based = false;
  CHECK(f.Estimate(by_name).initial_seats == 1);  // ceil(1/100)
}

TEST_CASE("Stale statistics assume the worst, missing ones the least", "[estimator]") {
  Fixture f;
  f.SetStats(3, 100, apf::ObjectStatsError::kStale);  // the stale values are ignored
  auto cached = Request("list", "", "pods", "", "resourceVersion=0");
  auto etcd = Request("list", "", "pods", "", "limit=500&continue=x");
  // 1e9 objects × 1.5 MB: 10 from the cache, the cap from etcd.
  CHECK(f.Estimate(cached).initial_seats == 10);
  CHECK(f.Estimate(etcd).initial_seats == 100);
  CHECK(f.Estimate(etcd, kWorkloadLowMaxSeats).initial_seats == 37);
  f.size_based = false;
  CHECK(f.Estimate(etcd).initial_seats == 10);
  // Not found (an aggregated API): 1 seat whatever the request.
  f.SetStats(0, 0, apf::ObjectStatsError::kNotFound);
  f.size_based = true;
  CHECK(f.Estimate(etcd) == WorkEstimate{1, 0, 0});
}

TEST_CASE("Unknown average size counts as 1.5 MB, an empty resource is one seat", "[estimator]") {
  Fixture f;
  f.SetStats(2, 0);  // 2 × 1.5 MB = 3 MB from etcd: 30 seats
  CHECK(f.Estimate(Request("list", "", "pods", "", "limit=5&continue=x")).initial_seats == 30);
  f.SetStats(0, 0);  // nothing to load: 0 seats, raised to the minimum
  CHECK(f.Estimate(Request("list", "", "pods", "", "limit=5&continue=x")).initial_seats == 1);
}

TEST_CASE("List options that do not convert are charged the cap", "[estimator]") {
  Fixture f;
  f.SetStats(10, 10);
  CHECK(f.Estimate(Request("list", "", "pods", "", "limit=abc")).initial_seats == 100);
  CHECK(f.Estimate(Request("list", "", "pods", "", "limit=")).initial_seats == 100);
  CHECK(f.Estimate(Request("list", "", "pods", "", "timeoutSeconds=x"), 8).initial_seats == 8);
  CHECK(f.Estimate(Request("list", "", "pods", "", "limit=-5")).initial_seats == 1);  // parses
}

TEST_CASE("Watch pricing: WatchList gate, sendInitialEvents and legacy watches", "[estimator]") {
  // 5000 pods of 10 KB: a watch priced like a list is always "from the cache": 10 seats.
  Fixture f;
  f.SetStats(5000, 10000);
  auto watch = [](const char* query) { return Request("watch", "", "pods", "", query); };
  CHECK(f.Estimate(watch("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
                         "allowWatchBookmarks=true"))
            .initial_seats == 10);
  // Legacy watches computing initial state (RV unset or "0") are priced since 1.35...
  CHECK(f.Estimate(watch("")).initial_seats == 10);
  CHECK(f.Estimate(watch("resourceVersion=0")).initial_seats == 10);
  // ...even with sendInitialEvents=false, which the estimator does not consult here.
  CHECK(f.Estimate(watch("sendInitialEvents=false")).initial_seats == 10);
  // A watch from a specific resourceVersion is one seat.
  CHECK(f.Estimate(watch("resourceVersion=12345")) == WorkEstimate{1, 0, 0});
  CHECK(f.Estimate(watch("resourceVersion=12345&sendInitialEvents=false")).initial_seats == 1);
  // Capped by the level like a list, and one seat for a named watch.
  CHECK(f.Estimate(watch(""), kGlobalDefaultMaxSeats).initial_seats == 8);
  CHECK(f.Estimate(Request("watch", "", "pods", "ns", "", "p")).initial_seats == 1);
  // With the WatchList gate off every watch is one seat.
  f.watch_list = false;
  CHECK(f.Estimate(watch("sendInitialEvents=true")) == WorkEstimate{1, 0, 0});
  CHECK(f.Estimate(watch("")) == WorkEstimate{1, 0, 0});
}

TEST_CASE("Property: estimates stay within their caps and keep the fan-out's area",
          "[estimator][property]") {
  // Invariants of width.go for random inputs: 1 ≤ initial ≤ cap; a list never has final
  // seats; a cached size-based list is at most 10 seats; a write's final seats are at
  // most the mutating cap and its seats × latency is ceil(W/10) × 5 ms up to rounding.
  sim::Random rng(20240601);
  const char* verbs[] = {"list", "watch", "create", "update", "patch", "delete", "get"};
  const char* queries[] = {"",
                           "resourceVersion=0",
                           "limit=500",
                           "limit=500&continue=x",
                           "limit=100&resourceVersion=9&labelSelector=a",
                           "sendInitialEvents=true",
                           "resourceVersionMatch=Exact&resourceVersion=3",
                           "limit=zz"};
  for (int i = 0; i < 20000; ++i) {
    Fixture f;
    f.size_based = rng.UniformInt(2) == 0;
    f.watch_list = rng.UniformInt(2) == 0;
    f.consistent_read_from_cache = rng.UniformInt(2) == 0;
    const auto error = static_cast<apf::ObjectStatsError>(rng.UniformInt(3));
    f.SetStats(static_cast<std::int64_t>(rng.UniformInt(2'000'000)),
               static_cast<std::int64_t>(rng.UniformInt(3'000'000)), error);
    f.watches.count = static_cast<std::int64_t>(rng.UniformInt(100'000));
    const std::uint64_t level_max = rng.UniformInt(3) == 0 ? 0 : 1 + rng.UniformInt(120);
    auto request = Request(verbs[rng.UniformInt(7)], "", "pods", rng.UniformInt(2) ? "ns" : "",
                           queries[rng.UniformInt(8)], rng.UniformInt(5) == 0 ? "p" : "");
    const WorkEstimate e = f.Estimate(request, level_max);
    const bool is_list = request.verb == "list" || (request.verb == "watch" && f.watch_list);
    const bool is_write = request.verb == "create" || request.verb == "update" ||
                          request.verb == "patch" || request.verb == "delete";
    const std::uint64_t global = is_list ? (f.size_based ? 100 : 10) : 10;
    const std::uint64_t cap = (level_max == 0 || level_max > global) ? global : level_max;
    INFO("case " << i << " verb " << request.verb);
    REQUIRE(e.initial_seats >= 1);
    REQUIRE(e.initial_seats <= (is_list ? cap : 1));
    if (is_list) {
      REQUIRE(e.final_seats == 0);
      const bool cached = request.verb == "watch" ||
                          !apf::ListDelegatedToStorage(request.query, f.consistent_read_from_cache);
      if (cached && f.size_based && !request.query.list_options_error)
        REQUIRE(e.initial_seats <= 10);
    }
    if (is_write && f.watches.count >= 10) {
      const std::uint64_t wanted = (f.watches.count + 9) / 10;
      REQUIRE(e.final_seats == std::min(wanted, cap));
      const double area =
          static_cast<double>(e.final_seats) * static_cast<double>(e.additional_latency);
      REQUIRE(std::abs(area - static_cast<double>(wanted) * 5e6) <=
              static_cast<double>(e.final_seats));
    } else if (!is_list) {
      REQUIRE(e.final_seats == 0);
      REQUIRE(e.additional_latency == 0);
    }
  }
}

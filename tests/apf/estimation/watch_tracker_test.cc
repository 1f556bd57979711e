// The watch tracker's keys, the pods spec.nodeName exception and the interested-watcher
// count a write is charged for (watch_tracker.go, doc/model.md#watch-tracker).
#include "apf/estimation/watch_tracker.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "apf/classification/request_info.h"

namespace {

apf::RequestInfo Req(const char* verb, const char* group, const char* resource, const char* ns,
                     const char* name = "", const char* query = "") {
  apf::RequestInfo r;
  r.is_resource_request = true;
  r.verb = verb;
  r.api_group = group;
  r.resource = resource;
  r.namespace_name = ns;
  r.name = name;
  r.query = apf::ParseRequestQuery(query);
  return r;
}

}  // namespace

TEST_CASE("A write counts watches of its resource, its namespace and its object",
          "[watchtracker]") {
  apf::WatchTracker tracker;
  std::vector<apf::WatchTracker::Registration> regs;
  for (int i = 0; i < 3; ++i)
    regs.push_back(tracker.RegisterWatch(Req("watch", "", "configmaps", "")));
  for (int i = 0; i < 5; ++i)
    regs.push_back(tracker.RegisterWatch(Req("watch", "", "configmaps", "a")));
  for (int i = 0; i < 7; ++i) {
    regs.push_back(tracker.RegisterWatch(Req("watch", "", "configmaps", "a", "cm1")));
  }
  regs.push_back(tracker.RegisterWatch(Req("watch", "", "configmaps", "b")));
  regs.push_back(tracker.RegisterWatch(Req("watch", "apps", "configmaps", "")));  // other group
  regs.push_back(tracker.RegisterWatch(Req("watch", "", "secrets", "")));         // other resource
  // A create has no name: 3 + 5. An update of cm1: 3 + 5 + 7. Namespace b: 3 + 1.
  CHECK(tracker.InterestedWatchCount(Req("create", "", "configmaps", "a")) == 8);
  CHECK(tracker.InterestedWatchCount(Req("update", "", "configmaps", "a", "cm1")) == 15);
  CHECK(tracker.InterestedWatchCount(Req("delete", "", "configmaps", "b", "cm1")) == 4);
  // A subresource write counts the parent resource's watches.
  auto status = Req("patch", "", "configmaps", "a", "cm1");
  status.subresource = "status";
  CHECK(tracker.InterestedWatchCount(status) == 15);
  // Read-only verbs count nothing.
  for (const char* verb : {"get", "list", "watch", "proxy"}) {
    CHECK(tracker.InterestedWatchCount(Req(verb, "", "configmaps", "a", "cm1")) == 0);
  }
  // deletecollection is not read-only (the estimator never asks for it, though).
  CHECK(tracker.InterestedWatchCount(Req("deletecollection", "", "configmaps", "a")) == 8);
  for (auto& r : regs) tracker.ForgetWatch(r);
  CHECK(tracker.distinct_keys() == 0);
  CHECK(tracker.InterestedWatchCount(Req("update", "", "configmaps", "a", "cm1")) == 0);
}

TEST_CASE("Only the write's own (group, resource) key counts its resource-wide watches",
          "[watchtracker]") {
  // Another group's resource-wide watches and the resource's namespaced ones do not count
  // as the write's resource-wide watches.
  apf::WatchTracker tracker;
  std::vector<apf::WatchTracker::Registration> regs;
  regs.push_back(tracker.RegisterWatch(Req("watch", "apps", "configmaps", "")));
  regs.push_back(tracker.RegisterWatch(Req("watch", "", "configmaps", "a")));
  regs.push_back(tracker.RegisterWatch(Req("watch", "", "configmaps", "a")));
  // Group "": the first key is ("configmaps", "", "", "apps"); only namespace a's 2 count.
  CHECK(tracker.InterestedWatchCount(Req("create", "", "configmaps", "a")) == 2);
  CHECK(tracker.InterestedWatchCount(Req("create", "", "configmaps", "b")) == 0);
  // Group "batch" sorts after "apps": the first key is namespace a's, of group "".
  CHECK(tracker.InterestedWatchCount(Req("create", "batch", "configmaps", "a")) == 0);
  // Group "apps": its own resource-wide watch, and none in namespace a.
  CHECK(tracker.InterestedWatchCount(Req("create", "apps", "configmaps", "a")) == 1);
  for (auto& r : regs) tracker.ForgetWatch(r);
}

TEST_CASE("Keys that are prefixes of one another stay apart", "[watchtracker]") {
  // Resources, namespaces and groups that are prefixes of one another must neither share
  // counts nor hide one another from the one-lookup test for a resource without watches
  // or with resource-wide ones only. The expected counts are the sums of the registrations
  // each write's three keys name.
  apf::WatchTracker tracker;
  std::vector<apf::WatchTracker::Registration> regs;
  auto add = [&](int n, const char* group, const char* resource, const char* ns) {
    for (int i = 0; i < n; ++i)
      regs.push_back(tracker.RegisterWatch(Req("watch", group, resource, ns)));
  };
  add(2, "", "nodes", "");
  add(3, "", "nodesx", "");
  add(5, "", "no", "");
  add(7, "", "nodes", "ns");
  add(11, "", "nodes", "n");
  add(13, "apps", "nodes", "");
  CHECK(tracker.InterestedWatchCount(Req("create", "", "nodes", "ns")) == 2 + 7);
  CHECK(tracker.InterestedWatchCount(Req("create", "", "nodes", "n")) == 2 + 11);
  CHECK(tracker.InterestedWatchCount(Req("create", "", "nodes", "nsx")) == 2);
  CHECK(tracker.InterestedWatchCount(Req("create", "", "node", "ns")) == 0);
  CHECK(tracker.InterestedWatchCount(Req("create", "", "nodesx", "")) == 3);
  CHECK(tracker.InterestedWatchCount(Req("create", "", "no", "n")) == 5);
  CHECK(tracker.InterestedWatchCount(Req("create", "apps", "nodes", "ns")) == 13);
  CHECK(tracker.InterestedWatchCount(Req("create", "app", "nodes", "")) == 0);
  CHECK(tracker.WatchCount("", "nodes", "n", "") == 11);
  CHECK(tracker.distinct_keys() == 6);
  for (auto& r : regs) tracker.ForgetWatch(r);
  CHECK(tracker.distinct_keys() == 0);
}

TEST_CASE("A cluster-scoped object's named watches are keyed without a namespace",
          "[watchtracker]") {
  apf::WatchTracker tracker;
  auto r1 = tracker.RegisterWatch(Req("watch", "", "nodes", "", "n1"));
  auto r2 = tracker.RegisterWatch(Req("watch", "", "nodes", ""));
  CHECK(tracker.InterestedWatchCount(Req("update", "", "nodes", "", "n1")) == 2);
  CHECK(tracker.InterestedWatchCount(Req("update", "", "nodes", "", "n2")) == 1);
  tracker.ForgetWatch(r1);
  tracker.ForgetWatch(r2);
}

TEST_CASE("Pods watches pinned to a node are not counted", "[watchtracker]") {
  // The kubelet's watch: fieldSelector=spec.nodeName=node-1. Only a non-empty exact value
  // escapes counting; no selector, an empty value, != and unparsable selectors count.
  apf::WatchTracker tracker;
  auto kubelet = tracker.RegisterWatch(
      Req("watch", "", "pods", "", "", "fieldSelector=spec.nodeName%3Dnode-1"));
  CHECK(kubelet.registered());
  CHECK_FALSE(kubelet.counted());
  auto scheduler = tracker.RegisterWatch(
      Req("watch", "", "pods", "", "", "fieldSelector=spec.nodeName%3D%2Cstatus.phase%21%3DDone"));
  CHECK(scheduler.counted());  // spec.nodeName= (unassigned pods)
  auto not_equal = tracker.RegisterWatch(
      Req("watch", "", "pods", "", "", "fieldSelector=spec.nodeName%21%3Dnode-1"));
  CHECK(not_equal.counted());
  auto bad = tracker.RegisterWatch(Req("watch", "", "pods", "", "", "fieldSelector=spec.nodeName"));
  CHECK(bad.counted());
  auto plain = tracker.RegisterWatch(Req("watch", "", "pods", "ns"));
  CHECK(plain.counted());
  auto double_eq = tracker.RegisterWatch(
      Req("watch", "", "pods", "", "", "fieldSelector=spec.nodeName%3D%3Dnode-2"));
  CHECK_FALSE(double_eq.counted());
  // The index applies to any resource named pods, and only to pods.
  auto metrics = tracker.RegisterWatch(
      Req("watch", "metrics.k8s.io", "pods", "", "", "fieldSelector=spec.nodeName%3Dnode-1"));
  CHECK_FALSE(metrics.counted());
  auto nodes = tracker.RegisterWatch(
      Req("watch", "", "nodes", "", "", "fieldSelector=spec.nodeName%3Dnode-1"));
  CHECK(nodes.counted());
  CHECK(tracker.InterestedWatchCount(Req("create", "", "pods", "ns")) == 4);
  for (auto* r : {&kubelet, &scheduler, &not_equal, &bad, &plain, &double_eq, &metrics, &nodes}) {
    tracker.ForgetWatch(*r);
  }
  CHECK(tracker.InterestedWatchCount(Req("create", "", "pods", "ns")) == 0);
}

TEST_CASE("Only watches are registered", "[watchtracker]") {
  apf::WatchTracker tracker;
  auto list = tracker.RegisterWatch(Req("list", "", "pods", ""));
  CHECK_FALSE(list.registered());
  tracker.ForgetWatch(list);  // a nil ForgetWatchFunc: nothing to do
  CHECK(tracker.distinct_keys() == 0);
}

TEST_CASE("Counts match a plain map through registrations and forgets in many orders",
          "[watchtracker]") {
  // Keys share groups, resources and namespaces, include long strings that differ only in
  // the middle, and are forgotten in a shuffled order, so entries of both levels appear and
  // disappear while others stay.
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  const std::vector<Key> keys = {
      {"", "pods", "", ""},
      {"", "pods", "ns", ""},
      {"", "pods", "ns", "p1"},
      {"", "pods", "", "p1"},
      {"apps", "pods", "ns", ""},
      {"", "configmaps", "kube-system", ""},
      {"", "configmaps", "kube-system", "a-long-object-name-0001-x"},
      {"", "configmaps", "kube-system", "a-long-object-name-0002-x"},
      {"", "configmaps", "", ""},
      {"coordination.k8s.io", "leases", "tenant-namespace-0001-prod", ""},
      {"coordination.k8s.io", "leases", "tenant-namespace-0002-prod", ""},
      {"", "p", "", ""},
      {"", "po", "n", "x"},
  };
  std::uint32_t state = 12345;  // a fixed LCG: the same orders on every run
  auto next = [&](std::uint32_t bound) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % bound;
  };
  for (int round = 0; round < 20; ++round) {
    apf::WatchTracker tracker;
    std::map<Key, int> reference;
    std::vector<std::pair<Key, apf::WatchTracker::Registration>> live;
    auto check = [&] {
      std::size_t distinct = 0;
      for (const auto& [key, n] : reference) distinct += n > 0 ? 1 : 0;
      CHECK(tracker.distinct_keys() == distinct);
      for (const auto& [g, r, ns, name] : keys) {
        // Named copies: clang 14 (the sanitizer build's) cannot capture structured bindings.
        auto count = [&, group = g, resource = r](const std::string& n1, const std::string& n2) {
          auto it = reference.find(Key{group, resource, n1, n2});
          return it == reference.end() ? 0 : it->second;
        };
        CHECK(tracker.WatchCount(g, r, ns, name) == count(ns, name));
        std::int64_t expected = count("", "");
        if (!ns.empty()) expected += count(ns, "");
        if (!name.empty()) expected += count(ns, name);
        CHECK(tracker.InterestedWatchCount(
                  Req("update", g.c_str(), r.c_str(), ns.c_str(), name.c_str())) == expected);
      }
    };
    for (int step = 0; step < 60; ++step) {
      if (live.empty() || next(3) != 0) {
        const Key& key = keys[next(static_cast<std::uint32_t>(keys.size()))];
        const auto& [g, r, ns, name] = key;
        live.emplace_back(key, tracker.RegisterWatch(
                                   Req("watch", g.c_str(), r.c_str(), ns.c_str(), name.c_str())));
        ++reference[key];
      } else {
        const std::size_t i = next(static_cast<std::uint32_t>(live.size()));
        tracker.ForgetWatch(live[i].second);
        --reference[live[i].first];
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
      check();
    }
    while (!live.empty()) {
      const std::size_t i = next(static_cast<std::uint32_t>(live.size()));
      tracker.ForgetWatch(live[i].second);
      --reference[live[i].first];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      check();
    }
    CHECK(tracker.distinct_keys() == 0);
  }
}

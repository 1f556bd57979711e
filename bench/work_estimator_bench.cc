// The work estimator on the hot path: one Estimate per classified request, reading a
// realistic ObjectCountTracker (a few hundred resources) and WatchTracker (kubelet-style
// per-name watches). A mix of requests is built before timing and cycled, so the figure
// is the estimator's cost per request, not the request builder's.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "apf/classification/request_info.h"
#include "apf/estimation/object_count_tracker.h"
#include "apf/estimation/watch_tracker.h"
#include "apf/estimation/work_estimator.h"
#include "sim/engine/random.h"

namespace {

struct World {
  apf::ObjectCountTracker objects;
  apf::WatchTracker watches;
  std::vector<apf::WatchTracker::Registration> registrations;
  std::vector<apf::RequestInfo> requests;

  explicit World(int request_count) {
    sim::Random rng(7, "estimator-bench");
    for (int r = 0; r < 300; ++r) {
      objects.Set(r % 3 ? "example.com" : "", "resource" + std::to_string(r),
                  {static_cast<std::int64_t>(rng.UniformInt(50000)), 2000}, 0);
    }
    objects.Set("", "pods", {20000, 12000}, 0);
    objects.Set("", "configmaps", {8000, 3000}, 0);
    // 2000 kubelets' watches: their pods (not counted), and configmaps by name.
    for (int node = 0; node < 2000; ++node) {
      apf::RequestInfo w =
          apf::NewRequestInfo("GET", "/api/v1/pods",
                              "watch=1&fieldSelector=spec.nodeName%3Dnode-" + std::to_string(node));
      registrations.push_back(watches.RegisterWatch(w));
      apf::RequestInfo cm = apf::NewRequestInfo(
          "GET", "/api/v1/namespaces/ns" + std::to_string(node % 50) + "/configmaps",
          "watch=1&fieldSelector=metadata.name%3Dcm" + std::to_string(node % 200));
      registrations.push_back(watches.RegisterWatch(cm));
    }
    for (int i = 0; i < 40; ++i) {
      registrations.push_back(
          watches.RegisterWatch(apf::NewRequestInfo("GET", "/api/v1/configmaps", "watch=1")));
    }
    const char* templates[][3] = {
        {"GET", "/api/v1/namespaces/ns3/pods", "limit=500"},
        {"GET", "/api/v1/namespaces/ns3/pods", "limit=500&continue=abc"},
        {"GET", "/api/v1/pods", "resourceVersion=0"},
        {"GET", "/api/v1/pods", "watch=1&resourceVersion=123"},
        {"GET", "/api/v1/namespaces/ns3/pods/p1", ""},
        {"PUT", "/api/v1/namespaces/ns3/configmaps/cm7", ""},
        {"POST", "/api/v1/namespaces/ns3/configmaps", ""},
        {"PATCH", "/api/v1/namespaces/ns3/pods/p1/status", ""},
        {"GET", "/apis/example.com/v1/resource7",
         "labelSelector=a%3Db&limit=100&resourceVersion=9"},
    };
    for (int i = 0; i < request_count; ++i) {
      const auto& t = templates[rng.UniformInt(std::size(templates))];
      requests.push_back(apf::NewRequestInfo(t[0], t[1], t[2]));
    }
  }
};

}  // namespace

static void BM_WorkEstimatorMixed(benchmark::State& state) {
  World world(4096);
  apf::WorkEstimator estimator(apf::DefaultWorkEstimatorConfig(), &world.objects, &world.watches);
  size_t i = 0;
  for (auto _ : state) {
    const apf::RequestInfo& r = world.requests[i++ & 4095];
    benchmark::DoNotOptimize(estimator.Estimate(&r, 37, apf::kMinute));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkEstimatorMixed);

static void BM_WorkEstimatorList(benchmark::State& state) {
  World world(1);
  apf::WorkEstimator estimator(apf::DefaultWorkEstimatorConfig(), &world.objects, &world.watches);
  apf::RequestInfo r = apf::NewRequestInfo("GET", "/api/v1/namespaces/ns3/pods", "limit=500");
  for (auto _ : state) benchmark::DoNotOptimize(estimator.Estimate(&r, 37, apf::kMinute));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkEstimatorList);

static void BM_WorkEstimatorWrite(benchmark::State& state) {
  World world(1);
  apf::WorkEstimator estimator(apf::DefaultWorkEstimatorConfig(), &world.objects, &world.watches);
  apf::RequestInfo r = apf::NewRequestInfo("PUT", "/api/v1/namespaces/ns3/configmaps/cm7", "");
  for (auto _ : state) benchmark::DoNotOptimize(estimator.Estimate(&r, 37, apf::kMinute));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkEstimatorWrite);

static void BM_ParseRequestInfo(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(apf::NewRequestInfo("GET", "/apis/apps/v1/namespaces/ns3/deployments",
                                                 "limit=500&resourceVersion=0"));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseRequestInfo);

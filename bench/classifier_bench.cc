// The classifier on the simulator's hot path: classifying request digests against the
// 1.36 defaults plus seed 000's fence, for requests that match early (a kubelet's lease),
// late (a human user, global-default) and in the fence; and the flow hash, one-shot and
// with the reusable hasher. Classification should not allocate; the hash is the
// expensive part, which is why callers may cache it per (FlowSchema, distinguisher).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "apf/classification/classifier.h"
#include "apf/classification/flow_hash.h"
#include "apf/classification/user_info.h"
#include "sim/flowcontrol/loader.h"

namespace {

const char kFence[] = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: tenant-sweep}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 20
    lendablePercent: 50
    borrowingLimitPercent: 0
    limitResponse: {type: Queue, queuing: {queues: 8, handSize: 2, queueLengthLimit: 50}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: tenant-operator-lists}
spec:
  priorityLevelConfiguration: {name: tenant-sweep}
  matchingPrecedence: 1000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {name: tenant-operator, namespace: platform}}]
    resourceRules:
    - {verbs: [list], apiGroups: [platform.example.com], resources: [tenantbindings], namespaces: ["*"], clusterScope: true}
)";

const sim::FlowControlSetup& Setup() {
  static const sim::FlowControlSetup setup =
      sim::BuildFlowControl({1, 36}, sim::ParseFlowControlYaml(kFence, "fence.yaml"));
  return setup;
}

struct Case {
  apf::UserInfo user;
  apf::RequestInfo request;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  Case lease{apf::AuthenticatedUser("system:node:node-1", {"system:nodes"}), {}};
  lease.request.is_resource_request = true;
  lease.request.verb = "update";
  lease.request.api_group = "coordination.k8s.io";
  lease.request.resource = "leases";
  lease.request.namespace_name = "kube-node-lease";
  cases.push_back(lease);
  Case human{apf::AuthenticatedUser("alice"), {}};
  human.request.is_resource_request = true;
  human.request.verb = "get";
  human.request.resource = "pods";
  human.request.namespace_name = "default";
  cases.push_back(human);
  Case fenced{apf::ServiceAccountUser("platform", "tenant-operator"), {}};
  fenced.request.is_resource_request = true;
  fenced.request.verb = "list";
  fenced.request.api_group = "platform.example.com";
  fenced.request.resource = "tenantbindings";
  fenced.request.namespace_name = "tenant-a0412";
  cases.push_back(fenced);
  Case write = fenced;
  write.request.verb = "update";  // falls through the fence to service-accounts
  cases.push_back(write);
  return cases;
}

void BM_Classify(benchmark::State& state) {
  const apf::Classifier classifier(Setup().config);
  const std::vector<Case> cases = Cases();
  const Case& c = cases[state.range(0)];
  const apf::RequestDigest digest = apf::MakeRequestDigest(c.user, c.request);
  state.SetLabel(classifier.flow_schema(classifier.Classify(digest).flow_schema).metadata.name);
  for (auto _ : state) {
    benchmark::DoNotOptimize(classifier.Classify(digest));
  }
}
BENCHMARK(BM_Classify)->DenseRange(0, 3);

void BM_FlowHashOneShot(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        apf::HashFlowID("service-accounts", "system:serviceaccount:platform:tenant-operator"));
  }
}
BENCHMARK(BM_FlowHashOneShot);

void BM_FlowHashReused(benchmark::State& state) {
  apf::FlowHasher hasher;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        hasher.Hash("service-accounts", "system:serviceaccount:platform:tenant-operator"));
  }
}
BENCHMARK(BM_FlowHashReused);

void BM_BuildClassifier(benchmark::State& state) {
  for (auto _ : state) {
    apf::Classifier classifier(Setup().config);
    benchmark::DoNotOptimize(&classifier);
  }
}
BENCHMARK(BM_BuildClassifier);

}  // namespace

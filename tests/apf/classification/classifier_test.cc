// Classification (doc/model.md#flowschema-order): the requests the issue lists against the 1.36
// defaults, with and without seed 000's fence; the matching rules of rule.go one by one;
// the precedence order; and two property tests: the explanation agrees with the
// classification, and the compiled classifier agrees with a plain reading of rule.go
// written in this file on random configurations and requests.
#include "apf/classification/classifier.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apf/classification/flow_hash.h"
#include "apf/classification/user_info.h"
#include "apf/config/bootstrap_ensurer.h"
#include "sim/engine/random.h"
#include "sim/flowcontrol/loader.h"
#include "tests/support/request_support.h"

using apf::Classification;
using apf::Classifier;
using apf::RequestInfo;
using apf::UserInfo;

namespace {

struct Result {
  std::string flow_schema, priority_level, distinguisher;
  std::uint64_t hash = 0;
  bool fell_back = false;
};

Result Classify(const Classifier& c, const UserInfo& user, const RequestInfo& info) {
  const Classification r = c.Classify(apf::MakeRequestDigest(user, info));
  return {c.flow_schema(r.flow_schema).metadata.name, c.priority_level(r.priority_level).name,
          std::string(r.distinguisher), c.FlowHash(r), r.fell_back_to_catch_all};
}

using test_support::NonResourceRequest;
using test_support::ResourceRequest;

sim::FlowControlSetup Setup(const std::string& yaml = "", apf::KubernetesVersion v = {1, 36}) {
  sim::FlowControlManifests m = sim::ParseFlowControlYaml(yaml, "test.yaml");
  sim::ThrowIfInvalid(m);
  return sim::BuildFlowControl(v, m);
}

sim::FlowControlSetup FenceSetup() {
  sim::FlowControlManifests m =
      sim::LoadFlowControlFile(std::string(APFSIM_SOURCE_DIR) + "/scenarios/seed000-fence.yaml");
  sim::ThrowIfInvalid(m);
  return sim::BuildFlowControl({1, 36}, m);
}

const UserInfo kTenantOperator = apf::ServiceAccountUser("platform", "tenant-operator");

// A request, and the schema, level, distinguisher and hash it must get (and whether it fell
// back to catch-all); an expectation left empty is not checked.
struct Expected {
  UserInfo user;
  RequestInfo request;
  std::optional<std::string> flow_schema = {}, priority_level = {}, distinguisher = {};
  std::optional<std::uint64_t> hash = {};
  std::optional<bool> fell_back = {};
};

// Who asks for what, to say which row of a table failed.
std::string Describe(const Expected& e) {
  const RequestInfo& r = e.request;
  std::string what = e.user.name + " " + r.verb + " ";
  if (!r.is_resource_request) return what + r.path;
  what += (r.api_group.empty() ? "" : r.api_group + "/") + r.resource;
  if (!r.subresource.empty()) what += "/" + r.subresource;
  return what + (r.namespace_name.empty() ? " (no namespace)" : " in " + r.namespace_name);
}

// Classifies every row's request under `setup`'s configuration and checks what the row
// expects. The results are returned for the checks that compare two of them.
std::vector<Result> Expect(const sim::FlowControlSetup& setup, const std::vector<Expected>& cases) {
  const Classifier c(setup.config);
  std::vector<Result> results;
  for (const Expected& e : cases) {
    INFO(Describe(e));
    const Result r = Classify(c, e.user, e.request);
    if (e.flow_schema) CHECK(r.flow_schema == *e.flow_schema);
    if (e.priority_level) CHECK(r.priority_level == *e.priority_level);
    if (e.distinguisher) CHECK(r.distinguisher == *e.distinguisher);
    if (e.hash) CHECK(r.hash == *e.hash);
    if (e.fell_back) CHECK(r.fell_back == *e.fell_back);
    results.push_back(r);
  }
  return results;
}

}  // namespace

TEST_CASE("a system:masters user is exempt", "[classifier]") {
  Expect(Setup(), {{apf::AuthenticatedUser("admin", {"system:masters"}),
                    ResourceRequest("delete", "", "pods", "default"), "exempt", "exempt", "",
                    0}});  // exempt levels have no queues: no distinguisher, hash 0
}

TEST_CASE("a kubelet renewing its lease goes to node-high, one flow per node", "[classifier]") {
  const UserInfo kubelet = apf::AuthenticatedUser("system:node:node-7", {"system:nodes"});
  Expect(
      Setup(),
      {
          // system-leader-election (100) is for controllers and the scheduler;
          // system-node-high (400) takes the nodes group's leases.
          {kubelet, ResourceRequest("update", "coordination.k8s.io", "leases", "kube-node-lease"),
           "system-node-high", "node-high",
           "system:node:node-7",  // ByUser
           apf::HashFlowID("system-node-high", "system:node:node-7")},
          // Its node status updates too; its other traffic goes to system-nodes (500).
          {kubelet, ResourceRequest("patch", "", "nodes", "", "status"), "system-node-high"},
          {kubelet, ResourceRequest("list", "", "pods", ""), "system-nodes", "system"},
      });
}

TEST_CASE("kube-controller-manager goes to workload-high by namespace", "[classifier]") {
  const UserInfo kcm = apf::AuthenticatedUser("system:kube-controller-manager");
  Expect(Setup(),
         {
             {kcm, ResourceRequest("update", "apps", "deployments", "shop", "status"),
              "kube-controller-manager", "workload-high",
              "shop",  // ByNamespace
              apf::HashFlowID("kube-controller-manager", "shop")},
             // An all-namespace list has namespace "": the appendix A vector for
             // ("kube-controller-manager", "") applies.
             {.user = kcm,
              .request = ResourceRequest("list", "", "pods", ""),
              .distinguisher = "",
              .hash = 14257900033262264633ULL},
             // Its leader election lease goes to leader-election.
             {kcm, ResourceRequest("update", "coordination.k8s.io", "leases", "kube-system"),
              "system-leader-election", "leader-election", "system:kube-controller-manager"},
         });
}

TEST_CASE("a kube-system service account goes to workload-high", "[classifier]") {
  Expect(Setup(), {{apf::ServiceAccountUser("kube-system", "replicaset-controller"),
                    ResourceRequest("create", "", "pods", "shop"), "kube-system-service-accounts",
                    "workload-high", "shop"}});
}

TEST_CASE("the tenant operator's list goes to workload-low as its own flow (seed 000)",
          "[classifier]") {
  const auto r = Expect(
      Setup(),
      {
          // Seed 000: "it matched the service-accounts FlowSchema (matchingPrecedence 9000)
          // and went to workload-low"; service-accounts distinguishes by user, so all 1,800
          // LISTs were one flow.
          {kTenantOperator,
           ResourceRequest("list", "platform.example.com", "tenantbindings", "tenant-a0412"),
           "service-accounts", "workload-low", "system:serviceaccount:platform:tenant-operator"},
          {kTenantOperator,
           ResourceRequest("list", "platform.example.com", "tenantbindings", "tenant-b0077")},
      });
  CHECK(r[1].hash == r[0].hash);
}

TEST_CASE("a human kubectl user falls through to global-default", "[classifier]") {
  Expect(Setup(),
         {{apf::AuthenticatedUser("alice", {"dev"}), ResourceRequest("get", "", "pods", "platform"),
           "global-default", "global-default", "alice",
           17644606172554983095ULL}});  // doc/model.md appendix A
}

TEST_CASE("GET /healthz from anyone is a probe, and so are its subpaths", "[classifier]") {
  std::vector<Expected> cases;
  for (const UserInfo& who : {apf::AnonymousUser(), apf::AuthenticatedUser("alice"),
                              apf::ServiceAccountUser("platform", "tenant-operator")}) {
    for (const char* path : {"/healthz", "/readyz", "/livez", "/healthz/etcd", "/readyz/ping"}) {
      cases.push_back({who, NonResourceRequest("get", path), "probes", "exempt"});
    }
  }
  cases.insert(cases.end(),
               {
                   // Only GET; and /healthzx is not a subpath.
                   {apf::AnonymousUser(), NonResourceRequest("post", "/healthz"), "global-default"},
                   {apf::AnonymousUser(), NonResourceRequest("get", "/healthzx"), "global-default"},
                   // The anonymous user is one flow of global-default.
                   {.user = apf::AnonymousUser(),
                    .request = NonResourceRequest("get", "/version"),
                    .distinguisher = "system:anonymous"},
               });
  Expect(Setup(), cases);
}

TEST_CASE("with seed 000's fence the operator's lists go to tenant-sweep, its writes do not",
          "[classifier]") {
  std::vector<Expected> cases = {
      {kTenantOperator,
       ResourceRequest("list", "platform.example.com", "tenantbindings", "tenant-a0412"),
       "tenant-operator-lists", "tenant-sweep", "system:serviceaccount:platform:tenant-operator",
       apf::HashFlowID("tenant-operator-lists", "system:serviceaccount:platform:tenant-operator")},
      // Another service account's list is not fenced.
      {apf::ServiceAccountUser("argocd", "argocd-application-controller"),
       ResourceRequest("list", "platform.example.com", "tenantbindings", "tenant-a0412"),
       "service-accounts"},
  };
  // Seed 000: "The operator's writes and watches still match service-accounts."
  for (const char* verb : {"update", "patch", "create", "delete", "watch", "get"}) {
    cases.push_back(
        {kTenantOperator,
         ResourceRequest(verb, "platform.example.com", "tenantbindings", "tenant-a0412"),
         "service-accounts", "workload-low"});
  }
  Expect(FenceSetup(), cases);
}

TEST_CASE("resource rules: resource/subresource, groups, namespaces and cluster scope",
          "[classifier][rules]") {
  const auto setup = Setup(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: pods-only}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 500
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    resourceRules:
    - {verbs: [get], apiGroups: [""], resources: [pods], namespaces: ["*"]}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: logs}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 600
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    resourceRules:
    - {verbs: [get], apiGroups: [""], resources: [pods/log], namespaces: [team-a], clusterScope: true}
)");
  const UserInfo bob = apf::AuthenticatedUser("bob");
  Expect(setup, {
                    {bob, ResourceRequest("get", "", "pods", "team-a"), "pods-only"},
                    // "pods" does not match pods/log; only the exact "pods/log" does.
                    {bob, ResourceRequest("get", "", "pods", "team-a", "log"), "logs"},
                    {bob, ResourceRequest("get", "", "pods", "team-b", "log"), "global-default"},
                    // namespaces ["*"] does not take namespace-less requests; clusterScope does.
                    {bob, ResourceRequest("get", "", "pods", ""), "global-default"},
                    {bob, ResourceRequest("get", "", "pods", "", "log"), "logs"},
                    // The group must match: apps/pods is not core pods; the verb must match.
                    {bob, ResourceRequest("get", "apps", "pods", "team-a"), "global-default"},
                    {bob, ResourceRequest("list", "", "pods", "team-a"), "global-default"},
                    // A resource rule never matches a non-resource request.
                    {bob, NonResourceRequest("get", "/api/v1/pods"), "global-default"},
                });
}

TEST_CASE("non-resource URL patterns: exact-or-subpath, trailing /*, and *",
          "[classifier][rules]") {
  const auto setup = Setup(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: metrics}
spec:
  priorityLevelConfiguration: {name: system}
  matchingPrecedence: 300
  rules:
  - subjects: [{kind: Group, group: {name: "*"}}]
    nonResourceRules:
    - {verbs: [get], nonResourceURLs: [/metrics, "/debug/*"]}
)");
  const UserInfo u = apf::AuthenticatedUser("prometheus");
  Expect(setup, {
                    {u, NonResourceRequest("get", "/metrics"), "metrics"},
                    {u, NonResourceRequest("get", "/metrics/slis"), "metrics"},
                    {u, NonResourceRequest("get", "/metricsz"), "global-default"},
                    {u, NonResourceRequest("get", "/debug/pprof/heap"), "metrics"},
                    // "/debug/*" does not match "/debug" itself.
                    {u, NonResourceRequest("get", "/debug"), "global-default"},
                    // Group "*" matches a user with no groups at all.
                    {UserInfo{"nobody", {}}, NonResourceRequest("get", "/metrics"), "metrics"},
                });
}

TEST_CASE("service-account subjects match the user name only", "[classifier][rules]") {
  const auto setup = Setup(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: team-a-all}
spec:
  priorityLevelConfiguration: {name: workload-high}
  matchingPrecedence: 700
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {namespace: team-a, name: "*"}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: one-sa}
spec:
  priorityLevelConfiguration: {name: system}
  matchingPrecedence: 600
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {namespace: team-b, name: builder}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
)");
  const RequestInfo get = ResourceRequest("get", "", "configmaps", "x");
  Expect(setup, {
                    {apf::ServiceAccountUser("team-a", "api"), get, "team-a-all"},
                    {apf::ServiceAccountUser("team-ab", "api"), get, "service-accounts"},
                    {apf::ServiceAccountUser("team-b", "builder"), get, "one-sa"},
                    {apf::ServiceAccountUser("team-b", "builder2"), get, "service-accounts"},
                    // Groups do not make a service account: a user named like one is matched, one
                    // with the groups but another name is not.
                    {UserInfo{"system:serviceaccount:team-a:", {}}, get, "team-a-all"},
                    {UserInfo{"mallory",
                              {"system:serviceaccounts", "system:serviceaccounts:team-a",
                               "system:authenticated"}},
                     get, "service-accounts"},
                });
}

TEST_CASE("equal precedences are ordered by name", "[classifier][rules]") {
  // kube-controller-manager and kube-scheduler share 800; two overlapping schemas of one
  // precedence show the order: "a-first" before "b-second".
  const auto setup = Setup(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: b-second}
spec:
  priorityLevelConfiguration: {name: system}
  matchingPrecedence: 700
  rules:
  - subjects: [{kind: User, user: {name: "*"}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: a-first}
spec:
  priorityLevelConfiguration: {name: workload-high}
  matchingPrecedence: 700
  rules:
  - subjects: [{kind: User, user: {name: "*"}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)");
  Expect(setup, {{apf::AuthenticatedUser("x"), NonResourceRequest("get", "/version"), "a-first"}});
  const auto& schemas = setup.config.flow_schemas;
  for (size_t i = 1; i < schemas.size(); ++i) {
    const auto& a = schemas[i - 1];
    const auto& b = schemas[i];
    CHECK((a.spec.matching_precedence < b.spec.matching_precedence ||
           (a.spec.matching_precedence == b.spec.matching_precedence &&
            a.metadata.name < b.metadata.name)));
  }
}

TEST_CASE("the distinguisher and hash exist only for levels with more than one queue",
          "[classifier]") {
  const auto setup = Setup(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: one-queue}
spec:
  type: Limited
  limited:
    limitResponse: {type: Queue, queuing: {queues: 1, handSize: 1}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: rejecting}
spec:
  type: Limited
  limited: {limitResponse: {type: Reject}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: to-one-queue}
spec:
  priorityLevelConfiguration: {name: one-queue}
  matchingPrecedence: 300
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: carol}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: to-reject}
spec:
  priorityLevelConfiguration: {name: rejecting}
  matchingPrecedence: 300
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: dave}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)");
  Expect(setup, {
                    {.user = apf::AuthenticatedUser("carol"),
                     .request = NonResourceRequest("get", "/x"),
                     .flow_schema = "to-one-queue",
                     .distinguisher = "",
                     .hash = 0},
                    {.user = apf::AuthenticatedUser("dave"),
                     .request = NonResourceRequest("get", "/x"),
                     .priority_level = "rejecting",
                     .distinguisher = "",
                     .hash = 0},
                });
}

TEST_CASE("dangling FlowSchemas are skipped and noted", "[classifier][config]") {
  const auto setup = Setup(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: orphan}
spec:
  priorityLevelConfiguration: {name: no-such-level}
  matchingPrecedence: 3
  rules:
  - subjects: [{kind: Group, group: {name: system:authenticated}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)");
  CHECK(setup.config.dangling_flow_schemas == std::vector<std::string>{"orphan"});
  CHECK(setup.config.FindFlowSchema("orphan") == -1);
  bool noted = false;
  for (const auto& n : setup.notes) {
    noted = noted || (n.name == "orphan" && n.field == "spec.priorityLevelConfiguration.name" &&
                      n.message.find("dangling") == 0);
  }
  CHECK(noted);
  Expect(setup,
         {{apf::AuthenticatedUser("alice"), NonResourceRequest("get", "/x"), "global-default"}});
}

TEST_CASE("a request no schema matches falls back to catch-all", "[classifier][config]") {
  // Without the suggested objects, and for a user in no group, only the mandatory
  // schemas exist and none matches (catch-all needs system:(un)authenticated).
  sim::FlowControlManifests none;
  const auto setup = sim::BuildFlowControl({1, 36}, none, /*with_bootstrap=*/false);
  REQUIRE(setup.config.flow_schemas.size() == 2);
  CHECK(setup.config.flow_schemas.front().metadata.name == "exempt");
  CHECK(setup.config.flow_schemas.back().metadata.name == "catch-all");
  Expect(setup, {{.user = UserInfo{"ghost", {}},
                  .request = ResourceRequest("get", "", "pods", "x"),
                  .flow_schema = "catch-all",
                  .priority_level = "catch-all",
                  .distinguisher = "",  // catch-all rejects: no queues
                  .fell_back = true}});
}

TEST_CASE("without the defaults a FlowSchema naming exempt is matched, not dangling",
          "[classifier][config]") {
  // The config producer (pkg/registry/flowcontrol/ensurer, EnsureConfigurations) creates
  // the mandatory exempt and catch-all levels before the filter digests anything, so a
  // FlowSchema of our own that names exempt finds its level. Before, the level
  // was only imagined by the digest after the FlowSchemas had been checked, and the
  // schema was dropped as dangling: its requests went to catch-all and were refused.
  const sim::FlowControlManifests m = sim::ParseFlowControlYaml(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: ops-exempt}
spec:
  matchingPrecedence: 500
  priorityLevelConfiguration: {name: exempt}
  rules:
  - subjects: [{kind: User, user: {name: ops}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"],
                     clusterScope: true}]
)",
                                                                "test.yaml");
  const auto setup = sim::BuildFlowControl({1, 36}, m, /*with_bootstrap=*/false);
  CHECK(setup.config.dangling_flow_schemas.empty());
  // exempt (precedence 1), ops-exempt (500), catch-all (10000).
  REQUIRE(setup.config.flow_schemas.size() == 3);
  CHECK(setup.config.flow_schemas[1].metadata.name == "ops-exempt");
  // Both mandatory levels are real objects now, none imagined.
  for (const auto& pl : setup.config.priority_levels) CHECK_FALSE(pl.imagined);
  Expect(setup, {{apf::AuthenticatedUser("ops"), ResourceRequest("list", "", "pods", ""),
                  "ops-exempt", "exempt"}});
}

namespace {

// A plain reading of rule.go, for the comparative test: matchesFlowSchema on the API
// objects, building rsJoin's string and TrimSuffix's prefix as Go does.
bool ContainsString(const std::string& x, const std::vector<std::string>& list,
                    const std::string& wildcard) {
  if (list.size() == 1 && list[0] == wildcard) return true;
  for (const auto& y : list) {
    if (x == y) return true;
  }
  return false;
}

bool ReferenceSubject(const apf::Subject& s, const UserInfo& u) {
  if (s.kind == "User") return s.user && (s.user->name == "*" || s.user->name == u.name);
  if (s.kind == "Group") {
    if (!s.group) return false;
    if (s.group->name == "*") return true;
    for (const auto& g : u.groups) {
      if (g == s.group->name) return true;
    }
    return false;
  }
  if (s.kind == "ServiceAccount") {
    if (!s.service_account) return false;
    std::string prefix = "system:serviceaccount:" + s.service_account->namespace_ + ":";
    if (u.name.rfind(prefix, 0) != 0) return false;
    return s.service_account->name == "*" ||
           u.name.substr(prefix.size()) == s.service_account->name;
  }
  return false;
}

bool ReferenceMatches(const apf::FlowSchema& fs, const UserInfo& u, const RequestInfo& r) {
  for (const auto& rule : fs.spec.rules) {
    bool subject = false;
    for (const auto& s : rule.subjects) subject = subject || ReferenceSubject(s, u);
    if (!subject) continue;
    if (r.is_resource_request) {
      for (const auto& rr : rule.resource_rules) {
        const std::string rs =
            r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
        if (!ContainsString(r.verb, rr.verbs, "*")) continue;
        if (!ContainsString(rs, rr.resources, "*")) continue;
        if (!ContainsString(r.api_group, rr.api_groups, "*")) continue;
        if (r.namespace_name.empty() ? rr.cluster_scope
                                     : ContainsString(r.namespace_name, rr.namespaces, "*")) {
          return true;
        }
      }
    } else {
      for (const auto& nr : rule.non_resource_rules) {
        if (!ContainsString(r.verb, nr.verbs, "*")) continue;
        for (const auto& p : nr.non_resource_urls) {
          if (p == "*" || p == r.path) return true;
          std::string prefix = p;
          if (!prefix.empty() && prefix.back() == '*') prefix.pop_back();
          if (prefix.empty() || prefix.back() != '/') prefix += '/';
          if (r.path.rfind(prefix, 0) == 0) return true;
        }
      }
    }
  }
  return false;
}

template <typename T>
const T& Pick(sim::Random& rng, const std::vector<T>& v) {
  return v[rng.UniformInt(v.size())];
}

std::vector<std::string> PickList(sim::Random& rng, const std::vector<std::string>& vocabulary) {
  // Sometimes exactly ["*"], sometimes literal entries (a "*" among others included:
  // validation forbids it, and the matcher must then treat it literally).
  if (rng.UniformInt(4) == 0) return {"*"};
  std::vector<std::string> out;
  const size_t n = 1 + rng.UniformInt(3);
  for (size_t i = 0; i < n; ++i) out.push_back(Pick(rng, vocabulary));
  return out;
}

}  // namespace

TEST_CASE("the compiled classifier agrees with a plain reading of rule.go",
          "[classifier][property]") {
  sim::Random rng(2026, "classifier-reference");
  const std::vector<std::string> users = {"alice",
                                          "bob",
                                          "system:serviceaccount:ns1:app",
                                          "system:serviceaccount:ns1:",
                                          "system:serviceaccount:ns2:db",
                                          "system:node:n1",
                                          "*"};
  const std::vector<std::string> groups = {"g1", "g2", "system:authenticated", "system:nodes", "*"};
  const std::vector<std::string> verbs = {"get", "list", "watch", "create", "*"};
  const std::vector<std::string> api_groups = {"", "apps", "x.io", "*"};
  const std::vector<std::string> resources = {"pods", "pods/log", "pods/*", "deployments", "*"};
  const std::vector<std::string> namespaces = {"ns1", "ns2", "*"};
  const std::vector<std::string> urls = {"/healthz", "/healthz/*", "/api",    "/api/",
                                         "/",        "*",          "/apis/*", "/metrics*"};
  const std::vector<std::string> paths = {"/healthz", "/healthz/x", "/healthzx",  "/api",
                                          "/api/v1",  "/apis",      "/apis/apps", "/",
                                          "/metrics", "*"};
  for (int round = 0; round < 40; ++round) {
    apf::FlowControlObjects objects;
    for (const char* level : {"la", "lb"}) {
      apf::PriorityLevelConfiguration pl;
      pl.metadata.name = level;
      pl.spec.type = "Limited";
      apf::LimitedPriorityLevelConfiguration l;
      l.nominal_concurrency_shares = 10;
      l.limit_response.type = "Queue";
      l.limit_response.queuing = apf::QueuingConfiguration{8, 2, 10};
      pl.spec.limited = l;
      objects.priority_levels.push_back(pl);
    }
    const int n_schemas = 1 + static_cast<int>(rng.UniformInt(6));
    for (int i = 0; i < n_schemas; ++i) {
      apf::FlowSchema fs;
      fs.metadata.name = "fs" + std::to_string(i);
      fs.spec.priority_level_name = rng.UniformInt(2) ? "la" : "lb";
      fs.spec.matching_precedence = 2 + static_cast<int>(rng.UniformInt(5));
      if (rng.UniformInt(2)) fs.spec.distinguisher_method = apf::FlowDistinguisherMethod{"ByUser"};
      const size_t n_rules = 1 + rng.UniformInt(2);
      for (size_t j = 0; j < n_rules; ++j) {
        apf::PolicyRulesWithSubjects rule;
        const size_t n_subjects = 1 + rng.UniformInt(2);
        for (size_t k = 0; k < n_subjects; ++k) {
          switch (rng.UniformInt(3)) {
            case 0:
              rule.subjects.push_back({"User", apf::UserSubject{Pick(rng, users)}, {}, {}});
              break;
            case 1:
              rule.subjects.push_back({"Group", {}, apf::GroupSubject{Pick(rng, groups)}, {}});
              break;
            default:
              rule.subjects.push_back(
                  {"ServiceAccount",
                   {},
                   {},
                   apf::ServiceAccountSubject{rng.UniformInt(2) ? "ns1" : "ns2",
                                              rng.UniformInt(2) ? "*" : "app"}});
          }
        }
        if (rng.UniformInt(3)) {
          rule.resource_rules.push_back({PickList(rng, verbs), PickList(rng, api_groups),
                                         PickList(rng, resources), rng.UniformInt(2) == 0,
                                         PickList(rng, namespaces)});
        }
        if (rng.UniformInt(3)) {
          rule.non_resource_rules.push_back({PickList(rng, verbs), PickList(rng, urls)});
        }
        fs.spec.rules.push_back(rule);
      }
      objects.flow_schemas.push_back(fs);
    }
    const apf::FlowControlConfig config = apf::DigestConfig(objects);
    const Classifier c(config);
    for (int q = 0; q < 300; ++q) {
      UserInfo u{Pick(rng, users), {}};
      const size_t n_groups = rng.UniformInt(3);
      for (size_t g = 0; g < n_groups; ++g) u.groups.push_back(Pick(rng, groups));
      RequestInfo r;
      r.is_resource_request = rng.UniformInt(2) == 0;
      r.verb = Pick(rng, verbs);
      if (r.is_resource_request) {
        r.api_group = Pick(rng, api_groups);
        std::string res = Pick(rng, resources);
        if (auto slash = res.find('/'); slash != std::string::npos) {
          r.resource = res.substr(0, slash);
          r.subresource = res.substr(slash + 1);
        } else {
          r.resource = res;
        }
        r.namespace_name = rng.UniformInt(3) == 0 ? "" : Pick(rng, namespaces);
      } else {
        r.path = Pick(rng, paths);
      }
      const apf::RequestDigest d = apf::MakeRequestDigest(u, r);
      for (size_t i = 0; i < config.flow_schemas.size(); ++i) {
        REQUIRE(c.SchemaMatches(static_cast<int>(i), d) ==
                ReferenceMatches(config.flow_schemas[i], u, r));
      }
      // First match in order, or the catch-all fallback.
      int expected = -1;
      for (size_t i = 0; i < config.flow_schemas.size() && expected < 0; ++i) {
        if (ReferenceMatches(config.flow_schemas[i], u, r)) expected = static_cast<int>(i);
      }
      const Classification got = c.Classify(d);
      if (expected >= 0) {
        REQUIRE(got.flow_schema == expected);
      } else {
        REQUIRE(got.fell_back_to_catch_all);
      }
      // The explanation ends at the chosen schema and says it matched.
      const auto trace = c.Explain(d);
      if (!got.fell_back_to_catch_all) {
        REQUIRE(trace.back().flow_schema == config.flow_schemas[got.flow_schema].metadata.name);
        REQUIRE(trace.back().matched);
      }
      for (size_t i = 0; i + 1 < trace.size(); ++i) REQUIRE_FALSE(trace[i].matched);
    }
  }
}

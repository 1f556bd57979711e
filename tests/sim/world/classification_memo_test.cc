// The world's memo of FlowSchema choices (sim/world/classification_memo.h) must give what
// the classifier gives for every call: the same schema, level, fallback and distinguisher,
// whichever call of a (request, subject class) came first. Compared on the 1.36 defaults
// (no rule names a namespace: the memo is on) and on a configuration whose rule names one
// namespace (the memo must classify every call), with calls that differ in namespace, in
// whether they have one, and in their user within one subject class.
#include "sim/world/classification_memo.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "apf/classification/classifier.h"
#include "apf/classification/user_info.h"
#include "sim/flowcontrol/loader.h"
#include "tests/support/classification_support.h"
#include "tests/support/request_support.h"

namespace {

sim::FlowControlSetup SetupFrom(const std::string& yaml) {
  sim::FlowControlManifests m = sim::ParseFlowControlYaml(yaml, "test.yaml");
  sim::ThrowIfInvalid(m);
  return sim::BuildFlowControl({1, 36}, m);
}

std::vector<apf::UserInfo> Users() {
  return {
      apf::AuthenticatedUser("system:node:node-1", {"system:nodes"}),
      apf::AuthenticatedUser("system:node:node-2", {"system:nodes"}),
      apf::AuthenticatedUser("system:kube-controller-manager"),
      apf::AuthenticatedUser("bob"),
      apf::AuthenticatedUser("alice"),
      apf::ServiceAccountUser("kube-system", "generic-garbage-collector"),
      apf::ServiceAccountUser("operators", "operator-1"),
      apf::ServiceAccountUser("operators", "operator-2"),
      apf::AnonymousUser(),
  };
}

// A scenario's compiled requests: their calls differ only in namespace (and name).
std::vector<apf::RequestInfo> Requests() {
  return {
      test_support::ResourceRequest("get", "", "secrets", ""),
      test_support::ResourceRequest("update", "", "pods", "", "status"),
      test_support::ResourceRequest("list", "", "configmaps", ""),
      test_support::ResourceRequest("update", "coordination.k8s.io", "leases", ""),
      test_support::ResourceRequest("create", "", "events", ""),
      test_support::NonResourceRequest("get", "/healthz"),
  };
}

const std::vector<std::string> kNamespaces = {"app-1", "team-a", "", "app-2", "kube-system"};

// Every user sends every request into every namespace, in two orders (so that either
// call of a memo entry can come first); returns how many calls were compared.
int CompareWithClassifier(const apf::FlowControlConfig& config) {
  const apf::Classifier c(config);
  int compared = 0;
  for (const bool reversed : {false, true}) {
    sim::ClassificationMemo memo(&c);
    std::vector<apf::SubjectMask> masks;
    std::vector<int> classes;
    for (const apf::UserInfo& user : Users()) {
      masks.push_back(c.SubjectsOf(user.name, user.groups));
      classes.push_back(memo.SubjectClassOf(masks.back()));
    }
    const std::vector<apf::RequestInfo> requests = Requests();
    for (size_t k = 0; k < kNamespaces.size(); ++k) {
      const std::string& ns = kNamespaces[reversed ? kNamespaces.size() - 1 - k : k];
      for (size_t u = 0; u < Users().size(); ++u) {
        const apf::UserInfo user = Users()[u];
        for (size_t r = 0; r < requests.size(); ++r) {
          apf::RequestInfo call = requests[r];
          if (call.is_resource_request) call.namespace_name = ns;
          const apf::RequestDigest d = apf::MakeRequestDigest(user, call);
          const apf::Classification want = c.Classify(d);
          const apf::Classification got =
              memo.Classify(static_cast<int>(r), classes[u], user, call, masks[u]);
          INFO("user " << user.name << ", " << call.verb << " " << call.resource << call.path
                       << " in \"" << ns << "\"");
          test_support::RequireSameClassification(got, want);
          ++compared;
        }
      }
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("the classification memo gives the classifier's answer on the 1.36 defaults",
          "[classification_memo]") {
  const sim::FlowControlSetup setup = SetupFrom("");
  REQUIRE_FALSE(apf::Classifier(setup.config).reads_namespace_names());
  CHECK(CompareWithClassifier(setup.config) == 2 * 5 * 9 * 6);
}

TEST_CASE("the classification memo classifies every call when a rule names a namespace",
          "[classification_memo]") {
  // Only team-a's secrets go to workload-high: two calls of one request by one user differ
  // by namespace name alone, which a memo keyed without it would answer alike.
  const sim::FlowControlSetup setup = SetupFrom(R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: team-a-secrets}
spec:
  priorityLevelConfiguration: {name: workload-high}
  matchingPrecedence: 500
  distinguisherMethod: {type: ByNamespace}
  rules:
  - subjects: [{kind: Group, group: {name: system:authenticated}}]
    resourceRules:
    - {verbs: ["*"], apiGroups: ["*"], resources: ["secrets"], namespaces: [team-a]}
)");
  const apf::Classifier c(setup.config);
  REQUIRE(c.reads_namespace_names());
  const apf::UserInfo bob = apf::AuthenticatedUser("bob");
  apf::RequestInfo in_a = test_support::ResourceRequest("get", "", "secrets", "team-a");
  apf::RequestInfo in_b = test_support::ResourceRequest("get", "", "secrets", "app-1");
  const apf::Classification a = c.Classify(apf::MakeRequestDigest(bob, in_a));
  const apf::Classification b = c.Classify(apf::MakeRequestDigest(bob, in_b));
  REQUIRE(a.flow_schema != b.flow_schema);
  CHECK(CompareWithClassifier(setup.config) == 2 * 5 * 9 * 6);
}

TEST_CASE("users of one subject mask share a class", "[classification_memo]") {
  const sim::FlowControlSetup setup = SetupFrom("");
  const apf::Classifier c(setup.config);
  sim::ClassificationMemo memo(&c);
  const apf::UserInfo node1 = apf::AuthenticatedUser("system:node:node-1", {"system:nodes"});
  const apf::UserInfo node2 = apf::AuthenticatedUser("system:node:node-2", {"system:nodes"});
  const apf::UserInfo kcm = apf::AuthenticatedUser("system:kube-controller-manager");
  const int a = memo.SubjectClassOf(c.SubjectsOf(node1.name, node1.groups));
  const int b = memo.SubjectClassOf(c.SubjectsOf(node2.name, node2.groups));
  const int k = memo.SubjectClassOf(c.SubjectsOf(kcm.name, kcm.groups));
  CHECK(a == b);
  CHECK(k != a);
  // Two nodes in one class still get their own ByUser flows (system-nodes).
  const apf::SubjectMask mask = c.SubjectsOf(node1.name, node1.groups);
  const apf::RequestInfo status = test_support::ResourceRequest("patch", "", "nodes", "", "status");
  const apf::Classification first = memo.Classify(0, a, node1, status, mask);
  const apf::Classification second = memo.Classify(0, b, node2, status, mask);
  CHECK(first.flow_schema == second.flow_schema);
  CHECK(first.distinguisher == "system:node:node-1");
  CHECK(second.distinguisher == "system:node:node-2");
}

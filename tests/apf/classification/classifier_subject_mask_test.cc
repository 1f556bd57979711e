// Classification with a subject mask (apf/classification/classifier.h SubjectsOf + Classify(digest,
// mask)) must give what the plain matcher gives: the mask only skips rules none of whose subjects
// name the user. Compared on the 1.36 default objects, on the seed000 fence, and
// on a generated configuration of 70 FlowSchemas (rules past one 64-bit word of mask),
// for users chosen to hit each subject kind and its edges.
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

std::vector<apf::UserInfo> TrickyUsers() {
  return {
      apf::AuthenticatedUser("admin", {"system:masters"}),
      apf::AuthenticatedUser("system:node:node-1", {"system:nodes"}),
      apf::AuthenticatedUser("system:kube-controller-manager"),
      apf::AuthenticatedUser("system:kube-scheduler"),
      apf::AuthenticatedUser("system:apiserver", {"system:masters"}),
      apf::AuthenticatedUser("bob"),
      apf::AuthenticatedUser("user-3", {"group-2"}),
      apf::AnonymousUser(),
      apf::ServiceAccountUser("kube-system", "generic-garbage-collector"),
      apf::ServiceAccountUser("kube-system", "endpoint-controller"),
      apf::ServiceAccountUser("platform", "tenant-operator"),
      apf::ServiceAccountUser("ns-1", "app"),
      apf::ServiceAccountUser("ns-1", "other"),
      // Not a service account although it starts like one's user name.
      apf::AuthenticatedUser("system:serviceaccount:ns-2"),
      apf::UserInfo{"no-groups-at-all", {}},
  };
}

std::vector<apf::RequestInfo> Requests() {
  std::vector<apf::RequestInfo> out;
  auto resource = [&](std::string verb, std::string group, std::string res, std::string ns,
                      std::string sub = "") {
    out.push_back(test_support::ResourceRequest(std::move(verb), std::move(group), std::move(res),
                                                std::move(ns), std::move(sub)));
  };
  resource("get", "", "pods", "default");
  resource("list", "", "pods", "");
  resource("update", "coordination.k8s.io", "leases", "kube-system");
  resource("update", "coordination.k8s.io", "leases", "kube-node-lease");
  resource("patch", "", "nodes", "", "status");
  resource("create", "", "events", "default");
  resource("get", "", "endpoints", "kube-system");
  resource("watch", "apps", "deployments", "app-1");
  resource("get", "", "configmaps", "ns-1");
  out.push_back(test_support::NonResourceRequest("get", "/healthz"));
  out.push_back(test_support::NonResourceRequest("get", "/metrics"));
  return out;
}

// Every user and request through both paths; returns how many pairs were compared.
int CompareBothPaths(const apf::FlowControlConfig& config) {
  const apf::Classifier c(config);
  int compared = 0;
  for (const apf::UserInfo& user : TrickyUsers()) {
    const apf::SubjectMask mask = c.SubjectsOf(user.name, user.groups);
    for (const apf::RequestInfo& request : Requests()) {
      const apf::RequestDigest d = apf::MakeRequestDigest(user, request);
      const apf::Classification plain = c.Classify(d);
      const apf::Classification masked = c.Classify(d, mask);
      INFO("user " << user.name << ", " << request.verb << " " << request.resource << request.path);
      test_support::RequireSameClassification(masked, plain);
      ++compared;
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("subject mask classification equals the plain matcher on the 1.36 defaults",
          "[classifier][subject_mask]") {
  const sim::FlowControlSetup setup = SetupFrom("");
  CHECK(CompareBothPaths(setup.config) == 15 * 11);
}

TEST_CASE("subject mask classification equals the plain matcher on the seed000 fence",
          "[classifier][subject_mask]") {
  sim::FlowControlManifests m =
      sim::LoadFlowControlFile(std::string(APFSIM_SOURCE_DIR) + "/scenarios/seed000-fence.yaml");
  sim::ThrowIfInvalid(m);
  const sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, m);
  CHECK(CompareBothPaths(setup.config) == 15 * 11);
}

TEST_CASE("subject mask classification equals the plain matcher past 64 FlowSchemas",
          "[classifier][subject_mask]") {
  // 70 generated schemas plus the defaults: the mask spans two words or more.
  std::string yaml;
  const char* subjects[] = {
      "{kind: User, user: {name: user-%}}",
      "{kind: Group, group: {name: group-%}}",
      "{kind: ServiceAccount, serviceAccount: {namespace: ns-%, name: \"*\"}}",
      "{kind: ServiceAccount, serviceAccount: {namespace: ns-%, name: app}}",
  };
  for (int i = 0; i < 70; ++i) {
    std::string subject = subjects[i % 4];
    subject.replace(subject.find('%'), 1, std::to_string(i % 5));
    const std::string n = std::to_string(i);
    yaml += "---\napiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\n";
    yaml += "metadata: {name: generated-" + n + "}\n";
    yaml += "spec:\n  priorityLevelConfiguration: {name: workload-low}\n";
    yaml += "  matchingPrecedence: " + std::to_string(1000 + i) + "\n";
    yaml += i % 2 ? "  distinguisherMethod: {type: ByUser}\n"
                  : "  distinguisherMethod: {type: ByNamespace}\n";
    yaml += "  rules:\n  - subjects: [" + subject + "]\n";
    yaml += "    resourceRules:\n";
    yaml += i % 3 ? "    - {verbs: [get]" : "    - {verbs: [\"*\"]";
    yaml += ", apiGroups: [\"*\"], resources: [configmaps, pods], clusterScope: true, ";
    yaml += "namespaces: [ns-" + std::to_string(i % 3) + "]}\n";
  }
  const sim::FlowControlSetup setup = SetupFrom(yaml);
  REQUIRE(setup.config.flow_schemas.size() > 64);
  const apf::Classifier c(setup.config);
  const apf::UserInfo sa = apf::ServiceAccountUser("ns-1", "app");
  CHECK(c.SubjectsOf(sa.name, sa.groups).words.size() >= 2);  // one bit per rule
  CHECK(CompareBothPaths(setup.config) == 15 * 11);
}

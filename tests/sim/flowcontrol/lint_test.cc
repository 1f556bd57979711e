// `apfsim lint`'s checks, each triggered by a small configuration, and seed 000's fence
// with and without `borrowingLimitPercent: 0`. The collision probability is checked
// against hand calculations and against a simulation of random hands.
#include "sim/flowcontrol/lint.h"

#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apf/config/bootstrap.h"
#include "sim/engine/random.h"

using sim::LintWarning;

namespace {

std::vector<LintWarning> Lint(const std::string& yaml, sim::LintOptions options = {}) {
  const sim::FlowControlManifests m = sim::ParseFlowControlYaml(yaml, "lint.yaml");
  sim::ThrowIfInvalid(m);
  const sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, m);
  return sim::LintFlowControl(m, setup, options);
}

std::vector<LintWarning> Only(const std::vector<LintWarning>& all, const std::string& check) {
  std::vector<LintWarning> out;
  for (const auto& w : all) {
    if (w.check == check) out.push_back(w);
  }
  return out;
}

std::string Fence(bool with_borrowing_limit) {
  std::string fence = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: tenant-sweep
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 20
    lendablePercent: 50
)";
  if (with_borrowing_limit) fence += "    borrowingLimitPercent: 0\n";
  fence += R"(    limitResponse:
      type: Queue
      queuing:
        queues: 8
        handSize: 2
        queueLengthLimit: 50
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: tenant-operator-lists
spec:
  priorityLevelConfiguration:
    name: tenant-sweep
  matchingPrecedence: 1000
  distinguisherMethod:
    type: ByUser
  rules:
  - subjects:
    - kind: ServiceAccount
      serviceAccount:
        name: tenant-operator
        namespace: platform
    resourceRules:
    - verbs: ["list"]
      apiGroups: ["platform.example.com"]
      resources: ["tenantbindings"]
      namespaces: ["*"]
      clusterScope: true
)";
  return fence;
}

// What linting `yaml` with `options` must say under `check`: no warning when `count` is 0,
// else exactly `count`, the first with the fields given (an empty one is not checked) and a
// message containing each of `messages`.
struct Expected {
  std::string yaml;
  std::string check;
  std::size_t count = 1;
  std::vector<std::string> messages = {};
  std::optional<std::string> name = {}, field = {}, object_kind = {}, file = {};
  std::optional<int> line = {};
  sim::LintOptions options = {};
};

void ExpectLint(const std::vector<Expected>& cases) {
  for (const Expected& e : cases) {
    INFO(e.check << " on\n" << e.yaml);
    const auto w = Only(Lint(e.yaml, e.options), e.check);
    if (e.count == 0) {
      CHECK(w.empty());
      continue;
    }
    REQUIRE(w.size() == e.count);
    CHECK(w[0].check == e.check);
    if (e.name) CHECK(w[0].name == *e.name);
    if (e.field) CHECK(w[0].field == *e.field);
    if (e.object_kind) CHECK(w[0].object_kind == *e.object_kind);
    if (e.file) CHECK(w[0].where.file == *e.file);
    if (e.line) CHECK(w[0].where.line == *e.line);
    for (const std::string& m : e.messages) {
      CAPTURE(m, w[0].message);
      CHECK(w[0].message.find(m) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE(
    "seed 000's fence with borrowingLimitPercent: 0 warns only that its queues outgrow "
    "their limit",
    "[lint]") {
  // 265 shares at 600 seats give tenant-sweep ceil(600*20/265) = 46 seats; its max seats
  // per request are max(1, min(ceil(0.15*46) = 7, 46/2 = 23)) = 7 (doc/model.md#nominal-seats), so
  // 7-seat LISTs fill at most 6*7 = 42 seats and queue-full (all seats in use,
  // doc/model.md#arrival) never fires while they are the load: seed 000's fenced level held about
  // 1,670 waiting requests behind a limit of 50.
  const auto warnings = Lint(Fence(true));
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].check == "queue-length-unenforced");
  CHECK(warnings[0].name == "tenant-sweep");
  CHECK(warnings[0].field == "spec.limited.limitResponse.queuing.queueLengthLimit");
  CHECK(warnings[0].message.find("queueLengthLimit 50 is enforced only while all 46 seats") !=
        std::string::npos);
  CHECK(warnings[0].message.find("(7 seats, a LIST at this level's cap) fill at most 42") !=
        std::string::npos);
  const sim::FlowControlManifests m =
      sim::LoadFlowControlFile(std::string(APFSIM_SOURCE_DIR) + "/scenarios/seed000-fence.yaml");
  const auto setup = sim::BuildFlowControl({1, 36}, m);
  const auto file_warnings = sim::LintFlowControl(m, setup, {});
  REQUIRE(file_warnings.size() == 1);
  CHECK(file_warnings[0].check == "queue-length-unenforced");
}

TEST_CASE("a level whose widest requests add up to its seats has no queue-length warning",
          "[lint]") {
  // 21 shares of 266: ceil(600*21/266) = 48 seats; max seats min(ceil(7.2) = 8, 24) = 8,
  // and 48 = 6 * 8, so 8-seat LISTs can hold every seat.
  std::string fence = Fence(true);
  fence.replace(fence.find("nominalConcurrencyShares: 20"), 28, "nominalConcurrencyShares: 21");
  ExpectLint({{fence, "queue-length-unenforced", 0}});
}

TEST_CASE("every service account sent to catch-all at precedence 8000 is reported (seed 001)",
          "[lint]") {
  // Seed 001's "wrong precedence": at 8000 the schema comes before service-accounts (9000),
  // so every service account's request goes to catch-all: ceil(600*5/245) = 13 seats
  // instead of workload-low's ceil(600*100/245) = 245 (the default shares sum to 245).
  ExpectLint({{.yaml = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: all-sa}
spec:
  priorityLevelConfiguration: {name: catch-all}
  matchingPrecedence: 8000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: Group, group: {name: system:serviceaccounts}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
)",
               .check = "shadowing",
               .messages = {"the suggested FlowSchema service-accounts (9000) sends to "
                            "workload-low (245 seats)",
                            "now goes to catch-all (13 seats)"},
               .name = "all-sa",
               .line = 6}});
}

TEST_CASE("a level for a whole group may borrow: no fence-borrowing warning", "[lint]") {
  ExpectLint({{R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: team}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 30
    limitResponse: {type: Queue, queuing: {queues: 64, handSize: 6}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: team}
spec:
  priorityLevelConfiguration: {name: team}
  matchingPrecedence: 5000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: Group, group: {name: team}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)",
               "fence-borrowing", 0}});
}

TEST_CASE("seed 000's fence without borrowingLimitPercent warns that it does not fence", "[lint]") {
  // (It also has the queue-length warning of the test above.)
  ExpectLint({{.yaml = Fence(false),
               .check = "fence-borrowing",
               // Seed 000: 265 shares give tenant-sweep ceil(600*20/265) = 46 seats; unlimited
               // borrowing lets it reach 46 + 600.
               .messages = {"nominal 46 seats to 646", "borrowingLimitPercent: 0"},
               .name = "tenant-sweep",
               .field = "spec.limited",
               .object_kind = "PriorityLevelConfiguration",
               .file = "lint.yaml",
               .line = 8}});  // the `limited:` mapping
}

TEST_CASE("a FlowSchema naming a missing level is reported as dangling", "[lint]") {
  ExpectLint({{.yaml = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: orphan}
spec:
  priorityLevelConfiguration: {name: nowhere}
  rules:
  - subjects: [{kind: User, user: {name: bob}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)",
               .check = "dangling",
               .messages = {"\"nowhere\", which does not exist"},
               .name = "orphan",
               .field = "spec.priorityLevelConfiguration.name",
               .line = 5}});
}

TEST_CASE("a broad schema before the system schemas shows a request that moves", "[lint]") {
  const auto all = Lint(R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: everyone}
spec:
  priorityLevelConfiguration: {name: global-default}
  matchingPrecedence: 450
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: Group, group: {name: system:authenticated}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
)");
  const auto w = Only(all, "shadowing");
  std::set<std::string> shadowed;
  for (const auto& x : w) {
    CHECK(x.name == "everyone");
    CHECK(x.field == "spec.matchingPrecedence");
    shadowed.insert(x.message.substr(x.message.find("FlowSchema ") + 11,
                                     x.message.find(" (") - x.message.find("FlowSchema ") - 11));
  }
  // 450 comes after system-leader-election (100) and system-node-high (400), before the
  // rest of the system schemas. It also takes every service account from service-accounts
  // (workload-low, 245 seats at 600) into global-default (49 seats): a whole class of
  // clients moved to fewer seats. global-default's own requests stay on its level.
  CHECK(shadowed == std::set<std::string>{"system-nodes", "kube-controller-manager",
                                          "kube-scheduler", "kube-system-service-accounts",
                                          "service-accounts"});
  for (const auto& x : w) {
    if (x.message.find("system-nodes") != std::string::npos) {
      CHECK(x.message.find("for example list pods (no namespace) by user \"system:node:node-1\" "
                           "now goes to global-default") != std::string::npos);
    }
  }
}

TEST_CASE("a carve-out from service-accounts is not shadowing", "[lint]") {
  // The fence moves the operator's lists out of service-accounts, as intended.
  ExpectLint({{Fence(true), "shadowing", 0}});
}

TEST_CASE("broad subjects without a distinguisher make one flow", "[lint]") {
  ExpectLint({
      {.yaml = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: ci}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 5000
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {namespace: ci, name: "*"}}]
    resourceRules: [{verbs: [list], apiGroups: [""], resources: [pods], namespaces: ["*"]}]
)",
       .check = "no-distinguisher",
       .messages = {"ServiceAccount ci/* share a single queue of workload-low's 128"},
       .field = "spec.distinguisherMethod"},
      // One named user is one flow anyway: no warning.
      {R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: one}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 5000
  rules:
  - subjects: [{kind: User, user: {name: robot}}]
    resourceRules: [{verbs: [list], apiGroups: [""], resources: [pods], namespaces: ["*"]}]
)",
       "no-distinguisher", 0},
  });
}

TEST_CASE("broad traffic into exempt is reported", "[lint]") {
  ExpectLint({
      {R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: vip}
spec:
  priorityLevelConfiguration: {name: exempt}
  matchingPrecedence: 10
  rules:
  - subjects: [{kind: Group, group: {name: system:serviceaccounts}}]
    resourceRules: [{verbs: [get], apiGroups: [""], resources: [configmaps], namespaces: [app]}]
)",
       "broad-exempt",
       1,
       {"Group system:serviceaccounts to the exempt level"}},
      // A narrow exemption (one user, one URL) is fine.
      {R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: vip}
spec:
  priorityLevelConfiguration: {name: exempt}
  matchingPrecedence: 10
  rules:
  - subjects: [{kind: User, user: {name: oncall}}]
    nonResourceRules: [{verbs: [get], nonResourceURLs: [/metrics]}]
)",
       "broad-exempt", 0},
  });
}

TEST_CASE("small queue sets for many flows report the collision probability", "[lint]") {
  const std::string level = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: team}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 30
    borrowingLimitPercent: 0
    limitResponse: {type: Queue, queuing: {queues: 8, handSize: 2}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: team}
spec:
  priorityLevelConfiguration: {name: team}
  matchingPrecedence: 5000
  distinguisherMethod: {type: ByUser}
  rules:
)";
  const std::string group = R"(  - subjects: [{kind: Group, group: {name: team}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)";
  sim::LintOptions all_heavy;
  all_heavy.heavy_flows = 10;
  ExpectLint({
      // Two named users: 2 flows; P(hand covered by 1 other) = 1/28 = 3.6% < 5%.
      {level + R"(  - subjects: [{kind: User, user: {name: a}}, {kind: User, user: {name: b}}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
)",
       "collisions", 0},
      // A whole group: the assumed 10 flows. With the default one heavy flow, a light flow's
      // hand of 2 out of 8 queues is covered only by the same hand: 1/C(8,2) = 1/28 = 3.6%.
      {level + group, "collisions", 0},
      // All 10 heavy (9 others); with 8 queues and hands of 2:
      // 1 - 2 (21/28)^9 + (15/28)^9 = 1 - 0.15017 + 0.00364 = 0.8535, printed as 85%.
      {.yaml = level + group,
       .check = "collisions",
       .messages = {"an assumed 10 flows", "of which 9 heavy", "probability 85%"},
       .name = "team",
       .options = all_heavy},
  });
}

TEST_CASE("seed 001's lab: one heavy flow covers a hand of 2 of 4 queues one time in six",
          "[lint]") {
  // apf-lab-limited: 4 queues, hand 2: C(4,2) = 6 hands, so a light flow shares its whole
  // hand with the one heavy flow with probability 1/6 = 17%.
  ExpectLint({{R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: apf-lab-limited}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    limitResponse: {type: Queue, queuing: {queues: 4, handSize: 2, queueLengthLimit: 8}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: apf-lab-pods}
spec:
  matchingPrecedence: 900
  distinguisherMethod: {type: ByUser}
  priorityLevelConfiguration: {name: apf-lab-limited}
  rules:
  - subjects: [{kind: Group, group: {name: system:authenticated}}]
    resourceRules: [{verbs: ["get", "list"], apiGroups: [""], resources: ["pods"], namespaces: ["apf-lab"]}]
)",
               "collisions",
               1,
               {"of which 1 heavy", "probability 17%"}}});
}

TEST_CASE("a nominal limit below max seats times hand size is reported (#115409)", "[lint]") {
  ExpectLint({{R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: tiny}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 1
    borrowingLimitPercent: 0
    limitResponse: {type: Queue, queuing: {queues: 16, handSize: 8}}
)",
               "seats-times-hand",
               1,
               // 246 shares: ceil(600 * 1 / 246) = 3 seats; max seats max(1, min(ceil(0.45),
               // 3/8)) = 1; 1 * 8 = 8 > 3.
               {"nominal limit is 3 seats (1 of 246 shares)", "= 8"}}});
}

TEST_CASE("changing a suggested object without the annotation is reported", "[lint]") {
  const std::string level = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: workload-low
ANNOTATIONS
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 150
    lendablePercent: 90
    limitResponse: {type: Queue, queuing: {queues: 128, handSize: 6, queueLengthLimit: 50}}
)";
  auto with = [&](const std::string& annotations) {
    std::string y = level;
    y.replace(y.find("ANNOTATIONS"), 11, annotations);
    return y;
  };
  ExpectLint({
      {with(""), "autoupdate", 1},
      {with("  annotations: {apf.kubernetes.io/autoupdate-spec: \"false\"}"), "autoupdate", 0},
  });
}

TEST_CASE("v1beta3 objects on 1.32 and later are reported", "[lint]") {
  const std::string yaml = R"(apiVersion: flowcontrol.apiserver.k8s.io/v1beta3
kind: PriorityLevelConfiguration
metadata: {name: old}
spec: {type: Limited, limited: {nominalConcurrencyShares: 5, limitResponse: {type: Reject}}}
)";
  const sim::FlowControlManifests m = sim::ParseFlowControlYaml(yaml, "lint.yaml");
  CHECK(Only(sim::LintFlowControl(m, sim::BuildFlowControl({1, 31}, m), {}), "v1beta3").empty());
  CHECK(Only(sim::LintFlowControl(m, sim::BuildFlowControl({1, 32}, m), {}), "v1beta3").size() ==
        1);
}

TEST_CASE("HandCoveredProbability matches hand calculations", "[lint]") {
  struct Case {
    int queues, hand, others;
    double p;
  };
  for (const Case c : {
           // One other flow, 8 queues, hand 2: 1 - 2*C(7,2)/C(8,2) + C(6,2)/C(8,2) = 1/28.
           Case{8, 2, 1, 1.0 / 28},
           // Hand 1: the other k flows cover its one queue with probability 1 - (3/4)^k.
           Case{4, 1, 3, 1 - 27.0 / 64},
           Case{64, 6, 0, 0},
           // A hand of all queues is always covered by one other flow.
           Case{5, 5, 1, 1},
       }) {
    INFO(c.queues << " queues, hand " << c.hand << ", " << c.others << " others");
    // Approx(0) takes only 0 itself (its margin is 0 and its epsilon relative to 0).
    CHECK(sim::HandCoveredProbability(c.queues, c.hand, c.others) == Approx(c.p));
  }
}

TEST_CASE("HandCoveredProbability agrees with dealing random hands", "[lint][property]") {
  sim::Random rng(115409, "hands");
  struct Case {
    int queues, hand, others;
  };
  for (const Case c : {Case{8, 2, 9}, Case{16, 4, 20}, Case{128, 6, 60}, Case{64, 3, 30}}) {
    const int trials = 20000;
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<int> union_of_others(c.queues, 0);
      auto deal = [&](std::vector<int>& hand) {
        hand.clear();
        while (static_cast<int>(hand.size()) < c.hand) {
          const int q = static_cast<int>(rng.UniformInt(c.queues));
          if (std::find(hand.begin(), hand.end(), q) == hand.end()) hand.push_back(q);
        }
      };
      std::vector<int> hand;
      for (int o = 0; o < c.others; ++o) {
        deal(hand);
        for (int q : hand) union_of_others[q] = 1;
      }
      deal(hand);
      bool all = true;
      for (int q : hand) all = all && union_of_others[q];
      covered += all;
    }
    const double p = sim::HandCoveredProbability(c.queues, c.hand, c.others);
    const double sd = std::sqrt(p * (1 - p) / trials);
    INFO(c.queues << " queues, hand " << c.hand << ", " << c.others << " others: " << p);
    CHECK(std::abs(static_cast<double>(covered) / trials - p) < 5 * sd + 1e-4);
  }
}

TEST_CASE("lint: a suggested object's edit under autoupdate-spec true is put back, with fields",
          "[lint][autoupdate]") {
  // k/k pkg/registry/flowcontrol/ensurer: shouldUpdateSpec is true for annotation "true",
  // so workload-low's shares go back to the 1.36 suggested 100 (bootstrap default.go).
  sim::FlowControlManifests m;
  apf::PriorityLevelConfiguration pl;
  for (const auto& b : apf::Bootstrap({1, 36}).suggested_priority_levels) {
    if (b.metadata.name == "workload-low") pl = b;
  }
  pl.metadata.annotations[apf::kAutoUpdateAnnotation] = "true";
  pl.spec.limited->nominal_concurrency_shares = 200;
  m.priority_levels.push_back({pl, {}});
  const sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, m);
  REQUIRE(setup.reset_warnings.size() == 1);
  CHECK(setup.reset_warnings[0] ==
        "warning: PriorityLevelConfiguration workload-low: the apiserver puts the suggested spec "
        "back while apf.kubernetes.io/autoupdate-spec is \"true\" (as in every object of a "
        "kubectl export), so this edit has no effect: spec.limited.nominalConcurrencyShares 200 "
        "-> 100 (yours -> put back). To keep your spec, set "
        "metadata.annotations[\"apf.kubernetes.io/autoupdate-spec\"] to \"false\"");
}

// `apfsim explain`'s work estimate: the seats the estimator charges the described request
// on its level, and the reasoning it prints. Expected seats are hand calculations from
// doc/model.md#work-estimation (list_work_estimator.go, mutating_work_estimator.go) and 3.2 (max
// seats).
#include "sim/flowcontrol/explain.h"

#include <catch2/catch.hpp>

#include "apf/classification/user_info.h"

namespace {

nlohmann::json Explain(const apf::RequestInfo& request, const sim::ExplainOptions& options) {
  const sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, sim::FlowControlManifests{});
  return sim::ExplainRequest(setup, apf::ServiceAccountUser("default", "app"), request, options);
}

apf::RequestInfo ListConfigMaps() {
  apf::RequestInfo r;
  r.is_resource_request = true;
  r.verb = "list";
  r.resource = "configmaps";
  r.namespace_name = "default";
  return r;
}

}  // namespace

TEST_CASE("explain prices 450 ConfigMaps of 100 bytes at 1 seat by size, 5 by count", "[explain]") {
  sim::ExplainOptions options;
  options.object_stats = {450, 100};
  options.object_stats_given = true;
  // SizeBasedListCostEstimate (1.34+): 45,000 bytes, well under the 100 KB a seat buys.
  nlohmann::json e = Explain(ListConfigMaps(), options);
  CHECK(e["priorityLevel"] == "workload-low");
  CHECK(e["workEstimate"]["initialSeats"] == 1);
  CHECK(e["workEstimate"]["finalSeats"] == 0);
  CHECK(e["workEstimate"]["estimator"] == "list");
  CHECK(e["workEstimate"]["why"].get<std::string>().find("450 objects of about 100 bytes; "
                                                         "served from the watch cache") !=
        std::string::npos);
  // With the gate off (before 1.34): ceil(450 / 100 objects per seat) = 5.
  options.estimator = apf::DefaultWorkEstimatorConfig(false, true, true);
  e = Explain(ListConfigMaps(), options);
  CHECK(e["workEstimate"]["initialSeats"] == 5);
  CHECK(e["workEstimate"]["why"].get<std::string>().find("priced by object count, 100 per seat") !=
        std::string::npos);
}

TEST_CASE("explain shows the level's cap on a LIST's seats", "[explain]") {
  // 40,000 objects of 9,000 bytes from the watch cache: the global cache limit of 10 seats
  // (1 MB); workload-low's own cap at 600 seats is min(ceil(0.15 * 245), 245 / 6) = 37, so
  // 10 stands. With 24 server seats workload-low has ceil(24 * 100 / 245) = 10 seats and a
  // cap of max(1, min(ceil(1.5) = 2, 10 / 6 = 1)) = 1.
  sim::ExplainOptions options;
  options.object_stats = {40000, 9000};
  options.object_stats_given = true;
  nlohmann::json e = Explain(ListConfigMaps(), options);
  CHECK(e["workEstimate"]["initialSeats"] == 10);
  CHECK(e["level"]["maxSeatsPerRequest"] == 37);
  options.server_concurrency_limit = 24;
  e = Explain(ListConfigMaps(), options);
  CHECK(e["level"]["maxSeatsPerRequest"] == 1);
  CHECK(e["workEstimate"]["initialSeats"] == 1);
  CHECK(e["workEstimate"]["why"].get<std::string>().find(
            "10 seats, capped at this level's 1 seat per request") != std::string::npos);
}

TEST_CASE("explain prices a write by the watches it fans out to", "[explain]") {
  apf::RequestInfo create = ListConfigMaps();
  create.verb = "create";
  sim::ExplainOptions options;
  options.watch_count = 57;
  // ceil(57 / 10 watches per seat) = 6 final seats, for 5 ms (the event duration).
  const nlohmann::json e = Explain(create, options);
  CHECK(e["workEstimate"]["estimator"] == "mutating");
  CHECK(e["workEstimate"]["initialSeats"] == 1);
  CHECK(e["workEstimate"]["finalSeats"] == 6);
  CHECK(e["workEstimate"]["additionalLatencySeconds"] == Approx(0.005));
  const std::string text = sim::FormatExplanation(e);
  CHECK(text.find("work estimate:   1 seat(s), then 6 for 5ms after it finishes") !=
        std::string::npos);
}

TEST_CASE("explain's level names its maximum concurrency maxCL, keeping maxSeats a release",
          "[explain]") {
  const nlohmann::json e = Explain(ListConfigMaps(), {});
  // workload-low at 600: nominal 245, unlimited borrowing: 245 + 600 = 845.
  CHECK(e["level"]["maxCL"] == 845);
  CHECK(e["level"]["maxSeats"] == e["level"]["maxCL"]);
  CHECK(e["workEstimate"]["why"].get<std::string>().find("no object count given") !=
        std::string::npos);
}

namespace {

// Three FlowSchemas of doc/model.md appendix A, by their names (a flow's hash is its
// FlowSchema's name and its distinguisher), sent to one level of 64 queues and hands of 6.
// Each is kept as written (autoupdate-spec false) and matches one user.
constexpr const char* kLabManifests = R"(
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: lab}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    limitResponse: {type: Queue, queuing: {queues: 64, handSize: 6, queueLengthLimit: 50}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: global-default, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}
spec:
  priorityLevelConfiguration: {name: lab}
  matchingPrecedence: 9900
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: alice}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"],
                     clusterScope: true}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: service-accounts, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}
spec:
  priorityLevelConfiguration: {name: lab}
  matchingPrecedence: 9000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {namespace: default, name: loadtest}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"],
                     clusterScope: true}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: kube-controller-manager, annotations: {apf.kubernetes.io/autoupdate-spec: "false"}}
spec:
  priorityLevelConfiguration: {name: lab}
  matchingPrecedence: 800
  distinguisherMethod: {type: ByNamespace}
  rules:
  - subjects: [{kind: User, user: {name: system:kube-controller-manager}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"],
                     clusterScope: true}]
)";

sim::CollisionCall Call(const std::string& client, const apf::UserInfo& user,
                        const std::string& ns = "default") {
  sim::CollisionCall call{client, user, ListConfigMaps()};
  call.request.namespace_name = ns;
  return call;
}

}  // namespace

TEST_CASE("explain --collisions deals each flow's hand and lists the queues pairs share",
          "[explain]") {
  const sim::FlowControlSetup setup =
      sim::BuildFlowControl({1, 36}, sim::ParseFlowControlYaml(kLabManifests, "lab.yaml"));
  // kube-controller-manager is distinguished by namespace: a cluster-scoped LIST is the
  // empty distinguisher of appendix A; one in kube-system is another flow.
  const std::vector<sim::CollisionCall> calls = {
      Call("alice", apf::AuthenticatedUser("alice", {})),
      Call("loadtest", apf::ServiceAccountUser("default", "loadtest")),
      Call("loadtest", apf::ServiceAccountUser("default", "loadtest"), "other"),  // same flow
      Call("kcm", apf::AuthenticatedUser("system:kube-controller-manager", {}), ""),
      Call("bob", apf::AuthenticatedUser("bob", {}))};  // catch-all: another level
  const nlohmann::json e = sim::ExplainCollisions(setup, "lab", calls);
  CHECK(e["queues"] == 64);
  CHECK(e["handSize"] == 6);
  REQUIRE(e["flows"].size() == 3);
  // Appendix A's hashes and its deal (64, 6) column, which the Go dealer gives
  // (k8s.io/apiserver pkg/util/shufflesharding/shufflesharding.go, Dealer.Deal: the hash's
  // mixed-radix digits of bases 64, 63, ..., 59, each picking among the cards left).
  CHECK(e["flows"][0]["flowSchema"] == "global-default");
  CHECK(e["flows"][0]["distinguisher"] == "alice");
  CHECK(e["flows"][0]["hash"] == "17644606172554983095");
  CHECK(e["flows"][0]["hand"] == nlohmann::json::array({55, 56, 51, 36, 11, 5}));
  CHECK(e["flows"][1]["distinguisher"] == "system:serviceaccount:default:loadtest");
  CHECK(e["flows"][1]["hash"] == "18245108773366159178");
  CHECK(e["flows"][1]["hand"] == nlohmann::json::array({10, 1, 40, 19, 44, 28}));
  CHECK(e["flows"][1]["clients"] == nlohmann::json::array({"loadtest"}));
  CHECK(e["flows"][2]["distinguisher"] == "");
  CHECK(e["flows"][2]["hash"] == "14257900033262264633");
  CHECK(e["flows"][2]["hand"] == nlohmann::json::array({57, 29, 61, 56, 39, 18}));
  // By hand: {5, 11, 36, 51, 55, 56} and {18, 29, 39, 56, 57, 61} share queue 56; the
  // loadtest hand {1, 10, 19, 28, 40, 44} meets neither.
  CHECK(e["shared"] == nlohmann::json::parse(R"([{"flows": [0, 2], "queues": [56]}])"));
  CHECK(sim::FormatCollisions(e) ==
        "priority level lab: 64 queues, hand size 6; 3 flows of the scenario's clients land "
        "here\n"
        "\n"
        "flows (client: FlowSchema / distinguisher, then the hand in deal order):\n"
        "  alice     global-default / \"alice\"  hand 55, 56, 51, 36, 11, 5\n"
        "  loadtest  service-accounts / \"system:serviceaccount:default:loadtest\"  hand 10, 1, "
        "40, 19, 44, 28\n"
        "  kcm       kube-controller-manager / \"\"  hand 57, 29, 61, 56, 39, 18\n"
        "\n"
        "flows that share queues (1 of 3 pairs):\n"
        "  alice & kcm: queue 56\n");
  CHECK_THROWS_WITH(sim::ExplainCollisions(setup, "no-such-level", calls),
                    Catch::Contains("no priority level \"no-such-level\""));
}

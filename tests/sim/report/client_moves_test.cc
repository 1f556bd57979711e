// What a change does to each client (sim/report/client_moves.h), on seed 000's drift sweep
// before and after scenarios/seed000-fence.yaml, resolved as `apfsim compare
// scenarios/drift-sweep.yaml --overlay scenarios/seed000-fence.yaml` resolves them.
//
// The seats are the LIST estimator's (doc/model.md#list-estimate) and the per-level caps
// doc/model.md#max-seats gives, maxSeats = max(1, min(ceil(0.15 nominalCL), nominalCL /
// handSize)), with nominalCL = ceil(600 x shares / shareSum) (doc/model.md#nominal-seats):
// - a tenant-operator LIST of tenantbindings reads 40,000 objects of 9,000 bytes (360 MB),
//   a consistent read served from the watch cache, so at most 1 MB: ceil(1e6 / 1e5) = 10
//   seats. Before, in workload-low (shares 100 of 245: nominal 245, maxSeats 37), 10;
//   after, in the fence's tenant-sweep (20 of 265: nominal ceil(45.3) = 46, maxSeats
//   min(ceil(6.9), 46 / 2) = 7), 7;
// - kubectl-user's LIST of pods: 12,000 of 8,000 bytes, again 1 MB from the cache, 10 seats,
//   in global-default: 20 of 245 shares is nominal 49, maxSeats min(ceil(7.35), 49 / 6) = 8;
//   with the fence's 20 shares added, 20 of 265 is nominal 46, maxSeats min(7, 7) = 7. The
//   fence moves a client it does not match.
// The hands are those `apfsim explain --scenario scenarios/drift-sweep.yaml
// --service-account platform/tenant-operator --verb list --api-group platform.example.com
// --resource tenantbindings --namespace tenant-0001` prints (and with
// drift-sweep-fenced.yaml for the after side), as it deals them (FlowHand, the dealer and
// flow hash checked against Go in tests/apf/queueing/ and tests/apf/classification/).
#include "sim/report/client_moves.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/workflows/run_inputs.h"
#include "tests/support/scratch_dir.h"

namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(APFSIM_SOURCE_DIR) / "scenarios";

sim::ResolvedRun Resolve(const std::string& file, const std::vector<std::string>& overlays) {
  sim::RunInputs inputs;
  inputs.scenario_file = (kScenarios / file).string();
  for (const std::string& o : overlays) inputs.overlay_files.push_back((kScenarios / o).string());
  return sim::ResolveRunInputs(inputs);
}

const nlohmann::json& Entry(const nlohmann::json& moves, const std::string& client,
                            const std::string& request) {
  for (const nlohmann::json& e : moves["requests"]) {
    if (e["client"] == client && e["request"] == request) return e;
  }
  FAIL("no entry for " << client << " " << request);
  throw;
}

struct FenceMoves {
  sim::ResolvedRun before = Resolve("drift-sweep.yaml", {});
  sim::ResolvedRun after = Resolve("drift-sweep.yaml", {"seed000-fence.yaml"});
  nlohmann::json moves = sim::DescribeClientMoves({&before.scenario, &before.flow_control},
                                                  {&after.scenario, &after.flow_control});
};

}  // namespace

TEST_CASE("the fence moves the tenant-operator's LISTs to tenant-sweep at 7 seats, not 10",
          "[client_moves]") {
  const FenceMoves f;
  const nlohmann::json& e = Entry(f.moves, "tenant-operator", "LIST tenantbindings");
  CHECK(e["line"] ==
        "tenant-operator LIST tenantbindings: service-accounts/workload-low -> "
        "tenant-operator-lists/tenant-sweep, 10 -> 7 seats, hand 112,93,83,79,23,12 -> 2,3");
  CHECK(e["moved"] == true);
  CHECK(e["calls"] == 1800);  // one per tenant namespace; ByUser makes them one flow
  CHECK(e["before"]["flowSchema"] == "service-accounts");
  CHECK(e["before"]["priorityLevel"] == "workload-low");
  CHECK(e["after"]["flowSchema"] == "tenant-operator-lists");
  CHECK(e["after"]["priorityLevel"] == "tenant-sweep");
  for (const char* side : {"before", "after"}) {
    CHECK(e[side]["flowDistinguisher"] == "system:serviceaccount:platform:tenant-operator");
    CHECK(e[side]["finalSeats"] == 0);
    CHECK(e[side]["flows"] == 1);
  }
  CHECK(e["before"]["initialSeats"] == 10);
  CHECK(e["after"]["initialSeats"] == 7);
  CHECK(e["before"]["hand"].size() == 6);  // workload-low: 128 queues, handSize 6
  CHECK(e["after"]["hand"].size() == 2);   // tenant-sweep: 8 queues, handSize 2
}

TEST_CASE(
    "moved requests come before the unmoved ones, and the fence moves a level it does "
    "not match",
    "[client_moves]") {
  const FenceMoves f;
  const nlohmann::json& requests = f.moves["requests"];
  bool seen_unmoved = false;
  for (const nlohmann::json& e : requests) {
    if (!e["moved"].get<bool>()) seen_unmoved = true;
    CHECK_FALSE((seen_unmoved && e["moved"].get<bool>()));
  }
  CHECK(seen_unmoved);
  CHECK(requests[0]["request"] == "LIST tenantbindings");  // the first client's first call
  const nlohmann::json& kubectl = Entry(f.moves, "kubectl-user", "LIST pods");
  CHECK(kubectl["moved"] == true);
  CHECK(kubectl["before"]["initialSeats"] == 8);
  CHECK(kubectl["after"]["initialSeats"] == 7);
  CHECK(kubectl["before"]["priorityLevel"] == "global-default");
  // The operator's status writes stay where they were: one seat, no watch open at t=0.
  const nlohmann::json& writes = Entry(f.moves, "tenant-operator", "UPDATE tenantbindings/status");
  CHECK(writes["moved"] == false);
  CHECK(writes["before"] == writes["after"]);
  CHECK(writes["before"]["initialSeats"] == 1);
  CHECK(writes["before"]["finalSeats"] == 0);
  CHECK(writes["line"].get<std::string>().rfind(
            "tenant-operator UPDATE tenantbindings/status: service-accounts/workload-low, 1 "
            "seat, hand ",
            0) == 0);
  // Argo CD sends LIST deployments twice in its loop: one entry, the shape once.
  int deployments = 0;
  for (const nlohmann::json& e : requests) {
    deployments += e["client"] == "argocd" && e["request"] == "LIST deployments";
  }
  CHECK(deployments == 1);
  // 90 operators, each its own user (ByUser): 90 flows and no single hand.
  const nlohmann::json& operators = Entry(f.moves, "other-operators", "GET configmaps");
  CHECK(operators["before"]["flows"] == 90);
  CHECK(operators["before"]["hand"].is_null());
  CHECK(operators["before"]["flowHands"].size() == 90);
}

TEST_CASE("the text puts the moved lines first and says the figures are t=0's", "[client_moves]") {
  const FenceMoves f;
  const std::string text = sim::FormatClientMoves(f.moves);
  const std::size_t moved = text.find("  tenant-operator LIST tenantbindings: ");
  const std::size_t unchanged = text.find("\nunchanged:\n");
  REQUIRE(moved != std::string::npos);
  REQUIRE(unchanged != std::string::npos);
  CHECK(moved < unchanged);
  CHECK(text.find("  kubectl-user LIST pods: ") < unchanged);
  CHECK(text.find("  tenant-operator UPDATE tenantbindings/status: ") > unchanged);
  CHECK(text.rfind("what the change moves, per client request (as at t=0", 0) == 0);
  CHECK(sim::FormatClientMoves(nlohmann::json::object()).empty());
}

TEST_CASE("a change applied by spec.events later is named: t=0 does not have it",
          "[client_moves]") {
  // drift-sweep-fence-midway.yaml applies the fence at 4m30s: at t=0 both sides are the
  // unfenced cluster, so nothing has moved yet, and the note says when it does.
  const sim::ResolvedRun before = Resolve("drift-sweep-fence-midway.yaml", {});
  const sim::ResolvedRun after = Resolve("drift-sweep-fence-midway.yaml", {});
  const nlohmann::json moves = sim::DescribeClientMoves({&before.scenario, &before.flow_control},
                                                        {&after.scenario, &after.flow_control});
  for (const nlohmann::json& e : moves["requests"]) CHECK(e["moved"] == false);
  REQUIRE(!moves["notes"].empty());
  CHECK(moves["notes"][0] ==
        "spec.events change the run at 4m30s (apply): requests after those instants may land "
        "or be charged otherwise");
}

TEST_CASE("clients replayed from an audit log are named as not described", "[client_moves]") {
  // audit-replay.yaml's clients are the identities of samples' audit log: no templates.
  const sim::ResolvedRun run = Resolve("audit-replay.yaml", {});
  const nlohmann::json moves = sim::DescribeClientMoves({&run.scenario, &run.flow_control},
                                                        {&run.scenario, &run.flow_control});
  CHECK(moves["requests"].empty());
  REQUIRE(moves["notes"].size() == 1);
  CHECK(moves["notes"][0].get<std::string>().rfind("not described: alice, bob, ", 0) == 0);
  // The table still says so: the note is the whole section.
  CHECK_THAT(sim::FormatClientMoves(moves), Catch::Contains("\nnote: not described: alice"));
}

TEST_CASE("a FlowSchema that matches some namespaces splits a shape: one line per way it lands",
          "[client_moves]") {
  // alice LISTs configmaps in each of app-0000..app-0002; the after side adds a FlowSchema
  // (precedence 500, before global-default's 9900) for app-0000 only, to workload-low. Its
  // ByNamespace distinguisher makes that call its own flow. 30 configmaps of 1,000 bytes are
  // 30 KB: ceil(30,000 / 100,000) = 1 seat on both sides (doc/model.md#list-estimate).
  test_support::ScratchDir scratch("apfsim-client-moves-test");
  const std::string scenario = R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: split}
spec:
  duration: 10s
  resources:
  - {resource: configmaps, objects: 30, namespaces: 3, namespacePrefix: app-}
  clients:
  - name: reader
    user: alice
    traffic:
    - constant:
        rate: 1
        request: {verb: list, resource: configmaps, namespace: "{each}"}
)";
  std::ofstream(scratch.path() / "split.yaml") << scenario;
  std::ofstream(scratch.path() / "fs.yaml") << R"(apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: app-zero}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 500
  distinguisherMethod: {type: ByNamespace}
  rules:
  - subjects: [{kind: User, user: {name: alice}}]
    resourceRules:
    - {verbs: [list], apiGroups: [""], resources: [configmaps], namespaces: [app-0000]}
)";
  sim::RunInputs before_inputs;
  before_inputs.scenario_file = (scratch.path() / "split.yaml").string();
  sim::RunInputs after_inputs = before_inputs;
  after_inputs.overlay_files = {(scratch.path() / "fs.yaml").string()};
  const sim::ResolvedRun before = sim::ResolveRunInputs(before_inputs);
  const sim::ResolvedRun after = sim::ResolveRunInputs(after_inputs);
  const nlohmann::json moves = sim::DescribeClientMoves({&before.scenario, &before.flow_control},
                                                        {&after.scenario, &after.flow_control});
  REQUIRE(moves["requests"].size() == 2);
  const nlohmann::json& moved = moves["requests"][0];
  const nlohmann::json& stayed = moves["requests"][1];
  CHECK(moved["moved"] == true);
  CHECK(moved["calls"] == 1);
  CHECK(moved["after"]["flowSchema"] == "app-zero");
  CHECK(moved["after"]["flowDistinguisher"] == "app-0000");
  CHECK(moved["before"]["flowSchema"] == "global-default");
  CHECK(moved["before"]["flowDistinguisher"] == "alice");  // global-default is ByUser
  CHECK(moved["line"].get<std::string>().rfind(
            "reader LIST configmaps (1 of its calls): global-default/global-default -> "
            "app-zero/workload-low, distinguisher \"alice\" -> \"app-0000\", 1 seat, hand ",
            0) == 0);
  CHECK(stayed["moved"] == false);
  CHECK(stayed["calls"] == 2);
  CHECK(stayed["line"].get<std::string>().rfind(
            "reader LIST configmaps (2 of its calls): global-default/global-default, 1 seat", 0) ==
        0);
}

// The flow-control commands as a user runs them: `apfsim defaults` (YAML that loads back
// to the bootstrap objects, and a JSON List), `apfsim explain --output json`, the two
// `model` commands on the cases of doc/model.md appendix A, and `apfsim lint`'s exit codes.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "apf/config/bootstrap.h"
#include "sim/flowcontrol/loader.h"
#include "sim/model/classify.h"
#include "tests/support/test_support.h"

namespace {

struct Run {
  int exit_code = -1;
  std::string out;
};

// Runs apfsim with `args` (and `stdin_text` on standard input), capturing stdout.
Run Apfsim(const std::string& args, const std::string& stdin_text = "") {
  const test_support::ScratchDir scratch("apfsim-cli-flowcontrol");
  const std::filesystem::path input = scratch.path() / "stdin.json";
  {
    std::ofstream f(input);
    f << stdin_text;
  }
  const std::string command =
      std::string(APFSIM_BINARY) + " " + args + " < " + input.string() + " 2>/dev/null";
  Run r;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe);
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const std::string kFence = std::string(APFSIM_SOURCE_DIR) + "/scenarios/seed000-fence.yaml";

}  // namespace

TEST_CASE("apfsim defaults prints YAML that loads back to the version's objects", "[cli]") {
  for (const char* version : {"1.29", "1.36"}) {
    const Run r = Apfsim(std::string("defaults --kubernetes-version ") + version);
    REQUIRE(r.exit_code == 0);
    const sim::FlowControlManifests m = sim::ParseFlowControlYaml(r.out, "defaults.yaml");
    CHECK(sim::ValidateManifests(m).empty());
    const apf::BootstrapObjects boot = apf::Bootstrap(*apf::ParseKubernetesVersion(version));
    CHECK(m.priority_levels.size() ==
          boot.mandatory_priority_levels.size() + boot.suggested_priority_levels.size());
    CHECK(m.flow_schemas.size() ==
          boot.mandatory_flow_schemas.size() + boot.suggested_flow_schemas.size());
    // Applying them to a cluster of that version changes nothing.
    const sim::FlowControlSetup setup =
        sim::BuildFlowControl(*apf::ParseKubernetesVersion(version), m);
    CHECK(setup.notes.empty());
  }
  CHECK(Apfsim("defaults --kubernetes-version 1.28").exit_code == 2);
}

TEST_CASE("apfsim defaults --output json prints a List", "[cli]") {
  const Run r = Apfsim("defaults --output json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json list = nlohmann::json::parse(r.out);
  CHECK(list["apiVersion"] == "v1");
  CHECK(list["kind"] == "List");
  CHECK(list["items"].size() == 8 + 11);
  const nlohmann::json& first = list["items"][0];
  CHECK(first["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1");
  CHECK(first["kind"] == "PriorityLevelConfiguration");
}

TEST_CASE("apfsim explain --output json says where the fenced list goes and why", "[cli]") {
  const Run r = Apfsim("explain --config " + kFence +
                       " --service-account platform/tenant-operator --verb list --resource "
                       "tenantbindings --api-group platform.example.com --namespace tenant-a0412 "
                       "--output json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json e = nlohmann::json::parse(r.out);
  CHECK(e["flowSchema"] == "tenant-operator-lists");
  CHECK(e["priorityLevel"] == "tenant-sweep");
  CHECK(e["distinguisher"] == "system:serviceaccount:platform:tenant-operator");
  CHECK(e["hash"].is_string());
  CHECK(std::stoull(e["hash"].get<std::string>()) != 0);
  // Seed 000: 265 shares give tenant-sweep 46 seats and a 7-seat cap per request.
  CHECK(e["level"]["nominalSeats"] == 46);
  CHECK(e["level"]["maxSeatsPerRequest"] == 7);
  const nlohmann::json& tried = e["tried"];
  REQUIRE(tried.size() == 9);  // exempt ... kube-system-service-accounts, then the fence
  CHECK(tried[0]["flowSchema"] == "exempt");
  CHECK(tried[0]["matched"] == false);
  CHECK(tried[0]["why"].get<std::string>().find("no subject matches") != std::string::npos);
  CHECK(tried.back()["flowSchema"] == "tenant-operator-lists");
  CHECK(tried.back()["matched"] == true);
}

TEST_CASE("apfsim explain deals the flow's hand as the queue set would", "[cli]") {
  // doc/model.md appendix A: global-default/alice hashes to 17644606172554983095, which deals
  // 55, 62, 126, 125, 105, 1 from global-default's 128 queues with a hand of 6.
  const Run r = Apfsim(
      "explain --user alice --verb get --resource pods --namespace default "
      "--output json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json e = nlohmann::json::parse(r.out);
  CHECK(e["hash"] == "17644606172554983095");
  CHECK(e["hand"] == nlohmann::json::array({55, 62, 126, 125, 105, 1}));
}

TEST_CASE("apfsim explain says a level without a borrowing limit has no upper bound set",
          "[cli][explain]") {
  // global-default (1.36 defaults) sets no borrowingLimitPercent. The server's limit is
  // kube-apiserver's --max-requests-inflight 400 + --max-mutating-requests-inflight 200 = 600;
  // nominal ceil(600 x 20 / 245) = 49, lendable round(49 x 50%) = 25 (math.Round: 24.5 up),
  // so at least 49 - 25 = 24 seats
  // (doc/model.md#nominal-seats).
  const Run r = Apfsim("explain --user alice --verb get --resource pods --namespace default");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("nominal seats:   49 of 600 (20 of 245 shares); lendable 25, "
                                    "so at least 24 seats; upper bound: no limit set (at most "
                                    "the server's 600 seats)"));
}

TEST_CASE("apfsim run shows a MaxInFlight pool of limit 0 as unlimited", "[cli][maxinflight]") {
  // server/filters/maxinflight.go WithMaxInFlightLimit: a limit of 0 makes no channel for
  // that kind, so mutating requests are never held back. The table shows no nominal
  // figure for the pool, says why, and summary.json marks it.
  const test_support::ScratchDir scratch("apfsim-cli-maxinflight");
  const std::string out = (scratch.path() / "out").string();
  const Run r = Apfsim(std::string("run ") + APFSIM_SOURCE_DIR +
                       "/scenarios/event-storm.yaml --set apiservers.maxMutatingRequestsInflight=0"
                       " --set duration=20s --out " +
                       out);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("mutating: unlimited (a MaxInFlight limit of 0 sets no limit)"));
  std::ifstream f(out + "/summary.json");
  const nlohmann::json summary = nlohmann::json::parse(f);
  CHECK(summary["priorityLevels"]["mutating"]["unlimited"] == true);
  CHECK_FALSE(summary["priorityLevels"]["readonly"].contains("unlimited"));
}

TEST_CASE("apfsim explain of GET /healthz by an anonymous user", "[cli]") {
  const Run r = Apfsim("explain --anonymous --path /healthz --output json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json e = nlohmann::json::parse(r.out);
  CHECK(e["flowSchema"] == "probes");
  CHECK(e["priorityLevel"] == "exempt");
  CHECK(e["hash"] == "0");
  CHECK(Apfsim("explain --user a --service-account b/c --path /x").exit_code == 2);
  CHECK(Apfsim("explain --user a --verb get").exit_code == 2);
}

TEST_CASE("apfsim model flowhash gives the appendix A hashes", "[cli]") {
  const Run r = Apfsim("model flowhash", R"([
    {"flowSchema": "global-default", "distinguisher": "alice"},
    {"flowSchema": "service-accounts", "distinguisher": "system:serviceaccount:default:loadtest"},
    {"flowSchema": "kube-controller-manager", "distinguisher": ""}])");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out) == nlohmann::json::parse(R"([
    {"hash": "17644606172554983095"}, {"hash": "18245108773366159178"},
    {"hash": "14257900033262264633"}])"));
  CHECK(Apfsim("model flowhash", R"([{"flowSchema": "x", "bogus": 1}])").exit_code == 2);
}

TEST_CASE("apfsim model classify classifies authenticated requests", "[cli]") {
  const std::string cases = R"([
    {"user": "alice", "groups": ["system:authenticated"], "verb": "get", "apiGroup": "",
     "resource": "pods", "namespace": "default", "isResourceRequest": true},
    {"user": "system:serviceaccount:platform:tenant-operator",
     "groups": ["system:serviceaccounts", "system:serviceaccounts:platform", "system:authenticated"],
     "verb": "list", "apiGroup": "platform.example.com", "resource": "tenantbindings",
     "namespace": "tenant-a0412"},
    {"user": "system:anonymous", "groups": ["system:unauthenticated"], "verb": "get",
     "path": "/readyz", "isResourceRequest": false}])";
  const Run plain = Apfsim("model classify", cases);
  REQUIRE(plain.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(plain.out);
  REQUIRE(out.size() == 3);
  CHECK(out[0] == nlohmann::json{{"flowSchema", "global-default"},
                                 {"priorityLevel", "global-default"},
                                 {"distinguisher", "alice"},
                                 {"hash", "17644606172554983095"}});
  CHECK(out[1]["flowSchema"] == "service-accounts");
  CHECK(out[1]["priorityLevel"] == "workload-low");
  CHECK(out[2]["flowSchema"] == "probes");
  CHECK(out[2]["hash"] == "0");
  const Run fenced = Apfsim("model classify --config " + kFence, cases);
  REQUIRE(fenced.exit_code == 0);
  const nlohmann::json f = nlohmann::json::parse(fenced.out);
  CHECK(f[1]["flowSchema"] == "tenant-operator-lists");
  CHECK(f[1]["priorityLevel"] == "tenant-sweep");
  CHECK(f[0] == out[0]);
}

TEST_CASE("apfsim lint exits 0 with warnings and 2 on an invalid object", "[cli]") {
  // Seed 000's fence: 7-seat LISTs cannot fill its 46 seats (tests/sim/flowcontrol/lint_test.cc).
  const Run fence = Apfsim("lint --config " + kFence);
  CHECK(fence.exit_code == 0);
  CHECK(fence.out.find("[queue-length-unenforced]\n1 warning(s) for Kubernetes 1.36\n") !=
        std::string::npos);
  const test_support::ScratchDir scratch("apfsim-cli-lint");
  const std::filesystem::path open_fence = scratch.path() / "open-fence.yaml";
  const std::filesystem::path invalid = scratch.path() / "invalid.yaml";
  {
    std::ifstream in(kFence);
    std::ofstream out(open_fence);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find("borrowingLimitPercent: 0") == std::string::npos) out << line << "\n";
    }
    std::ofstream bad(invalid);
    bad << "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\n"
           "metadata: {name: x}\nspec: {type: Limited, limited: {lendablePercent: 101, "
           "limitResponse: {type: Reject}}}\n";
  }
  const Run warned = Apfsim("lint --config " + open_fence.string());
  CHECK(warned.exit_code == 0);
  CHECK(warned.out.find("[fence-borrowing]") != std::string::npos);
  CHECK(warned.out.find("2 warning(s)") != std::string::npos);
  CHECK(Apfsim("lint --config " + invalid.string()).exit_code == 2);
}

TEST_CASE("ClassifyCases refuses malformed cases with their path", "[cli]") {
  sim::FlowControlManifests none;
  const sim::FlowControlSetup setup = sim::BuildFlowControl({1, 36}, none);
  const apf::Classifier c(setup.config);
  try {
    sim::ClassifyCases(c, nlohmann::json::parse(R"([{"user": "a", "verb": 3}])"), "<stdin>");
    FAIL("no error");
  } catch (const sim::InputError& e) {
    CHECK(std::string(e.what()) == "<stdin>: [0].verb: expected a string, got 3");
  }
}

TEST_CASE("apfsim lint --strict exits 1 on a warning, 0 without, 2 on bad input", "[cli]") {
  CHECK(Apfsim("lint --strict --config " + kFence).exit_code == 1);
  // drift-sweep runs the version's defaults only: nothing to warn about.
  const Run clean = Apfsim("lint --strict --scenario " + std::string(APFSIM_SOURCE_DIR) +
                           "/scenarios/drift-sweep.yaml");
  CHECK(clean.exit_code == 0);
  CHECK(clean.out == "0 warning(s) for Kubernetes 1.36\n");
  CHECK(Apfsim("lint --strict --config " + std::string(APFSIM_SOURCE_DIR) +
               "/scenarios/no-such-file.yaml")
            .exit_code == 2);
}

TEST_CASE("apfsim lint --scenario lints the scenario's objects with its limits", "[cli]") {
  // drift-sweep-fenced.yaml names seed000-fence.yaml: the warning is located in that file.
  const Run fenced = Apfsim("lint --scenario " + std::string(APFSIM_SOURCE_DIR) +
                            "/scenarios/drift-sweep-fenced.yaml");
  CHECK(fenced.exit_code == 0);
  CHECK(fenced.out.find("seed000-fence.yaml:20:27: warning: PriorityLevelConfiguration "
                        "tenant-sweep") != std::string::npos);
  CHECK(fenced.out.find("1 warning(s) for Kubernetes 1.36") != std::string::npos);
  // The scenario gives the version; a flag that contradicts it is refused.
  CHECK(Apfsim("lint --kubernetes-version 1.30 --scenario " + std::string(APFSIM_SOURCE_DIR) +
               "/scenarios/drift-sweep.yaml")
            .exit_code == 2);
}

TEST_CASE("apfsim explain --scenario prices the request with the scenario's objects and counts",
          "[cli]") {
  // Seed 000's fenced operator: 40,000 tenantbindings of 9,000 bytes would cost 10 seats
  // (the watch cache's 1 MB cap); tenant-sweep's 46 seats cap a request at 7
  // (doc/model.md#max-seats).
  const Run r = Apfsim("explain -o json --scenario " + std::string(APFSIM_SOURCE_DIR) +
                       "/scenarios/drift-sweep-fenced.yaml --service-account "
                       "platform/tenant-operator --verb list --api-group platform.example.com "
                       "--resource tenantbindings --namespace ns-0001");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json e = nlohmann::json::parse(r.out);
  CHECK(e["priorityLevel"] == "tenant-sweep");
  CHECK(e["workEstimate"]["initialSeats"] == 7);
  CHECK(e["workEstimate"]["why"].get<std::string>().find("40000 objects of about 9000 bytes") !=
        std::string::npos);
  CHECK(Apfsim("explain --objects -1 --user u --verb list --resource pods").exit_code == 2);
}

TEST_CASE("apfsim run --trace with a misspelt client suggests the name", "[cli]") {
  const test_support::ScratchDir dir("apfsim-trace-name");
  const test_support::CommandResult r = test_support::RunApfsim(
      "run " + std::string(APFSIM_SOURCE_DIR) + "/scenarios/apf-lab.yaml --quiet --trace " +
          "kubectl-lb --out " + dir.File("out"),
      dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--trace: no client or priority level is named \"kubectl-lb\" (did you mean "
                   "\"kubectl-lab\"?)") != std::string::npos);
}

TEST_CASE("lint and explain --config - read the objects from standard input, named <stdin>",
          "[cli][stdin]") {
  std::ifstream in(kFence);
  const std::string fence((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The same warning as from the file (the test above), located in "<stdin>" at the same
  // line and column as in seed000-fence.yaml.
  const Run piped = Apfsim("lint --config -", fence);
  CHECK(piped.exit_code == 0);
  CHECK(piped.out.find("<stdin>:20:27: warning: PriorityLevelConfiguration tenant-sweep") !=
        std::string::npos);
  CHECK(piped.out.find("1 warning(s) for Kubernetes 1.36") != std::string::npos);
  // explain takes them too: the fenced LIST goes to the fence's schema.
  const Run explained = Apfsim(
      "explain --config - --service-account platform/tenant-operator --verb list "
      "--api-group platform.example.com --resource tenantbindings --namespace ns-0001 -o json",
      fence);
  CHECK(explained.exit_code == 0);
  CHECK(explained.out.find("\"tenant-sweep\"") != std::string::npos);
  // Bad input names <stdin> where it names a file (stderr, so through the shell helper).
  const test_support::ScratchDir scratch("apfsim-cli-stdin");
  const std::filesystem::path bad = scratch.path() / "bad.yaml";
  std::ofstream(bad) << "apiVersion: flowcontrol.apiserver.k8s.io/v1\n"
                        "kind: PriorityLevelConfiguration\nmetadata: {name: x}\n"
                        "spec: {type: Limited, limited: {lendablePercent: 101}}\n";
  const test_support::CommandResult refused =
      test_support::RunApfsim("lint --config -", scratch.path(), bad.string());
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("<stdin>:4:") != std::string::npos);
}

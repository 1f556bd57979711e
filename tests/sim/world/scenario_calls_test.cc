// Every call a scenario's clients can make (sim/world/scenario_calls.h): one per process
// whose user is its own and per namespace a drawn namespace can be, in the order of the
// clients, traffic, calls, processes and namespaces; a fixed user or namespace is one call.
#include "sim/world/scenario_calls.h"

#include <catch2/catch.hpp>
#include <string>

#include "sim/scenario/loader.h"

namespace {

// Two operators with their own users ({process}), each reading a configmap in one of the
// three namespaces of configmaps ({random}); a human with a fixed namespace; a trace client.
const char* kScenario = R"(apiVersion: apfsim/v1alpha1
kind: Scenario
metadata: {name: calls}
spec:
  duration: 10s
  resources:
  - {resource: configmaps, objects: 30, namespaces: 3, namespacePrefix: app-}
  clients:
  - name: ops
    user: "system:serviceaccount:operators:operator-{process}"
    groups: ["system:serviceaccounts"]
    processes: 2
    traffic:
    - poisson:
        rate: 1
        request: {verb: get, resource: configmaps, namespace: "{random}", name: settings}
  - name: human
    user: ilia
    processes: 3
    traffic:
    - constant:
        rate: 1
        request: {verb: list, resource: configmaps, namespace: app-0001}
)";

}  // namespace

TEST_CASE("a scenario's calls: per own-user process and per drawn namespace", "[scenario_calls]") {
  const sim::Scenario scenario = sim::ParseScenarioText(kScenario, "calls.yaml");
  const std::vector<sim::ScenarioCall> calls = sim::ScenarioCalls(scenario);
  // 2 processes x 3 namespaces, then the human once: its 3 processes share one user.
  REQUIRE(calls.size() == 7);
  CHECK(calls[0].sender == "ops[0]");
  CHECK(calls[0].user.name == "system:serviceaccount:operators:operator-0");
  // The loader adds the authenticator's group (scenarios/README.md, clients).
  CHECK(calls[0].user.groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:authenticated"});
  // The resource's namespaces, prefix then four digits from 0.
  CHECK(calls[0].request.namespace_name == "app-0000");
  CHECK(calls[1].request.namespace_name == "app-0001");
  CHECK(calls[2].request.namespace_name == "app-0002");
  CHECK(calls[3].sender == "ops[1]");
  CHECK(calls[3].process == 1);
  CHECK(calls[3].user.name == "system:serviceaccount:operators:operator-1");
  CHECK(calls[3].request.verb == "get");
  CHECK(calls[3].request.name == "settings");
  CHECK(calls[3].resource == 0);
  CHECK(calls[3].tmpl == &scenario.clients[0].traffic[0].calls[0]);
  CHECK(calls[6].client == 1);
  CHECK(calls[6].sender == "human");
  CHECK(calls[6].request.verb == "list");
  CHECK(calls[6].request.namespace_name == "app-0001");
}

// BuildEventConfigs (sim/scenario/flowcontrol.h): the objects each `apply` / `delete`
// event leaves the cluster with, the config producer run after it
// (pkg/registry/flowcontrol/ensurer), digested as apf_controller.go digests them.
#include <catch2/catch.hpp>
#include <string>

#include "sim/io/input_error.h"
#include "sim/scenario/flowcontrol.h"
#include "sim/scenario/loader.h"

namespace {

// Lines 1-13; the events follow from line 14 (counted by hand).
const char* const kHead =
    "apiVersion: apfsim/v1alpha1\n"                                             // 1
    "kind: Scenario\n"                                                          // 2
    "metadata: {name: ev}\n"                                                    // 3
    "spec:\n"                                                                   // 4
    "  duration: 10m\n"                                                         // 5
    "  apiservers: {replicas: 1, kubernetesVersion: \"1.36\"}\n"                // 6
    "  resources:\n"                                                            // 7
    "  - {resource: configmaps, objects: 100, namespaces: 1}\n"                 // 8
    "  clients:\n"                                                              // 9
    "  - name: reader\n"                                                        // 10
    "    user: r\n"                                                             // 11
    "    traffic:\n"                                                            // 12
    "    - constant: {rate: 1, request: {verb: get, resource: configmaps}}\n";  // 13

sim::FlowControlSetup SetupOf(const std::string& events) {
  return sim::BuildScenarioFlowControl(
      sim::ParseScenarioText(std::string(kHead) + "  events:\n" + events, "ev.yaml", {}));
}

}  // namespace

TEST_CASE("a deleted object is gone from the next configuration, a deleted-again one refused",
          "[events]") {
  // workload-low is a suggested level of 1.36: deleted, the producer creates it again (with
  // a warning). global-default's FlowSchema is suggested too. A FlowSchema of the user's is
  // gone for good; deleting it again at 3m finds nothing.
  const std::string apply_fs =
      "  - at: 1m\n"
      "    apply:\n"
      "    - apiVersion: flowcontrol.apiserver.k8s.io/v1\n"
      "      kind: FlowSchema\n"
      "      metadata: {name: mine}\n"
      "      spec:\n"
      "        priorityLevelConfiguration: {name: workload-low}\n"
      "        matchingPrecedence: 100\n"
      "        rules:\n"
      "        - subjects: [{kind: User, user: {name: alice}}]\n"
      "          nonResourceRules: [{verbs: [get], nonResourceURLs: [/healthz]}]\n";
  sim::FlowControlSetup setup = SetupOf(apply_fs +
                                        "  - at: 2m\n"
                                        "    delete:\n"
                                        "    - {kind: FlowSchema, name: mine}\n");
  REQUIRE(setup.event_configs.size() == 2);
  CHECK(setup.config.FindFlowSchema("mine") < 0);
  CHECK(setup.event_configs[0].FindFlowSchema("mine") >= 0);
  CHECK(setup.event_configs[1].FindFlowSchema("mine") < 0);
  CHECK(setup.reset_warnings.empty());

  try {
    SetupOf(apply_fs +
            "  - at: 2m\n"
            "    delete:\n"
            "    - {kind: FlowSchema, name: mine}\n"
            "  - at: 3m\n"
            "    delete:\n"
            "    - {kind: FlowSchema, name: mine}\n");
    FAIL("no InputError");
  } catch (const sim::InputError& e) {
    // Line 14 is `events:`, the apply takes 15-25, the first delete 26-28: the second
    // delete's item is on line 31.
    CHECK(e.where().line == 31);
    CHECK(e.where().column == 7);
    CHECK(e.message().rfind("no FlowSchema \"mine\" at 3m", 0) == 0);
    CHECK(e.message().find("the cluster does not hold it then") != std::string::npos);
  }
}

TEST_CASE("a deleted mandatory object comes back, with a warning", "[events]") {
  const sim::FlowControlSetup setup = SetupOf(
      "  - at: 1m\n"
      "    delete:\n"
      "    - {kind: PriorityLevelConfiguration, name: catch-all}\n");
  REQUIRE(setup.event_configs.size() == 1);
  // Re-created from the built-in spec: 5 shares, as before (doc/model.md#mandatory-objects).
  const int i = setup.event_configs[0].FindPriorityLevel("catch-all");
  REQUIRE(i >= 0);
  CHECK(setup.event_configs[0].priority_levels[i].nominal_concurrency_shares == 5);
  REQUIRE(setup.reset_warnings.size() == 1);
  CHECK(setup.reset_warnings[0].rfind("ev.yaml:17:7: warning: PriorityLevelConfiguration "
                                      "\"catch-all\" is a mandatory object",
                                      0) == 0);
}

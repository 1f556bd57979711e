// `--set` paths into flow-control objects (their short field names and their paths in the
// manifest) and the "did you mean" every name lookup of a scenario gives.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "sim/io/input_error.h"
#include "sim/scenario/loader.h"

namespace {

const std::string kLab = std::string(APFSIM_SOURCE_DIR) + "/scenarios/apf-lab.yaml";

std::string ErrorOf(const std::string& path, const std::vector<std::string>& sets) {
  try {
    sim::LoadScenario(path, sets);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a level's field is set by its short name or its path in the manifest", "[scenario]") {
  for (const std::string_view field :
       {"handSize", "limitResponse.queuing.handSize", "limited.limitResponse.queuing.handSize",
        "spec.limited.limitResponse.queuing.handSize"}) {
    const sim::Scenario s = sim::LoadScenario(
        kLab, {"flowControl.priorityLevels.apf-lab-limited." + std::string(field) + "=1"});
    REQUIRE(s.flow_control_overrides.size() == 1);
    CHECK(s.flow_control_overrides[0].kind == "priorityLevels");
    CHECK(s.flow_control_overrides[0].name == "apf-lab-limited");
    CHECK(s.flow_control_overrides[0].field == "handSize");
    CHECK(s.flow_control_overrides[0].value == "1");
  }
  const sim::Scenario fs = sim::LoadScenario(
      kLab, {"flowControl.flowSchemas.apf-lab-pods.spec.distinguisherMethod.type=ByNamespace"});
  REQUIRE(fs.flow_control_overrides.size() == 1);
  CHECK(fs.flow_control_overrides[0].field == "distinguisherMethod");
  CHECK(fs.flow_control_overrides[0].name == "apf-lab-pods");
}

TEST_CASE("a path that names no field of a level says which fields there are", "[scenario]") {
  const std::string e =
      ErrorOf(kLab, {"flowControl.priorityLevels.apf-lab-limited.spec.limited.queues=1"});
  CHECK(e.find("expected flowControl.priorityLevels.NAME.FIELD where FIELD is one of "
               "nominalConcurrencyShares") != std::string::npos);
}

TEST_CASE("misspelt names get a suggestion", "[scenario]") {
  CHECK(ErrorOf(kLab, {"clients.lab-kubctl.clientGo.qps=5"}).find("in spec.clients") !=
        std::string::npos);
  const std::string client = ErrorOf(std::string(APFSIM_SOURCE_DIR) + "/scenarios/drift-sweep.yaml",
                                     {"clients.tenant-operater.clientGo.qps=5"});
  CHECK(client.find("(did you mean \"tenant-operator\"?)") != std::string::npos);
  const std::string expect = ErrorOf(std::string(APFSIM_SOURCE_DIR) + "/scenarios/drift-sweep.yaml",
                                     {"expect.0.path=clients.argo-cd.http429"});
  CHECK(expect.find("no client \"argo-cd\" in spec.clients (did you mean \"argocd\"?)") !=
        std::string::npos);
}

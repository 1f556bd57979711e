// summary.json's provenance (sim/workflows/provenance.h): the scenario's and its files'
// SHA-256 (as `sha256sum` prints them), the seed, and the overrides in the order applied.
#include "sim/workflows/provenance.h"

#include <catch2/catch.hpp>

#include "sim/workflows/run.h"
#include "tests/support/scratch_dir.h"

TEST_CASE("provenance names the build, the inputs with their SHA-256, and the overrides",
          "[provenance]") {
  const test_support::ScratchDir scratch("apfsim-provenance");
  sim::RunRequest request;
  // Relative to the source tree, as a user types it: the paths are kept as given.
  request.scenario_file = "tests/fixtures/report/tiny.yaml";
  request.overrides = {"apiservers.maxRequestsInflight=6", "seed=3"};
  request.out_dir = scratch.path().string();
  request.quiet = true;
  const nlohmann::json p = sim::RunScenario(request).summary["provenance"];
  CHECK(p["apfsimVersion"] == sim::ApfsimBuildVersion());
  CHECK_FALSE(p["apfsimVersion"].get<std::string>().empty());
  // sha256sum tests/fixtures/report/tiny.yaml
  CHECK(p["scenarioSha256"] == "809de06af26ee93e79cefc092c5e049cd8593009d250a516223c8cf5f89f887f");
  CHECK(p["seed"] == 3);
  CHECK(p["sets"] == nlohmann::json({"apiservers.maxRequestsInflight=6", "seed=3"}));
  CHECK(p["overlays"] == nlohmann::json::array());
  // The trace the scenario names, resolved against the scenario's folder, not absolute.
  REQUIRE(p["files"].size() == 1);
  CHECK(p["files"][0]["path"] == "tests/fixtures/report/tiny.csv");
  // sha256sum tests/fixtures/report/tiny.csv
  CHECK(p["files"][0]["sha256"] ==
        "5602be41884b303fdc6e4f77ee4843252e65ba211f003ad48e68b5bfcfb1e6b0");
  CHECK(sim::DescribeSets(p) == "--set apiservers.maxRequestsInflight=6 --set seed=3");
}

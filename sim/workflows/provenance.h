// Where a run's outputs came from (summary.json's "provenance", scenarios/README.md): the
// apfsim build, the scenario file's SHA-256, the seed, every override in the order it was
// applied, the overlays, and every file the scenario names with its SHA-256. Paths are kept
// as the command line and the scenario give them (never made absolute) and nothing of the
// machine or the wall clock enters, so that two builds of one tree write the same bytes.
// Tested by tests/sim/workflows/provenance_test.cc.
#ifndef SIM_WORKFLOWS_PROVENANCE_H_
#define SIM_WORKFLOWS_PROVENANCE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/workflows/run_inputs.h"

namespace sim {

// `git describe --always --dirty` of the tree apfsim was built from, or the project
// version when it was built without git (a tarball).
std::string ApfsimBuildVersion();

// {"apfsimVersion", "scenarioSha256", "seed", "sets": ["PATH=VALUE", ...], "overlays":
// [path, ...], "files": [{"path", "sha256"}, ...]} of a resolved run. `known` holds digests
// already taken (World::InputSha256s: the traces, hashed as they were replayed); every
// other file is read here.
nlohmann::json RunProvenance(const RunInputs& inputs, const ResolvedRun& run,
                             const std::vector<std::pair<std::string, std::string>>& known = {});

// "--set a=1 --set b=2" of a provenance's sets, or "" when there are none: for headers
// and titles.
std::string DescribeSets(const nlohmann::json& provenance);

}  // namespace sim

#endif  // SIM_WORKFLOWS_PROVENANCE_H_

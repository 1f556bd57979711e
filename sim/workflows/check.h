// What `apfsim check` does end to end: each scenario file is run (on every seed of --seeds)
// and its `spec.expect` assertions get their verdicts; a scenario that fails to load or to
// run is recorded as not checked and the others still run; flow-control manifests beside
// the scenarios are passed over. The command prints as each scenario finishes.
#ifndef SIM_WORKFLOWS_CHECK_H_
#define SIM_WORKFLOWS_CHECK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/junit.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"

namespace sim {

struct CheckRequest {
  std::vector<std::string> files;  // the scenario files, in order
  std::vector<std::string> overrides;
  std::vector<std::string> overlay_files;
  std::optional<std::uint64_t> seed;
  std::vector<std::uint64_t> seeds;  // empty: one run per scenario
  int jobs = 0;
  RunBudget budget;
  std::string out;  // "": write nothing; else OUT/<file stem>/ per scenario
  ProgressMode progress = ProgressMode::kNever;
  bool quiet = false;
  // Called after each scenario, checked or not, and for each file passed over.
  std::function<void(const ScenarioCheck&)> on_checked;
  std::function<void(const std::string& file)> on_skipped;
};

// Checks every file of the request; the checks in file order, skipped files left out.
std::vector<ScenarioCheck> CheckScenarios(const CheckRequest& request);

}  // namespace sim

#endif  // SIM_WORKFLOWS_CHECK_H_

// `apfsim tune`: a search for the smallest configuration change that makes a scenario's
// `spec.expect` hold on every seed (as `apfsim check --seeds` judges it). A candidate is a
// set of changes to what an SRE changes: a limited level's nominalConcurrencyShares,
// lendablePercent, borrowingLimitPercent, queues, handSize and queueLengthLimit, the
// apiservers' maxRequestsInflight and maxMutatingRequestsInflight, and a fence (a new
// PriorityLevelConfiguration with a FlowSchema that moves one client's requests into it,
// as seed 000's fix did, scenarios/seed000-fence.yaml).
//
// The method is a best-first search over discrete step ladders: each value moves along a
// ladder of steps (shares and counts x1.5, x2, x3...; percents by 10), and candidates are
// tried in the order (objects touched, steps moved, score of the candidate they grew
// from). A candidate runs on the seeds in order and is dropped at its first failing seed,
// which is what keeps a noisy objective judged over seeds affordable; the budget counts
// runs. Seeds run in parallel batches of --jobs, but only the runs up to the first failing
// seed are judged and charged, so --jobs changes the speed and never the answer.
//
// Tested by tests/sim/workflows/tune_test.cc and tests/cli/tune_cli_test.cc.
#ifndef SIM_WORKFLOWS_TUNE_H_
#define SIM_WORKFLOWS_TUNE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/scenario/run_budget.h"

namespace sim {

struct TuneRequest {
  std::string scenario_file;
  std::vector<std::uint64_t> seeds;      // judged in this order
  int budget = 200;                      // runs, the compare at the end not counted
  int jobs = 0;                          // runs at once (0: one per core)
  std::string out_dir;                   // required: DIR/fix.yaml, DIR/tune.json, DIR/compare.json
  std::vector<std::string> only_levels;  // --only-levels: the levels that may change
  bool no_fence = false;                 // --no-fence
  bool keep_flags = false;               // --keep-flags: the apiservers' flags stay
  bool compare = true;   // run the scenario before and after the fix (DIR/compare.json)
  RunBudget run_budget;  // each run's --max-events and --max-wall-time
};

struct TuneOutcome {
  bool holds = false;    // the fix holds on every seed
  int runs_spent = 0;    // the budget spent
  int candidates = 0;    // candidates judged
  std::string fix_file;  // DIR/fix.yaml
  nlohmann::json tune;   // tune.json's content
  std::string message;   // one paragraph for the terminal: the fix, or the closest
};

// Throws InputError on bad input (a scenario without spec.expect among it).
TuneOutcome RunTune(const TuneRequest& request);

}  // namespace sim

#endif  // SIM_WORKFLOWS_TUNE_H_

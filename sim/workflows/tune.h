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
// What it writes is one output set (sim/io/output_set.h): the folder appears whole when the
// search ends, however it ends (a fix, the budget or --time-budget spent, or SIGINT/SIGTERM,
// which keep the best candidate found so far). The fix is in three files: fix.yaml (and
// fix-1.yaml, ...: the fixes found, best first), holding only FlowSchemas and
// PriorityLevelConfigurations of flowcontrol.apiserver.k8s.io/v1 for `kubectl apply -f`,
// validated as `apfsim lint` validates them before they are written; flags.txt, the
// kube-apiserver flags changed, one a line; check-overlay.yaml, both as an apfsim overlay for
// `apfsim check --overlay`.
//
// Tested by tests/sim/workflows/tune_test.cc and tests/cli/tune_cli_test.cc.
#ifndef SIM_WORKFLOWS_TUNE_H_
#define SIM_WORKFLOWS_TUNE_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"

namespace sim {

struct TuneRequest {
  std::string scenario_file;
  // --set: the scenario the search starts from, for every run it makes and for the compare
  // at the end. The values are not part of the fix: fix.yaml and check-overlay.yaml hold
  // only what the search changed.
  std::vector<std::string> overrides;
  std::vector<std::uint64_t> seeds;      // judged in this order
  int max_runs = 200;                    // --budget: runs, the compare at the end not counted
  int jobs = 0;                          // runs at once (0: one per core)
  std::string out_dir;                   // required: DIR/fix.yaml, DIR/tune.json, DIR/compare.json
  std::vector<std::string> only_levels;  // --only-levels: the levels that may change
  bool no_fence = false;                 // --no-fence
  bool keep_flags = false;               // --keep-flags: the apiservers' flags stay
  bool compare = true;  // run the scenario before and after the fix (DIR/compare.json)
  RunBudget budget;     // each run's --max-events and --max-wall-time
  // --time-budget: wall seconds the search may take, checked between candidates (0: no
  // limit). Unlike `budget` it makes the result depend on the machine's speed.
  double time_budget_seconds = 0;
  // The progress line on stderr (the CLI chooses it from --progress and the terminal): live,
  // or a plain line every 10 s of wall time: candidates tried, runs spent, the best so far.
  ProgressStyle progress = ProgressStyle::kNone;
  // For tests: the wall clock (seconds from any origin; default the steady clock), the
  // progress writer (default stderr) and a hook called after each candidate is judged with
  // the number judged so far (a test raises a simulated signal from it).
  std::function<double()> clock;
  std::function<void(const std::string&)> progress_writer;
  std::function<void(int)> after_candidate;
};

struct TuneOutcome {
  bool holds = false;    // the fix holds on every seed
  int runs_spent = 0;    // the budget spent
  int candidates = 0;    // candidates judged
  std::string fix_file;  // DIR/fix.yaml
  nlohmann::json tune;   // tune.json's content
  std::string message;   // one paragraph for the terminal: the fix, or the closest
  // The signal (SIGINT, SIGTERM) that stopped the search, 0 when none did: the outputs hold
  // the best found so far and the command exits with 128 + it (sim/workflows/interrupt.h).
  int interrupted_by = 0;
};

// Throws InputError on bad input (a scenario without spec.expect among it).
TuneOutcome RunTune(const TuneRequest& request);

}  // namespace sim

#endif  // SIM_WORKFLOWS_TUNE_H_

// The options every command that runs scenarios shares (run, check, compare, sweep): the
// run budget, so a runaway scenario stops the same way whichever command started it, and
// the replications of --seeds with the threads they run on.

// --progress, so that every command shows its progress alike (sim/workflows/progress.h).
#ifndef SIM_CLI_RUN_OPTIONS_H_
#define SIM_CLI_RUN_OPTIONS_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <vector>

#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"

namespace sim::cli {

// Adds --max-events and --max-wall-time with their defaults.
void AddRunBudgetOptions(boost::program_options::options_description& options);
// Reads them back; a --max-wall-time that is not a duration throws InputError.
RunBudget RunBudgetFrom(const boost::program_options::variables_map& values);

// Adds --seeds LIST (sim/workflows/seed_list.h) and, unless the command has its own,
// --jobs N.
void AddSeedsOptions(boost::program_options::options_description& options, bool jobs);

struct SeedsOptions {
  std::vector<std::uint64_t> seeds;  // empty: one run, on --seed or the scenario's seed
  int jobs = 0;                      // 0: one per core
};
// Reads them back; a bad list, --jobs below 1, or --seed with --seeds throws InputError.
SeedsOptions SeedsOptionsFrom(const boost::program_options::variables_map& values);

// Adds --progress auto|always|never (default auto).
void AddProgressOption(boost::program_options::options_description& options);
// Reads it back; a value other than the three throws InputError.
ProgressMode ProgressModeFrom(const boost::program_options::variables_map& values);

}  // namespace sim::cli

#endif  // SIM_CLI_RUN_OPTIONS_H_

// A scenario run on several seeds (`--seeds`): the replications that `apfsim run`, `compare`
// and `check` make of one run. The scenario is resolved once; each replication copies it,
// sets its seed and runs in a world of its own, on up to --jobs threads
// (sim/workflows/worker_pool.h). Replication N writes DIR/seed-N/, exactly what
// `apfsim run --seed N --out DIR/seed-N` writes, and DIR/replications.json holds the
// statistics over the seeds (sim/report/replications.h). The seed folders and
// replications.json are one output set (sim/io/output_set.h), swapped in once every seed has
// run. Nothing depends on --jobs.
//
// Tested by tests/sim/workflows/replicate_test.cc.
#ifndef SIM_WORKFLOWS_REPLICATE_H_
#define SIM_WORKFLOWS_REPLICATE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/workflows/run.h"

namespace sim {

struct ReplicationsOutcome {
  std::string out_dir;
  std::vector<std::uint64_t> seeds;
  std::vector<RunOutcome> runs;  // in the order of `seeds`
  nlohmann::json replications;   // replications.json's content
  std::string table;             // the terminal table of it
};

// Runs `resolved` (resolved from `request`, whose RunInputs are not read again) once per
// seed, into request.out_dir (default out/<scenario name>)/seed-N/, and writes
// replications.json there. `request.quiet` also silences the large-run warning, which is
// printed once, not per seed. Throws what a run throws (the error of the first seed in
// order), or RunInterrupted, naming how many seeds had finished, on SIGINT or SIGTERM.
ReplicationsOutcome RunReplications(const ResolvedRun& resolved, const RunRequest& request,
                                    const std::vector<std::uint64_t>& seeds, int jobs);

// "DIR/seed-N": where replication N writes.
std::string SeedDir(const std::string& dir, std::uint64_t seed);

}  // namespace sim

#endif  // SIM_WORKFLOWS_REPLICATE_H_

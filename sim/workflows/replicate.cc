#include "sim/workflows/replicate.h"

#include <fmt/format.h>

#include <cstdio>

#include "sim/io/output_file.h"
#include "sim/io/output_set.h"
#include "sim/io/terminal.h"
#include "sim/report/replications.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/interrupt.h"
#include "sim/workflows/worker_pool.h"

namespace sim {

std::string SeedDir(const std::string& dir, std::uint64_t seed) {
  return fmt::format("{}/seed-{}", dir, seed);
}

ReplicationsOutcome RunReplications(const ResolvedRun& resolved, const RunRequest& request,
                                    const std::vector<std::uint64_t>& seeds, int jobs) {
  ReplicationsOutcome outcome;
  outcome.seeds = seeds;
  outcome.out_dir = request.out_dir.empty() ? "out/" + resolved.scenario.name : request.out_dir;
  if (!request.quiet) {
    const std::string warning = LargeRunWarning(resolved.scenario, EstimateWork(resolved.scenario));
    if (!warning.empty()) {
      std::fprintf(stderr, "%s (for each of the %zu seeds)\n", warning.c_str(), seeds.size());
    }
  }
  // Refused before the first seed runs; each seed's run checks again, quietly.
  const std::string trace_size =
      CheckTraceSize(resolved, request, fmt::format("for each of the {} seeds", seeds.size()));
  if (!request.quiet && !trace_size.empty()) std::fprintf(stderr, "%s\n", trace_size.c_str());
  // The seeds' folders and replications.json are one output set: a run stopped between two
  // seeds (SIGINT, SIGKILL, an error) leaves the previous set whole, never a new seed-1
  // beside an old seed-2.
  OutputSet set(outcome.out_dir, {"seed-*", "replications.json"});
  outcome.runs.resize(seeds.size());
  // Every seed's run is planned on the meter before any starts, so that its total and ETA
  // cover them all from the first line.
  std::vector<std::size_t> progress_slots;
  if (request.progress) {
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      progress_slots.push_back(request.progress->Plan(resolved.scenario.duration));
    }
  }
  const std::size_t finished = RunTasks(seeds.size(), jobs, [&](std::size_t i) {
    ResolvedRun replication = resolved;
    replication.scenario.seed = seeds[i];
    RunRequest run = request;
    run.seed = seeds[i];
    run.out_dir = SeedDir(set.staging_dir(), seeds[i]);
    run.quiet = true;
    if (request.progress) run.progress_slot = progress_slots[i];
    outcome.runs[i] = RunScenario(replication, run);
  });
  if (const int signal_number = PendingInterrupt(); signal_number != 0) {
    throw RunInterrupted(
        signal_number,
        fmt::format("{}: interrupted by {} after {} of {} seeds; "
                    "replications.json was not written",
                    resolved.scenario.name, SignalName(signal_number), finished, seeds.size()));
  }
  std::vector<nlohmann::json> summaries;
  for (const RunOutcome& run : outcome.runs) summaries.push_back(run.summary);
  outcome.replications = ReplicationsJson(summaries, seeds);
  outcome.table = ReplicationsTable(outcome.replications, !request.quiet && ColourWanted(1));
  WriteOutputFile(set.staging_dir() + "/replications.json", outcome.replications.dump(2) + "\n");
  set.Commit();
  return outcome;
}

}  // namespace sim

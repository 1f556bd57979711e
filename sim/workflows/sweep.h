// `apfsim sweep`: runs a scenario over a grid of `--set` values (capacity what-ifs) and
// tabulates each run's outcome in sweep.csv, one row per grid point. The grid is the
// product of the `--vary PATH=LIST` axes, the first axis outermost; every point runs on
// the same seed, so the points differ only in the varied values. Runs are independent
// worlds, run in parallel, and the output does not depend on how many ran at once.
//
// Beyond one machine, `--shard I/N` runs the grid points whose index is I modulo N (round
// robin, so that expensive neighbouring points spread over the shards) and writes a part
// file; MergeSweepParts() joins the N parts into the file an unsharded sweep writes.
//
// With --seeds every grid point runs on each seed (sim/workflows/replicate.h), and each
// figure's column becomes three: FIGURE_mean, FIGURE_ci95_lo and FIGURE_ci95_hi, the mean
// over the seeds and its 95% interval (sim/report/replications.h).
#ifndef SIM_WORKFLOWS_SWEEP_H_
#define SIM_WORKFLOWS_SWEEP_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"

namespace sim {

// One `--vary PATH=LIST`: LIST is `a,b,c` or a range `FROM..TO:STEP` (decimal numbers;
// TO included when reached exactly).
struct SweepAxis {
  std::string path;
  std::vector<std::string> values;
};

// Parses `--vary` text; throws InputError (field "--vary") on a malformed one.
SweepAxis ParseSweepAxis(const std::string& text);
// The values of a LIST, for ParseSweepAxis and tests.
std::vector<std::string> ParseSweepValues(const std::string& list);

// The grid points in grid order: for axes {a: [1,2]}, {b: [x,y]}, the points are
// (1,x) (1,y) (2,x) (2,y). Each point is one value per axis.
std::vector<std::vector<std::string>> SweepGrid(const std::vector<SweepAxis>& axes);

// The most grid points a sweep runs: each is a whole run, and the grid is held and every
// point checked before the first run starts. 10,000 runs of a minute each keep 2 cores
// busy for three days.
inline constexpr std::size_t kMaxSweepGridPoints = 10000;
// Throws InputError (field "--vary") when the axes make more than kMaxSweepGridPoints.
void CheckSweepGridSize(const std::vector<SweepAxis>& axes);

struct SweepShard {
  int index = 0;  // 0-based, as JOB_COMPLETION_INDEX is
  int count = 1;
  bool Has(std::size_t grid_index) const {
    return static_cast<int>(grid_index % static_cast<std::size_t>(count)) == index;
  }
};
// Parses "I/N" with 0 <= I < N; throws InputError (field "--shard").
SweepShard ParseSweepShard(const std::string& text);

struct SweepRequest {
  std::string scenario_file;
  std::vector<std::string> overrides;  // --set, applied to every point before the axes
  std::optional<std::uint64_t> seed;
  // --seeds: every point on each of these seeds, the CSV giving means and intervals.
  std::vector<std::uint64_t> seeds;
  std::vector<SweepAxis> axes;
  int jobs = 0;         // runs at once; 0: one per core
  std::string out_dir;  // "": out/<scenario name>-sweep
  std::optional<SweepShard> shard;
  bool timelines = false;  // also write each run's timeline.csv and clients.csv
  ProgressMode progress = ProgressMode::kNever;  // --progress: the whole grid on one line
  bool quiet = false;                            // --quiet: no progress under auto
  RunBudget budget;                              // for each run
};

struct SweepOutcome {
  std::string out_dir;
  std::string csv_path;  // sweep.csv, or sweep.part-I-of-N.csv for a shard
  std::string csv;       // its content
  std::string table;     // the terminal table (sim/workflows/sweep_table.h)
  std::string scenario_name;
  std::size_t runs = 0;  // runs: grid points run, times the seeds
};

// Validates every grid point (loading its scenario and flow control, so a bad path or
// value fails with exit code 2 before anything runs), runs them, writes DIR/runs/<index>/
// (with --seeds DIR/runs/<index>/seed-N/) and the CSV. Throws InputError on bad input.
SweepOutcome RunSweep(const SweepRequest& request);

// The CSV of the points `indices` (grid indices) with `summaries` (summary.json of each),
// as sweep.csv (with_index false) or as a part (with_index true: a first column
// grid_index). Exposed for tests.
std::string SweepCsv(const std::vector<SweepAxis>& axes,
                     const std::vector<std::vector<std::string>>& grid,
                     const std::vector<std::size_t>& indices,
                     const std::vector<nlohmann::json>& summaries, bool with_index);
// The same over seeds: `runs[k]` holds the summaries of point indices[k] on every seed,
// and each figure has the columns FIGURE_mean, FIGURE_ci95_lo and FIGURE_ci95_hi.
std::string SweepCsvOverSeeds(const std::vector<SweepAxis>& axes,
                              const std::vector<std::vector<std::string>>& grid,
                              const std::vector<std::size_t>& indices,
                              const std::vector<std::vector<nlohmann::json>>& runs,
                              bool with_index);

// Joins part files' texts (`names` for messages) into sweep.csv's text. Throws InputError
// when parts are missing, repeated, of different sweeps, or malformed.
std::string MergeSweepParts(const std::vector<std::string>& texts,
                            const std::vector<std::string>& names);

}  // namespace sim

#endif  // SIM_WORKFLOWS_SWEEP_H_

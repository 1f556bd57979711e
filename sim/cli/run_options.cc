#include "sim/cli/run_options.h"

#include <fmt/format.h>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/workflows/seed_list.h"

namespace po = boost::program_options;

namespace sim::cli {

void AddRunBudgetOptions(po::options_description& options) {
  options.add_options()(
      "max-events", po::value<std::uint64_t>()->default_value(RunBudget::kDefaultMaxEvents),
      "stop a run after this many simulated events, naming the busiest client (0: no limit)")(
      "max-wall-time",
      po::value<std::string>()->default_value(
          FormatDuration(static_cast<apf::Nanos>(RunBudget::kDefaultMaxWallSeconds * 1e9))),
      "stop a run that takes longer than this in real time, e.g. 10m (0: no limit)")(
      "max-pending-calls",
      po::value<std::uint64_t>()->default_value(RunBudget::kDefaultMaxPendingCalls),
      "stop a run when this many calls are pending at once (issued, not finished), naming the "
      "client that holds the most (0: no limit)");
}

RunBudget RunBudgetFrom(const po::variables_map& values) {
  RunBudget budget;
  budget.max_events = values["max-events"].as<std::uint64_t>();
  budget.max_pending_calls = values["max-pending-calls"].as<std::uint64_t>();
  const std::string wall = values["max-wall-time"].as<std::string>();
  std::string why;
  const std::optional<apf::Nanos> wall_ns = ParseDuration(wall, &why);
  if (!wall_ns || *wall_ns < 0) {
    throw InputError({"--max-wall-time", 0, 0}, "",
                     wall_ns ? fmt::format("must not be negative (got {})", wall) : why);
  }
  budget.max_wall_seconds = static_cast<double>(*wall_ns) / 1e9;
  return budget;
}

void AddSeedsOptions(po::options_description& options, bool jobs) {
  options.add_options()("seeds", po::value<std::string>(),
                        "run each scenario on these seeds and report every figure's mean and "
                        "95% interval: 1..20, 1,4,9 or 1..5,9");
  if (jobs) {
    options.add_options()("jobs,j", po::value<int>(), "runs at once (default: one per core)");
  }
}

SeedsOptions SeedsOptionsFrom(const po::variables_map& values) {
  SeedsOptions out;
  if (values.count("seeds")) {
    if (values.count("seed")) {
      throw InputError({"--seeds", 0, 0}, "",
                       "give --seed N (one run) or --seeds LIST (replications), not both");
    }
    out.seeds = ParseSeedList(values["seeds"].as<std::string>());
  }
  if (values.count("jobs")) {
    out.jobs = values["jobs"].as<int>();
    if (out.jobs < 1) throw InputError({"--jobs", 0, 0}, "", "must be at least 1");
  }
  return out;
}

void AddProgressOption(po::options_description& options) {
  options.add_options()(
      "progress", po::value<std::string>()->default_value("auto"),
      "auto: a live line on a terminal; always: also off a terminal, a line every 10 s "
      "(CI, kubectl logs); never");
}

ProgressMode ProgressModeFrom(const po::variables_map& values) {
  return ParseProgressMode(values["progress"].as<std::string>());
}

}  // namespace sim::cli

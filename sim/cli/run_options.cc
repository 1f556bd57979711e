#include "sim/cli/run_options.h"

#include <fmt/format.h>

#include "sim/io/duration.h"
#include "sim/io/input_error.h"

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

}  // namespace sim::cli

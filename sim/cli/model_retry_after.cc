// `apfsim model retry-after < cases.json`: see sim/model/retry_after.h for the format.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/json_input.h"
#include "sim/model/retry_after.h"

namespace sim::cli {
namespace {

int RunModelRetryAfter(const Args& args) {
  boost::program_options::options_description options("options");
  boost::program_options::variables_map values;
  if (!ParseCommandLine(args, "apfsim model retry-after < cases.json", options, nullptr, values)) {
    return kExitOk;
  }
  const nlohmann::json cases = ParseJsonText(ReadStdin(), "<stdin>");
  // One case per line: easy to diff against a recorded run, and deterministic.
  const nlohmann::json results = ReplayRetryAfterCases(cases, "<stdin>");
  std::cout << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << (i == 0 ? "\n" : ",\n") << results[i].dump();
  }
  std::cout << "\n]\n";
  return kExitOk;
}

const Registration kModelRetryAfter(
    {"model", "retry-after",
     "replay drops at one level through the Retry-After tracker (dropped_requests_tracker.go)",
     RunModelRetryAfter});

}  // namespace
}  // namespace sim::cli

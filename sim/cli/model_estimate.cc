// `apfsim model estimate < cases.json`: see sim/model/estimate.h for the format.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/json_input.h"
#include "sim/model/estimate.h"

namespace sim::cli {
namespace {

int RunModelEstimate(const Args& args) {
  boost::program_options::options_description options("options");
  boost::program_options::variables_map values;
  if (!ParseCommandLine(args, "apfsim model estimate < cases.json", options, nullptr, values)) {
    return kExitOk;
  }
  const nlohmann::json cases = ParseJsonText(ReadStdin(), "<stdin>");
  // One case per line: easy to diff against a recorded run, and deterministic.
  const nlohmann::json results = ReplayEstimateCases(cases, "<stdin>");
  std::cout << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << (i == 0 ? "\n" : ",\n") << results[i].dump();
  }
  std::cout << "\n]\n";
  return kExitOk;
}

const Registration kModelEstimate(
    {"model", "estimate",
     "estimate seats and additional latency of requests like the apiserver's work estimator",
     RunModelEstimate});

}  // namespace
}  // namespace sim::cli

// `apfsim model queueset < cases.json`: see sim/model/queueset.h for the format and
// the order of simultaneous events.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/json_input.h"
#include "sim/model/queueset.h"

namespace sim::cli {
namespace {

int RunModelQueueSet(const Args& args) {
  boost::program_options::options_description options("options");
  boost::program_options::variables_map values;
  if (!ParseCommandLine(args, "apfsim model queueset < cases.json", options, nullptr, values)) {
    return kExitOk;
  }
  const nlohmann::json cases = ParseJsonText(ReadStdin(), "<stdin>");
  const nlohmann::json results = ReplayQueueSetCases(cases, "<stdin>");
  // One case per line, one request per line within it: deterministic and easy to diff.
  std::cout << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << (i == 0 ? "\n" : ",\n") << "{\"results\": [";
    const nlohmann::json& list = results[i]["results"];
    for (size_t j = 0; j < list.size(); ++j) {
      std::cout << (j == 0 ? "\n  " : ",\n  ") << list[j].dump();
    }
    std::cout << "\n]}";
  }
  std::cout << "\n]\n";
  return kExitOk;
}

const Registration kModelQueueSet(
    {"model", "queueset",
     "replay arrivals, completions and time-outs through one queue set like queueset.go",
     RunModelQueueSet});

}  // namespace
}  // namespace sim::cli

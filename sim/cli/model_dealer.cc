// `apfsim model dealer < cases.json`: see sim/model/dealer.h for the format.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/json_input.h"
#include "sim/model/dealer.h"

namespace sim::cli {
namespace {

int RunModelDealer(const Args& args) {
  boost::program_options::options_description options("options");
  boost::program_options::variables_map values;
  if (!ParseCommandLine(args, "apfsim model dealer < cases.json", options, nullptr, values)) {
    return kExitOk;
  }
  const nlohmann::json cases = ParseJsonText(ReadStdin(), "<stdin>");
  // One case per line: easy to diff against a recorded run, and deterministic.
  const nlohmann::json results = ReplayDealerCases(cases, "<stdin>");
  std::cout << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << (i == 0 ? "\n" : ",\n") << results[i].dump();
  }
  std::cout << "\n]\n";
  return kExitOk;
}

const Registration kModelDealer(
    {"model", "dealer", "deal shuffle-sharding hands (deck, hand, hash) like shufflesharding.go",
     RunModelDealer});

}  // namespace
}  // namespace sim::cli

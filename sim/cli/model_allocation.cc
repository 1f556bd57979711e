// `apfsim model allocation < cases.json`: the seat allocation (nominal, min and max limits,
// max seats, and the 10-second re-division) replayed on JSON cases; the format is in
// sim/model/allocation.h.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/json_input.h"
#include "sim/model/allocation.h"

namespace sim::cli {
namespace {

int RunModelAllocation(const Args& args) {
  boost::program_options::options_description options("options");
  boost::program_options::variables_map values;
  if (!ParseCommandLine(args, "apfsim model allocation < cases.json > results.json", options,
                        nullptr, values)) {
    return kExitOk;
  }
  const std::string source = "<stdin>";
  const nlohmann::json cases = ParseJsonText(ReadStdin(), source);
  std::cout << ReplayAllocationCases(cases, source).dump(2) << "\n";
  return kExitOk;
}

const Registration kModelAllocation({"model", "allocation",
                                     "seat allocation: limits per level and currentCL per period",
                                     RunModelAllocation});

}  // namespace
}  // namespace sim::cli

// `apfsim model flowhash`: the flow hash of each {"flowSchema", "distinguisher"} on stdin
// (APF-SPEC 2.5), as [{"hash": "<uint64 decimal>"}] in the same order.
#include <iostream>

#include "sim/cli/command.h"
#include "sim/io/json_input.h"
#include "sim/model/classify.h"

namespace sim::cli {
namespace {

int RunFlowHash(const Args& args) {
  boost::program_options::options_description opts("options");
  boost::program_options::variables_map vm;
  if (!ParseCommandLine(args, "apfsim model flowhash < cases.json", opts, nullptr, vm)) {
    return kExitOk;
  }
  const nlohmann::json cases = ParseJsonText(ReadStdin(), "<stdin>");
  std::cout << FlowHashCases(cases, "<stdin>").dump() << "\n";
  return kExitOk;
}

const Registration kFlowHash({"model", "flowhash",
                              "hashFlowID(flowSchema, distinguisher) for each case", RunFlowHash});

}  // namespace
}  // namespace sim::cli

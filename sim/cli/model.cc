// `apfsim model NAME`: replays one apf/ model on JSON cases read from stdin and writes the
// model's decisions as JSON on stdout. These are how cases recorded from the real
// kube-apiserver code are checked against ours; each NAME is its own file model_*.cc.
#include <iostream>

#include "sim/cli/command.h"

namespace sim::cli {
namespace {

int RunModel(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: apfsim model NAME < cases.json > results.json\n\nmodels:\n";
    for (const CommandSpec& c : CommandsUnder("model")) {
      std::cout << "  " << c.name << "  " << c.summary << "\n";
    }
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const CommandSpec* model = FindCommand("model", args[0]);
  if (!model) {
    std::cerr << "apfsim model: unknown model \"" << args[0] << "\" (see apfsim model --help)\n";
    return kExitBadInput;
  }
  return model->run(Args(args.begin() + 1, args.end()));
}

const Registration kModel({"", "model", "replay one APF model on JSON cases from stdin", RunModel});

}  // namespace
}  // namespace sim::cli

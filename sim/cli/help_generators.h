// What is written from the flag table besides --help: the man page apfsim(1) and the bash
// and zsh completion scripts, so that a flag is described in one place (sim/cli/flags.h).
// `apfsim completion bash|zsh` and `apfsim man` print them; `cmake --install` installs
// them. The completion completes commands, each command's flags (a table command's from
// the table; any other's from its --help), scenario files for scenario arguments, and level
// and client names from the scenario on the line (`apfsim __complete levels SCENARIO`).
//
// Tested by tests/cli/completion_test.cc.
#ifndef SIM_CLI_HELP_GENERATORS_H_
#define SIM_CLI_HELP_GENERATORS_H_

#include <string>

namespace sim::cli {

// apfsim(1) in roff (man(7) macros).
std::string ManPage();
// A script that `source` loads into bash: the function _apfsim, registered for apfsim.
std::string BashCompletion();
// The same for zsh, through bashcompinit.
std::string ZshCompletion();

}  // namespace sim::cli

#endif  // SIM_CLI_HELP_GENERATORS_H_

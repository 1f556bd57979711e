// The apfsim command registry. Each subcommand is one file in sim/cli/ that defines a
// function and registers it with a static `Registration` (`apfsim model NAME`'s models
// are rows of one table in sim/cli/model.cc instead). main.cc looks commands up here, so
// adding a command touches no other file.
#ifndef SIM_CLI_COMMAND_H_
#define SIM_CLI_COMMAND_H_

#include <boost/program_options.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sim::cli {

// Exit codes, documented in the README and in `apfsim --help`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitExpectationFailed = 1;  // a scenario's `expect` assertion failed
inline constexpr int kExitBadInput = 2;           // bad usage or bad input
inline constexpr int kExitInternal = 3;           // a bug in apfsim

using Args = std::vector<std::string>;  // the arguments after the command's name
using CommandFunction = int (*)(const Args& args);

struct CommandSpec {
  std::string_view parent;  // "" for top-level commands
  std::string_view name;
  std::string_view summary;  // one line for the command list
  CommandFunction run;
};

class Registration {
 public:
  explicit Registration(const CommandSpec& spec);
};

// Commands under `parent`, sorted by name.
std::vector<CommandSpec> CommandsUnder(std::string_view parent);
const CommandSpec* FindCommand(std::string_view parent, std::string_view name);

// Parses `args` for the command `usage` ("apfsim explain [options]") with `options`
// (a --help option is added). Returns false when --help was printed and the command
// should exit 0; the help ends with an "Examples:" block of `examples` (command lines, one
// a line, every command has some: tests/cli/help_examples_test.cc). Bad usage throws
// boost::program_options::error, which main() reports with exit code 2.
bool ParseCommandLine(const Args& args, const std::string& usage,
                      boost::program_options::options_description& options,
                      const boost::program_options::positional_options_description* positional,
                      boost::program_options::variables_map& values,
                      const std::string& examples = "");

// The "Examples:" block of a --help: each line of `examples` indented.
std::string ExamplesBlock(const std::string& examples);

}  // namespace sim::cli

#endif  // SIM_CLI_COMMAND_H_

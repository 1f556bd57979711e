// apfsim's entry point: finds the subcommand in the registry and maps failures to the
// documented exit codes.
#include <boost/program_options.hpp>
#include <csignal>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "sim/cli/command.h"
#include "sim/io/input_error.h"
#include "sim/io/yaml_input.h"
#include "sim/workflows/interrupt.h"

namespace {

using sim::cli::CommandSpec;

void PrintCommandList(std::string_view parent) {
  for (const CommandSpec& c : sim::cli::CommandsUnder(parent)) {
    if (c.name.starts_with("__")) continue;  // for the shell completion only
    std::string name(c.name);
    name.resize(std::max<size_t>(name.size() + 2, 14), ' ');
    std::cout << "  " << name << c.summary << "\n";
  }
}

void PrintToolHelp() {
  std::cout
      << "apfsim " APFSIM_VERSION
         ": a discrete-event simulator of Kubernetes API Priority and Fairness\n\n"
         "usage: apfsim COMMAND [options]   (apfsim COMMAND --help for a command's options)\n\n"
         "commands:\n";
  PrintCommandList("");
  std::cout
      << "\nexit codes:\n"
         "  0  success\n"
         "  1  an expectation in a scenario failed\n"
         "  2  bad usage or bad input\n"
         "  3  internal error\n"
         "  130, 143  interrupted by SIGINT (Ctrl-C) or SIGTERM; nothing half-written\n"
         "\nExamples:\n"
         "  apfsim run scenarios/drift-sweep.yaml\n"
         "  apfsim compare scenarios/drift-sweep.yaml --with scenarios/drift-sweep-fenced.yaml\n"
         "  apfsim lint --scenario scenarios/drift-sweep-fenced.yaml\n";
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) must show as a failed write that the output code reports,
  // not as a signal that kills the process mid-file.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintToolHelp();
    return args.empty() ? sim::cli::kExitBadInput : sim::cli::kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "apfsim " APFSIM_VERSION "\n";
    return sim::cli::kExitOk;
  }
  const CommandSpec* command = sim::cli::FindCommand("", args[0]);
  if (!command) {
    std::vector<std::string> names;
    for (const CommandSpec& c : sim::cli::CommandsUnder("")) names.emplace_back(c.name);
    std::cerr << "apfsim: unknown command \"" << args[0] << "\"" << sim::DidYouMean(args[0], names)
              << " (see apfsim --help)\n";
    return sim::cli::kExitBadInput;
  }
  try {
    return command->run(std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const sim::RunInterrupted& e) {
    std::cerr << "apfsim " << command->name << ": " << e.what() << "\n";
    return e.exit_code();
  } catch (const sim::InputError& e) {
    std::cerr << "apfsim " << command->name << ": error: " << e.what() << "\n";
    return sim::cli::kExitBadInput;
  } catch (const boost::program_options::error& e) {
    std::cerr << "apfsim " << command->name << ": " << e.what() << " (see apfsim " << command->name
              << " --help)\n";
    return sim::cli::kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Running out of memory is the input's doing (a scenario too large for the machine), not
    // a bug: what was begun is removed as the stack unwinds, and the message says what to do.
    std::cerr << "apfsim " << command->name
              << ": error: out of memory: the scenario needs more memory than this machine "
                 "gives (check its rates, counts and sizes; --max-pending-calls bounds the calls "
                 "a run holds at once); no output was written\n";
    return sim::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "apfsim " << command->name << ": internal error: " << e.what() << "\n";
    return sim::cli::kExitInternal;
  }
}

#include "sim/cli/command.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <sstream>

namespace po = boost::program_options;

namespace sim::cli {
namespace {

std::vector<CommandSpec>& Registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}

}  // namespace

Registration::Registration(const CommandSpec& spec) { Registry().push_back(spec); }

std::vector<CommandSpec> CommandsUnder(std::string_view parent) {
  std::vector<CommandSpec> out;
  for (const CommandSpec& c : Registry()) {
    if (c.parent == parent) out.push_back(c);
  }
  std::sort(out.begin(), out.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
  return out;
}

const CommandSpec* FindCommand(std::string_view parent, std::string_view name) {
  for (const CommandSpec& c : Registry()) {
    if (c.parent == parent && c.name == name) return &c;
  }
  return nullptr;
}

bool ParseCommandLine(const Args& args, const std::string& usage, po::options_description& options,
                      const po::positional_options_description* positional,
                      po::variables_map& values, const std::string& examples) {
  options.add_options()("help,h", "show this help");
  auto parser = po::command_line_parser(args).options(options);
  po::positional_options_description none;
  parser.positional(positional ? *positional : none);
  po::store(parser.run(), values);
  if (values.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << options << "\n" << ExamplesBlock(examples);
    return false;
  }
  po::notify(values);
  return true;
}

std::string ExamplesBlock(const std::string& examples) {
  if (examples.empty()) return "";
  std::string out = "Examples:\n";
  std::istringstream lines(examples);
  for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
  return out;
}

std::string ReadStdin() {
  std::ostringstream buffer;
  buffer << std::cin.rdbuf();
  return buffer.str();
}

}  // namespace sim::cli

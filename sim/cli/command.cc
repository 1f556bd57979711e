#include "sim/cli/command.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <sstream>

#include "sim/io/input_error.h"
#include "sim/io/input_file.h"
#include "sim/io/yaml_input.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

std::vector<CommandSpec>& Registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}

// boost's lexical_cast reads "-1" into an unsigned option as 2^64 - 1, so `--seed -1` would
// be a different seed and `--max-events -5` no limit at all: an unsigned option's value that
// starts with a minus sign is refused here, for every command at once.
void RefuseNegativeUnsigned(const po::parsed_options& parsed,
                            const po::options_description& options) {
  for (const po::option& o : parsed.options) {
    const po::option_description* d = options.find_nothrow(o.string_key, false);
    if (!d) continue;
    const po::value_semantic* semantic = d->semantic().get();
    const bool is_unsigned =
        dynamic_cast<const po::typed_value<unsigned long>*>(semantic) ||
        dynamic_cast<const po::typed_value<unsigned long long>*>(semantic) ||
        dynamic_cast<const po::typed_value<unsigned int>*>(semantic) ||
        dynamic_cast<const po::typed_value<std::vector<unsigned long>>*>(semantic) ||
        dynamic_cast<const po::typed_value<std::vector<unsigned long long>>*>(semantic);
    if (!is_unsigned) continue;
    for (const std::string& token : o.value) {
      const std::size_t first = token.find_first_not_of(" \t");
      if (first != std::string::npos && token[first] == '-') {
        throw InputError({"--" + o.string_key, 0, 0}, "",
                         "must be a non-negative integer, got " + token);
      }
    }
  }
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
  po::parsed_options parsed(&options);
  try {
    parsed = parser.run();
  } catch (const po::unknown_option& e) {
    // A misspelt flag gets the nearest one of this command, as a misspelt field does.
    const std::string given = e.get_option_name();
    std::vector<std::string> known;
    for (const auto& d : options.options()) known.push_back("--" + d->long_name());
    std::string word = given;
    if (const std::size_t eq = word.find('='); eq != std::string::npos) word.resize(eq);
    const std::string near = DidYouMean(word, known);
    throw InputError({word, 0, 0}, "",
                     "unknown option" + (near.empty() ? " (see --help for the options)" : near));
  }
  RefuseNegativeUnsigned(parsed, options);
  po::store(parsed, values);
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

}  // namespace sim::cli

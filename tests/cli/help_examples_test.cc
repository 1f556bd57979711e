// Every command's --help ends with an "Examples:" block that uses the command, and no line
// of a help is 100 characters or longer (explain's usage was one 300-character
// line). The commands are the ones `apfsim --help` lists, `apfsim sweep merge`, and each
// model `apfsim model --help` lists, so a new command is checked without editing this test.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using test_support::CommandResult;

namespace {

// The first word of each line after `heading` up to the next blank line.
std::vector<std::string> ListedNames(const std::string& text, const std::string& heading) {
  std::vector<std::string> names;
  const std::size_t at = text.find(heading);
  if (at == std::string::npos) return names;
  std::istringstream lines(text.substr(at + heading.size()));
  for (std::string line; std::getline(lines, line) && !line.empty();) {
    std::istringstream words(line);
    std::string name;
    if (words >> name) names.push_back(name);
  }
  return names;
}

}  // namespace

TEST_CASE("every command's --help has examples and no line of 100 characters", "[cli][help]") {
  const test_support::ScratchDir dir("apfsim-help-examples");
  const CommandResult top = test_support::RunApfsim("--help", dir.path());
  REQUIRE(top.exit_code == 0);
  std::vector<std::string> commands = ListedNames(top.out, "commands:\n");
  // The nine commands of the README's table; more is fine, fewer means the list broke.
  CHECK(commands.size() >= 9);
  commands.push_back("sweep merge");
  const CommandResult models = test_support::RunApfsim("model --help", dir.path());
  for (const std::string& m : ListedNames(models.out, "models:\n"))
    commands.push_back("model " + m);
  for (const std::string& command : commands) {
    INFO("apfsim " << command << " --help");
    const CommandResult help = test_support::RunApfsim(command + " --help", dir.path());
    CHECK(help.exit_code == 0);
    const std::size_t examples = help.out.find("\nExamples:\n");
    REQUIRE(examples != std::string::npos);
    // An example uses the command itself ("apfsim model" for a model: "| apfsim model X").
    const std::string first_word = command.substr(0, command.find(' '));
    CHECK(help.out.find("apfsim " + first_word, examples) != std::string::npos);
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      INFO(line);
      CHECK(line.size() < 100);
    }
  }
}

// `apfsim model NAME --help` says what JSON the model reads and gives an example; the
// example, run as printed (with this build's binary), must work and answer one case.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using test_support::CommandResult;

TEST_CASE("every apfsim model documents its input with an example that runs", "[cli][model]") {
  const test_support::ScratchDir dir("apfsim-model-help");
  const CommandResult list = test_support::RunApfsim("model --help", dir.path());
  REQUIRE(list.exit_code == 0);
  std::vector<std::string> models;
  std::istringstream lines(list.out.substr(list.out.find("models:\n") + 8));
  for (std::string line; std::getline(lines, line) && !line.empty();) {  // to the Examples
    std::istringstream words(line);
    std::string name;
    if (words >> name) models.push_back(name);
  }
  CHECK(models.size() == 7);
  for (const std::string& model : models) {
    INFO("apfsim model " << model << " --help");
    const CommandResult help = test_support::RunApfsim("model " + model + " --help", dir.path());
    REQUIRE(help.exit_code == 0);
    CHECK(help.out.find("\ninput: a JSON array of ") != std::string::npos);
    const size_t example = help.out.find("\nExamples:\n");
    REQUIRE(example != std::string::npos);
    // The example is the help's last block; "apfsim" is this build's.
    std::string command = help.out.substr(example + 11);
    while (!command.empty() && command.back() == '\n') command.pop_back();
    const std::string tail = "| apfsim model " + model;
    REQUIRE(command.size() > tail.size());
    CHECK(command.compare(command.size() - tail.size(), tail.size(), tail) == 0);
    command.replace(command.size() - tail.size(), tail.size(),
                    "| " + test_support::ShellQuote(APFSIM_BINARY) + " model " + model);
    const CommandResult run = test_support::RunShellCommand(command, dir.path());
    CHECK(run.exit_code == 0);
    CHECK(run.err.empty());
    CHECK(run.out.find('{') != std::string::npos);  // one answer object
  }
}

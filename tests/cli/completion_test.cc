// The bash completion that `apfsim completion bash` writes from the flag table
// (sim/cli/help_generators.h), driven as bash drives it: COMP_WORDS and COMP_CWORD set, the
// function _apfsim called, COMPREPLY read. It completes commands, a command's flags (from
// the table, or from --help for the others), scenario files, and the level and client
// names of the scenario on the line (`apfsim __complete levels`).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/support/test_support.h"

using test_support::CommandResult;
using test_support::ShellQuote;

namespace {

// What bash offers for the words `line` (the last one is being typed), one per line.
std::string Complete(const std::string& line, const std::filesystem::path& dir) {
  const std::string bin_dir = std::filesystem::path(APFSIM_BINARY).parent_path().string();
  const std::string script = "export PATH=" + ShellQuote(bin_dir) +
                             ":\"$PATH\"; source <(apfsim completion bash); COMP_WORDS=(" + line +
                             "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _apfsim; " +
                             "printf '%s\\n' \"${COMPREPLY[@]}\"";
  const CommandResult r = test_support::RunShellCommand(
      "cd " + ShellQuote(APFSIM_SOURCE_DIR) + " && bash -c " + ShellQuote(script), dir);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("bash completion offers commands, flags, scenario files and level names",
          "[cli][completion]") {
  const test_support::ScratchDir dir("apfsim-completion");
  CHECK(Complete("apfsim ru", dir.path()) == "run\n");
  CHECK(Complete("apfsim co", dir.path()) == "compare\ncompletion\n");
  // A table command's flags.
  CHECK(Complete("apfsim run --ov", dir.path()) == "--overlay\n");
  CHECK(Complete("apfsim compare x.yaml --after", dir.path()) == "--after-set\n");
  // Another command's, from its --help.
  CHECK(Complete("apfsim explain --scen", dir.path()) == "--scenario\n");
  // Scenario files for the positional argument.
  CHECK(Complete("apfsim run scenarios/drift-sweep-fi", dir.path()) ==
        "scenarios/drift-sweep-fixed.yaml\n");
  // --trace takes a client or level of the scenario on the line (scenarios/drift-sweep.yaml
  // has the client tenant-operator and the suggested level workload-low).
  CHECK(Complete("apfsim run scenarios/drift-sweep.yaml --trace tenant-op", dir.path()) ==
        "tenant-operator\n");
  CHECK(Complete("apfsim run scenarios/drift-sweep.yaml --trace workload-l", dir.path()) ==
        "workload-low\n");
  // No scenario on the line: nothing to offer for a level (printf prints one empty line).
  CHECK(Complete("apfsim run --trace work", dir.path()) == "\n");
}

TEST_CASE("apfsim man writes a man page with every table flag of every command",
          "[cli][completion]") {
  const test_support::ScratchDir dir("apfsim-man");
  const CommandResult r = test_support::RunApfsim("man", dir.path());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind(".TH APFSIM 1", 0) == 0);
  for (const char* section :
       {"OPTIONS OF apfsim run", "OPTIONS OF apfsim check", "OPTIONS OF apfsim compare",
        "OPTIONS OF apfsim sweep", "OPTIONS OF apfsim tune"}) {
    CHECK(r.out.find(section) != std::string::npos);
  }
  CHECK(r.out.find("\\fB\\-\\-overlay\\fR \\fIFILE\\fR") != std::string::npos);
  CHECK(r.out.find("\\fB\\-\\-max\\-events\\fR \\fIN\\fR") != std::string::npos);
  CHECK(r.out.find("__complete") == std::string::npos);
}

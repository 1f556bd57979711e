// A misspelt subcommand, model or flag is refused with exit 2 and a first stderr line that
// names it and the nearest real one (the same edit-distance rule as a misspelt YAML field,
// sim/io/yaml_input.h ClosestMatch); a word near nothing gets the pointer to --help.
#include <catch2/catch.hpp>
#include <string>

#include "tests/support/test_support.h"

using test_support::CommandResult;

namespace {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("a misspelt command, model or flag gets a did-you-mean and exit 2", "[cli]") {
  const test_support::ScratchDir dir("apfsim-did-you-mean");
  struct Case {
    const char* args;
    const char* first_line;
  };
  const Case cases[] = {
      {"rnu", "apfsim: unknown command \"rnu\" (did you mean \"run\"?) (see apfsim --help)"},
      {"chekc", "apfsim: unknown command \"chekc\" (did you mean \"check\"?) (see apfsim --help)"},
      {"model quuset",
       "apfsim model: unknown model \"quuset\" (did you mean \"queueset\"?) (see apfsim model "
       "--help)"},
      {"run x.yaml --ovrlay y.yaml",
       "apfsim run: error: --ovrlay: unknown option (did you mean \"--overlay\"?)"},
      {"check x.yaml --junitt=out.xml",
       "apfsim check: error: --junitt: unknown option (did you mean \"--junit\"?)"},
      {"compare x.yaml --wiht y.yaml",
       "apfsim compare: error: --wiht: unknown option (did you mean \"--with\"?)"},
      {"sweep x.yaml --varry a=1,2",
       "apfsim sweep: error: --varry: unknown option (did you mean \"--vary\"?)"},
      {"run x.yaml --zzzzzzzz",
       "apfsim run: error: --zzzzzzzz: unknown option (see --help for the options)"},
  };
  for (const Case& c : cases) {
    INFO("apfsim " << c.args);
    const CommandResult r = test_support::RunApfsim(c.args, dir.path());
    CHECK(r.exit_code == 2);
    CHECK(FirstLine(r.err) == c.first_line);
    CHECK(r.out.empty());
  }
}

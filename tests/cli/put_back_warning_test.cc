// An edit the config producer puts back is named on every command that loads the objects,
// once per command however many runs it makes: `run`, `compare`, `check --seeds`, `sweep`
// and `tune` on a scenario whose workload-low is edited (100 -> 20 shares) but still carries
// `apf.kubernetes.io/autoupdate-spec: "true"`, as every object of a kubectl export does.
// The apiserver's config producer (k/k pkg/registry/flowcontrol/ensurer, strategy.go) puts a
// suggested object's spec back while that annotation is "true"
// (doc/config-loading.md#specs-put-back), so the edit has no effect and the user must hear
// it: the warning names the object, the field with both values and the remedy.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_support.h"

namespace {

namespace fs = std::filesystem;

using test_support::CommandResult;
using test_support::ReadFile;
using test_support::RunApfsim;
using test_support::ScratchDir;
using test_support::ShellQuote;

// tests/fixtures/tune/mini-drift-goal.yaml (30 s, a goal in spec.expect) with workload-low
// exported as edited: 20 shares instead of the suggested 100.
std::string EditedScenario(const ScratchDir& scratch) {
  std::string text = ReadFile(fs::path(APFSIM_SOURCE_DIR) / "tests" / "fixtures" / "tune" /
                              "mini-drift-goal.yaml");
  const std::string objects = R"(  flowControl:
    objects:
    - apiVersion: flowcontrol.apiserver.k8s.io/v1
      kind: PriorityLevelConfiguration
      metadata:
        name: workload-low
        annotations: {apf.kubernetes.io/autoupdate-spec: "true"}
      spec:
        type: Limited
        limited:
          nominalConcurrencyShares: 20
          lendablePercent: 90
          limitResponse:
            type: Queue
            queuing: {queues: 128, handSize: 6, queueLengthLimit: 50}
)";
  text.insert(text.find("  expect:\n"), objects);
  const std::string path = scratch.File("edited.yaml");
  std::ofstream(path) << text;
  return path;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("every command that loads the objects names an edit put back, once", "[cli]") {
  const ScratchDir scratch("apfsim-put-back");
  const std::string scenario = ShellQuote(EditedScenario(scratch));
  const std::string out = ShellQuote(scratch.File("out"));
  const std::string warning =
      "warning: PriorityLevelConfiguration workload-low: the apiserver puts the suggested spec "
      "back";
  struct Command {
    const char* name;
    std::string args;
  };
  const Command commands[] = {
      {"run", "run " + scenario + " --out " + out},
      {"compare", "compare " + scenario + " --after-set apiservers.maxRequestsInflight=120"},
      {"check --seeds", "check " + scenario + " --seeds 1..3 --out " + out},
      {"sweep", "sweep " + scenario + " --vary duration=5s,10s --no-plot --out " + out},
      {"tune", "tune " + scenario + " --budget 1 --no-compare --no-plot --out " + out},
  };
  for (const Command& c : commands) {
    INFO(c.name);
    const CommandResult r = RunApfsim(c.args, scratch.path());
    INFO(r.Output());
    // 0, or 1 where the goal (spec.expect) fails: never an input error.
    CHECK((r.exit_code == 0 || r.exit_code == 1));
    CHECK(Count(r.err, warning) == 1);
    CHECK(r.err.find("nominalConcurrencyShares") != std::string::npos);
    CHECK(r.err.find("set metadata.annotations[\"apf.kubernetes.io/autoupdate-spec\"] to "
                     "\"false\"") != std::string::npos);
  }
  // --quiet keeps to errors, as run's does.
  const CommandResult quiet =
      RunApfsim("check " + scenario + " --quiet --out " + out, scratch.path());
  CHECK(quiet.err.find(warning) == std::string::npos);
}

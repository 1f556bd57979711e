// The flags of the commands that run scenarios (run, check, compare, sweep, tune), in one
// table: each flag's name, value, help, default and the commands that take it. Commands
// declare their flags from it (AddTableFlags) and read the shared ones back with one reader
// (ScenarioFlagsFrom); `--help`, the man page and the shell completion
// (sim/cli/help_generators.h) are written from it, so a flag is described once.
//
// Adding a flag is one row of FlagTable() in sim/cli/flags.cc:
//   {"trace-window", 0, FlagValue::kText, "FROM..TO", "run",
//    "with --trace: only the attempts that arrive in this part of the run, ..."},
// A flag every scenario command shares names all five commands and, when its value is
// common to them, gets a field in ScenarioFlags, filled in ScenarioFlagsFrom. A flag whose
// meaning differs between commands gets one row per meaning, each naming its commands (see
// "out"); a command reads its own flags from the variables_map, by name.
#ifndef SIM_CLI_FLAGS_H_
#define SIM_CLI_FLAGS_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/report/interval_figures.h"
#include "sim/report/openmetrics.h"
#include "sim/report/recovery.h"
#include "sim/scenario/run_budget.h"
#include "sim/workflows/progress.h"

namespace sim::cli {

enum class FlagValue {
  kSwitch,    // no value: present or not
  kText,      // one string
  kTextList,  // a string, repeatable (and the positional scenario list of check)
  kCount,     // a non-negative integer (std::uint64_t)
  kInt,       // an integer (int)
};

// What a shell completes after the flag.
enum class FlagCompletion {
  kNone,
  kScenario,  // a scenario file (*.yaml)
  kYaml,      // another YAML file: an overlay, flow-control manifests
  kFile,      // any file
  kDir,       // a folder
  kLevel,     // a priority level or client of the scenario on the line
};

struct FlagSpec {
  // A row reads as the table is written: the fields after `help` may be left out.
  FlagSpec(std::string name, char short_name, FlagValue value, std::string value_name,
           std::string commands, std::string help, std::string default_text = "",
           FlagCompletion completion = FlagCompletion::kNone, bool required = false)
      : name(std::move(name)),
        short_name(short_name),
        value(value),
        value_name(std::move(value_name)),
        commands(std::move(commands)),
        help(std::move(help)),
        default_text(std::move(default_text)),
        completion(completion),
        required(required) {}

  std::string name;  // the long name, without "--"
  char short_name;   // 0: none
  FlagValue value;
  std::string value_name;  // in the man page: "N", "PATH=VALUE" ("" for a switch)
  std::string commands;    // the commands that take it, space-separated: "run check"
  std::string help;
  std::string default_text;  // "": no default; else the value's default as text
  FlagCompletion completion;
  bool required;
};

// Every row, in the order --help lists them.
const std::vector<FlagSpec>& FlagTable();
// The rows `command` takes, in table order.
std::vector<const FlagSpec*> FlagsOf(std::string_view command);
// The row of --`name` for `command`, or null.
const FlagSpec* FindFlag(std::string_view command, std::string_view name);

// Declares every flag of `command` in `options` (a --help is added by ParseCommandLine).
void AddTableFlags(std::string_view command, boost::program_options::options_description& options);

// Parses the command line of a command that takes the table's flags and SCENARIO as its
// positional argument (`scenarios` of them, -1 for any number): declares the flags, parses,
// and returns false when --help was printed (ParseCommandLine in sim/cli/command.h).
bool ParseTableCommand(const std::vector<std::string>& args, std::string_view command,
                       const std::string& usage, const std::string& examples,
                       boost::program_options::variables_map& values, int scenarios = 1);

// What the shared flags say, read back once for every command. A field stays at its
// default when the command does not take the flag.
struct ScenarioFlags {
  std::vector<std::string> scenarios;             // the positional SCENARIO (check takes several)
  std::string out;                                // --out ("": the command's default folder)
  std::optional<std::uint64_t> seed;              // --seed
  std::vector<std::uint64_t> seeds;               // --seeds LIST; empty: one run
  int jobs = 0;                                   // --jobs; 0: one per core
  std::vector<std::string> sets;                  // --set PATH=VALUE, in order
  std::vector<std::string> overlays;              // --overlay FILE, in order
  std::optional<std::string> interval;            // --interval
  std::optional<ReportWindow> window;             // --window FROM..TO
  std::optional<RecoveryBounds> recovered_when;   // --recovered-when BOUNDS
  std::optional<int> recovered_from;              // --recovered-from N
  bool quiet = false;                             // --quiet
  bool no_plot = false;                           // --no-plot
  ProgressMode progress = ProgressMode::kNever;   // --progress (auto unless given)
  RunBudget budget;                               // --max-events, --max-wall-time, ...
  std::optional<OpenMetricsOptions> openmetrics;  // --openmetrics with --start-time, --label

  const std::string& scenario() const { return scenarios.front(); }
};

// Reads the shared flags from a parsed command line. A bad --seeds, --jobs below 1, --seed
// with --seeds, a bad --window, --max-wall-time or --progress, or an OpenMetrics flag
// without --openmetrics throws InputError naming the flag.
ScenarioFlags ScenarioFlagsFrom(const boost::program_options::variables_map& values);

// Copies into a command's request every shared flag the request has a field for, by the
// names the workflows use (scenario_file, out_dir, overrides, overlay_files, seed, seeds,
// jobs, interval, window, recovered_when, recovered_from, quiet, progress, budget, openmetrics), so
// that each command states only what it reads differently.
template <typename Request>
void FillRequest(const ScenarioFlags& flags, Request& request) {
  if constexpr (requires { request.scenario_file = flags.scenario(); }) {
    request.scenario_file = flags.scenario();
  }
  if constexpr (requires { request.out_dir = flags.out; }) request.out_dir = flags.out;
  if constexpr (requires { request.overrides = flags.sets; }) request.overrides = flags.sets;
  if constexpr (requires { request.overlay_files = flags.overlays; }) {
    request.overlay_files = flags.overlays;
  }
  if constexpr (requires { request.seed = flags.seed; }) request.seed = flags.seed;
  if constexpr (requires { request.seeds = flags.seeds; }) request.seeds = flags.seeds;
  if constexpr (requires { request.jobs = flags.jobs; }) request.jobs = flags.jobs;
  if constexpr (requires { request.interval = flags.interval; }) request.interval = flags.interval;
  if constexpr (requires { request.window = flags.window; }) request.window = flags.window;
  if constexpr (requires { request.recovered_when = flags.recovered_when; }) {
    request.recovered_when = flags.recovered_when;
  }
  if constexpr (requires { request.recovered_from = flags.recovered_from; }) {
    request.recovered_from = flags.recovered_from;
  }
  if constexpr (requires { request.quiet = flags.quiet; }) request.quiet = flags.quiet;
  // RunRequest's progress is the meter it advances, not the mode: left to the command.
  if constexpr (requires { request.progress = flags.progress; }) request.progress = flags.progress;
  if constexpr (requires { request.budget = flags.budget; }) request.budget = flags.budget;
  if constexpr (requires { request.openmetrics = flags.openmetrics; }) {
    request.openmetrics = flags.openmetrics;
  }
}

}  // namespace sim::cli

#endif  // SIM_CLI_FLAGS_H_

#include "sim/cli/flags.h"

#include <fmt/format.h>

#include <sstream>

#include "sim/cli/command.h"
#include "sim/cli/openmetrics_options.h"
#include "sim/io/duration.h"
#include "sim/io/input_error.h"
#include "sim/workflows/seed_list.h"
#include "sim/workflows/trace_size.h"

namespace po = boost::program_options;

namespace sim::cli {
namespace {

using V = FlagValue;
using C = FlagCompletion;

constexpr const char* kScenarioCommands = "run check compare sweep tune";

std::vector<FlagSpec> BuildTable() {
  const std::string wall_default =
      FormatDuration(static_cast<apf::Nanos>(RunBudget::kDefaultMaxWallSeconds * 1e9));
  return {
      // The scenario: the positional argument, also accepted as --scenario.
      {"scenario", 0, V::kText, "FILE", "run sweep", "the scenario file (- reads standard input)",
       "", C::kScenario, true},
      {"scenario", 0, V::kTextList, "FILE", "check", "the scenario files", "", C::kScenario},
      {"scenario", 0, V::kText, "FILE", "compare", "the scenario (the before run)", "",
       C::kScenario, true},
      {"scenario", 0, V::kText, "FILE", "tune", "the scenario; its spec.expect is the goal", "",
       C::kScenario, true},
      {"with", 0, V::kText, "FILE", "compare", "the after run is this scenario instead", "",
       C::kScenario},
      {"vary", 0, V::kTextList, "PATH=LIST", "sweep",
       "a --set path and its values, a,b,c or FROM..TO:STEP (repeatable: the grid is every "
       "combination, the first --vary outermost)",
       "", C::kNone, true},
      // --out: each command writes something else there.
      {"out", 0, V::kText, "DIR", "run", "output folder (default out/<scenario name>)", "",
       C::kDir},
      {"out", 0, V::kText, "DIR", "check",
       "folder for the runs' outputs, one subfolder per scenario (default out/<scenario name>)", "",
       C::kDir},
      {"out", 0, V::kText, "DIR", "compare",
       "also write DIR/before, DIR/after, DIR/compare.json (its verdict per side and "
       "clientMoves, what moved per client, as the table opens with them) and DIR/compare.png "
       "(titled with the verdict; panels in which nothing happened dropped)",
       "", C::kDir},
      {"out", 0, V::kText, "DIR", "sweep", "output folder (default out/<scenario name>-sweep)", "",
       C::kDir},
      {"out", 0, V::kText, "DIR", "tune",
       "folder for fix.yaml, tune.json, compare.json (default out/<scenario file>-tune)", "",
       C::kDir},
      {"seed", 0, V::kCount, "N", "run check compare sweep",
       "the seed of every run (default: the scenario's spec.seed)"},
      {"seeds", 0, V::kText, "LIST", "run check compare sweep",
       "run each scenario on these seeds and report every figure's mean and 95% interval: "
       "1..20, 1,4,9 or 1..5,9"},
      {"seeds", 0, V::kText, "LIST", "tune",
       "the seeds every candidate must meet spec.expect on: 1..20, 1,4,9 or 1..5,9 (default "
       "1..3)"},
      {"jobs", 'j', V::kInt, "N", kScenarioCommands, "runs at once (default: one per core)"},
      {"set", 0, V::kTextList, "PATH=VALUE", "run check compare sweep",
       "override a scenario value in every run (repeatable)"},
      {"set", 0, V::kTextList, "PATH=VALUE", "tune",
       "search from the scenario with this value (repeatable): every candidate's runs and the "
       "compare at the end have it; the fix does not include it"},
      {"after-set", 0, V::kTextList, "PATH=VALUE", "compare",
       "override a value in the after run only (repeatable)"},
      {"before-set", 0, V::kTextList, "PATH=VALUE", "compare",
       "override a value in the before run only (repeatable), e.g. to weigh a flag change "
       "(before) against a fix (--with)"},
      {"overlay", 0, V::kTextList, "FILE", "run check",
       "apply this overlay to every run: flow-control manifests and/or an Overlay document of "
       "--set values (repeatable; scenarios/README.md), e.g. a fix written by apfsim tune",
       "", C::kYaml},
      {"overlay", 0, V::kTextList, "FILE", "compare",
       "the after run is the scenario with this overlay: flow-control manifests and/or an "
       "Overlay document of --set values (repeatable; scenarios/README.md)",
       "", C::kYaml},
      {"interval", 0, V::kText, "DURATION", "run compare",
       "report interval, e.g. 1s (default: the scenario's)"},
      {"window", 0, V::kText, "FROM..TO", "run",
       "also give every figure over this part of the run, e.g. 6m..8m, or relative to "
       "spec.events[N]: event:N:FROM..TO, e.g. event:0..+2m (event: alone is event 0) "
       "(summary.json's \"window\"; the tables show it)"},
      {"window", 0, V::kText, "FROM..TO", "compare",
       "compare the figures over this part of the runs, e.g. 6m..8m, or relative to an "
       "event: event:N:FROM..TO, e.g. event:0..+2m (the event of the run that has it)"},
      {"recovered-when", 0, V::kText, "BOUNDS", "run compare",
       "a level has recovered from the first spec.events entry when every report interval "
       "from then on has at most these: rejected=N,waitMax=DURATION, e.g. "
       "\"rejected=0,waitMax=1s\" (summary.json's \"recovery\"; default: the level's "
       "upper-bound spec.expect on rejected.* and waitSeconds.*, else rejected=0)"},
      {"recovered-from", 0, V::kCount, "N", "run compare",
       "measure the time to recover from spec.events[N] until the next event or the run's end "
       "(default 0, the first; summary.json's \"recovery\".event)"},
      {"trace", 0, V::kText, "NAME", "run", "write trace.jsonl for this client or priority level",
       "", C::kLevel},
      // What --trace writes (sim/world/trace_filter.h) and how much (sim/workflows/trace_size.h).
      {"trace-window", 0, V::kText, "FROM..TO", "run",
       "with --trace: only the attempts that arrive in this part of the run, FROM inclusive, "
       "TO exclusive (one that ends after TO is kept whole), e.g. 6m..8m or event:0..+2m"},
      {"trace-sample", 0, V::kText, "FRACTION", "run",
       "with --trace: only this fraction of the calls, each with all its tries, chosen from "
       "the seed and the call's number (no other output changes), e.g. 0.1"},
      {"trace-flow", 0, V::kTextList, "NAME", "run",
       "with --trace: only the attempts whose flow distinguisher (a user or namespace, "
       "trace.jsonl's \"distinguisher\") is NAME (repeatable)"},
      {"trace-max-bytes", 0, V::kCount, "BYTES", "run",
       "refuse to start when trace.jsonl is estimated above this size (the estimate is "
       "printed before the run; 0: no limit)",
       std::to_string(kDefaultTraceMaxBytes)},
      {"shard", 0, V::kText, "I/N", "sweep",
       "run only the grid points whose index is I modulo N (I from 0) and write "
       "sweep.part-I-of-N.csv; join the parts with `apfsim sweep merge`"},
      {"timelines", 0, V::kSwitch, "", "sweep",
       "also write each run's timeline.csv and clients.csv under runs/<index>/"},
      {"junit", 0, V::kText, "FILE", "check", "write the verdicts as JUnit XML to this file", "",
       C::kFile},
      {"budget", 0, V::kInt, "RUNS", "tune",
       "runs the search may spend (the compare of the fix at the end is not counted); the "
       "result depends only on the inputs",
       "200"},
      {"time-budget", 0, V::kText, "DURATION", "tune",
       "also stop the search after this much wall time, e.g. 10m (checked between candidates; "
       "unlike --budget it makes the result depend on the machine's speed)"},
      {"only-levels", 0, V::kText, "LEVELS", "tune",
       "change only these priority levels (comma-separated; flags and a fence are still tried)", "",
       C::kLevel},
      {"no-fence", 0, V::kSwitch, "", "tune", "do not try a fence"},
      {"keep-flags", 0, V::kSwitch, "", "tune",
       "leave maxRequestsInflight and maxMutatingRequestsInflight as they are"},
      {"no-compare", 0, V::kSwitch, "", "tune",
       "do not run the scenario before and after the fix at the end"},
      {"quiet", 0, V::kSwitch, "", "run sweep", "print nothing but errors"},
      {"quiet", 0, V::kSwitch, "", "check", "print only failed assertions and the totals"},
      {"no-plot", 0, V::kSwitch, "", "compare", "with --out, do not draw compare.png"},
      {"no-plot", 0, V::kSwitch, "", "sweep", "do not draw sweep.png"},
      {"no-plot", 0, V::kSwitch, "", "tune", "do not draw compare.png"},
      {"progress", 0, V::kText, "WHEN", "run check compare sweep",
       "auto: a live line on a terminal; always: also off a terminal, a line every 10 s (CI, "
       "kubectl logs); never",
       "auto"},
      {"progress", 0, V::kText, "WHEN", "tune",
       "auto or always: a live line on a terminal, else a line every 10 s (candidates tried, "
       "runs spent, the best so far and its margin); never",
       "auto"},
      // The run budget: a runaway scenario stops the same way whichever command started it.
      {"max-events", 0, V::kCount, "N", kScenarioCommands,
       "stop a run after this many simulated events, naming the busiest client (0: no limit)",
       std::to_string(RunBudget::kDefaultMaxEvents)},
      {"max-wall-time", 0, V::kText, "DURATION", kScenarioCommands,
       "stop a run that takes longer than this in real time, e.g. 10m (0: no limit)", wall_default},
      {"max-pending-calls", 0, V::kCount, "N", kScenarioCommands,
       "stop a run when this many calls are pending at once (issued, not finished), naming "
       "the client that holds the most (0: no limit)",
       std::to_string(RunBudget::kDefaultMaxPendingCalls)},
      // metrics.om (sim/report/openmetrics.h).
      {"openmetrics", 0, V::kSwitch, "", "run compare",
       "also write metrics.om: the metrics at the end of every report interval, in OpenMetrics "
       "text for `promtool tsdb create-blocks-from openmetrics`"},
      {"start-time", 0, V::kText, "TIME", "run compare",
       "with --openmetrics: the wall-clock time of the run's start, RFC 3339 or now (default "
       "2026-01-01T00:00:00Z)"},
      {"label", 0, V::kTextList, "NAME=VALUE", "run compare",
       "with --openmetrics: add NAME=VALUE to every series, e.g. job=kube-apiserver "
       "(repeatable)"},
  };
}

bool Takes(const FlagSpec& flag, std::string_view command) {
  std::istringstream words(flag.commands);
  for (std::string word; words >> word;) {
    if (word == command) return true;
  }
  return false;
}

// The boost declaration of one row: its value type, default and value name.
po::value_semantic* Semantic(const FlagSpec& f) {
  switch (f.value) {
    case V::kSwitch:
      return po::bool_switch();
    case V::kText: {
      auto* v = po::value<std::string>();
      if (!f.default_text.empty()) v->default_value(f.default_text);
      if (f.required) v->required();
      return v->value_name(f.value_name);
    }
    case V::kTextList: {
      auto* v = po::value<std::vector<std::string>>()->composing();
      if (f.required) v->required();
      return v->value_name(f.value_name);
    }
    case V::kCount: {
      auto* v = po::value<std::uint64_t>();
      if (!f.default_text.empty()) v->default_value(std::stoull(f.default_text));
      return v->value_name(f.value_name);
    }
    case V::kInt: {
      auto* v = po::value<int>();
      if (!f.default_text.empty()) v->default_value(std::stoi(f.default_text));
      return v->value_name(f.value_name);
    }
  }
  return nullptr;
}

RunBudget BudgetFrom(const po::variables_map& values) {
  RunBudget budget;
  budget.max_events = values["max-events"].as<std::uint64_t>();
  budget.max_pending_calls = values["max-pending-calls"].as<std::uint64_t>();
  const std::string wall = values["max-wall-time"].as<std::string>();
  std::string why;
  const std::optional<apf::Nanos> wall_ns = ParseDuration(wall, &why);
  if (!wall_ns || *wall_ns < 0) {
    throw InputError({"--max-wall-time", 0, 0}, "",
                     wall_ns ? fmt::format("must not be negative (got {})", wall) : why);
  }
  budget.max_wall_seconds = static_cast<double>(*wall_ns) / 1e9;
  return budget;
}

template <typename T>
void ReadIfGiven(const po::variables_map& values, const char* name, T* out) {
  if (values.count(name)) *out = values[name].as<T>();
}

}  // namespace

const std::vector<FlagSpec>& FlagTable() {
  static const std::vector<FlagSpec> table = BuildTable();
  return table;
}

std::vector<const FlagSpec*> FlagsOf(std::string_view command) {
  std::vector<const FlagSpec*> out;
  for (const FlagSpec& f : FlagTable()) {
    if (Takes(f, command)) out.push_back(&f);
  }
  return out;
}

const FlagSpec* FindFlag(std::string_view command, std::string_view name) {
  for (const FlagSpec* f : FlagsOf(command)) {
    if (f->name == name) return f;
  }
  return nullptr;
}

void AddTableFlags(std::string_view command, po::options_description& options) {
  for (const FlagSpec* f : FlagsOf(command)) {
    const std::string name = f->short_name ? f->name + "," + f->short_name : f->name;
    options.add_options()(name.c_str(), Semantic(*f), f->help.c_str());
  }
}

ScenarioFlags ScenarioFlagsFrom(const po::variables_map& values) {
  ScenarioFlags out;
  if (values.count("scenario")) {
    const boost::any& v = values["scenario"].value();
    if (const auto* list = boost::any_cast<std::vector<std::string>>(&v)) {
      out.scenarios = *list;
    } else {
      out.scenarios = {boost::any_cast<std::string>(v)};
    }
  }
  ReadIfGiven(values, "out", &out.out);
  if (values.count("seed")) out.seed = values["seed"].as<std::uint64_t>();
  if (values.count("seeds")) {
    if (out.seed) {
      throw InputError({"--seeds", 0, 0}, "",
                       "give --seed N (one run) or --seeds LIST (replications), not both");
    }
    out.seeds = ParseSeedList(values["seeds"].as<std::string>());
  }
  if (values.count("jobs")) {
    out.jobs = values["jobs"].as<int>();
    if (out.jobs < 1) throw InputError({"--jobs", 0, 0}, "", "must be at least 1");
  }
  ReadIfGiven(values, "set", &out.sets);
  ReadIfGiven(values, "overlay", &out.overlays);
  if (values.count("interval")) out.interval = values["interval"].as<std::string>();
  if (values.count("window")) out.window = ParseReportWindow(values["window"].as<std::string>());
  if (values.count("recovered-when"))
    out.recovered_when = ParseRecoveredWhen(values["recovered-when"].as<std::string>());
  if (values.count("recovered-from")) {
    out.recovered_from = static_cast<int>(
        std::min<std::uint64_t>(values["recovered-from"].as<std::uint64_t>(), INT32_MAX));
  }
  ReadIfGiven(values, "quiet", &out.quiet);
  ReadIfGiven(values, "no-plot", &out.no_plot);
  if (values.count("progress"))
    out.progress = ParseProgressMode(values["progress"].as<std::string>());
  if (values.count("max-events")) out.budget = BudgetFrom(values);
  if (values.count("openmetrics")) out.openmetrics = OpenMetricsFrom(values);
  return out;
}

bool ParseTableCommand(const std::vector<std::string>& args, std::string_view command,
                       const std::string& usage, const std::string& examples,
                       po::variables_map& values, int scenarios) {
  po::options_description options("apfsim " + std::string(command) + " options");
  AddTableFlags(command, options);
  po::positional_options_description positional;
  positional.add("scenario", scenarios);
  return ParseCommandLine(args, usage, options, &positional, values, examples);
}

}  // namespace sim::cli

#include "sim/cli/help_generators.h"

#include <fmt/format.h>

#include <iostream>
#include <set>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/flags.h"
#include "sim/io/input_error.h"
#include "sim/workflows/run_inputs.h"

namespace sim::cli {
namespace {

// roff treats a leading dot or quote as a request and a backslash as an escape.
std::string RoffText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// The commands a flag table row can name (those with table flags), in table order.
std::vector<std::string> TableCommands() {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const FlagSpec& f : FlagTable()) {
    std::size_t at = 0;
    while (at < f.commands.size()) {
      const std::size_t end = f.commands.find(' ', at);
      const std::string word = f.commands.substr(at, end - at);
      if (!word.empty() && seen.insert(word).second) out.push_back(word);
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  return out;
}

const char* CompletionKind(FlagCompletion c) {
  switch (c) {
    case FlagCompletion::kNone:
      return "value";
    case FlagCompletion::kScenario:
    case FlagCompletion::kYaml:
      return "yaml";
    case FlagCompletion::kFile:
      return "file";
    case FlagCompletion::kDir:
      return "dir";
    case FlagCompletion::kLevel:
      return "level";
  }
  return "value";
}

}  // namespace

std::string ManPage() {
  std::string out =
      ".TH APFSIM 1 \"\" \"apfsim " APFSIM_VERSION
      "\" \"User Commands\"\n"
      ".SH NAME\napfsim \\- a discrete-event simulator of Kubernetes API Priority and "
      "Fairness\n"
      ".SH SYNOPSIS\n.B apfsim\n.I COMMAND\n[\\fIoptions\\fR]\n"
      ".SH DESCRIPTION\napfsim replays a scenario (a YAML file in Kubernetes' manifest style) "
      "in virtual time through faithful models of kube\\-apiserver's flow control, and writes "
      "per\\-level timelines of waits, rejections and seats.\n"
      ".SH COMMANDS\n";
  for (const CommandSpec& c : CommandsUnder("")) {
    if (c.name.starts_with("__")) continue;
    out += fmt::format(".TP\n.B {}\n{}\n", RoffText(std::string(c.name)),
                       RoffText(std::string(c.summary)));
  }
  for (const std::string& command : TableCommands()) {
    out += fmt::format(".SH OPTIONS OF apfsim {}\n", RoffText(command));
    for (const FlagSpec* f : FlagsOf(command)) {
      std::string head = "\\fB\\-\\-" + RoffText(f->name) + "\\fR";
      if (f->short_name) head = fmt::format("\\fB\\-{}\\fR, ", f->short_name) + head;
      if (!f->value_name.empty()) head += " \\fI" + RoffText(f->value_name) + "\\fR";
      std::string help = RoffText(f->help);
      if (!f->default_text.empty()) help += " (default " + RoffText(f->default_text) + ")";
      out += ".TP\n" + head + "\n" + help + "\n";
    }
  }
  out +=
      ".SH OTHER COMMANDS\nThe options of the other commands are listed by "
      "\\fBapfsim\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR.\n"
      ".SH KUBECTL APFSIM\nThe kubectl plugin \\fBkubectl\\-apfsim\\fR, installed beside apfsim:\n"
      ".TP\n\\fBkubectl apfsim snapshot \\-o\\fR \\fIDIR\\fR [\\fB\\-\\-context\\fR \\fINAME\\fR] "
      "[\\fB\\-\\-kubeconfig\\fR \\fIFILE\\fR]\nrecords the flow\\-control objects, a /metrics "
      "scrape and the APF debug dumps of the current context, and runs \\fBapfsim import\\fR "
      "on them into \\fIDIR\\fR/scenario.yaml\n"
      ".TP\n\\fBkubectl apfsim run\\fR|\\fBcheck\\fR|\\fBcompare\\fR|\\fBexplain\\fR|\\fBlint\\fR "
      "\\fIARGS\\fR...\npassed to apfsim; \\fBlint\\fR without a file lints the live objects\n"
      ".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\nan expectation in a scenario failed\n.TP\n2\n"
      "bad usage or bad input\n.TP\n3\ninternal error\n.TP\n130, 143\ninterrupted by SIGINT or "
      "SIGTERM; nothing half\\-written\n"
      ".SH EXAMPLES\n.nf\napfsim run scenarios/drift\\-sweep.yaml\napfsim check "
      "scenarios/*.yaml \\-\\-seeds 1..10 \\-\\-junit report.xml\napfsim compare "
      "scenarios/drift\\-sweep.yaml \\-\\-overlay scenarios/seed000\\-fence.yaml\n.fi\n";
  return out;
}

std::string BashCompletion() {
  // The table, as bash case arms: "COMMAND) flags='--a --b' ;;" and the kind of value each
  // flag takes ("COMMAND:--flag) kind=level ;;").
  std::string flags_arms, kind_arms;
  for (const std::string& command : TableCommands()) {
    std::string names = "--help";
    for (const FlagSpec* f : FlagsOf(command)) {
      names += " --" + f->name;
      if (f->value != FlagValue::kSwitch) {
        kind_arms += fmt::format("      {}:--{}) kind={} ;;\n", command, f->name,
                                 CompletionKind(f->completion));
      }
    }
    flags_arms += fmt::format("      {}) flags='{}' ;;\n", command, names);
  }
  std::string commands;
  for (const CommandSpec& c : CommandsUnder("")) {
    if (c.name.starts_with("__")) continue;
    if (!commands.empty()) commands += ' ';
    commands += c.name;
  }
  return fmt::format(
      R"bash(# bash completion for apfsim, written by `apfsim completion bash` from its flag table.
_apfsim() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=""
  (( COMP_CWORD > 0 )) && prev=${{COMP_WORDS[COMP_CWORD-1]}}
  COMPREPLY=()
  if (( COMP_CWORD == 1 )); then
    COMPREPLY=( $(compgen -W '{commands}' -- "$cur") )
    return 0
  fi
  local command=${{COMP_WORDS[1]}} flags="" kind="" scenario="" w
  for w in "${{COMP_WORDS[@]:2}}"; do
    case $w in *.yaml|*.yml) [[ -z $scenario && $w != "$cur" ]] && scenario=$w ;; esac
  done
  case $command in
{flags_arms}      *) flags=$(apfsim "$command" --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u) ;;
  esac
  case $command:$prev in
{kind_arms}  esac
  case $kind in
    yaml) COMPREPLY=( $(compgen -f -X '!*.@(yaml|yml)' -- "$cur") $(compgen -d -- "$cur") ); return 0 ;;
    file) COMPREPLY=( $(compgen -f -- "$cur") ); return 0 ;;
    dir) COMPREPLY=( $(compgen -d -- "$cur") ); return 0 ;;
    level)
      [[ -n $scenario ]] && COMPREPLY=( $(compgen -W "$(apfsim __complete levels "$scenario" 2>/dev/null)" -- "$cur") )
      return 0 ;;
    value) return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -X '!*.@(yaml|yml)' -- "$cur") $(compgen -d -- "$cur") )
  fi
  return 0
}}
shopt -s extglob 2>/dev/null
complete -o filenames -F _apfsim apfsim
)bash",
      fmt::arg("commands", commands), fmt::arg("flags_arms", flags_arms),
      fmt::arg("kind_arms", kind_arms));
}

std::string ZshCompletion() {
  return "#compdef apfsim\n# zsh completion for apfsim: the bash completion through "
         "bashcompinit (`apfsim completion zsh`).\nautoload -U +X bashcompinit && "
         "bashcompinit\n" +
         BashCompletion();
}

namespace {

int RunCompletion(const Args& args) {
  if (args.size() != 1 || (args[0] != "bash" && args[0] != "zsh")) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      std::cout << "usage: apfsim completion bash|zsh\n\nprint the shell completion script\n\n"
                << ExamplesBlock(
                       "source <(apfsim completion bash)\n"
                       "apfsim completion zsh > \"${fpath[1]}/_apfsim\"");
      return kExitOk;
    }
    throw InputError({"completion", 0, 0}, "", "give the shell: apfsim completion bash|zsh");
  }
  std::cout << (args[0] == "bash" ? BashCompletion() : ZshCompletion());
  return kExitOk;
}

int RunMan(const Args& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "usage: apfsim man\n\nprint the apfsim(1) man page in roff\n\n"
              << ExamplesBlock("apfsim man | man -l -");
    return kExitOk;
  }
  if (!args.empty()) throw InputError({args[0], 0, 0}, "", "apfsim man takes no arguments");
  std::cout << ManPage();
  return kExitOk;
}

// `apfsim __complete levels SCENARIO`: the scenario's priority levels and clients, one a
// line, for the completion of --trace and other flags that name one. Quiet on any error: a
// half-typed scenario must not print into the user's shell.
int RunComplete(const Args& args) {
  if (args.size() != 2 || args[0] != "levels") return kExitBadInput;
  try {
    RunInputs inputs;
    inputs.scenario_file = args[1];
    const ResolvedRun resolved = ResolveRunInputs(inputs);
    std::set<std::string> names;
    for (const auto& pl : resolved.flow_control.config.priority_levels) names.insert(pl.name);
    for (const auto& c : resolved.scenario.clients) names.insert(c.name);
    for (const std::string& n : names) std::cout << n << "\n";
  } catch (const std::exception&) {
    return kExitBadInput;
  }
  return kExitOk;
}

const Registration kCompletion({"", "completion", "print the bash or zsh completion script",
                                RunCompletion});
const Registration kMan({"", "man", "print the apfsim(1) man page (roff)", RunMan});
const Registration kComplete({"", "__complete", "", RunComplete});

}  // namespace
}  // namespace sim::cli

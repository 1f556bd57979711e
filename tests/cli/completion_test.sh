#!/usr/bin/env bash
# The bash completion (tools/completion/apfsim.bash), driven as bash drives it: a
# non-interactive bash sources it, checks `complete -p` registered it, sets COMP_WORDS and
# COMP_CWORD and calls the function `complete` names, and the candidates are checked: the
# subcommands, a command's flags from its --help, scenario files, and the level names of
# the scenario on the command line (scenarios/apf-lab.yaml defines apf-lab-limited; the
# 1.36 defaults bring workload-low).
# usage: tests/cli/completion_test.sh APFSIM SOURCE_DIR
set -u
apfsim=$(realpath "$1") src=$(realpath "$2")
cd "$src"
out=$(bash --norc --noprofile -c '
  source tools/completion/apfsim.bash
  spec=$(complete -p apfsim) || exit 9
  fn=$(sed -E "s/.* -F ([^ ]+) .*/\1/" <<<"$spec")
  ask() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); "$fn"; echo "${COMPREPLY[*]}"; }
  ask "$0" im
  ask "$0" run scenarios/apf-lab.yaml --ov
  ask "$0" check scenarios/drift-sweep-f
  ask "$0" run scenarios/apf-lab.yaml --trace apf
  ask "$0" run scenarios/apf-lab.yaml --trace workload-l
' "$apfsim")
expect=$'import\n--overlay\nscenarios/drift-sweep-fenced.yaml scenarios/drift-sweep-fixed.yaml\napf-lab-limited\nworkload-low'
if [ "$out" != "$expect" ]; then
  echo "FAIL completion_test: got"; echo "$out"; echo "expected"; echo "$expect"; exit 1
fi
echo "completion_test: commands, flags, scenario files and level names complete"

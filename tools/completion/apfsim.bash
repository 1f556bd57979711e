# bash completion for apfsim and kubectl-apfsim (zsh: tools/completion/_apfsim loads it
# through bashcompinit). The commands and flags are read from `apfsim --help` and
# `apfsim COMMAND --help`, the same option tables the commands parse, so they cannot drift;
# a file argument completes to scenario files (*.yaml, *.yml) and folders, and the value of
# a flag that takes a level (--trace, --only-levels) to the priority levels of the scenario
# on the command line: its version's defaults (`apfsim defaults`) and the
# PriorityLevelConfigurations it defines.

_apfsim_levels() {
  local apfsim=$1 scenario=$2
  "$apfsim" defaults -o json 2>/dev/null |
    awk -F'"' '/"kind": "PriorityLevelConfiguration"/ {pl = 1} pl && /"name":/ {print $4; pl = 0}'
  [ -f "$scenario" ] &&
    awk '/kind: *PriorityLevelConfiguration/ {pl = 1; if (match($0, /name: *[A-Za-z0-9.-]+/)) {s = substr($0, RSTART, RLENGTH); sub(/name: */, "", s); print s; pl = 0}; next}
         pl && /name:/ {s = $0; sub(/.*name: */, "", s); sub(/[ ,}].*/, "", s); print s; pl = 0}' "$scenario"
}

_apfsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local apfsim=${COMP_WORDS[0]} first=1
  # kubectl-apfsim passes its commands to the apfsim beside it.
  if [[ $apfsim == *kubectl-apfsim ]]; then
    apfsim=$(dirname "$(command -v "$apfsim")")/apfsim
    [ -x "$apfsim" ] || apfsim=apfsim
  fi
  if [ "$COMP_CWORD" -eq 1 ]; then
    local commands
    commands=$("$apfsim" --help 2>/dev/null | awk '/^commands:/ {c = 1; next} c && /^  [a-z]/ {print $1} c && /^$/ {c = 0}')
    [[ ${COMP_WORDS[0]} == *kubectl-apfsim ]] && commands="snapshot $commands"
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  local command=${COMP_WORDS[1]} scenario="" w
  for w in "${COMP_WORDS[@]:2}"; do
    case $w in *.yaml|*.yml) [ -f "$w" ] && { scenario=$w; break; } ;; esac
  done
  case $prev in
    --trace|--only-levels|--level)
      COMPREPLY=($(compgen -W "$(_apfsim_levels "$apfsim" "$scenario" | sort -u)" -- "$cur"))
      return ;;
  esac
  if [[ $cur == -* ]]; then
    local flags
    flags=$("$apfsim" "$command" --help 2>/dev/null | grep -oE '^ +(-[a-z] \[ )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+')
    COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -f -X '!*.yml' -- "$cur")
             $(compgen -d -- "$cur"))
}
complete -o filenames -F _apfsim apfsim kubectl-apfsim

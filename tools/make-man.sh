#!/usr/bin/env bash
# Writes the apfsim(1) man page from the tool's own help: `apfsim --help` and every
# command's `--help` (the option tables the commands parse), so the page cannot drift from
# them. CMake runs it at install time with the built binary.
# usage: tools/make-man.sh APFSIM OUT.1
set -euo pipefail
apfsim=$1 out=$2
esc() { sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/'; }
version=$("$apfsim" --version | awk '{print $2}')
{
  echo ".TH APFSIM 1 \"\" \"apfsim $version\" \"User Commands\""
  echo ".SH NAME"
  echo "apfsim \\- a discrete-event simulator of Kubernetes API Priority and Fairness"
  echo ".SH SYNOPSIS"
  echo ".B apfsim"
  echo "COMMAND [options]"
  echo ".br"
  echo ".B kubectl apfsim"
  echo "snapshot|run|check|compare|explain|lint ..."
  echo ".SH DESCRIPTION"
  echo ".nf"
  "$apfsim" --help | esc
  echo ".fi"
  for command in $("$apfsim" --help | awk '/^commands:/ {c = 1; next} c && /^  [a-z]/ {print $1} c && /^$/ {c = 0}'); do
    echo ".SH \"APFSIM ${command^^}\""
    echo ".nf"
    "$apfsim" "$command" --help 2>&1 | esc || true
    echo ".fi"
  done
  echo ".SH \"KUBECTL APFSIM\""
  echo ".nf"
  "$(dirname "$0")/kubectl-apfsim" --help | esc
  echo ".fi"
  echo ".SH SEE ALSO"
  echo "The README and scenarios/README.md in /usr/share/apfsim (or PREFIX/share/apfsim)."
} >"$out"

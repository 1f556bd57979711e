#!/usr/bin/env bash
# A kubectl stand-in for the plugin's tests: it answers the calls `kubectl apfsim` makes
# with the recorded files of scenarios/samples/ (STAND_IN_SAMPLES), and appends every
# command line to STAND_IN_LOG so that a test can check --context and --kubeconfig were
# passed. STAND_IN_FORBID_DEBUG=1 refuses the debug endpoints as an apiserver refuses a
# user without the permission (kubectl's message and exit code 1).
set -u
samples=${STAND_IN_SAMPLES:?}
[ -n "${STAND_IN_LOG:-}" ] && echo "$*" >>"$STAND_IN_LOG"
args=()
for a in "$@"; do
  case $a in --context=*|--kubeconfig=*) ;; *) args+=("$a") ;; esac
done
case "${args[*]}" in
  "get flowschemas,prioritylevelconfigurations -o yaml") cat "$samples/objects.yaml" ;;
  "get --raw /metrics") cat "$samples/metrics.prom" ;;
  "get --raw /debug/api_priority_and_fairness/"*)
    path=${args[2]}
    name=${path#/debug/api_priority_and_fairness/}
    name=${name%%\?*}
    if [ "${STAND_IN_FORBID_DEBUG:-0}" = 1 ]; then
      echo "Error from server (Forbidden): forbidden: User \"dev\" cannot get path \"$path\"" >&2
      exit 1
    fi
    cat "$samples/$name.txt" ;;
  *) echo "error: the kubectl stand-in does not know \"${args[*]}\"" >&2; exit 1 ;;
esac

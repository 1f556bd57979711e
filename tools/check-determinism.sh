#!/usr/bin/env bash
# Determinism across builds: runs the same scenarios with two apfsim binaries built at
# different optimisation levels (CI: the -O3 release build and the -O1 sanitizer build)
# and requires every output file to be byte-identical. A difference means a result that
# depends on the compiler (floating-point contraction, unspecified evaluation order, an
# uninitialised value), which a fixed seed cannot protect against.
#
# usage: tools/check-determinism.sh APFSIM_A APFSIM_B [SCENARIO...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 APFSIM_A APFSIM_B [SCENARIO...]" >&2; exit 2; }
a=$1 b=$2
shift 2
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  # Short, but each touches a different part of the world: the drift sweep's LISTs and
  # retries, MaxInFlight and EventRateLimit, the gateway, and the audit-log replay.
  scenarios=(scenarios/drift-sweep.yaml scenarios/event-storm-ratelimit.yaml
             scenarios/browser-gateway.yaml scenarios/audit-replay.yaml)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for s in "${scenarios[@]}"; do
  name=$(basename "$s" .yaml)
  # Two virtual minutes cover the first drift sweep and a dozen re-divisions of seats.
  for side in a b; do
    bin=$a; [ $side = b ] && bin=$b
    "$bin" run "$s" --quiet --set duration=2m --out "$scratch/$side/$name"
  done
  if diff -r "$scratch/a/$name" "$scratch/b/$name" >"$scratch/diff" 2>&1; then
    echo "determinism: $name: $(ls "$scratch/a/$name" | wc -l) files identical"
  else
    echo "determinism: $name: outputs differ between $a and $b:" >&2
    head -20 "$scratch/diff" >&2
    status=1
  fi
done
exit $status

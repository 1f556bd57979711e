#!/usr/bin/env bash
# `make demo`: replays seed 000's drift sweep as it was and as it was fixed, plots both and
# their comparison, and writes out/index.html, a page with the plots and the summaries.
set -euo pipefail
apfsim=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
"$apfsim" run "$here/scenarios/drift-sweep.yaml" --out "$out/drift-sweep"
"$apfsim" run "$here/scenarios/drift-sweep-fixed.yaml" --out "$out/drift-sweep-fixed"
py=$("$here/tools/find-python.sh")
"$py" "$here/tools/plot.py" "$out/drift-sweep" "$out/drift-sweep-fixed"
"$py" "$here/tools/plot.py" --compare "$out/drift-sweep" "$out/drift-sweep-fixed" --out "$out/compare.png"
"$py" "$here/tools/plot.py" --index "$out/index.html" "$out/drift-sweep" "$out/drift-sweep-fixed" \
  --compare-png "$out/compare.png"
echo
echo "Open $out/index.html: the drift sweep as it was and as it was fixed, side by side."

#!/usr/bin/env bash
# `make demo`: runs the flagship demonstration and leaves its outputs in OUT.
set -euo pipefail
apfsim=$1
out=$2
mkdir -p "$out"
"$apfsim" selfcheck --out "$out/selfcheck.json"
echo "demo outputs are in $out/"

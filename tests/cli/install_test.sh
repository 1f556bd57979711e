#!/usr/bin/env bash
# An installed apfsim (`cmake --install`) finds its drawing tools in PREFIX/share/apfsim
# without APFSIM_TOOLS, run from a folder outside the source tree: `compare` draws
# compare.png with tools/plot.py.
# usage: tests/cli/install_test.sh CMAKE BUILD_DIR SOURCE_DIR
set -u
cmake=$1 build=$2 src=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$cmake" --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log" 2>&1 ||
  { echo "FAIL: cmake --install: $(cat "$scratch/install.log")"; exit 1; }
cp "$src/scenarios/apf-lab.yaml" "$scratch/"
cd "$scratch"
unset APFSIM_TOOLS
prefix/bin/apfsim compare apf-lab.yaml --set duration=40s \
  --after-set flowControl.priorityLevels.apf-lab-limited.handSize=1 --out out >log 2>&1 ||
  { echo "FAIL: compare: $(tail -5 log)"; exit 1; }
[ -s out/compare.png ] || { echo "FAIL: no compare.png: $(tail -5 log)"; exit 1; }
echo "install: the installed binary drew out/compare.png"

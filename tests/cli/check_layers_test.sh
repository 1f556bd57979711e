#!/usr/bin/env bash
# cmake/check_layers.cmake, the include rule of doc/architecture.md#layers: on a small tree it must
# refuse an include that runs up a layer (naming the file and the header), refuse a file
# directly in sim/ other than main.cc, and accept includes that point down.
# usage: tests/cli/check_layers_test.sh CMAKE SOURCE_DIR
set -u
cmake=$1 src=$2
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tree/apf/base" "$tree/apf/filter" "$tree/sim/scenario" "$tree/sim/world" "$tree/sim/report"
echo '#include <cstdint>' > "$tree/apf/base/a.h"
echo '#include "apf/base/a.h"' > "$tree/apf/filter/f.h"
printf '#include "sim/scenario/s.h"\n#include "apf/filter/f.h"\n' > "$tree/sim/world/w.h"
printf '#include "sim/world/w.h"\n' > "$tree/sim/report/r.h"
echo '#include <vector>' > "$tree/sim/scenario/s.h"
echo 'int main() {}' > "$tree/sim/main.cc"
"$cmake" -DROOT="$tree" -P "$src/cmake/check_layers.cmake" >"$tree/out" 2>&1 ||
  fail "a tree whose includes point down was refused: $(cat "$tree/out")"
# The upward include the layout forbids: the scenario loader reaching the world.
printf '#include "sim/world/w.h"\n' > "$tree/sim/scenario/loader.cc"
if "$cmake" -DROOT="$tree" -P "$src/cmake/check_layers.cmake" >"$tree/out" 2>&1; then
  fail "sim/scenario including sim/world was accepted"
fi
grep -q 'sim/scenario/loader.cc: includes sim/world/w.h, but scenario may include only' "$tree/out" ||
  fail "the message does not name the file and the header: $(cat "$tree/out")"
rm "$tree/sim/scenario/loader.cc"
echo 'int x;' > "$tree/sim/stray.cc"
if "$cmake" -DROOT="$tree" -P "$src/cmake/check_layers.cmake" >"$tree/out" 2>&1; then
  fail "a source file directly in sim/ was accepted"
fi
grep -q 'sim/stray.cc: only sim/main.cc may sit directly in sim/' "$tree/out" || fail "$(cat "$tree/out")"
# Inside apf/ the folders have an order too: base/ may not reach the filter.
echo '#include "apf/filter/f.h"' > "$tree/apf/base/up.h"
if "$cmake" -DROOT="$tree" -P "$src/cmake/check_layers.cmake" >"$tree/out" 2>&1; then
  fail "apf/base including apf/filter was accepted"
fi
grep -q 'apf/base/up.h: includes apf/filter/f.h, but apf_base may include only: apf_base' "$tree/out" ||
  fail "$(cat "$tree/out")"
rm "$tree/apf/base/up.h"
# The real tree passes.
"$cmake" -DROOT="$src" -P "$src/cmake/check_layers.cmake" >"$tree/out" 2>&1 || fail "$(cat "$tree/out")"
echo "check_layers: 5 cases passed"

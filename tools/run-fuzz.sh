#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets of tests/fuzz with clang (AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer; the apf and sim libraries with coverage
# instrumentation) and runs each for a bounded time on a copy of its seed corpus
# (tests/fuzz/corpus/<target>), so the repository is not modified.
#
# usage: tools/run-fuzz.sh [SECONDS]        (default 60 seconds per target)
#   FUZZ_TARGETS="scenario_loader model_queueset"   a subset (default: every target)
#   FUZZ_BUILD=build-fuzz                          the build folder
#
# Fails (exit 1) when any target crashes, leaks, times out (one input over 10 s), runs
# out of memory (2 GiB) or trips a sanitizer. The input that did it is kept in
# $FUZZ_BUILD/findings/<target>/ and the target's log beside it; rerun it with
# $FUZZ_BUILD/fuzz_<target> FILE. Bad input is not a finding: the targets accept
# sim::InputError (tests/fuzz/fuzz_support.h).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

all_targets=()
for f in tests/fuzz/*.cc; do all_targets+=("$(basename "$f" .cc)"); done
read -r -a targets <<<"${FUZZ_TARGETS:-${all_targets[*]}}"
for t in "${targets[@]}"; do
  [ -f "tests/fuzz/$t.cc" ] || { echo "run-fuzz: no target $t (tests/fuzz/$t.cc)" >&2; exit 2; }
done

# A tree already configured for fuzzing (make sanitize's, which also holds the sanitizer
# tests) is used as it is: configuring it here would change its build type and rebuild it.
if ! grep -q '^APFSIM_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAPFSIM_FUZZ=ON -DAPFSIM_BENCH=OFF >/dev/null
fi
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
printf '%-20s %8s %12s  %s\n' target seconds executions result
for t in "${targets[@]}"; do
  corpus=$scratch/corpus-$t
  mkdir -p "$corpus"
  if [ -d "tests/fuzz/corpus/$t" ]; then cp -r "tests/fuzz/corpus/$t/." "$corpus/"; fi
  findings=$build/findings/$t
  mkdir -p "$findings"
  log=$findings/fuzz.log
  status=0
  "$build/fuzz_$t" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  time=$(sed -n 's/^stat::.*//; s/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
  # A UBSan report that did not stop the run would still be a finding.
  if [ $status -eq 0 ] && grep -q "runtime error:" "$log"; then status=1; fi
  if [ $status -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $status; see $log)"
    failed+=("$t")
  fi
  printf '%-20s %8s %12s  %s\n' "$t" "${time:-$seconds}" "${execs:-?}" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-fuzz: findings in: ${failed[*]}" >&2
  exit 1
fi

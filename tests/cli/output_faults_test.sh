#!/usr/bin/env bash
# Faults during `check --seeds 1..3 --out D`, `sweep ... --out D` and `compare --seeds 1..2
# --out D`: SIGINT and SIGKILL mid-run, a broken pipe (`| head -1`), and two runs at once
# into the same D (TWO: the new set twice, so that both swap theirs in at about the same
# instant). The promise is that afterwards D holds the
# complete previous set or the complete new set, byte for byte (the outputs are
# deterministic: a clean run of the same command into another folder gives the same files),
# a rerun succeeds, and SIGKILL leaves at most a temporary folder beside D (D.tmp-PID,
# sim/io/output_set.h). The whole of D is staged beside it and swapped in with renames once
# every seed or point has run (sim/io/output_set.cc, sim/workflows/replicate.cc, sweep.cc).
# usage: tests/cli/output_faults_test.sh APFSIM SOURCE_DIR
set -uo pipefail
apfsim=$(realpath "$1") src=$(realpath "$2")
base=$src/tests/bad-inputs/valid-base.yaml
goal=$src/tests/fixtures/tune/mini-drift-goal.yaml
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL output_faults_test: $*" >&2; exit 1; }
cd "$scratch"

# The files of a folder with their checksums, in name order: two folders with equal
# fingerprints hold the same set. Temporary files and folders (NAME.tmp-PID) are left out
# and checked apart.
fingerprint() { (cd "$1" && find . -type f -not -path '*.tmp-*' | LC_ALL=C sort | xargs -r md5sum); }
temporaries() { find "$@" -name '*.tmp-*' -prune -o -name '*.old-*' -prune | grep -E '\.(tmp|old)-' | sort; }

# The commands, each in an "old" form (rate 5) and a "new" form (rate 4000 with no client
# rate limiter, long enough to be interrupted: about 0.35 s a seed or point on one core).
# args_of COMMAND RATE OUT: the arguments of apfsim, in the array `args` (an array rather
# than a function, so that a background run's $! is apfsim itself).
args_of() {
  if [ "$1" = tune ]; then
    # tune's old form spends 3 runs, its new one 40 (about 2 s): its goal fails, so each
    # spends its whole budget and exits 1 with the closest candidate.
    args=(tune "$goal" --jobs 1 --no-compare --no-plot --progress never
          --budget "$([ "$2" = 5 ] && echo 3 || echo 40)" --out "$3")
    return
  fi
  case $1 in
    check) args=(check "$base" --seeds 1..3 --jobs 1) ;;
    sweep) args=(sweep "$base" --vary "apiservers.maxRequestsInflight=100,200,300" --jobs 1 --no-plot) ;;
    compare) args=(compare "$base" --after-set apiservers.maxRequestsInflight=300 --seeds 1..2 --jobs 1 --no-plot) ;;
  esac
  args+=(--set duration=1m --set clients.0.clientGo.qps=-1
         --set "clients.0.traffic.0.constant.rate=$2" --out "$3")
}
# A run that ends as it should: 0, or 1 where a goal is not met (tune's, here).
run() { args_of "$@" && "$apfsim" "${args[@]}"; [ $? -le 1 ]; }

for cmd in check sweep compare tune; do
  # The complete sets, old and new, made cleanly.
  run $cmd 5 ref-old >/dev/null 2>&1 || fail "$cmd: the clean old run failed"
  run $cmd 4000 ref-new >/dev/null 2>&1 || fail "$cmd: the clean new run failed"
  old=$(fingerprint ref-old) new=$(fingerprint ref-new)
  [ -n "$old" ] && [ "$old" != "$new" ] || fail "$cmd: the old and new sets do not differ"

  # tune's SIGINT writes the best found so far as its new set, by design (neither the
  # previous set nor a whole search's); tests/cli/tune_cli_test.cc holds that case.
  faults="INT KILL PIPE TWO"
  [ "$cmd" = tune ] && faults="KILL PIPE TWO"
  for fault in $faults; do
    rm -rf D D.tmp-* D.old-*
    run $cmd 5 D >/dev/null 2>&1 || fail "$cmd: the first run into D failed"
    if [ "$fault" = PIPE ]; then
      # Every line after the first goes to a closed pipe.
      run $cmd 4000 D 2>&1 | head -1 >/dev/null
      rc=${PIPESTATUS[0]}
    elif [ "$fault" = TWO ]; then
      # Each stages its own D.tmp-PID and swaps it in whole; where one's swap finds the
      # other's in the way it takes its steps again (sim/io/output_set.cc): both succeed,
      # and D ends as the set swapped in last.
      args_of "$cmd" 4000 D
      "$apfsim" "${args[@]}" >/dev/null 2>run.err &
      pid=$!
      "$apfsim" "${args[@]}" >/dev/null 2>run2.err &
      pid2=$!
      wait "$pid"
      rc=$?
      wait "$pid2"
      rc2=$?
      [ "$rc2" -ge 2 ] && fail "$cmd TWO: the second run's exit code $rc2: $(head -3 run2.err)"
      echo "output_faults_test: $cmd TWO: exit codes $rc and $rc2$(head -1 run.err run2.err 2>/dev/null | grep -v '^==>' | grep . | sed 's/^/; /' | tr -d '\n')"
    else
      args_of "$cmd" 4000 D
      "$apfsim" "${args[@]}" >/dev/null 2>run.err &
      pid=$!
      # Killed once the first seed or point has written its summary into the staged set,
      # so that one seed is new and the others are still to run.
      for _ in $(seq 200); do
        [ -n "$(find D.tmp-* -name summary.json 2>/dev/null | head -1)" ] && break
        sleep 0.02
      done
      sleep 0.1
      kill -"$fault" "$pid" 2>/dev/null
      wait "$pid"
      rc=$?
      # SIGINT: the documented exit code 130, unless the run had already ended.
      if [ "$fault" = INT ] && [ "$rc" -ne 130 ] && [ "$rc" -ne 0 ]; then
        fail "$cmd: SIGINT gave exit code $rc: $(head -3 run.err)"
      fi
    fi
    [ "$rc" -ge 3 ] && [ "$rc" -ne 130 ] && [ "$rc" -ne 137 ] && [ "$rc" -ne 141 ] &&
      fail "$cmd $fault: exit code $rc"
    got=$(fingerprint D)
    [ "$got" = "$old" ] || [ "$got" = "$new" ] ||
      fail "$cmd $fault (exit $rc): D is neither the previous set nor the new one:
$(diff <(echo "$old") <(echo "$got") | head -8)"
    # In and beside D: nothing temporary but, after SIGKILL, the killed run's.
    left=$(temporaries D D.* 2>/dev/null)
    if [ "$fault" = KILL ]; then
      # (D.old-PID too, when the kill fell inside the commit's last step.)
      stray=$(echo "$left" | grep -v "\.\(tmp\|old\)-$pid\(/\|$\)")
      [ -z "$stray" ] || fail "$cmd KILL: left in or beside D: $stray"
    else
      [ -z "$left" ] || fail "$cmd $fault: left in or beside D: $left"
    fi
    # A rerun succeeds and gives the new set whole.
    run $cmd 4000 D >/dev/null 2>rerun.err || fail "$cmd $fault: the rerun failed: $(head -3 rerun.err)"
    [ "$(fingerprint D)" = "$new" ] || fail "$cmd $fault: the rerun's set differs from a clean run's"
    after=$(temporaries D D.* 2>/dev/null)
    [ -z "$after" ] || fail "$cmd $fault: the rerun left the killed run's temporaries: $after"
    echo "output_faults_test: $cmd $fault: exit $rc, D $([ "$got" = "$old" ] && echo previous || { [ "$got" = "$new" ] && echo new; } || echo mixed) set${left:+, left $left}"
  done
  rm -rf ref-old ref-new
done

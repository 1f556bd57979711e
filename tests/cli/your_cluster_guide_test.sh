#!/usr/bin/env bash
# doc/your-cluster.md runs as written on the samples: its `sh` blocks, run from a folder
# that has build/apfsim and scenarios/ where the repository has them, succeed, and what the
# guide says they give holds (the import's figures and dump check, a run without rejection
# or queuing, lint warning about the cluster's own level).
# usage: tests/cli/your_cluster_guide_test.sh APFSIM SOURCE_DIR
set -uo pipefail
apfsim=$(realpath "$1") src=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL your_cluster_guide_test: $*" >&2; exit 1; }
mkdir -p "$scratch/build" && ln -s "$apfsim" "$scratch/build/apfsim" && ln -s "$src/scenarios" "$scratch/scenarios"
cd "$scratch"

# The guide's commands: every line of its ```sh blocks, in order.
awk '/^```sh$/ {on = 1; next} /^```$/ {on = 0} on' "$src/doc/your-cluster.md" >guide.sh
grep -q '^build/apfsim import ' guide.sh || fail "the guide has no import command"
grep -q '^build/apfsim run ' guide.sh || fail "the guide has no run command"
bash -e guide.sh >guide.out 2>guide.err || fail "the guide's commands failed: $(tail -5 guide.err)"

for want in 'kubernetesVersion: "1.34"' 'maxRequestsInflight: 40' 'maxMutatingRequestsInflight: 20' \
            'replicas: 1' 'server concurrency limit 60' 'the dumps agree with the objects'; do
  grep -q -- "$want" my-cluster.yaml || fail "my-cluster.yaml lacks: $want"
done
grep -q 'DUMP MISMATCH' guide.err && fail "the samples' dumps disagree: $(grep MISMATCH guide.err)"
python3 - out/my-cluster/summary.json <<'PY' || fail "the run is not what the guide says"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["clients"]) == 5, f'{len(s["clients"])} clients, the guide says 5'
assert s["durationSeconds"] == 30, s["durationSeconds"]
for name, level in s["priorityLevels"].items():
    rejected = sum(level["rejected"].values()) if isinstance(level["rejected"], dict) else level["rejected"]
    assert rejected == 0, f"{name} rejected {rejected}"
    assert level["waitSeconds"]["max"] == 0, f'{name} waited {level["waitSeconds"]["max"]}'
PY
grep -q 'tenant-sweeps: spec.limited: borrowingLimitPercent is unset' guide.out ||
  fail "lint does not warn about tenant-sweeps' borrowing: $(cat guide.out | tail -5)"
[ "$(grep -c 'queue-length-unenforced' guide.out)" = 2 ] || fail "lint: not two queue-length warnings"
echo "ok: doc/your-cluster.md runs as written on the samples"

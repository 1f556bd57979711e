#!/usr/bin/env bash
# `apfsim import` on scenarios/samples/ and `kubectl apfsim` through the kubectl stand-in.
# The samples were recorded from scenarios/samples/recording.yaml (a 1.34 apiserver with
# --max-requests-inflight 40 and --max-mutating-requests-inflight 20), so the import must
# give back those numbers, and a run of the imported scenario must put every user of
# dump_requests.txt in the FlowSchema and level the recording put it in.
# usage: tests/cli/import_test.sh APFSIM SOURCE_DIR
set -uo pipefail
apfsim=$(realpath "$1") src=$(realpath "$2")
samples=$src/scenarios/samples
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL import_test: $*" >&2; exit 1; }
cd "$scratch"

# 1. The import, checked against the dumps.
"$apfsim" import "$samples/objects.yaml" --metrics "$samples/metrics.prom" \
  --audit "$samples/audit.log" --dumps "$samples" -o imported.yaml 2>import.err ||
  fail "import: $(cat import.err)"
grep -q 'DUMP MISMATCH' import.err && fail "the dumps disagree: $(grep MISMATCH import.err)"
grep -q 'the dumps agree with the objects' import.err || fail "no dump check: $(cat import.err)"
for want in 'kubernetesVersion: "1.34"' 'maxRequestsInflight: 40' \
            'maxMutatingRequestsInflight: 20' 'replicas: 1' \
            "edited away from 1.34's suggested spec: PriorityLevelConfiguration workload-low" \
            'the cluster.s own objects: PriorityLevelConfiguration tenant-sweeps, FlowSchema tenant-operator' \
            'server concurrency limit 60'; do
  grep -q -- "$want" imported.yaml || fail "imported.yaml lacks: $want"
done
grep -q "^ *managedFields:\|^ *resourceVersion:\|^ *status:" imported.yaml && fail "managedFields, resourceVersion or status kept"

# 2. The imported scenario runs, and the dumped users land where the recording put them.
"$apfsim" check imported.yaml --quiet --out out >check.log 2>&1 || fail "check: $(tail -5 check.log)"
python3 - "$samples/dump_requests.txt" out/imported/summary.json <<'PY' || fail "classification differs"
import json, sys
rows = [[c.strip() for c in line.split(",")] for line in open(sys.argv[1]) if line.strip()][1:]
clients = json.load(open(sys.argv[2]))["clients"]
if not rows:
    sys.exit("dump_requests.txt has no request: the sample proves nothing")
for r in rows:
    level, schema, user = r[0], r[1], r[10]
    got = clients.get(user, {}).get("levels", {})
    if schema not in got.get(level, {}).get("flowSchemas", {}):
        sys.exit(f"{user}: recorded {schema} at {level}, the replay gave {got}")
print(f"import_test: {len(rows)} dumped requests of {len({r[10] for r in rows})} users classified as recorded")
PY

# 3. Without an audit log: coarse clients from the dispatched counters.
"$apfsim" import "$samples/objects.yaml" --metrics "$samples/metrics.prom" -o coarse.yaml \
  2>coarse.err || fail "coarse import: $(cat coarse.err)"
grep -q 'COARSE' coarse.yaml || fail "the coarse clients are not marked"
"$apfsim" run coarse.yaml --set duration=5s --quiet --out out >run.log 2>&1 ||
  fail "coarse run: $(tail -5 run.log)"

# 4. kubectl apfsim through the stand-in.
mkdir bin
ln -s "$src/tests/cli/kubectl_stand_in.sh" bin/kubectl
ln -s "$src/tools/kubectl-apfsim" bin/kubectl-apfsim
ln -s "$apfsim" bin/apfsim
export PATH=$scratch/bin:$PATH STAND_IN_SAMPLES=$samples STAND_IN_LOG=$scratch/kubectl.log
kubectl-apfsim --help | grep -q 'kubectl apfsim snapshot -o DIR' || fail "--help"
kubectl-apfsim snapshot -o snap --context prod --kubeconfig kc >snap.log 2>&1 ||
  fail "snapshot: $(cat snap.log)"
for f in objects.yaml metrics.prom dump_priority_levels.txt dump_queues.txt dump_requests.txt scenario.yaml; do
  [ -s "snap/$f" ] || fail "snapshot wrote no $f"
done
grep -q -- '--context=prod --kubeconfig=kc get --raw /metrics' kubectl.log ||
  fail "--context/--kubeconfig not passed on: $(cat kubectl.log)"
STAND_IN_FORBID_DEBUG=1 kubectl-apfsim snapshot -o snap2 >snap2.log 2>&1 ||
  fail "snapshot without the debug permission: $(cat snap2.log)"
grep -q 'it needs permission' snap2.log || fail "no word on the refused dumps: $(cat snap2.log)"
[ -s snap2/scenario.yaml ] || fail "no scenario without the dumps"
kubectl-apfsim lint >lint.log 2>&1; rc=$?
[ $rc -le 1 ] || fail "lint of the live objects exited $rc: $(cat lint.log)"
grep -q 'get flowschemas,prioritylevelconfigurations -o yaml' kubectl.log || fail "lint did not read the live objects"
kubectl-apfsim nonsense >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown command does not exit 2"
# kubectl itself finds the plugin (Debian's kubernetes-client, or any kubectl on PATH).
real=$(PATH=${PATH#"$scratch/bin:"} command -v kubectl || true)
if [ -n "$real" ]; then
  "$real" plugin list 2>/dev/null | grep -q "$scratch/bin/kubectl-apfsim" ||
    fail "kubectl plugin list does not find kubectl-apfsim"
  echo "import_test: $real plugin list finds kubectl-apfsim"
fi
echo "import_test: import, check, coarse run, and kubectl apfsim snapshot/lint passed"

#!/usr/bin/env bash
# Re-makes the "recorded" files of this folder (README.md says why they are composed and
# not captured): objects.yaml from `apfsim defaults` with the edits a cluster's owners
# make and the bookkeeping a live export carries; metrics.prom and the dump_*.txt from a
# run of recording.yaml (the cluster those objects configure, replaying audit.log), with
# the build-info, process and storage series a real /metrics has around the APF ones.
# usage: scenarios/samples/record.sh build/apfsim
set -euo pipefail
apfsim=$(realpath "${1:?usage: $0 APFSIM}")
cd "$(dirname "$0")"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$apfsim" defaults --kubernetes-version 1.34 -o json >"$scratch/defaults.json"
python3 - "$scratch/defaults.json" >objects.yaml <<'PY'
import json, sys
lst = json.load(open(sys.argv[1]))
live = {"uid": "00000000-0000-4000-8000-0000000000%02d", "resourceVersion": "%d",
        "creationTimestamp": "2026-11-02T09:00:00Z"}
for i, item in enumerate(lst["items"]):
    md = item["metadata"]
    md["uid"] = live["uid"] % i
    md["resourceVersion"] = str(400 + i)
    md["creationTimestamp"] = live["creationTimestamp"]
    md["generation"] = 1
    md["managedFields"] = [{"apiVersion": item["apiVersion"], "fieldsType": "FieldsV1",
                            "fieldsV1": {"f:spec": {}}, "manager": "api-priority-and-fairness-config-producer-v1",
                            "operation": "Update", "time": "2026-11-02T09:00:00Z"}]
    item["status"] = {"conditions": [{"type": "Dangling" if item["kind"] == "FlowSchema" else "ConcurrencyShared",
                                      "status": "False" if item["kind"] == "FlowSchema" else "True",
                                      "lastTransitionTime": "2026-11-02T09:00:00Z",
                                      "reason": "Found" if item["kind"] == "FlowSchema" else "",
                                      "message": ""}]}
    # The owners turned workload-low down to 60 shares and stopped its auto-update.
    if item["kind"] == "PriorityLevelConfiguration" and md["name"] == "workload-low":
        item["spec"]["limited"]["nominalConcurrencyShares"] = 60
        md.setdefault("annotations", {})["apf.kubernetes.io/autoupdate-spec"] = "false"
        md["generation"] = 2
# The cluster's own level and FlowSchema: the tenant operator's LIST sweeps, fenced.
lst["items"].append({
    "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
    "metadata": {"name": "tenant-sweeps", "uid": "00000000-0000-4000-8000-000000000090",
                 "resourceVersion": "901", "generation": 1,
                 "creationTimestamp": "2026-11-20T14:00:00Z"},
    "spec": {"type": "Limited", "limited": {
        "nominalConcurrencyShares": 10, "lendablePercent": 0,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 50}}}},
    "status": {}})
lst["items"].append({
    "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
    "metadata": {"name": "tenant-operator", "uid": "00000000-0000-4000-8000-000000000091",
                 "resourceVersion": "902", "generation": 1,
                 "creationTimestamp": "2026-11-20T14:00:00Z"},
    "spec": {"priorityLevelConfiguration": {"name": "tenant-sweeps"}, "matchingPrecedence": 500,
             "distinguisherMethod": {"type": "ByNamespace"},
             "rules": [{"subjects": [{"kind": "ServiceAccount",
                                      "serviceAccount": {"namespace": "platform", "name": "tenant-operator"}}],
                        "resourceRules": [{"verbs": ["list", "get", "watch"], "apiGroups": ["platform.example.com"],
                                           "resources": ["tenantbindings"], "namespaces": ["*"]}]}]},
    "status": {"conditions": [{"type": "Dangling", "status": "False", "reason": "Found",
                               "lastTransitionTime": "2026-11-20T14:00:00Z", "message": ""}]}})
import yaml
print(yaml.safe_dump(lst, sort_keys=False, default_flow_style=False), end="")
PY
"$apfsim" run recording.yaml --out "$scratch/out" --quiet >/dev/null
run=$scratch/out
{
  cat <<'PROM'
# HELP kubernetes_build_info [ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.
# TYPE kubernetes_build_info gauge
kubernetes_build_info{build_date="2026-11-12T10:00:00Z",compiler="gc",git_commit="0000000000000000000000000000000000000000",git_tree_state="clean",git_version="v1.34.2",go_version="go1.24.9",major="1",minor="34",platform="linux/amd64"} 1
# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7649e+09
PROM
  grep -v '^# A \|^# /metrics\|^# and \|^# etcd\|^# apiserver_resource_size' ../sample-metrics.prom | grep -v '^# [a-z(]' || true
  cat "$run/metrics.prom"
} >metrics.prom
for d in dump_priority_levels dump_queues dump_requests; do
  cp "$(ls "$run"/dumps/*"$d".txt | head -1)" "$d.txt"
done

#!/usr/bin/env bash
# CI proof that metrics.om (`apfsim run --openmetrics`, sim/report/openmetrics.h) is what
# Prometheus reads: a two-minute drift sweep is backfilled with `promtool tsdb
# create-blocks-from openmetrics`, a Prometheus on 127.0.0.1 serves those blocks, and its
# HTTP API answers the queries an SRE's dashboard asks, checked against summary.json:
# - sum(rate(apiserver_flowcontrol_dispatched_requests_total[2m])) at the run's end is
#   node-high's dispatched count over the 120 s, within 5% (rate() extrapolates from the
#   first sample at 1 s to the window's start, the only difference);
# - the rejected counter at the end equals summary.json's queue-full count exactly;
# - histogram_quantile(0.99, ...) of workload-low's wait-duration buckets lies in the
#   bucket that holds summary.json's p99 (the histogram knows no finer; summary.json's
#   own percentile is within 1.6%, sim/world/latency_histogram.h);
# - one instance per apiserver replica (3).
# Needs Debian's prometheus package (deps/ci-packages.txt); without promtool it says so and
# skips, so `make test` stays light. Prometheus runs under `timeout` and is stopped by the
# EXIT trap. Usage: tests/ci/prometheus_backfill_test.sh [APFSIM]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
apfsim=${1:-$here/build/apfsim}
if ! command -v promtool >/dev/null 2>&1 || ! command -v prometheus >/dev/null 2>&1; then
  echo "SKIP prometheus_backfill_test: promtool/prometheus not installed (Debian package" \
    "prometheus, listed in deps/ci-packages.txt)"
  exit 0
fi
work=$(mktemp -d)
prometheus_pid=
cleanup() {
  if [[ -n "$prometheus_pid" ]]; then
    kill "$prometheus_pid" 2>/dev/null || true
    wait "$prometheus_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$apfsim" run "$here/scenarios/drift-sweep.yaml" --set duration=2m --openmetrics \
  --label job=kube-apiserver --out "$work/run" --quiet
promtool tsdb create-blocks-from openmetrics "$work/run/metrics.om" "$work/tsdb" >"$work/promtool.log"
cat >"$work/prometheus.yml" <<'YAML'
global:
  scrape_interval: 15s
YAML
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The blocks are in 2026; a long retention keeps Prometheus from deleting them whatever
# the machine's date.
timeout 120 prometheus --storage.tsdb.path="$work/tsdb" --storage.tsdb.retention.time=20y \
  --web.listen-address="127.0.0.1:$port" --config.file="$work/prometheus.yml" \
  >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!

python3 - "$port" "$work/run/summary.json" "$work/prometheus.log" <<'PY'
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

port, summary_path, log_path = sys.argv[1], sys.argv[2], sys.argv[3]
base = "http://127.0.0.1:%s" % port
summary = json.load(open(summary_path))
origin = 1767225600  # 2026-01-01T00:00:00Z, the default --start-time
end = origin + summary["durationSeconds"]

deadline = time.time() + 60
while True:
    try:
        with urllib.request.urlopen(base + "/-/ready", timeout=2) as r:
            if r.status == 200:
                break
    except (urllib.error.URLError, ConnectionError, OSError):
        pass
    if time.time() > deadline:
        sys.exit("prometheus did not become ready in 60 s; its log:\n" + open(log_path).read())
    time.sleep(0.5)


def query(expr):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": end})
    with urllib.request.urlopen(url, timeout=10) as r:
        answer = json.load(r)
    if answer["status"] != "success" or not answer["data"]["result"]:
        sys.exit("no answer to %s: %s" % (expr, answer))
    return answer["data"]["result"]


def scalar(expr):
    result = query(expr)
    value = float(result[0]["value"][1])
    print("%s = %g" % (expr, value))
    return value


failures = []
levels = summary["priorityLevels"]

got = scalar('sum(rate(apiserver_flowcontrol_dispatched_requests_total'
             '{job="kube-apiserver",priority_level="node-high"}[2m]))')
want = levels["node-high"]["dispatched"] / summary["durationSeconds"]
print("  summary.json: %d dispatched / %g s = %g/s" % (
    levels["node-high"]["dispatched"], summary["durationSeconds"], want))
if not abs(got - want) <= 0.05 * want:
    failures.append("dispatched rate %g, summary.json %g (more than 5%% apart)" % (got, want))

got = scalar('sum(apiserver_flowcontrol_rejected_requests_total'
             '{priority_level="workload-low",reason="queue-full"})')
want = levels["workload-low"]["rejected"]["queue-full"]
print("  summary.json: %d" % want)
if got != want:
    failures.append("queue-full rejections %g, summary.json %d" % (got, want))

bounds = [0, .005, .02, .05, .1, .2, .5, 1, 2, 5, 10, 15, 30, float("inf")]
got = scalar('histogram_quantile(0.99, sum by (le) (rate('
             'apiserver_flowcontrol_request_wait_duration_seconds_bucket'
             '{priority_level="workload-low",execute="true"}[2m])))')
want = levels["workload-low"]["waitSeconds"]["p99"]
# The bucket (lower, upper] holding summary.json's p99, widened by its 1.6% precision.
lower = max([b for b in bounds if b < want * 0.984] or [0])
upper = min(b for b in bounds if b >= want * 1.016)
print("  summary.json: p99 %g, so within [%g, %g]" % (want, lower, upper))
if not lower <= got <= upper:
    failures.append("wait p99 %g outside [%g, %g] around summary.json's %g" % (got, lower, upper, want))

instances = query('count by (instance) (apiserver_flowcontrol_nominal_limit_seats)')
names = sorted(r["metric"]["instance"] for r in instances)
print("instances: %s" % names)
if names != ["apiserver-%d" % i for i in range(len(summary["replicas"]))]:
    failures.append("instances %s, summary.json has %d replicas" % (names, len(summary["replicas"])))

if failures:
    sys.exit("prometheus_backfill_test FAILED:\n  " + "\n  ".join(failures))
print("prometheus_backfill_test: Prometheus agrees with summary.json")
PY

#!/usr/bin/env python3
"""Writes the trace-replay case: a CSV trace of recorded calls and the scenario replaying it.

The case doc/performance.md's "Trace replay" table measures: one client replaying a trace of
an operator's calls at 1,000 a second, the shape of a recorded trace (users, resources and
namespaces repeat on nearly every row, names less so):
  45% GET of a configmap (50 namespaces, 400 names each), 15% of them with ?timeout=;
  20% LIST of pods in a namespace (limit=500&resourceVersion=0, from the watch cache);
   5% LIST of one configmap by name (fieldSelector=metadata.name%3D...);
  20% UPDATE of a configmap, 10% PATCH of a pod's status, a quarter with a recorded
      serviceTime.
Times are whole microseconds from a seeded generator, so the file is the same on every
machine and Python.

usage: bench/make_trace_case.py [ROWS] [DIR]   (default 1,000,000 rows into out/trace-case)
       then: build/apfsim run DIR/trace-replay.yaml --seed 1 --quiet --out out/trace-run
"""
import os
import sys


class Lcg:
    """A 64-bit linear congruential generator (Knuth's MMIX constants): our own, not
    Python's random, so that the trace never changes with the Python version."""

    def __init__(self, seed):
        self.state = seed

    def next(self, n):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % n


SCENARIO = """\
# The trace-replay benchmark case (bench/make_trace_case.py wrote it): {rows:,} recorded calls
# at 1,000 a second from one client, against the 1.36 defaults on one replica.
apiVersion: apfsim/v1alpha1
kind: Scenario
metadata:
  name: trace-replay
spec:
  duration: {duration}s
  interval: 10s
  apiservers:
    replicas: 1
    maxRequestsInflight: 400
    maxMutatingRequestsInflight: 200
  resources:
  - {{resource: pods, objects: 5000, averageBytes: 8000, namespaces: 50, namespacePrefix: ns-}}
  - {{resource: configmaps, objects: 20000, averageBytes: 3000, namespaces: 50, namespacePrefix: ns-}}
  clients:
  - name: operator
    serviceAccount: ops/operator
    clientGo: {{qps: -1}}
    traffic:
    - trace: {{file: trace.csv}}
"""


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "out/trace-case"
    os.makedirs(out_dir, exist_ok=True)
    rng = Lcg(36)
    lines = ["time,client,verb,apiGroup,resource,namespace,name,query,serviceTime"]
    micros = 0
    with open(os.path.join(out_dir, "trace.csv"), "w") as out:
        for i in range(rows):
            micros += 1 + rng.next(1999)  # mean 1 ms
            t = "%d.%06d" % (micros // 1_000_000, micros % 1_000_000)
            ns = "ns-%d" % rng.next(50)
            kind = rng.next(100)
            service = ""
            if kind < 45:
                query = "timeout=10s" if rng.next(100) < 15 else ""
                row = [t, "operator", "get", "", "configmaps", ns, "cm-%d" % rng.next(400), query]
            elif kind < 65:
                row = [t, "", "list", "", "pods", ns, "", "limit=500&resourceVersion=0"]
            elif kind < 70:
                row = [t, "", "list", "", "configmaps", ns, "",
                       "fieldSelector=metadata.name%%3Dcm-%d" % rng.next(400)]
            elif kind < 90:
                row = [t, "operator", "update", "", "configmaps", ns, "cm-%d" % rng.next(400), ""]
            else:
                row = [t, "", "patch", "", "pods/status", ns, "pod-%d" % rng.next(100), ""]
            if kind >= 70 and rng.next(4) == 0:
                service = "0.%03d" % (2 + rng.next(20))
            row.append(service)
            lines.append(",".join(row))
            if len(lines) >= 10000:
                out.write("\n".join(lines) + "\n")
                lines = []
        if lines:
            out.write("\n".join(lines) + "\n")
    duration = micros // 1_000_000 + 2
    with open(os.path.join(out_dir, "trace-replay.yaml"), "w") as out:
        out.write(SCENARIO.format(rows=rows, duration=duration))


if __name__ == "__main__":
    main()

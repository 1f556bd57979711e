"""The interactive timelines of the page (tools/plot.py --index): for each apiserver replica
and active priority level, and for each active client, charts that zoom and pan on the time
axis, the runs of the page overlaid on one chart (a comparison's before and after), and the
scenario's marks as vertical lines. Every chart is an element of class `timeline`; all of
them share one time axis, so zooming one zooms all.

The charts are drawn by uPlot (tools/apfplot/vendor/uplot/, MIT; see its LICENSE and the
README for why that library), inlined into the page with our own script (timelines.js) and
the data as JSON, so the page needs no network and can be mailed or kept as a CI artifact.
If a script fails, the page says so in an element with id `script-error` (the CI check,
tests/ci/page_test.sh, looks for it).

Reads timeline.csv and clients.csv through runfiles.Run. Tested by tests/cli/plot_test.cc
and, in a browser, by tests/ci/page_test.sh.
"""

import json
import math
import os

from apfplot.runfiles import (REJECT_REASONS, client_is_active, level_is_active, nominal_of,
                              sort_clients, sort_levels)

HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.path.join(HERE, "vendor", "uplot")

CSS = """
.timelines-help { color: #555; }
.timeline-group { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr));
                  gap: .5em 1.5em; margin-bottom: 1.2em; }
.timeline { min-height: 260px; }
.script-error { background: #fde2e1; color: #8a1c1c; padding: .5em; white-space: pre-wrap; }
"""

# Shown until the first script runs; replaced by the first error if one fails.
ERROR_HANDLER = """
window.onerror = function (message, source, line, column) {
  var marker = document.getElementById("script-error");
  if (!marker) {
    marker = document.createElement("pre");
    marker.id = "script-error";
    marker.className = "script-error";
    document.body.insertBefore(marker, document.body.firstChild);
  }
  marker.textContent += "script error: " + message + " (" + source + ":" + line + ":" +
                        column + ")\\n";
};
"""


def _rounded(values, per=1.0):
    """A column as JSON numbers (NaN, an empty cell, becomes null), rounded to keep the page
    small: a chart shows no more than four digits."""
    out = []
    for v in values:
        out.append(None if math.isnan(v) else round(v / per, 4))
    return out


def _level_data(series, interval_s):
    rejected = [sum(series[column][i] for _, column in REJECT_REASONS)
                for i in range(len(series.times))]
    return {
        "t": list(series.times),
        "executing": _rounded(series["executing_seats"]),
        "currentCL": _rounded(series["current_cl"]),
        "nominalCL": _rounded(series["nominal_cl"]),
        "waiting": _rounded(series["waiting_requests"]),
        "rejected": _rounded(rejected, interval_s),
        "dispatched": _rounded(series["dispatched"], interval_s),
        "waitP99": _rounded(series["wait_p99_s"]),
    }


def _client_data(series, interval_s):
    return {
        "t": list(series.times),
        "calls": _rounded(series["calls"], interval_s),
        "attempts": _rounded(series["attempts"], interval_s),
        "http429": _rounded(series["http429"], interval_s),
        "failed": _rounded(series["failed"], interval_s),
        "latencyP99": _rounded(series["latency_p99_s"]),
    }


def timelines_data(runs, letters):
    """What timelines.js draws: per replica and level, and per client, each run's columns
    (null where a run lacks that level or client)."""
    levels = {}  # (replica, level) -> nominal, for the order
    for run in runs:
        for replica, by_level in run.levels().items():
            for level, series in by_level.items():
                if level_is_active(series):
                    key = (replica, level)
                    levels[key] = max(levels.get(key, 0), nominal_of(series))
    replicas = sorted({replica for replica, _ in levels})
    level_charts = []
    for replica in replicas:
        names = [level for r, level in levels if r == replica]
        for level in sort_levels(names, lambda n: levels[(replica, n)]):
            level_charts.append({
                "replica": replica, "level": level,
                "runs": [_level_data(run.levels()[replica][level], run.interval_s)
                         if level in run.levels().get(replica, {}) else None for run in runs]})
    clients = {}
    for run in runs:
        for name, series in run.clients().items():
            if client_is_active(series):
                clients[name] = max(clients.get(name, 0), sum(series["calls"]))
    client_charts = []
    for name in sort_clients(clients, clients.get):
        client_charts.append({
            "client": name,
            "runs": [_client_data(run.clients()[name], run.interval_s)
                     if name in run.clients() else None for run in runs]})
    marks = sorted({(at, label) for run in runs for at, label in run.summary["marks"]})
    return {
        "runs": [{"letter": letter, "title": run.title()} for letter, run in zip(letters, runs)],
        "marks": [{"at": at, "label": label} for at, label in marks],
        "levels": level_charts,
        "clients": client_charts,
    }


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _script_text(text):
    """Text that may sit inside <script> without ending it early."""
    return text.replace("</", "<\\/")


def head_css():
    return CSS + _read(os.path.join(VENDOR, "uPlot.min.css"))


def section(runs, letters):
    """The section's HTML, scripts included (put it last in <body>)."""
    data = json.dumps(timelines_data(runs, letters), separators=(",", ":"), allow_nan=False)
    return "\n".join([
        '<section id="timelines"><h2>Timelines</h2>',
        '<p class="timelines-help">Drag across a chart to zoom in on that time, turn the '
        "mouse wheel to zoom around the pointer, Shift+drag to pan, double-click to see the "
        "whole run again; every chart follows. %s Dashed vertical lines are the scenario's "
        "marks.</p>" % ("Runs are overlaid: %s." % "; ".join(
            "%s %s" % (letter, "solid" if i == 0 else "dashed" if i == 1 else "dotted")
            for i, letter in enumerate(letters)) if len(runs) > 1 else ""),
        '<div id="timelines-root"></div></section>',
        "<script>%s</script>" % ERROR_HANDLER,
        "<script>%s</script>" % _script_text(_read(os.path.join(VENDOR, "uPlot.iife.min.js"))),
        '<script type="application/json" id="timelines-data">%s</script>' % _script_text(data),
        "<script>%s</script>" % _script_text(_read(os.path.join(HERE, "timelines.js"))),
    ])

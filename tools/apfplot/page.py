"""The HTML page of runs (tools/plot.py --index): inline CSS and scripts, relative links
to the PNGs. With a compare.json (--compare-json), what the change moves per client
request first (its clientMoves, the table `apfsim compare` prints); the comparison picture if given, the runs' main figures side by side when
there are several, the interactive timelines of every run overlaid (apfplot/timelines.py),
then each run's summary tables (per priority level and per client, the whole cluster and
each replica) and its plots; a plot not drawn yet is named as missing.

Reads summary.json, timeline.csv and clients.csv (and compare.json when given), and needs no matplotlib. Tested by
tests/cli/plot_test.cc and tests/ci/page_test.sh.
"""

import html
import os
import sys

from apfplot import timelines
from apfplot.atomic import write_atomically
from apfplot.errors import InputError
from apfplot.formatting import fmt_clock, fmt_count, fmt_duration, fmt_interval, fmt_seconds
from apfplot.runfiles import (REJECT_REASONS, Run, load_comparison, safe_name, sort_clients,
                              sort_levels, verdict_of)

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 1.5em auto; max-width: 1800px; padding: 0 1.5em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 2px solid #ddd; padding-bottom: .2em; }
h3 { font-size: 1.05em; margin: 1.4em 0 .4em; }
.meta { color: #555; }
.verdict { font-size: 1.15em; font-weight: 600; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .3em 0 1em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: .25em .6em; }
th { background: #f4f4f4; font-weight: 600; }
td.n { text-align: right; }
td.name { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
td.bad { background: #fde2e1; color: #8a1c1c; font-weight: 600; }
td.changed { background: #fff4cc; font-weight: 600; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: .92em; }
details { margin: .5em 0 1em; }
summary { cursor: pointer; color: #1f5fa8; }
p.missing { color: #8a1c1c; }
"""


def _cell(value, css="n", bad=False):
    cls = css + (" bad" if bad else "")
    return '<td class="%s">%s</td>' % (cls, html.escape(value))


def level_table(levels):
    head = ("<tr><th rowspan=2>Priority level</th><th rowspan=2>nominalCL<br>(seats)</th>"
            "<th rowspan=2>mean currentCL<br>(seats)</th><th rowspan=2>max seats<br>per request"
            "</th><th rowspan=2>peak request<br>seats</th><th rowspan=2>peak executing<br>seats"
            "</th><th rowspan=2>dispatched</th><th colspan=3>rejected</th>"
            "<th colspan=3>queue wait</th></tr>\n<tr><th>queue-full</th><th>time-out</th>"
            "<th>concurrency-limit</th><th>p50</th><th>p99</th><th>max</th></tr>")
    rows = []
    for name in sort_levels(levels, lambda n: levels[n]["nominalCL"]):
        lv = levels[name]
        cells = [_cell(name, "name"), _cell(fmt_count(lv["nominalCL"])),
                 _cell("%.1f" % lv["meanCurrentCL"]),
                 _cell("–" if lv["maxSeats"] is None else fmt_count(lv["maxSeats"])),
                 _cell(fmt_count(lv["peakRequestSeats"])),
                 _cell(fmt_count(lv["peakExecutingSeats"])), _cell(fmt_count(lv["dispatched"]))]
        cells += [_cell(fmt_count(lv["rejected"][reason]), bad=lv["rejected"][reason] > 0)
                  for reason, _ in REJECT_REASONS]
        cells += [_cell(fmt_seconds(lv["waitSeconds"][q])) for q in ("p50", "p99", "max")]
        rows.append("<tr>%s</tr>" % "".join(cells))
    return "<table>\n%s\n%s\n</table>" % (head, "\n".join(rows))


def client_table(clients):
    head = ("<tr><th rowspan=2>Client</th><th rowspan=2>calls</th><th rowspan=2>attempts</th>"
            "<th rowspan=2>succeeded</th><th rowspan=2>failed<br>after retries</th>"
            "<th rowspan=2>HTTP 429s</th><th colspan=3>latency (retries included)</th></tr>\n"
            "<tr><th>p50</th><th>p99</th><th>max</th></tr>")
    rows = []
    for name in sort_clients(clients, lambda n: clients[n]["calls"]):
        c = clients[name]
        cells = [_cell(name, "name")]
        cells += [_cell(fmt_count(c[key]), bad=key in ("failed", "http429") and c[key] > 0)
                  for key in ("calls", "attempts", "succeeded", "failed", "http429")]
        cells += [_cell(fmt_seconds(c["latencySeconds"][q])) for q in ("p50", "p99", "max")]
        rows.append("<tr>%s</tr>" % "".join(cells))
    return "<table>\n%s\n%s\n</table>" % (head, "\n".join(rows))


def _figure(html_dir, png, caption):
    href = html.escape(os.path.relpath(png, html_dir).replace(os.sep, "/"), quote=True)
    if not os.path.isfile(png):
        print("warning: %s is missing; the page says so (draw it with tools/plot.py first)"
              % png, file=sys.stderr)
        return ('<p class="missing">Missing plot %s: run <code>tools/plot.py</code> on the run '
                'directory first.</p>' % html.escape(href))
    return ('<figure><a href="%s"><img src="%s" alt="%s" loading="lazy"></a>'
            "<figcaption>%s</figcaption></figure>"
            % (href, href, html.escape(caption, quote=True), html.escape(caption)))


def run_section(run, html_dir, anchor):
    s = run.summary
    out = ['<section id="%s">' % anchor,
           "<h2>%s</h2>" % html.escape(run.title()),
           '<p class="meta">%s virtual, %s intervals, directory <code>%s</code></p>'
           % (html.escape(fmt_duration(s["durationSeconds"])),
              html.escape(fmt_interval(s["intervalSeconds"])),
              html.escape(os.path.relpath(run.dir, html_dir).replace(os.sep, "/")))]
    if s["marks"]:
        out.append('<p class="meta">Marks: %s</p>' % "; ".join(
            "%s %s" % (html.escape(fmt_clock(at)), html.escape(label))
            for at, label in sorted(s["marks"])))
    out.append("<h3>Priority levels, all replicas</h3>")
    out.append(level_table(s["priorityLevels"]))
    out.append("<h3>Clients</h3>")
    out.append(client_table(s["clients"]))
    for name, levels in s["replicas"]:
        out.append("<details><summary>Priority levels on %s</summary>%s</details>"
                   % (html.escape(name), level_table(levels)))
    out.append("<h3>Plots</h3>")
    for replica in run.replica_names():
        out.append(_figure(html_dir, os.path.join(run.dir, "plot-%s.png" % safe_name(replica)),
                           "%s: priority levels on %s" % (run.title(), replica)))
    out.append(_figure(html_dir, os.path.join(run.dir, "clients.png"),
                       "%s: clients" % run.title()))
    out.append("</section>")
    return "\n".join(out)


def run_letter(index):
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def overview_tables(runs):
    """The numbers that differ between runs, one sub-column per run: per level the nominal
    limit, peak executing seats, rejections and wait p99; per client the 429s, failures and
    latency p99. A level or client missing from a run shows a dash."""
    def table(first, names, metrics, lookup):
        head = "<tr><th rowspan=2>%s</th>%s</tr>\n<tr>%s</tr>" % (
            first,
            "".join("<th colspan=%d>%s</th>" % (len(runs), title) for title, _, _ in metrics),
            "".join('<th title="%s">%s</th>' % (html.escape(r.title(), quote=True), letter)
                    for _ in metrics for letter, r in zip(letters, runs)))
        rows = []
        for name in names:
            cells = [_cell(name, "name")]
            for _, key, bad_when in metrics:
                for r in runs:
                    value = lookup(r, name)
                    if value is None:
                        cells.append(_cell("–"))
                    else:
                        text, number = key(value)
                        cells.append(_cell(text, bad=bad_when and number > 0))
            rows.append("<tr>%s</tr>" % "".join(cells))
        return "<table>\n%s\n%s\n</table>" % (head, "\n".join(rows))

    letters = [run_letter(i) for i in range(len(runs))]
    levels = {}
    for r in runs:
        for name, lv in r.summary["priorityLevels"].items():
            levels[name] = max(levels.get(name, 0), lv["nominalCL"])
    clients = {}
    for r in runs:
        for name, c in r.summary["clients"].items():
            clients[name] = max(clients.get(name, 0), c["calls"])
    level_metrics = [
        ("nominalCL (seats)", lambda lv: (fmt_count(lv["nominalCL"]), 0), False),
        ("peak executing seats", lambda lv: (fmt_count(lv["peakExecutingSeats"]), 0), False),
        ("rejected (all reasons)", lambda lv: (fmt_count(sum(lv["rejected"].values())),
                                               sum(lv["rejected"].values())), True),
        ("queue wait p99", lambda lv: (fmt_seconds(lv["waitSeconds"]["p99"]), 0), False),
        # A burst hides under a p99 of 0: the worst wait beside it.
        ("queue wait max", lambda lv: (fmt_seconds(lv["waitSeconds"]["max"]), 0), False),
    ]
    client_metrics = [
        ("calls", lambda c: (fmt_count(c["calls"]), 0), False),
        ("HTTP 429s", lambda c: (fmt_count(c["http429"]), c["http429"]), True),
        ("failed after retries", lambda c: (fmt_count(c["failed"]), c["failed"]), True),
        ("latency p99", lambda c: (fmt_seconds(c["latencySeconds"]["p99"]), 0), False),
    ]
    return "\n".join([
        '<p class="meta">%s</p>' % "; ".join("<b>%s</b> = %s" % (letter, html.escape(r.title()))
                                             for letter, r in zip(letters, runs)),
        "<h3>Priority levels, all replicas</h3>",
        table("Priority level", sort_levels(levels, levels.get), level_metrics,
              lambda r, n: r.summary["priorityLevels"].get(n)),
        "<h3>Clients</h3>",
        table("Client", sort_clients(clients, clients.get), client_metrics,
              lambda r, n: r.summary["clients"].get(n))])


def _place(side):
    if side is None:
        return "(not sent)"
    if side["flowSchema"] is None:
        return "APF off"
    return "%s / %s" % (side["flowSchema"], side["priorityLevel"])


def _seats(side):
    if side is None:
        return "–"
    text = str(side["initialSeats"])
    if side["finalSeats"] > 0:
        text += ", then %d for %s" % (side["finalSeats"],
                                      fmt_seconds(side["additionalLatencySeconds"]))
    return text


def _hand(side):
    if side is None:
        return "–"
    if side["flows"] > 1:
        return "%d flows" % side["flows"]
    if side["hand"] is not None:
        return ",".join(str(card) for card in side["hand"])
    return "none (%s)" % side["handNote"].split(":")[0]


def _distinguisher(side):
    if side is None:
        return "–"
    if side["flows"] > 1:
        return "%d flows" % side["flows"]
    return side["flowDistinguisher"] or "–"


def load_client_moves(doc, path):
    """compare.json's clientMoves, or an InputError naming the file."""
    moves = doc.get("clientMoves")
    if not isinstance(moves, dict) or not isinstance(moves.get("requests"), list):
        raise InputError("%s: field clientMoves: missing (written by `apfsim compare` from "
                         "this version on)" % path)
    return moves


def client_moves_table(moves):
    """What the change moves, one row per client request shape, moved rows first: where it
    lands, its flow distinguisher, its seats and its hand, each "before → after" where they
    differ (compare.json's clientMoves, as at t=0)."""
    head = ("<tr><th>Client</th><th>Request</th><th>calls</th><th>moved</th>"
            "<th>FlowSchema / priority level</th><th>flow distinguisher</th>"
            "<th>seats (initial, final for writes)</th><th>hand of queues</th></tr>")

    def both(before, after):
        return before if before == after else "%s → %s" % (before, after)

    rows = []
    for e in moves["requests"]:
        b, a = e["before"], e["after"]
        cells = [_cell(e["client"], "name"), _cell(e["request"], "name"),
                 _cell(fmt_count(e["calls"])), _cell("yes" if e["moved"] else "", "name")]
        for part in (_place, _distinguisher, _seats, _hand):
            before, after = part(b), part(a)
            cells.append(_cell(both(before, after), "name changed" if before != after else "name"))
        rows.append("<tr>%s</tr>" % "".join(cells))
    notes = "".join('<p class="meta">%s</p>' % html.escape(n) for n in moves.get("notes", []))
    moved = sum(1 for e in moves["requests"] if e["moved"])
    return ('<p class="meta">%d of %d client requests moved (as at %s; moved ones first)</p>'
            "\n<table>\n%s\n%s\n</table>\n%s"
            % (moved, len(moves["requests"]), html.escape(moves.get("asOf", "t=0")), head,
               "\n".join(rows), notes))


def write_index(out_html, run_dirs, compare_png, compare_json=None):
    runs = [Run(d) for d in run_dirs]
    comparison = load_comparison(compare_json) if compare_json else None
    moves = load_client_moves(comparison, compare_json) if comparison is not None else None
    verdict = verdict_of(comparison, compare_json) if comparison is not None else None
    html_dir = os.path.dirname(os.path.abspath(out_html))
    title = "apfsim: " + ", ".join(r.title() for r in runs)
    anchors = []
    for i, r in enumerate(runs):
        anchors.append("run-%d-%s" % (i + 1, safe_name(r.name)))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title>" % html.escape(title),
             "<style>%s%s</style></head><body>" % (CSS, timelines.head_css()),
             "<h1>apfsim runs</h1>"]
    if verdict is not None:
        # The verdict first, as `apfsim compare` prints it.
        parts.append('<p class="verdict">%s</p>' % html.escape(verdict[0]))
        parts += ['<p class="meta">%s</p>' % html.escape(line) for line in verdict[1]]
    parts += [
        '<p class="meta">Simulated Kubernetes API Priority and Fairness. Each run below has '
        "its summary (seats are APF's unit of concurrency; a level's nominalCL is its "
        "share of the server's limit) and its plots, one per apiserver replica.</p>",
        "<nav>%s%s%s%s</nav>" % (
            '<a href="#moves">what moved</a>' if moves is not None else "",
            '<a href="#overview">side by side</a>' if len(runs) > 1 else "",
            '<a href="#compare">comparison picture</a>' if compare_png else "",
            '<a href="#timelines">timelines</a>' +
                             "".join('<a href="#%s">%s</a>' % (a, html.escape(r.title()))
                                     for a, r in zip(anchors, runs)))]
    if moves is not None:
        parts.append('<section id="moves"><h2>What the change moves, per client</h2>%s'
                     "</section>" % client_moves_table(moves))
    if len(runs) > 1:
        parts.append('<section id="overview"><h2>The runs side by side</h2>%s</section>'
                     % overview_tables(runs))
    if compare_png:
        parts.append('<section id="compare"><h2>Comparison picture</h2>%s</section>'
                     % _figure(html_dir, os.path.abspath(compare_png),
                               "Two runs side by side (tools/plot.py --compare), each row on "
                               "one scale"))
    parts.append(timelines.section(runs, [run_letter(i) for i in range(len(runs))]))
    for anchor, r in zip(anchors, runs):
        parts.append(run_section(r, html_dir, anchor))
    parts.append("</body></html>\n")
    text = "\n".join(parts)
    write_atomically(out_html, lambda f: f.write(text.encode("utf-8")))
    print("wrote %s" % out_html)

#!/usr/bin/env python3
"""Draws what `apfsim run` writes: per-replica priority-level plots, client plots, a
side-by-side comparison of two runs, and an HTML page that shows runs with their summary
tables.

  tools/plot.py DIR...
      For each run directory DIR, writes DIR/plot-<replica>.png (one per apiserver replica:
      a row per priority level that had any activity, sorted by nominal concurrency limit,
      showing executing seats against the current and nominal limits, waiting requests,
      rejections per second by reason and the wait p99) and DIR/clients.png (a row per
      client: calls and attempts per second, 429s and failures per second, latency).

  tools/plot.py --compare DIR_A DIR_B [--out FILE]
      Draws the two runs side by side, each level and client on one row with the same
      axis scales for both runs. Levels are summed over the replicas, except the executing
      seats (one line per replica, so a single saturated replica is not averaged away) and
      the wait p99 (the worst replica). Without --out the picture is written to
      compare-<A>-vs-<B>.png in the parent directory of DIR_A, where <A> and <B> are the
      two directories' names (out/drift-sweep and out/drift-sweep-fixed give
      out/compare-drift-sweep-vs-drift-sweep-fixed.png).

  tools/plot.py --index OUT_HTML DIR... [--compare-png FILE]
      Writes an HTML page (inline CSS, no JavaScript, relative links to the PNGs) showing
      the comparison picture if given, then for each run its summary tables (per priority
      level and per client, the whole cluster and each replica) and its plots. Draw the
      plots first: the page links to them and says which are missing.

Input is the contract of `apfsim run` (summary.json, timeline.csv, clients.csv). Bad input
(a missing file, a header that is not exactly the expected one, a value that is not a
number) is reported as one line naming the file, and the exit code is 2; an internal
error exits with 3. Each output is written under a temporary name in its directory and
renamed when complete, so a reader never sees half a file.

Needs Python 3 with matplotlib and nothing else; tools/find-python.sh prints such a
Python: `$(tools/find-python.sh) tools/plot.py DIR`.
"""

import argparse
import csv
import html
import json
import math
import os
import sys
import tempfile
from array import array

# The simulator's output contract (issue 7, `apfsim run`). Headers must match exactly.
TIMELINE_COLUMNS = [
    "time_s", "replica", "priority_level", "executing_requests", "executing_seats",
    "peak_executing_seats", "waiting_requests", "waiting_seats", "current_cl", "nominal_cl",
    "dispatched", "rejected_queue_full", "rejected_time_out", "rejected_concurrency_limit",
    "wait_p50_s", "wait_p99_s", "retry_after_s"
]
CLIENT_COLUMNS = [
    "time_s", "client", "calls", "attempts", "succeeded", "failed", "http429",
    "latency_p50_s", "latency_p99_s"
]
# Cells that are empty when nothing happened in the interval (no request dispatched, no
# call completed). They read as NaN, which matplotlib draws as a gap.
OPTIONAL_CELLS = {"wait_p50_s", "wait_p99_s", "retry_after_s", "latency_p50_s", "latency_p99_s"}

# Rejection reasons as apiserver_flowcontrol_rejected_requests_total names them, with the
# timeline column that counts each.
REJECT_REASONS = [
    ("queue-full", "rejected_queue_full", "#d62728"),
    ("time-out", "rejected_time_out", "#ff7f0e"),
    ("concurrency-limit", "rejected_concurrency_limit", "#9467bd"),
]
# When APF is off the timeline holds the two MaxInFlight pools instead of levels.
MAX_IN_FLIGHT_POOLS = {"readonly", "mutating"}

# A panel is drawn from at most this many points per line; longer runs are coarsened by
# merging whole groups of intervals (means averaged, peaks and p99s take the maximum, counts
# summed), which the footnote then says.
MAX_POINTS = 3000

COLOR_SEATS = "#1f77b4"
COLOR_CURRENT = "#222222"
COLOR_NOMINAL = "#7f7f7f"
COLOR_WAITING = "#8c564b"
COLOR_P99 = "#17becf"
COLOR_P50 = "#9edae5"
COLOR_CALLS = "#1f77b4"
COLOR_ATTEMPTS = "#aec7e8"
COLOR_429 = "#d62728"
COLOR_FAILED = "#000000"
COLOR_MARK = "#555555"
REPLICA_COLORS = ["#1f77b4", "#2ca02c", "#e377c2", "#bcbd22", "#8c564b", "#17becf", "#7f7f7f"]

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3


class InputError(Exception):
    """Bad user input. The message names the file (and line or field) at fault."""


# ---------------------------------------------------------------------------------------
# Reading a run directory.


def _type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _is_integral(value):
    """An integer, also when a JSON writer spelled it 12.0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or (math.isfinite(value) and value == int(value))


class _JsonReader:
    """Typed access to a parsed JSON document; errors name the file and the field path."""

    def __init__(self, path):
        self.path = path

    def fail(self, field_path, message):
        raise InputError("%s: field %s: %s" % (self.path, field_path, message))

    def get(self, obj, key, kind, field_path, optional=False):
        path = "%s.%s" % (field_path, key) if field_path else key
        if key not in obj:
            if optional:
                return None
            self.fail(path, "missing")
        return self.check(obj[key], kind, path)

    def check(self, value, kind, path):
        ok = {
            "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
                                and math.isfinite(v),
            "number-or-null": lambda v: v is None or (
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)),
            "int": _is_integral,
            "int-or-null": lambda v: v is None or _is_integral(v),
            "string": lambda v: isinstance(v, str),
            "object": lambda v: isinstance(v, dict),
            "list": lambda v: isinstance(v, list),
        }[kind](value)
        if not ok:
            wanted = {"number": "a number", "int": "an integer",
                      "int-or-null": "an integer or null",
                      "number-or-null": "a number or null", "string": "a string",
                      "object": "an object", "list": "a list"}[kind]
            self.fail(path, "expected %s, got %s" % (wanted, _type_name(value)))
        return value


def _read_level_summaries(reader, obj, path):
    levels = {}
    for name, level in reader.check(obj, "object", path).items():
        p = "%s.%s" % (path, name)
        reader.check(level, "object", p)
        rejected = reader.get(level, "rejected", "object", p)
        wait = reader.get(level, "waitSeconds", "object", p)
        levels[name] = {
            "nominalCL": reader.get(level, "nominalCL", "int", p),
            "meanCurrentCL": reader.get(level, "meanCurrentCL", "number", p),
            "maxSeats": reader.get(level, "maxSeats", "int-or-null", p),
            "peakRequestSeats": reader.get(level, "peakRequestSeats", "int", p),
            "dispatched": reader.get(level, "dispatched", "int", p),
            "rejected": {reason: reader.get(rejected, reason, "int", p + ".rejected")
                         for reason, _, _ in REJECT_REASONS},
            "waitSeconds": {q: reader.get(wait, q, "number-or-null", p + ".waitSeconds")
                            for q in ("p50", "p99", "max")},
            "peakExecutingSeats": reader.get(level, "peakExecutingSeats", "int", p),
        }
    return levels


def _read_client_summaries(reader, obj, path):
    clients = {}
    for name, client in reader.check(obj, "object", path).items():
        p = "%s.%s" % (path, name)
        reader.check(client, "object", p)
        latency = reader.get(client, "latencySeconds", "object", p)
        clients[name] = {key: reader.get(client, key, "int", p)
                         for key in ("calls", "attempts", "succeeded", "failed", "http429")}
        clients[name]["latencySeconds"] = {
            q: reader.get(latency, q, "number-or-null", p + ".latencySeconds")
            for q in ("p50", "p99", "max")}
    return clients


def read_summary(run_dir):
    """Reads and checks DIR/summary.json; returns a plain dict with the fields we use."""
    path = os.path.join(run_dir, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError("%s: missing (is %s the output directory of `apfsim run`?)"
                         % (path, run_dir)) from None
    except json.JSONDecodeError as e:
        raise InputError("%s:%d:%d: not valid JSON: %s"
                         % (path, e.lineno, e.colno, e.msg)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("%s: cannot read: %s" % (path, e)) from None
    r = _JsonReader(path)
    r.check(doc, "object", "(top level)")
    summary = {
        "scenario": r.get(doc, "scenario", "string", ""),
        "seed": r.get(doc, "seed", "int", ""),
        "durationSeconds": r.get(doc, "durationSeconds", "number", ""),
        "intervalSeconds": r.get(doc, "intervalSeconds", "number", ""),
        "marks": [],
        "priorityLevels": _read_level_summaries(r, r.get(doc, "priorityLevels", "object", ""),
                                                "priorityLevels"),
        "clients": _read_client_summaries(r, r.get(doc, "clients", "object", ""), "clients"),
        "replicas": [],
    }
    if summary["intervalSeconds"] <= 0:
        r.fail("intervalSeconds", "must be positive")
    for i, mark in enumerate(r.get(doc, "marks", "list", "")):
        p = "marks[%d]" % i
        r.check(mark, "object", p)
        summary["marks"].append((r.get(mark, "atSeconds", "number", p),
                                 r.get(mark, "label", "string", p)))
    for i, replica in enumerate(r.get(doc, "replicas", "list", "", optional=True) or []):
        p = "replicas[%d]" % i
        r.check(replica, "object", p)
        summary["replicas"].append(
            (r.get(replica, "name", "string", p),
             _read_level_summaries(r, r.get(replica, "priorityLevels", "object", p),
                                   p + ".priorityLevels")))
    return summary


def header_problem(header, columns):
    """Says how a CSV header differs from the one `apfsim run` writes."""
    if not header:
        return "empty file; expected the header %s" % ",".join(columns)
    missing = [c for c in columns if c not in header]
    extra = [c for c in header if c not in columns]
    what = []
    if missing:
        what.append("missing column%s %s" % ("s" if len(missing) > 1 else "", ", ".join(missing)))
    if extra:
        what.append("unexpected column%s %s" % ("s" if len(extra) > 1 else "", ", ".join(extra)))
    if not what:
        what.append("columns in another order")
    return "header is not the one `apfsim run` writes (%s); expected:\n  %s" % (
        "; ".join(what), ",".join(columns))


class Series:
    """One line of the timeline (a replica's level, or a client): columns of equal length,
    sorted by interval start."""

    def __init__(self, times, columns, interval_s):
        self.times = times
        self.columns = columns
        self.interval_s = interval_s

    def __getitem__(self, column):
        return self.columns[column]

    def end(self):
        return self.times[-1] + self.interval_s if self.times else 0.0


def read_table(path, columns, key_columns, interval_s):
    """Reads a CSV file whose header must be exactly `columns` into a Series per key (the
    tuple of the key_columns' cells), sorted by time_s; a repeated (key, time) is an error.

    Cells in OPTIONAL_CELLS may be empty and read as NaN; every other cell must be a finite
    number. Values are kept column-wise in arrays of doubles: a day at one-second intervals
    is millions of rows."""
    try:
        f = open(path, newline="", encoding="utf-8")
    except FileNotFoundError:
        raise InputError("%s: missing" % path) from None
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e)) from None
    key_at = [columns.index(c) for c in key_columns]
    value_columns = [c for c in columns if c not in key_columns and c != "time_s"]
    value_at = [(columns.index(c), c, c in OPTIONAL_CELLS) for c in value_columns]
    tables = {}  # key -> (line numbers, times, {column: values})
    with f:
        rows = csv.reader(f)
        try:
            header = next(rows, None)
            if header != columns:
                raise InputError("%s:1: %s" % (path, header_problem(header, columns)))
            for row in rows:
                line = rows.line_num
                if not row:
                    continue
                if len(row) != len(columns):
                    raise InputError("%s:%d: %d cells, expected %d"
                                     % (path, line, len(row), len(columns)))
                key = tuple(row[i] for i in key_at)
                for column, cell in zip(key_columns, key):
                    if not cell:
                        raise InputError("%s:%d: column %s is empty" % (path, line, column))
                table = tables.get(key)
                if table is None:
                    table = tables[key] = (array("q"), array("d"),
                                           {c: array("d") for c in value_columns})
                table[0].append(line)
                table[1].append(_number(path, line, "time_s", row[0]))
                values = table[2]
                for i, column, optional in value_at:
                    cell = row[i]
                    values[column].append(math.nan if optional and cell == ""
                                          else _number(path, line, column, cell))
        except (csv.Error, UnicodeDecodeError) as e:
            raise InputError("%s:%d: cannot read CSV: %s" % (path, rows.line_num, e)) from None
    series = {}
    for key, (lines, times, values) in tables.items():
        order = range(len(times))
        if any(times[i] >= times[i + 1] for i in range(len(times) - 1)):
            order = sorted(order, key=lambda i: (times[i], lines[i]))
            for a, b in zip(order, order[1:]):
                if times[a] == times[b]:
                    raise InputError("%s:%d: a second row for time %g, %s (the first is on "
                                     "line %d)" % (path, lines[b], times[b], ", ".join(key),
                                                   lines[a]))
            times = array("d", (times[i] for i in order))
            values = {c: array("d", (v[i] for i in order)) for c, v in values.items()}
        series[key] = Series(times, values, interval_s)
    return series


def _number(path, line, column, cell):
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError("%s:%d: column %s: expected a number, got %r" % (path, line, column, cell))
    return value


class Run:
    """A run directory. The CSV files are read when first needed (the index does not draw)."""

    def __init__(self, run_dir):
        if not os.path.isdir(run_dir):
            raise InputError("%s: not a directory" % run_dir)
        self.dir = run_dir
        self.summary = read_summary(run_dir)
        self.name = self.summary["scenario"]
        self.interval_s = self.summary["intervalSeconds"]
        self._levels = None
        self._clients = None

    def title(self):
        return "%s, seed %d" % (self.name, self.summary["seed"])

    def levels(self):
        """{replica: {level: Series}} from timeline.csv."""
        if self._levels is None:
            path = os.path.join(self.dir, "timeline.csv")
            flat = read_table(path, TIMELINE_COLUMNS, ["replica", "priority_level"],
                              self.interval_s)
            if not flat:
                raise InputError("%s: no rows after the header" % path)
            self._levels = {}
            for (replica, level), s in sorted(flat.items()):
                self._levels.setdefault(replica, {})[level] = s
        return self._levels

    def clients(self):
        """{client: Series} from clients.csv."""
        if self._clients is None:
            path = os.path.join(self.dir, "clients.csv")
            flat = read_table(path, CLIENT_COLUMNS, ["client"], self.interval_s)
            self._clients = {key[0]: s for key, s in sorted(flat.items())}
        return self._clients

    def replica_names(self):
        """Replicas as summary.json lists them, else as the timeline has them."""
        names = [name for name, _ in self.summary["replicas"]]
        return names or sorted(self.levels())

    def duration_s(self):
        return max(self.summary["durationSeconds"], 0.0)


def coarsen(series, column_rules, max_points=MAX_POINTS):
    """Returns (series, factor): the series with groups of `factor` intervals merged so it
    has at most max_points points. column_rules maps a column to "mean", "max" or "sum"."""
    n = len(series.times)
    factor = max(1, math.ceil(n / max_points))
    if factor == 1:
        return series, 1

    def merge(values, rule):
        finite = [v for v in values if not math.isnan(v)]
        if not finite:
            return math.nan
        if rule == "max":
            return max(finite)
        if rule == "sum":
            return sum(finite)
        return sum(finite) / len(values)

    times = [series.times[i] for i in range(0, n, factor)]
    columns = {c: [merge(series[c][i:i + factor], column_rules.get(c, "mean"))
                   for i in range(0, n, factor)]
               for c in series.columns}
    return Series(times, columns, series.interval_s * factor), factor


LEVEL_RULES = {"peak_executing_seats": "max", "dispatched": "sum", "rejected_queue_full": "sum",
               "rejected_time_out": "sum", "rejected_concurrency_limit": "sum",
               "wait_p50_s": "max", "wait_p99_s": "max", "retry_after_s": "max"}
CLIENT_RULES = {"calls": "sum", "attempts": "sum", "succeeded": "sum", "failed": "sum",
                "http429": "sum", "latency_p50_s": "max", "latency_p99_s": "max"}


def level_is_active(series):
    for column in ("executing_requests", "waiting_requests", "dispatched", "rejected_queue_full",
                   "rejected_time_out", "rejected_concurrency_limit"):
        if any(v > 0 for v in series[column]):
            return True
    return False


def client_is_active(series):
    return any(v > 0 for v in series["calls"]) or any(v > 0 for v in series["attempts"])


def nominal_of(series):
    return max(series["nominal_cl"]) if series.times else 0.0


def is_max_in_flight(level_names):
    return bool(level_names) and set(level_names) <= MAX_IN_FLIGHT_POOLS


# ---------------------------------------------------------------------------------------
# Writing outputs whole or not at all.


def write_atomically(path, write):
    """Calls write(file object) on a temporary file beside `path`, then renames it."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
    except OSError as e:
        raise InputError("%s: cannot write: %s" % (path, e)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise InputError("%s: cannot write: %s" % (path, e)) from None
        raise


def save_figure(fig, path):
    import matplotlib.pyplot as plt
    write_atomically(path, lambda f: fig.savefig(f, format="png", dpi=100))
    plt.close(fig)
    print("wrote %s" % path)


# ---------------------------------------------------------------------------------------
# Drawing helpers.


class TimeAxis:
    """Virtual time on the x axis: minutes for runs of five minutes or more, else seconds."""

    def __init__(self, duration_s, panel_width_in):
        self.duration_s = max(duration_s, 1e-9)
        self.panel_width_in = panel_width_in  # to space the mark labels
        if duration_s >= 300:
            self.scale, self.label = 1 / 60, "virtual time (min)"
        else:
            self.scale, self.label = 1.0, "virtual time (s)"

    def x(self, seconds):
        return seconds * self.scale

    def setup(self, ax, label):
        from matplotlib.ticker import MaxNLocator
        ax.set_xlim(0, self.x(self.duration_s))
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 5, 10]))
        if label:
            ax.set_xlabel(self.label)


def step_xy(series, values, taxis):
    """The x and y of a post-step line over whole intervals: each value holds from its
    interval's start to the next, and the last one until its interval ends."""
    xs = [taxis.x(t) for t in series.times] + [taxis.x(series.end())]
    return xs, list(values) + [values[-1] if values else 0.0]


def draw_step(ax, series, values, taxis, **kwargs):
    xs, ys = step_xy(series, values, taxis)
    return ax.step(xs, ys, where="post", **kwargs)


def fill_step(ax, series, lower, upper, taxis, **kwargs):
    xs, ys_hi = step_xy(series, upper, taxis)
    _, ys_lo = step_xy(series, lower, taxis)
    return ax.fill_between(xs, ys_lo, ys_hi, step="post", **kwargs)


def draw_gappy(ax, series, values, taxis, color, linewidth):
    """A line with gaps where there is no value. Values in a run too short to see (under
    a 150th of the time axis) also get dots, else a lone interval would be a sliver."""
    draw_step(ax, series, values, taxis, color=color, linewidth=linewidth)
    short = taxis.duration_s / 150
    dots_x, dots_y = [], []
    i = 0
    while i < len(values):
        if math.isnan(values[i]):
            i += 1
            continue
        j = i
        while j + 1 < len(values) and not math.isnan(values[j + 1]):
            j += 1
        if series.times[j] + series.interval_s - series.times[i] < short:
            for k in range(i, j + 1):
                dots_x.append(taxis.x(series.times[k] + series.interval_s / 2))
                dots_y.append(values[k])
        i = j + 1
    if dots_x:
        ax.plot(dots_x, dots_y, linestyle="none", marker="o", markersize=2.5, color=color)


def finite_max(*lists):
    best = 0.0
    for values in lists:
        for v in values:
            if not math.isnan(v) and v > best:
                best = v
    return best


def set_y_top(ax, top, integer=False, empty_text=None):
    """y from 0 to a little above the largest value. A panel with nothing but zeros keeps a
    bare axis and says so in words, which reads faster than an empty frame."""
    from matplotlib.ticker import MaxNLocator
    if top > 0:
        ax.set_ylim(0, top * 1.1)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=4, integer=integer, min_n_ticks=2))
        return
    ax.set_ylim(0, 1.0)
    ax.set_yticks([0])
    if empty_text:
        say_empty(ax, empty_text)


def say_empty(ax, text):
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=8.5,
            color="#888888", bbox=dict(facecolor="white", edgecolor="none", pad=1.5), zorder=5)


def merge_close_marks(marks, min_gap_s):
    """Marks closer than min_gap_s to the first of a group share its label, which says how
    many more it stands for; else their slanted labels would print over each other."""
    groups = []
    for at, label in sorted(marks):
        if groups and at - groups[-1][0][0] < min_gap_s:
            groups[-1].append((at, label))
        else:
            groups.append([(at, label)])
    return [(group[0][0], group[0][1] + ("" if len(group) == 1 else " (+%d)" % (len(group) - 1)))
            for group in groups]


def draw_marks(ax, marks, taxis, labelled):
    """The scenario's marks as dashed vertical lines; on the top row also labelled above
    the panel (as ticks of a secondary x axis, so the layout makes room for them)."""
    inside = [(at, label) for at, label in marks if 0 <= at <= taxis.duration_s]
    for at, _ in inside:
        ax.axvline(taxis.x(at), color=COLOR_MARK, linestyle=(0, (4, 3)), linewidth=0.9,
                   alpha=0.8, zorder=1)
    if labelled and inside:
        top = ax.secondary_xaxis("top")
        # Labels slanted at 30 degrees clear each other when a quarter of an inch apart.
        merged = merge_close_marks(inside, taxis.duration_s * 0.25 / taxis.panel_width_in)
        top.set_xticks([taxis.x(at) for at, _ in merged])
        top.set_xticklabels([label for _, label in merged], rotation=30, ha="left",
                            rotation_mode="anchor", fontsize=7.5, color=COLOR_MARK)
        top.tick_params(axis="x", length=3, pad=1, color=COLOR_MARK)
        top.spines["top"].set_visible(False)


def style_axes(ax):
    ax.grid(True, axis="y", color="#e6e6e6", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8)


def no_data(ax, text):
    say_empty(ax, text)
    ax.set_yticks([])


def fmt_count(value):
    return "{:,}".format(int(round(value)))


def plural(count, noun):
    return "%s %s%s" % (fmt_count(count), noun, "" if round(count) == 1 else "s")


def fmt_seconds(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if value == 0:
        return "0"
    if value < 1:
        return "%.3g ms" % (value * 1000)
    return "%.3g s" % value


def legend_axes(fig_or_subfig, spec, handles, title):
    """An empty panel holding one column's legend, so legends never cover data."""
    ax = fig_or_subfig.add_subplot(spec)
    ax.axis("off")
    ax.legend(handles=handles, loc="upper left", ncol=2 if len(handles) > 3 else 1,
              fontsize=8, frameon=False, title=title, title_fontsize=9, borderaxespad=0,
              alignment="left", handlelength=1.8, columnspacing=1.0)
    return ax


def handle_line(color, label, **kwargs):
    from matplotlib.lines import Line2D
    return Line2D([], [], color=color, label=label, **kwargs)


def handle_patch(color, label, alpha=1.0):
    from matplotlib.patches import Patch
    return Patch(facecolor=color, alpha=alpha, label=label, linewidth=0)


# ---------------------------------------------------------------------------------------
# The panels of a priority level. Each draws one metric of one level into one axes and
# returns the largest y value it drew, so that paired panels can share a scale.


def panel_seats(ax, s, taxis, pools):
    fill_step(ax, s, [0.0] * len(s.times), s["executing_seats"], taxis, color=COLOR_SEATS,
              alpha=0.35, linewidth=0)
    draw_step(ax, s, s["executing_seats"], taxis, color=COLOR_SEATS, linewidth=1.0)
    draw_step(ax, s, s["peak_executing_seats"], taxis, color=COLOR_SEATS, linewidth=0.6,
              alpha=0.6, linestyle=(0, (1, 1)))
    limits = [s["nominal_cl"]]
    if not pools:
        limits.append(s["current_cl"])
        draw_step(ax, s, s["current_cl"], taxis, color=COLOR_CURRENT, linewidth=1.1)
    draw_step(ax, s, s["nominal_cl"], taxis, color=COLOR_NOMINAL, linewidth=1.1,
              linestyle=(0, (5, 2)))
    return finite_max(s["peak_executing_seats"], s["executing_seats"], *limits)


def seats_handles(pools):
    unit = "requests" if pools else "seats"
    handles = [handle_patch(COLOR_SEATS, "executing %s (mean)" % unit, alpha=0.5),
               handle_line(COLOR_SEATS, "executing %s (peak)" % unit, linewidth=0.8,
                           linestyle=(0, (1, 1)))]
    if pools:
        handles.append(handle_line(COLOR_NOMINAL, "in-flight limit", linestyle=(0, (5, 2))))
    else:
        handles += [handle_line(COLOR_CURRENT, "current limit (currentCL)"),
                    handle_line(COLOR_NOMINAL, "nominal limit (nominalCL)",
                                linestyle=(0, (5, 2)))]
    return handles


def panel_waiting(ax, s, taxis):
    fill_step(ax, s, [0.0] * len(s.times), s["waiting_requests"], taxis, color=COLOR_WAITING,
              alpha=0.35, linewidth=0)
    draw_step(ax, s, s["waiting_requests"], taxis, color=COLOR_WAITING, linewidth=1.0)
    return finite_max(s["waiting_requests"])


def waiting_handles():
    return [handle_patch(COLOR_WAITING, "waiting requests (mean)", alpha=0.5)]


def panel_rejections(ax, s, taxis):
    """Rejections per second, stacked by reason. Each band's top is outlined too, so that a
    one-interval spike stays visible; the outlines are drawn top band first, so where a
    reason adds nothing its outline lies under the one of the band below."""
    bottom = [0.0] * len(s.times)
    outlines = []
    for _, column, color in REJECT_REASONS:
        rates = [v / s.interval_s for v in s[column]]
        if not any(r > 0 for r in rates):
            continue
        top = [b + r for b, r in zip(bottom, rates)]
        fill_step(ax, s, bottom, top, taxis, color=color, alpha=0.55, linewidth=0)
        outlines.append((top, color))
        bottom = top
    for top, color in reversed(outlines):
        draw_step(ax, s, top, taxis, color=color, linewidth=0.8)
    return finite_max(bottom)


def rejection_handles():
    return [handle_patch(color, reason, alpha=0.7) for reason, _, color in REJECT_REASONS]


def panel_wait(ax, s, taxis):
    draw_gappy(ax, s, s["wait_p50_s"], taxis, COLOR_P50, 1.0)
    draw_gappy(ax, s, s["wait_p99_s"], taxis, COLOR_P99, 1.2)
    return finite_max(s["wait_p99_s"], s["wait_p50_s"])


def wait_handles():
    return [handle_line(COLOR_P99, "p99", linewidth=1.4), handle_line(COLOR_P50, "p50")]


LEVEL_COLUMNS = [
    # (heading, y label, legend handles, integer ticks, what an all-zero panel says)
    ("Executing seats vs limits", "seats", seats_handles, True, "nothing executed"),
    ("Waiting in queues", "requests", waiting_handles, False, "no request waited"),
    ("Rejected (HTTP 429) by reason", "requests/s", rejection_handles, False, "no rejections"),
    ("Queue wait of requests dispatched", "seconds", wait_handles, False, "no queue wait"),
]


def level_row_title(name, s, level_summary, pools):
    """The line above a level's row: its name and the numbers an SRE asks first."""
    seats = "requests" if pools else "seats"
    nominal = nominal_of(s)
    parts = []
    if nominal > 0:
        parts.append("limit %s %s" % (fmt_count(nominal), seats) if pools
                     else "nominalCL %s seats" % fmt_count(nominal))
    else:
        parts.append("not limited")
    if not pools and level_summary and level_summary.get("maxSeats") is not None:
        parts.append("at most %d seats per request" % level_summary["maxSeats"])
    parts.append("peak %s executing" % plural(finite_max(s["peak_executing_seats"]),
                                              seats[:-1]))
    parts.append("%s dispatched" % fmt_count(sum(s["dispatched"])))
    rejected = [(reason, sum(s[column])) for reason, column, _ in REJECT_REASONS]
    total = sum(n for _, n in rejected)
    if total:
        parts.append("%s rejected (%s)" % (fmt_count(total), ", ".join(
            "%s %s" % (reason, fmt_count(n)) for reason, n in rejected if n)))
        retry_after = finite_max(s["retry_after_s"])
        if retry_after:
            # APF-SPEC 1.6: the level's Retry-After grows from 1 s while drops go on.
            parts.append("Retry-After up to %g s" % retry_after)
    else:
        parts.append("none rejected")
    return name, "   ·   ".join(parts)


def sort_levels(names, nominal):
    return sorted(names, key=lambda n: (-nominal(n), n))


def draw_row_title(subfig, name, detail):
    """The row's name in bold with its numbers after it on the same line. The name is the
    subfigure's suptitle, so the layout leaves room for it above the panels (and above the
    mark labels of the top row)."""
    from matplotlib.text import Annotation
    name_text = subfig.suptitle(name, x=0.0, ha="left", fontsize=10.5, fontweight="bold")
    note = Annotation(detail, xy=(1.0, 0.0), xycoords=name_text, xytext=(12, 0),
                      textcoords="offset points", ha="left", va="bottom", fontsize=8.5,
                      color="#444444")
    note.set_in_layout(False)
    subfig.add_artist(note)


# ---------------------------------------------------------------------------------------
# Figures. A figure is a stack of full-width bands (matplotlib subfigures): a title band,
# a band of legends (one over each column of panels, so no legend covers data), a band per
# level or client, and a footnote band. Heights are in inches.

MARK_LABEL_ROOM_IN = 0.55  # extra height of the top row when it carries the mark labels


def new_figure(width_in, band_heights):
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(width_in, sum(band_heights)), layout="constrained")
    fig.get_layout_engine().set(h_pad=0.04, w_pad=0.04, hspace=0.02, wspace=0.03)
    return fig, list(fig.subfigures(len(band_heights), 1, height_ratios=band_heights))


def row_heights(count, height_in, marks):
    """Heights of `count` rows of panels; the first also holds the mark labels."""
    heights = [height_in] * max(1, count)
    if marks:
        heights[0] += MARK_LABEL_ROOM_IN
    return heights


def title_band(band, title, subtitle):
    band.text(0.0, 0.98, title, ha="left", va="top", fontsize=14, fontweight="bold",
              transform=band.transSubfigure)
    band.text(0.0, 0.02, subtitle, ha="left", va="bottom", fontsize=9, color="#444444",
              transform=band.transSubfigure)


def legend_band(band, width_ratios, legends):
    """legends: (grid columns as a slice, heading, handles) for each column of panels."""
    grid = band.add_gridspec(1, len(width_ratios), width_ratios=width_ratios)
    for columns, heading, handles in legends:
        legend_axes(band, grid[0, columns], handles, heading)


def label_band(band, width_ratios, labels):
    """A line of text over each column of panels: labels is (grid column, text)."""
    grid = band.add_gridspec(1, len(width_ratios), width_ratios=width_ratios)
    for column, text in labels:
        ax = band.add_subplot(grid[0, column])
        ax.axis("off")
        ax.text(0.0, 0.0, text, ha="left", va="bottom", fontsize=9.5, fontweight="bold",
                color="#333333", transform=ax.transAxes)


def footnote_band(band, lines):
    band.text(0.0, 0.95, "\n".join(lines), ha="left", va="top", fontsize=8, color="#444444",
              transform=band.transSubfigure, linespacing=1.5)


def finish_axes(ax, taxis, marks, row, rows, ylabel):
    """What every panel gets: style, time axis (labelled on the bottom row), y label, the
    marks (labelled on the top row)."""
    style_axes(ax)
    taxis.setup(ax, label=(row == rows - 1))
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=8.5)
    draw_marks(ax, marks, taxis, labelled=(row == 0))


def fmt_interval(seconds):
    return "%g s" % seconds


def draw_replica(run, replica):
    """One replica's priority levels: a row per active level, four panels per row."""
    levels = run.levels()[replica]
    pools = is_max_in_flight(levels)
    active = sort_levels([n for n in levels if level_is_active(levels[n])],
                         lambda n: nominal_of(levels[n]))
    idle = sort_levels([n for n in levels if n not in active], lambda n: nominal_of(levels[n]))
    summaries = dict(run.summary["replicas"]).get(replica) or run.summary["priorityLevels"]
    taxis = TimeAxis(max(run.duration_s(), max(s.end() for s in levels.values())), 3.4)
    marks = run.summary["marks"]

    rows = row_heights(len(active), 2.0, marks)
    fig, bands = new_figure(17.0, [0.6, 0.85] + rows + [0.7])
    what = "MaxInFlight pools (APF off)" if pools else "API Priority and Fairness"
    title_band(bands[0], "%s  —  %s" % (run.title(), replica),
               "%s on %s: one row per %s with any activity, largest %slimit first"
               % (what, replica, "pool" if pools else "priority level",
                  "" if pools else "nominal "))
    legends = [(i, heading, handles(pools) if handles is seats_handles else handles())
               for i, (heading, _, handles, _, _) in enumerate(LEVEL_COLUMNS)]
    if pools:
        legends[0] = (0, "Executing requests vs limit", seats_handles(pools))
    legend_band(bands[1], [1] * len(LEVEL_COLUMNS), legends)
    factor = 1
    for row, name in enumerate(active):
        s, factor = coarsen(levels[name], LEVEL_RULES)
        band = bands[2 + row]
        axes = band.subplots(1, len(LEVEL_COLUMNS), sharex=True)
        draw_row_title(band, *level_row_title(name, levels[name], summaries.get(name), pools))
        tops = [panel_seats(axes[0], s, taxis, pools), panel_waiting(axes[1], s, taxis),
                panel_rejections(axes[2], s, taxis), panel_wait(axes[3], s, taxis)]
        for col, ax in enumerate(axes):
            _, ylabel, _, integer, empty = LEVEL_COLUMNS[col]
            finish_axes(ax, taxis, marks, row, len(active),
                        "requests" if col == 0 and pools else ylabel)
            set_y_top(ax, tops[col], integer, empty)
    if not active:
        no_data(bands[2].add_subplot(), "no priority level had any activity on " + replica)
    notes = [
        "Executing and waiting are time-weighted means over each %s interval (dotted: the "
        "interval's peak); rejections are counts per interval divided by its length; wait "
        "percentiles are of the requests dispatched in the interval (gap: none dispatched)."
        % fmt_interval(run.interval_s * factor),
        "Dashed vertical lines: the scenario's marks.   Idle %s left out: %s."
        % ("pools" if pools else "levels",
           ", ".join("%s (nominal %s)" % (n, fmt_count(nominal_of(levels[n]))) for n in idle)
           or "none"),
    ]
    if factor > 1:
        notes.append("Long run: each point merges %d intervals of %s (peaks and percentiles "
                     "are the largest of them)." % (factor, fmt_interval(run.interval_s)))
    footnote_band(bands[-1], notes)
    return fig


CLIENT_COLUMNS_DRAWN = [
    # (heading, y label, legend handles, what an all-zero panel says)
    ("Calls and attempts", "per second",
     [handle_line(COLOR_CALLS, "calls (made by the caller)", linewidth=1.4),
      handle_line(COLOR_ATTEMPTS, "attempts (each try, retries included)", linewidth=3)],
     "no calls"),
    ("Throttled and failed", "per second",
     [handle_line(COLOR_429, "HTTP 429 responses"),
      handle_line(COLOR_FAILED, "calls failed after retries", linestyle=(0, (2, 1)))],
     "no 429s, no failures"),
    ("Call latency, retries included", "seconds",
     [handle_line(COLOR_P99, "p99", linewidth=1.4), handle_line(COLOR_P50, "p50")],
     "no call completed"),
]


def client_panels(axes, s, taxis):
    """Draws one client's three panels; returns the largest y of each."""
    def per_s(column):
        return [v / s.interval_s for v in s[column]]
    draw_step(axes[0], s, per_s("attempts"), taxis, color=COLOR_ATTEMPTS, linewidth=2.2)
    draw_step(axes[0], s, per_s("calls"), taxis, color=COLOR_CALLS, linewidth=1.0)
    draw_step(axes[1], s, per_s("http429"), taxis, color=COLOR_429, linewidth=1.0)
    draw_step(axes[1], s, per_s("failed"), taxis, color=COLOR_FAILED, linewidth=1.0,
              linestyle=(0, (2, 1)))
    draw_gappy(axes[2], s, s["latency_p50_s"], taxis, COLOR_P50, 1.0)
    draw_gappy(axes[2], s, s["latency_p99_s"], taxis, COLOR_P99, 1.2)
    return [finite_max(per_s("attempts"), per_s("calls")),
            finite_max(per_s("http429"), per_s("failed")),
            finite_max(s["latency_p99_s"], s["latency_p50_s"])]


def client_row_title(name, s):
    parts = ["%s calls" % fmt_count(sum(s["calls"])),
             "%s attempts" % fmt_count(sum(s["attempts"])),
             "%s × HTTP 429" % fmt_count(sum(s["http429"])),
             "%s failed after retries" % fmt_count(sum(s["failed"]))]
    return name, "   ·   ".join(parts)


def sort_clients(names, calls):
    return sorted(names, key=lambda n: (-calls(n), n))


def draw_clients(run):
    clients = run.clients()
    active = sort_clients([n for n in clients if client_is_active(clients[n])],
                          lambda n: sum(clients[n]["calls"]))
    idle = sorted(n for n in clients if n not in active)
    taxis = TimeAxis(max([run.duration_s()] + [s.end() for s in clients.values()]), 3.8)
    marks = run.summary["marks"]
    rows = row_heights(len(active), 1.8, marks)
    fig, bands = new_figure(14.0, [0.6, 0.7] + rows + [0.5])
    title_band(bands[0], "%s  —  clients" % run.title(),
               "Each client over all replicas: one row per client that made calls, most calls "
               "first")
    legend_band(bands[1], [1] * len(CLIENT_COLUMNS_DRAWN),
                [(i, heading, handles)
                 for i, (heading, _, handles, _) in enumerate(CLIENT_COLUMNS_DRAWN)])
    factor = 1
    for row, name in enumerate(active):
        s, factor = coarsen(clients[name], CLIENT_RULES)
        band = bands[2 + row]
        axes = band.subplots(1, len(CLIENT_COLUMNS_DRAWN), sharex=True)
        draw_row_title(band, *client_row_title(name, clients[name]))
        tops = client_panels(axes, s, taxis)
        for col, ax in enumerate(axes):
            finish_axes(ax, taxis, marks, row, len(active), CLIENT_COLUMNS_DRAWN[col][1])
            set_y_top(ax, tops[col], empty_text=CLIENT_COLUMNS_DRAWN[col][3])
    if not active:
        no_data(bands[2].add_subplot(), "no client made a call")
    footnote_band(bands[-1], [
        "Per %s interval; latency percentiles are of the calls that completed in the interval "
        "(gap: none). Dashed vertical lines: the scenario's marks.   Idle clients left out: %s."
        % (fmt_interval(run.interval_s * factor), ", ".join(idle) or "none")])
    return fig


def plot_run(run_dir):
    run = Run(run_dir)
    run.levels()  # read all input before writing anything
    run.clients()
    for replica in sorted(run.levels()):
        save_figure(draw_replica(run, replica),
                    os.path.join(run_dir, "plot-%s.png" % safe_name(replica)))
    save_figure(draw_clients(run), os.path.join(run_dir, "clients.png"))


def safe_name(name):
    """A replica name as part of a file name: anything but [A-Za-z0-9._-] becomes '_'."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


# ---------------------------------------------------------------------------------------
# Comparing two runs.

# Eight panel columns in four pairs (A | B), with a narrow gap column between pairs.
PAIR_RATIOS = [1, 1, 0.12, 1, 1, 0.12, 1, 1, 0.12, 1, 1]
PAIR_COLUMNS = [(0, 1), (3, 4), (6, 7), (9, 10)]


def by_level(levels):
    """{replica: {level: Series}} to {level: {replica: Series}}."""
    out = {}
    for replica, named in levels.items():
        for name, s in named.items():
            out.setdefault(name, {})[replica] = s
    return out


def cluster_level(level_by_replica):
    """One level summed over replicas, for the panels where a sum means something (waiting
    requests, rejections), with the worst replica's wait percentiles. A replica without a
    row at some interval counts as zero there."""
    times = sorted({t for s in level_by_replica.values() for t in s.times})
    index = {t: i for i, t in enumerate(times)}
    worst = {"wait_p50_s", "wait_p99_s", "retry_after_s"}
    columns = {c: [math.nan if c in worst else 0.0] * len(times) for c in TIMELINE_COLUMNS[3:]}
    for s in level_by_replica.values():
        for j, t in enumerate(s.times):
            i = index[t]
            for c, values in columns.items():
                v = s[c][j]
                if math.isnan(v):
                    continue
                if c in worst:
                    values[i] = v if math.isnan(values[i]) else max(values[i], v)
                else:
                    values[i] += v
    return Series(times, columns, next(iter(level_by_replica.values())).interval_s)


def compare_seats_panel(ax, level_by_replica, replica_colors, taxis):
    """Executing seats per replica against the per-replica limits: a sum over replicas
    would hide one saturated replica behind two quiet ones. The current limit, which each
    replica's borrowing sets on its own, is the band between its smallest and largest value
    over the replicas."""
    series = {r: coarsen(s, LEVEL_RULES)[0] for r, s in level_by_replica.items()}
    limits_at = {}
    for s in series.values():
        for t, limit in zip(s.times, s["current_cl"]):
            limits_at.setdefault(t, []).append(limit)
    times = sorted(limits_at)
    low = [min(limits_at[t]) for t in times]
    high = [max(limits_at[t]) for t in times]
    band = Series(times, {}, next(iter(series.values())).interval_s)
    fill_step(ax, band, low, high, taxis, color=COLOR_CURRENT, alpha=0.18, linewidth=0)
    draw_step(ax, band, high, taxis, color=COLOR_CURRENT, linewidth=0.9)
    nominal = max(nominal_of(s) for s in series.values())
    ax.axhline(nominal, color=COLOR_NOMINAL, linewidth=1.1, linestyle=(0, (5, 2)))
    tops = [nominal, finite_max(high)]
    for replica, s in sorted(series.items()):
        draw_step(ax, s, s["executing_seats"], taxis, color=replica_colors[replica],
                  linewidth=0.9, alpha=0.85)
        tops.append(finite_max(s["executing_seats"]))
    return max(tops)


def pair_axes(band):
    """The four (A, B) pairs of axes of one row; B shares A's x and y scales."""
    grid = band.add_gridspec(1, len(PAIR_RATIOS), width_ratios=PAIR_RATIOS)
    pairs = []
    for a, b in PAIR_COLUMNS:
        ax_a = band.add_subplot(grid[0, a])
        pairs.append((ax_a, band.add_subplot(grid[0, b], sharex=ax_a, sharey=ax_a)))
    return pairs


def finish_pairs(pairs, runs, taxis, row, rows, ylabels, tops, empties, present,
                 integer_first):
    """Styles a row of pairs. An all-zero panel says so unless the level or client is not in
    that run at all (which the panel already says)."""
    for col, (ax_a, ax_b) in enumerate(pairs):
        for side, ax in enumerate((ax_a, ax_b)):
            finish_axes(ax, taxis, runs[side].summary["marks"], row, rows,
                        ylabels[col] if side == 0 else None)
        set_y_top(ax_a, tops[col], integer=(integer_first and col == 0))
        if tops[col] <= 0:
            for side, ax in enumerate((ax_a, ax_b)):
                if present[side]:
                    say_empty(ax, empties[col])
        ax_b.tick_params(labelleft=False)


def fmt_limit(nominal):
    return fmt_count(nominal) if nominal > 0 else "none (not limited)"


def chain(values):
    """'245 → 227', or '98' when both runs agree."""
    values = list(dict.fromkeys(values))
    return " → ".join(values)


def draw_compare(run_a, run_b):
    runs = (run_a, run_b)
    per_level = [by_level(r.levels()) for r in runs]
    names = set(per_level[0]) | set(per_level[1])

    def all_series(name):
        return [s for lv in per_level for s in lv.get(name, {}).values()]

    def nominal(name):
        return max(nominal_of(s) for s in all_series(name))

    shown = sort_levels([n for n in names if any(level_is_active(s) for s in all_series(n))],
                        nominal)
    idle = sort_levels([n for n in names if n not in shown], nominal)
    pools = is_max_in_flight(names)
    replicas = sorted({r for run in runs for r in run.levels()})
    replica_colors = {r: REPLICA_COLORS[i % len(REPLICA_COLORS)] for i, r in enumerate(replicas)}

    clients = [r.clients() for r in runs]
    client_names = sort_clients(
        [n for n in set(clients[0]) | set(clients[1])
         if any(n in c and client_is_active(c[n]) for c in clients)],
        lambda n: sum(sum(c[n]["calls"]) for c in clients if n in c))

    taxis = TimeAxis(max([r.duration_s() for r in runs] +
                         [s.end() for n in names for s in all_series(n)]), 1.9)
    any_marks = run_a.summary["marks"] or run_b.summary["marks"]
    level_rows = row_heights(len(shown), 1.85, any_marks)
    client_rows = [1.7] * len(client_names)
    if client_rows:
        client_rows[0] += 0.25  # room for the column labels of A and B
    fig, bands = new_figure(20.0, [0.6, 1.0, 0.3] + level_rows + [1.05] + client_rows + [0.7])
    unit = "requests" if pools else "seats"
    title_band(bands[0], "A: %s    vs    B: %s" % (run_a.title(), run_b.title()),
               "Each row: run A (left) and run B (right) on the same scale. Levels with any "
               "activity in either run, largest nominal limit first; then the clients.")
    seat_handles = [handle_line(replica_colors[r], "executing %s on %s (mean)" % (unit, r))
                    for r in replicas]
    seat_handles += [handle_patch(COLOR_CURRENT, "current limit (range over replicas)", 0.3),
                     handle_line(COLOR_NOMINAL, "nominal limit", linestyle=(0, (5, 2)))]
    legend_band(bands[1], PAIR_RATIOS, [
        (slice(a, b + 1), heading, handles) for (a, b), (heading, handles) in zip(PAIR_COLUMNS, [
            ("Executing %s per replica vs limits" % unit, seat_handles),
            ("Waiting requests, sum over replicas", waiting_handles()),
            ("Rejected (HTTP 429) per second, sum over replicas", rejection_handles()),
            ("Queue wait, worst replica", wait_handles())])])
    run_labels = [(col, "%s: %s" % ("AB"[side], runs[side].name))
                  for pair in PAIR_COLUMNS for side, col in enumerate(pair)]
    label_band(bands[2], PAIR_RATIOS, run_labels)

    ylabels = [unit, "requests", "requests/s", "seconds"]
    empties = [column[4] for column in LEVEL_COLUMNS]
    for row, name in enumerate(shown):
        band = bands[3 + row]
        pairs = pair_axes(band)
        draw_row_title(band, name, "nominal limit per replica: %s" % chain(
            fmt_limit(nominal_of(next(iter(lv[name].values())))) if name in lv else "absent"
            for lv in per_level))
        tops = [0.0] * 4
        for side, lv in enumerate(per_level):
            axes = [pair[side] for pair in pairs]
            if name not in lv:
                for ax in axes:
                    say_empty(ax, "no such level in this run")
                continue
            total, _ = coarsen(cluster_level(lv[name]), LEVEL_RULES)
            drawn = [compare_seats_panel(axes[0], lv[name], replica_colors, taxis),
                     panel_waiting(axes[1], total, taxis), panel_rejections(axes[2], total, taxis),
                     panel_wait(axes[3], total, taxis)]
            tops = [max(x, y) for x, y in zip(tops, drawn)]
        finish_pairs(pairs, runs, taxis, row, len(shown), ylabels, tops, empties,
                     [name in lv for lv in per_level], True)
    if not shown:
        no_data(bands[3].add_subplot(), "no priority level had any activity in either run")

    at = 3 + len(level_rows)
    bands[at].suptitle("Clients", x=0.0, ha="left", fontsize=12, fontweight="bold")
    legend_band(bands[at], PAIR_RATIOS, [
        (slice(a, b + 1), heading, handles)
        for (a, b), (heading, _, handles, _) in zip(PAIR_COLUMNS, CLIENT_COLUMNS_DRAWN)])
    for row, name in enumerate(client_names):
        band = bands[at + 1 + row]
        pairs = pair_axes(band)[:3]
        for extra in band.axes[6:]:
            extra.remove()
        draw_row_title(band, name, "calls: %s   ·   HTTP 429s: %s" % (
            chain(fmt_count(sum(c[name]["calls"])) if name in c else "absent" for c in clients),
            chain(fmt_count(sum(c[name]["http429"])) if name in c else "absent"
                  for c in clients)))
        tops = [0.0] * 3
        for side, c in enumerate(clients):
            axes = [pair[side] for pair in pairs]
            if name not in c:
                for ax in axes:
                    say_empty(ax, "no such client in this run")
                continue
            s, _ = coarsen(c[name], CLIENT_RULES)
            tops = [max(x, y) for x, y in zip(tops, client_panels(axes, s, taxis))]
        if row == 0:
            for col, (ax_a, ax_b) in enumerate(pairs):
                for side, ax in enumerate((ax_a, ax_b)):
                    ax.set_title("%s: %s" % ("AB"[side], runs[side].name), loc="left",
                                 fontsize=9, fontweight="bold", color="#333333")
        finish_pairs(pairs, runs, taxis, row + 1, len(client_names) + 1,
                     [column[1] for column in CLIENT_COLUMNS_DRAWN], tops,
                     [column[3] for column in CLIENT_COLUMNS_DRAWN], [name in c for c in clients],
                     False)

    footnote_band(bands[-1], [
        "Executing seats are time-weighted means per interval on each replica (intervals: A %s, "
        "B %s); waiting requests and rejections are summed over the replicas; the wait "
        "percentiles are the largest over the replicas. Dashed vertical lines: each run's "
        "marks." % (fmt_interval(run_a.interval_s), fmt_interval(run_b.interval_s)),
        "Idle in both runs, left out: %s." % (", ".join(idle) or "none")])
    return fig


def default_compare_path(dir_a, dir_b):
    """compare-<A>-vs-<B>.png beside DIR_A (in its parent directory)."""
    def name_and_parent(d):
        norm = os.path.normpath(d)
        if os.path.basename(norm) in ("", ".", ".."):
            norm = os.path.abspath(norm)
        return os.path.basename(norm), os.path.dirname(norm)
    a, parent = name_and_parent(dir_a)
    b, _ = name_and_parent(dir_b)
    return os.path.join(parent, "compare-%s-vs-%s.png" % (a, b))


# ---------------------------------------------------------------------------------------
# The HTML index.

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 1.5em auto; max-width: 1800px; padding: 0 1.5em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 2px solid #ddd; padding-bottom: .2em; }
h3 { font-size: 1.05em; margin: 1.4em 0 .4em; }
.meta { color: #555; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .3em 0 1em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: .25em .6em; }
th { background: #f4f4f4; font-weight: 600; }
td.n { text-align: right; }
td.name { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
td.bad { background: #fde2e1; color: #8a1c1c; font-weight: 600; }
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
                  for reason, _, _ in REJECT_REASONS]
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


def fmt_duration(seconds):
    if seconds >= 120:
        return "%g min" % round(seconds / 60, 2)
    return "%g s" % seconds


def fmt_clock(seconds):
    whole = int(round(seconds))
    return "%d:%02d" % (whole // 60, whole % 60)


def write_index(out_html, run_dirs, compare_png):
    runs = [Run(d) for d in run_dirs]
    html_dir = os.path.dirname(os.path.abspath(out_html))
    title = "apfsim: " + ", ".join(r.title() for r in runs)
    anchors = []
    for i, r in enumerate(runs):
        anchors.append("run-%d-%s" % (i + 1, safe_name(r.name)))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title>" % html.escape(title), "<style>%s</style></head><body>" % CSS,
             "<h1>apfsim runs</h1>",
             '<p class="meta">Simulated Kubernetes API Priority and Fairness. Each run below has '
             "its summary (seats are APF's unit of concurrency; a level's nominalCL is its "
             "share of the server's limit) and its plots, one per apiserver replica.</p>",
             "<nav>%s%s%s</nav>" % (
                 '<a href="#overview">side by side</a>' if len(runs) > 1 else "",
                 '<a href="#compare">comparison picture</a>' if compare_png else "",
                                  "".join('<a href="#%s">%s</a>' % (a, html.escape(r.title()))
                                          for a, r in zip(anchors, runs)))]
    if len(runs) > 1:
        parts.append('<section id="overview"><h2>The runs side by side</h2>%s</section>'
                     % overview_tables(runs))
    if compare_png:
        parts.append('<section id="compare"><h2>Comparison picture</h2>%s</section>'
                     % _figure(html_dir, os.path.abspath(compare_png),
                               "Two runs side by side (tools/plot.py --compare), each row on "
                               "one scale"))
    for anchor, r in zip(anchors, runs):
        parts.append(run_section(r, html_dir, anchor))
    parts.append("</body></html>\n")
    text = "\n".join(parts)
    write_atomically(out_html, lambda f: f.write(text.encode("utf-8")))
    print("wrote %s" % out_html)


# ---------------------------------------------------------------------------------------
# Command line.


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="tools/plot.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        usage="%(prog)s DIR...\n       %(prog)s --compare DIR_A DIR_B [--out FILE]\n"
              "       %(prog)s --index OUT_HTML DIR... [--compare-png FILE]")
    parser.add_argument("dirs", nargs="*", metavar="DIR", help="run directories")
    parser.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"),
                        help="draw two runs side by side")
    parser.add_argument("--out", metavar="FILE",
                        help="with --compare: the PNG to write (default: "
                             "compare-<A>-vs-<B>.png in the parent directory of DIR_A)")
    parser.add_argument("--index", metavar="OUT_HTML", help="write an HTML page of the runs")
    parser.add_argument("--compare-png", metavar="FILE",
                        help="with --index: a comparison picture to show first")
    args = parser.parse_args(argv)
    if args.compare and args.index:
        parser.error("--compare and --index are separate commands; run them one after another")
    if args.compare and args.dirs:
        parser.error("--compare takes exactly two directories: --compare DIR_A DIR_B")
    if args.out and not args.compare:
        parser.error("--out goes with --compare")
    if args.compare_png and not args.index:
        parser.error("--compare-png goes with --index")
    if not args.compare and not args.dirs:
        parser.error("give a run directory (DIR...), --compare DIR_A DIR_B or "
                     "--index OUT_HTML DIR...")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        print("error: %s has no matplotlib; install the Debian package python3-matplotlib or "
              "run it with $(tools/find-python.sh)" % sys.executable, file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.index:
            write_index(args.index, args.dirs, args.compare_png)
        elif args.compare:
            run_a, run_b = Run(args.compare[0]), Run(args.compare[1])
            out = args.out or default_compare_path(*args.compare)
            save_figure(draw_compare(run_a, run_b), out)
        else:
            for run_dir in args.dirs:
                plot_run(run_dir)
    except InputError as e:
        print("error: %s" % e, file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:  # pylint: disable=broad-except
        import traceback
        traceback.print_exc()
        print("internal error in tools/plot.py (a bug, not bad input); please report it with "
              "the run directory", file=sys.stderr)
        sys.exit(EXIT_INTERNAL)

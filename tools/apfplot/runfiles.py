"""Reads a run directory, the contract of `apfsim run`: summary.json, timeline.csv (a row
per replica, priority level and interval) and clients.csv (a row per client and interval).
Everything is checked as it is read; bad input raises InputError naming the file and the
line or field at fault. Also the facts about a run that both pictures and the page use:
which levels and clients were active, their order, and the file name of a replica's plot.
And compare.json, the contract of `apfsim compare --out` (load_comparison).

Tested by tests/cli/plot_test.cc (the fixtures in tests/fixtures/plot/, broken ones too).
"""

import csv
import json
import math
import os
from array import array

from apfplot.errors import InputError

# The simulator's output contract. Headers must match exactly.
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
    ("queue-full", "rejected_queue_full"),
    ("time-out", "rejected_time_out"),
    ("concurrency-limit", "rejected_concurrency_limit"),
]
# When APF is off the timeline holds the two MaxInFlight pools instead of levels.
MAX_IN_FLIGHT_POOLS = {"readonly", "mutating"}


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
                         for reason, _ in REJECT_REASONS},
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
    # The overrides that produced the run (provenance.sets), for titles; older
    # summaries have no provenance.
    provenance = r.get(doc, "provenance", "object", "", optional=True) or {}
    summary["sets"] = [str(v) for v in provenance.get("sets", []) if isinstance(v, str)]
    summary["overlays"] = [str(v) for v in provenance.get("overlays", []) if isinstance(v, str)]
    if summary["intervalSeconds"] <= 0:
        r.fail("intervalSeconds", "must be positive")
    for i, mark in enumerate(r.get(doc, "marks", "list", "")):
        p = "marks[%d]" % i
        r.check(mark, "object", p)
        summary["marks"].append((r.get(mark, "atSeconds", "number", p),
                                 r.get(mark, "label", "string", p)))
    # spec.events' time to recover (sim/report/recovery.h), for compare's picture.
    recovery = r.get(doc, "recovery", "object", "", optional=True)
    if recovery is not None:
        levels = {}
        for name, level in r.get(recovery, "levels", "object", "recovery").items():
            p = "recovery.levels.%s" % name
            r.check(level, "object", p)
            levels[name] = {
                "recoveredAtSeconds": r.get(level, "recoveredAtSeconds", "number-or-null", p),
                "timeToRecoverSeconds": r.get(level, "timeToRecoverSeconds", "number-or-null", p)}
        summary["recovery"] = {"atSeconds": r.get(recovery, "atSeconds", "number", "recovery"),
                               "levels": levels}
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
        """"drift-sweep, seed 1", with the overrides that made the run, if any."""
        extra = ["--overlay " + o for o in self.summary.get("overlays", [])]
        extra += ["--set " + v for v in self.summary.get("sets", [])]
        title = "%s, seed %d" % (self.name, self.summary["seed"])
        return title + (" (" + " ".join(extra) + ")" if extra else "")

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


def sort_levels(names, nominal):
    """Levels in the order every picture and table shows them: largest nominal limit first."""
    return sorted(names, key=lambda n: (-nominal(n), n))


def sort_clients(names, calls):
    """Clients in the order every picture and table shows them: most calls first."""
    return sorted(names, key=lambda n: (-calls(n), n))


def safe_name(name):
    """A replica name as part of a file name: anything but [A-Za-z0-9._-] becomes '_'."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def load_comparison(path):
    """compare.json as a dict, or an InputError naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError("%s: missing (is it the compare.json of `apfsim compare --out`?)"
                         % path) from None
    except json.JSONDecodeError as e:
        raise InputError("%s:%d:%d: not valid JSON: %s" % (path, e.lineno, e.colno, e.msg)) \
            from None
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e)) from None
    if not isinstance(doc, dict):
        raise InputError("%s: expected a JSON object (compare.json)" % path)
    return doc


def verdict_of(comparison, path):
    """compare.json's verdictLine (the line `apfsim compare` opens with) and each side's
    lines about its reference figures, as (line, [reference lines]); None for a
    compare.json written before compare had a verdict."""
    del path  # kept for the callers' symmetry with load_comparison's errors
    line = comparison.get("verdictLine")
    if not isinstance(line, str):
        return None
    references = []
    for side in ("before", "after"):
        reference = (comparison.get(side) or {}).get("reference") or {}
        for figure in reference.get("figures", []):
            if isinstance(figure, dict) and isinstance(figure.get("line"), str):
                references.append("reference (%s): %s" % (side, figure["line"]))
    return line, references

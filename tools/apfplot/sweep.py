"""What `apfsim sweep` writes (sweep.csv), drawn (tools/plot_sweep.py). The varied
parameters are the columns before the first `level.` or `client.` column. One varied
parameter gives lines against the parameter's value: per active priority level its
rejections (all reasons) and its queue wait (max solid, p99 dashed: a burst's ten-second
waits hide under a whole-run p99 of 0, so the max is the line that shows the incident), and
per client that made calls its 429s and its latency p99. Two give heat maps over the grid:
the rejections summed over all levels, the worst level's wait max (the level with the
largest max at each point, coloured by that max, each cell also giving that level's p99),
the 429s of all clients and the worst client's latency p99. The title names the scenario and the varied values; the
axes name the varied paths as a person reads them (readable_path).

A sweep over seeds (`apfsim sweep --seeds`) has three columns per figure, FIGURE_mean,
FIGURE_ci95_lo and FIGURE_ci95_hi: the lines are the means and the 95% intervals are drawn
as bands around them (the rejections' band sums the reasons' bounds, so it is wider than
the sum's own interval); the heat maps show the means, and the wait panel's cells the
"±" half interval of the max.

Bad input raises InputError. Reading needs no matplotlib; the drawing functions are handed
pyplot by the command line, which imports it only once the input has been read. Tested by
tests/cli/plot_test.cc.
"""

import csv
import json
import math
import os

from apfplot.errors import InputError
from apfplot.runfiles import REJECT_REASONS



def common_sets(csv_path):
    """" (--set A=1 --set B=2)" from the sweep's provenance.json beside its CSV, if any."""
    try:
        with open(os.path.join(os.path.dirname(csv_path) or ".", "provenance.json"),
                  encoding="utf-8") as f:
            sets = json.load(f).get("sets", [])
    except (OSError, ValueError, AttributeError):
        return ""
    sets = [s for s in sets if isinstance(s, str)]
    return " (%s)" % " ".join("--set " + s for s in sets) if sets else ""

def read_sweep(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror))
    if not rows:
        raise InputError("%s: empty file" % path)
    header, body = rows[0], rows[1:]
    varied = []
    for name in header:
        if name.startswith("level.") or name.startswith("client."):
            break
        varied.append(name)
    if not varied:
        raise InputError("%s: no varied parameter column before the level. columns" % path)
    if len(varied) == len(header):
        raise InputError("%s: no level. or client. columns" % path)
    for n, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError("%s:%d: %d cells, the header has %d"
                             % (path, n, len(row), len(header)))
    return header, body, varied


def number(path, cell):
    if cell == "":
        return math.nan
    try:
        return float(cell)
    except ValueError:
        raise InputError("%s: %r is not a number" % (path, cell))


def axis_values(column):
    """The distinct values of a varied column in grid order, and whether all are numbers."""
    seen = []
    for v in column:
        if v not in seen:
            seen.append(v)
    try:
        return seen, [float(v) for v in seen]
    except ValueError:
        return seen, None


def levels_of(header):
    names = []
    for h in header:
        if h.startswith("level."):
            name = h[len("level."):h.rindex(".")]
            if name not in names:
                names.append(name)
    return names


def column_index(path, header, name):
    """The index of a figure's column: its own, or its mean's in a sweep over seeds."""
    for candidate in (name, name + "_mean"):
        if candidate in header:
            return header.index(candidate)
    raise InputError("%s: no column %s" % (path, name))


def level_series(path, header, body, level, field):
    i = column_index(path, header, "level.%s.%s" % (level, field))
    return [number(path, row[i]) for row in body]


def band(path, header, body, name):
    """(lows, highs) of a figure's 95% intervals in a sweep over seeds, else None."""
    if name + "_ci95_lo" not in header:
        return None
    lo, hi = header.index(name + "_ci95_lo"), header.index(name + "_ci95_hi")
    return ([number(path, row[lo]) for row in body], [number(path, row[hi]) for row in body])


def level_band(path, header, body, level, field):
    return band(path, header, body, "level.%s.%s" % (level, field))


def rejections(path, header, body, level):
    parts = [level_series(path, header, body, level, column) for _, column in REJECT_REASONS]
    return [sum(v) for v in zip(*parts)]


def rejections_band(path, header, body, level):
    bands = [level_band(path, header, body, level, column) for _, column in REJECT_REASONS]
    if any(b is None for b in bands):
        return None
    return ([sum(v) for v in zip(*(b[0] for b in bands))],
            [sum(v) for v in zip(*(b[1] for b in bands))])


def plot_with_band(ax, positions, series, band, label, color=None):
    line, = ax.plot(positions, series, marker="o", label=label, color=color)
    if band is not None:
        ax.fill_between(positions, band[0], band[1], color=line.get_color(), alpha=0.2,
                        linewidth=0)
    return line


def active_levels(path, header, body):
    active = []
    for level in levels_of(header):
        dispatched = level_series(path, header, body, level, "dispatched")
        if (any(v > 0 for v in dispatched)
                or any(v > 0 for v in rejections(path, header, body, level))):
            active.append(level)
    return active


def readable_path(path):
    """A --set path as a person reads it, as sim/workflows/sweep_table.h's ReadableSetPath:
    "flowControl.priorityLevels.workload-low.nominalConcurrencyShares" is
    "workload-low nominalConcurrencyShares", "apiservers.maxRequestsInflight" is
    "apiservers maxRequestsInflight"."""
    for prefix in ("flowControl.priorityLevels.", "flowControl.flowSchemas."):
        if path.startswith(prefix):
            rest = path[len(prefix):]
            cuts = [rest.find(m) for m in MANIFEST_MARKERS if rest.find(m) >= 0]
            cut = min(cuts) if cuts else rest.rfind(".")
            if cut >= 0:
                return "%s %s" % (rest[:cut], rest[rest.rindex(".") + 1:])
    if path.startswith("clients.") and path.find(".", 8) >= 0:
        end = path.find(".", 8)
        return "%s %s" % (path[8:end], path[end + 1:])
    return path.replace(".", " ", 1)


# Where a level's or schema's manifest path starts inside a --set path.
MANIFEST_MARKERS = (".spec.", ".limited.", ".exempt.", ".limitResponse.",
                    ".priorityLevelConfiguration.", ".distinguisherMethod.")


def values_text(labels):
    """A varied parameter's values, short: "50, 100, 150" or "50 .. 200 (7 values)"."""
    if len(labels) <= 4:
        return ", ".join(labels)
    return "%s .. %s (%d values)" % (labels[0], labels[-1], len(labels))


def scenario_name(path, body, given):
    """The scenario's name: given by apfsim (--scenario), else the summary.json of a run
    beside the CSV, else the CSV's file name."""
    if given:
        return given
    runs = os.path.join(os.path.dirname(os.path.abspath(path)), "runs")
    try:
        for entry in sorted(os.listdir(runs)):
            summary = os.path.join(runs, entry, "summary.json")
            if os.path.isfile(summary):
                with open(summary) as f:
                    return json.load(f)["scenario"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return os.path.basename(path)


def title(path, body, varied, scenario):
    parts = []
    for n, name in enumerate(varied):
        labels, _ = axis_values([row[n] for row in body])
        parts.append("%s = %s" % (readable_path(name), values_text(labels)))
    return "apfsim sweep of %s: %s" % (scenario_name(path, body, scenario), "; ".join(parts))


def client_series(path, header, body, client, field):
    column = "client.%s.%s" % (client, field)
    if column not in header and column + "_mean" not in header:
        return [math.nan] * len(body)
    i = column_index(path, header, column)
    return [number(path, row[i]) for row in body]


def client_band(path, header, body, client, field):
    return band(path, header, body, "client.%s.%s" % (client, field))


def clients_of(header):
    names = []
    for h in header:
        if h.startswith("client."):
            name = h[len("client."):h.rindex(".")]
            if name not in names:
                names.append(name)
    return names


def active_clients(path, header, body, most=8):
    """The clients that made calls somewhere in the sweep; when there are more than `most`,
    the ones whose 429s and latency p99 moved most."""
    def spread(values):
        finite = [v for v in values if not math.isnan(v)]
        if not finite or max(finite) == min(finite):
            return 0.0
        return (max(finite) - min(finite)) / max(abs(max(finite)), abs(min(finite)))
    active = []
    for client in clients_of(header):
        calls = client_series(path, header, body, client, "calls")
        if any(v > 0 for v in calls):
            moved = (spread(client_series(path, header, body, client, "http429"))
                     + spread(client_series(path, header, body, client, "latency_p99_s")))
            active.append((moved, client))
    if len(active) > most:
        keep = {c for _, c in sorted(active, key=lambda a: -a[0])[:most]}
        active = [a for a in active if a[1] in keep]
    return [c for _, c in active]


def worst_wait(path, header, body, levels):
    """Per grid point the worst level's wait: (max, half its 95% interval or None, p99),
    the worst level being the one with the largest wait max there (the figure that shows a
    burst; its whole-run p99 may be 0). NaN where no level waited."""
    series = []
    for level in levels:
        maxes = level_series(path, header, body, level, "wait_max_s")
        p99s = level_series(path, header, body, level, "wait_p99_s")
        bounds = level_band(path, header, body, level, "wait_max_s")
        series.append((maxes, p99s, bounds))
    out = []
    for n in range(len(body)):
        worst = (math.nan, None, math.nan)
        for maxes, p99s, bounds in series:
            if math.isnan(maxes[n]) or (not math.isnan(worst[0]) and maxes[n] <= worst[0]):
                continue
            half = (bounds[1][n] - bounds[0][n]) / 2 if bounds is not None else None
            worst = (maxes[n], half, p99s[n])
        out.append(worst)
    return out


def wait_text(worst):
    """A wait cell's words: "11.2" or "11.2±0.4", then the same level's p99."""
    value, half, p99 = worst
    text = "%g" % round(value, 3)
    if half is not None and round(half, 3) > 0:
        text += "±%g" % round(half, 3)
    if not math.isnan(p99):
        text += "\np99 %g" % round(p99, 3)
    return text


def finish(fig, path, body, varied, scenario, subtitle):
    heading = title(path, body, varied, scenario) + common_sets(path)
    if subtitle:
        heading += "\n" + subtitle
    fig.suptitle(heading)


def draw_one(plt, path, header, body, varied, scenario=None, subtitle=None):
    labels, xs = axis_values([row[0] for row in body])
    positions = xs if xs is not None else list(range(len(labels)))
    fig, axes = plt.subplots(2, 2, figsize=(13, 9), constrained_layout=True)
    (rejected_ax, wait_ax), (http429_ax, latency_ax) = axes
    for level in active_levels(path, header, body):
        line = plot_with_band(rejected_ax, positions, rejections(path, header, body, level),
                              rejections_band(path, header, body, level), level)
        plot_with_band(wait_ax, positions, level_series(path, header, body, level, "wait_max_s"),
                       level_band(path, header, body, level, "wait_max_s"), level,
                       color=line.get_color())
        wait_ax.plot(positions, level_series(path, header, body, level, "wait_p99_s"),
                     linestyle="--", color=line.get_color())
    for client in active_clients(path, header, body):
        line = plot_with_band(http429_ax, positions,
                              client_series(path, header, body, client, "http429"),
                              client_band(path, header, body, client, "http429"), client)
        plot_with_band(latency_ax, positions,
                       client_series(path, header, body, client, "latency_p99_s"),
                       client_band(path, header, body, client, "latency_p99_s"), client,
                       color=line.get_color())
    titles = (("rejected requests per level (all reasons)", "requests"),
              ("queue wait per level: max solid, p99 dashed", "seconds"),
              ("HTTP 429s per client", "responses"), ("latency p99 per client", "seconds"))
    for ax, (text, unit) in zip(axes.flat, titles):
        ax.set_title(text)
        ax.set_ylabel(unit)
        ax.set_xlabel(readable_path(varied[0]))
        ax.grid(True, alpha=0.3)
        if xs is None:
            ax.set_xticks(positions)
            ax.set_xticklabels(labels)
    if wait_ax.lines:
        wait_ax.legend(title="priority level", fontsize="small")
    if latency_ax.lines:
        latency_ax.legend(title="client", fontsize="small")
    finish(fig, path, body, varied, scenario, subtitle)
    return fig


def draw_two(plt, path, header, body, varied, scenario=None, subtitle=None):
    a_labels, _ = axis_values([row[0] for row in body])
    b_labels, _ = axis_values([row[1] for row in body])
    levels = levels_of(header)
    clients = active_clients(path, header, body, most=len(clients_of(header)))
    worst = worst_wait(path, header, body, levels)

    def grid_of(series, combine):
        grid = [[math.nan] * len(a_labels) for _ in b_labels]
        for n, row in enumerate(body):
            values = [s[n] for s in series if not math.isnan(s[n])]
            grid[b_labels.index(row[1])][a_labels.index(row[0])] = (
                combine(values) if values else math.nan)
        return grid

    # The wait panel's cells name the worst level's max and its p99; the others the value.
    wait_texts = [[None] * len(a_labels) for _ in b_labels]
    for n, row in enumerate(body):
        if not math.isnan(worst[n][0]):
            wait_texts[b_labels.index(row[1])][a_labels.index(row[0])] = wait_text(worst[n])

    panels = (
        (grid_of([rejections(path, header, body, l) for l in levels], sum),
         "rejected requests, all levels"),
        (grid_of([[w[0] for w in worst]], max),
         "worst level's wait max (s), with its p99"),
        (grid_of([client_series(path, header, body, c, "http429") for c in clients], sum),
         "HTTP 429s, all clients"),
        (grid_of([client_series(path, header, body, c, "latency_p99_s") for c in clients], max),
         "worst client's latency p99 (s)"),
    )
    fig, axes = plt.subplots(2, 2, figsize=(13, 10), constrained_layout=True)
    for panel, (ax, (grid, text)) in enumerate(zip(axes.flat, panels)):
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        fig.colorbar(image, ax=ax)
        ax.set_xticks(range(len(a_labels)))
        ax.set_xticklabels(a_labels, rotation=45 if len(a_labels) > 8 else 0)
        ax.set_yticks(range(len(b_labels)))
        ax.set_yticklabels(b_labels)
        ax.set_xlabel(readable_path(varied[0]))
        ax.set_ylabel(readable_path(varied[1]))
        ax.set_title(text)
        finite = [v for r in grid for v in r if not math.isnan(v)]
        light = min(finite) + 0.6 * (max(finite) - min(finite)) if finite else 0
        if len(a_labels) * len(b_labels) <= 100:
            for i in range(len(b_labels)):
                for j in range(len(a_labels)):
                    if not math.isnan(grid[i][j]):
                        words = (wait_texts[i][j] if panel == 1
                                 else "%g" % round(grid[i][j], 3))
                        ax.text(j, i, words, ha="center", va="center",
                                color="black" if finite and grid[i][j] > light else "white",
                                fontsize="small")
    finish(fig, path, body, varied, scenario, subtitle)
    return fig


def describe(fig):
    """The figure's words, one line each: the title, then each panel's title and axis
    labels and a heat map's cells (plot_sweep.py --describe, for tests and for reading a picture in a log)."""
    lines = ["title: " + fig._suptitle.get_text().replace("\n", " / ")]
    for ax in fig.axes:
        if ax.get_title():
            lines.append("panel: %s | x: %s | y: %s"
                         % (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()))
            if ax.texts:  # a heat map's cells, row by row from the bottom
                lines.append("cells: " + "; ".join(t.get_text().replace("\n", " ")
                                                    for t in ax.texts))
    return "\n".join(lines) + "\n"

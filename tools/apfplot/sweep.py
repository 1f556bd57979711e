"""What `apfsim sweep` writes (sweep.csv), drawn (tools/plot_sweep.py). The varied
parameters are the columns before the first `level.` or `client.` column. One varied
parameter gives a line per active priority level: rejections (all reasons) and the wait p99
against the parameter's value. Two give heat maps over the grid: the rejections summed over
all levels, and the worst level's wait p99.

A sweep over seeds (`apfsim sweep --seeds`) has three columns per figure, FIGURE_mean,
FIGURE_ci95_lo and FIGURE_ci95_hi: the lines are the means and the 95% intervals are drawn
as bands around them (the rejections' band sums the reasons' bounds, so it is wider than
the sum's own interval); the heat maps show the means.

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


def level_band(path, header, body, level, field):
    """(lows, highs) of a figure's 95% intervals in a sweep over seeds, else None."""
    name = "level.%s.%s" % (level, field)
    if name + "_ci95_lo" not in header:
        return None
    lo, hi = header.index(name + "_ci95_lo"), header.index(name + "_ci95_hi")
    return ([number(path, row[lo]) for row in body], [number(path, row[hi]) for row in body])


def rejections(path, header, body, level):
    parts = [level_series(path, header, body, level, column) for _, column in REJECT_REASONS]
    return [sum(v) for v in zip(*parts)]


def rejections_band(path, header, body, level):
    bands = [level_band(path, header, body, level, column) for _, column in REJECT_REASONS]
    if any(b is None for b in bands):
        return None
    return ([sum(v) for v in zip(*(b[0] for b in bands))],
            [sum(v) for v in zip(*(b[1] for b in bands))])


def plot_with_band(ax, positions, series, band, label):
    line, = ax.plot(positions, series, marker="o", label=label)
    if band is not None:
        ax.fill_between(positions, band[0], band[1], color=line.get_color(), alpha=0.2,
                        linewidth=0)


def active_levels(path, header, body):
    active = []
    for level in levels_of(header):
        dispatched = level_series(path, header, body, level, "dispatched")
        if (any(v > 0 for v in dispatched)
                or any(v > 0 for v in rejections(path, header, body, level))):
            active.append(level)
    return active


def draw_one(plt, path, header, body, varied):
    labels, xs = axis_values([row[0] for row in body])
    positions = xs if xs is not None else list(range(len(labels)))
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), constrained_layout=True)
    for level in active_levels(path, header, body):
        plot_with_band(axes[0], positions, rejections(path, header, body, level),
                       rejections_band(path, header, body, level), level)
        plot_with_band(axes[1], positions, level_series(path, header, body, level, "wait_p99_s"),
                       level_band(path, header, body, level, "wait_p99_s"), level)
    for ax, title in zip(axes, ("rejected requests (all reasons)", "wait p99 (s)")):
        ax.set_title(title)
        ax.set_xlabel(varied[0])
        ax.grid(True, alpha=0.3)
        if xs is None:
            ax.set_xticks(positions)
            ax.set_xticklabels(labels)
    axes[1].legend(title="priority level", fontsize="small")
    fig.suptitle("apfsim sweep: %s%s" % (os.path.basename(path), common_sets(path)))
    return fig


def draw_two(plt, path, header, body, varied):
    a_labels, _ = axis_values([row[0] for row in body])
    b_labels, _ = axis_values([row[1] for row in body])
    levels = levels_of(header)
    total = [[math.nan] * len(a_labels) for _ in b_labels]
    worst = [[math.nan] * len(a_labels) for _ in b_labels]
    per_level_rejections = [rejections(path, header, body, l) for l in levels]
    per_level_wait = [level_series(path, header, body, l, "wait_p99_s") for l in levels]
    for n, row in enumerate(body):
        i, j = b_labels.index(row[1]), a_labels.index(row[0])
        total[i][j] = sum(r[n] for r in per_level_rejections)
        waits = [w[n] for w in per_level_wait if not math.isnan(w[n])]
        worst[i][j] = max(waits) if waits else math.nan
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5), constrained_layout=True)
    for ax, grid, title in zip(axes, (total, worst),
                               ("rejected requests, all levels", "worst level's wait p99 (s)")):
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        fig.colorbar(image, ax=ax)
        ax.set_xticks(range(len(a_labels)))
        ax.set_xticklabels(a_labels, rotation=45 if len(a_labels) > 8 else 0)
        ax.set_yticks(range(len(b_labels)))
        ax.set_yticklabels(b_labels)
        ax.set_xlabel(varied[0])
        ax.set_ylabel(varied[1])
        ax.set_title(title)
        finite = [v for r in grid for v in r if not math.isnan(v)]
        light = min(finite) + 0.6 * (max(finite) - min(finite)) if finite else 0
        if len(a_labels) * len(b_labels) <= 100:
            for i in range(len(b_labels)):
                for j in range(len(a_labels)):
                    if not math.isnan(grid[i][j]):
                        ax.text(j, i, "%g" % round(grid[i][j], 3), ha="center", va="center",
                                color="black" if finite and grid[i][j] > light else "white",
                                fontsize="small")
    fig.suptitle("apfsim sweep: %s%s" % (os.path.basename(path), common_sets(path)))
    return fig

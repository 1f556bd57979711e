#!/usr/bin/env python3
"""Draws what `apfsim sweep` writes (sweep.csv).

  tools/plot_sweep.py SWEEP_CSV [--out FILE]

The varied parameters are the columns before the first `level.` or `client.` column.
With one varied parameter the picture has a line per priority level (the levels with any
dispatched or rejected request somewhere in the sweep): rejections (all reasons) and the
wait p99 against the parameter's value. With two it has heat maps over the grid: the
rejections summed over all levels, and the worst level's wait p99. More than two varied
parameters cannot be drawn on one page: plot a slice (a sweep with fewer --vary).
Without --out the picture is sweep.png beside the CSV.

Bad input (a missing file, no varied column, a cell that is not a number) is one line on
stderr and exit code 2. The PNG is written under a temporary name and renamed when
complete. Needs Python 3 with matplotlib: `$(tools/find-python.sh) tools/plot_sweep.py`.
"""

import argparse
import csv
import math
import os
import sys
import tempfile


class BadInput(Exception):
    pass


def read_sweep(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror))
    if not rows:
        raise BadInput("%s: empty file" % path)
    header, body = rows[0], rows[1:]
    varied = []
    for name in header:
        if name.startswith("level.") or name.startswith("client."):
            break
        varied.append(name)
    if not varied:
        raise BadInput("%s: no varied parameter column before the level. columns" % path)
    if len(varied) == len(header):
        raise BadInput("%s: no level. or client. columns" % path)
    for n, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise BadInput("%s:%d: %d cells, the header has %d" % (path, n, len(row), len(header)))
    return header, body, varied


def number(path, cell):
    if cell == "":
        return math.nan
    try:
        return float(cell)
    except ValueError:
        raise BadInput("%s: %r is not a number" % (path, cell))


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


def level_series(path, header, body, level, field):
    i = header.index("level.%s.%s" % (level, field))
    return [number(path, row[i]) for row in body]


def rejections(path, header, body, level):
    parts = [level_series(path, header, body, level, f)
             for f in ("rejected_queue_full", "rejected_time_out", "rejected_concurrency_limit")]
    return [sum(v) for v in zip(*parts)]


def active_levels(path, header, body):
    active = []
    for level in levels_of(header):
        dispatched = level_series(path, header, body, level, "dispatched")
        if any(v > 0 for v in dispatched) or any(v > 0 for v in rejections(path, header, body, level)):
            active.append(level)
    return active


def draw_one(plt, path, header, body, varied):
    labels, xs = axis_values([row[0] for row in body])
    positions = xs if xs is not None else list(range(len(labels)))
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), constrained_layout=True)
    for level in active_levels(path, header, body):
        axes[0].plot(positions, rejections(path, header, body, level), marker="o", label=level)
        axes[1].plot(positions, level_series(path, header, body, level, "wait_p99_s"),
                     marker="o", label=level)
    for ax, title in zip(axes, ("rejected requests (all reasons)", "wait p99 (s)")):
        ax.set_title(title)
        ax.set_xlabel(varied[0])
        ax.grid(True, alpha=0.3)
        if xs is None:
            ax.set_xticks(positions)
            ax.set_xticklabels(labels)
    axes[1].legend(title="priority level", fontsize="small")
    fig.suptitle("apfsim sweep: %s" % os.path.basename(path))
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
    fig.suptitle("apfsim sweep: %s" % os.path.basename(path))
    return fig


def save(fig, out):
    directory = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix=".sweep-", suffix=".png", dir=directory)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=100)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    parser = argparse.ArgumentParser(prog="tools/plot_sweep.py", description=__doc__.split("\n")[0])
    parser.add_argument("csv", metavar="SWEEP_CSV")
    parser.add_argument("--out", metavar="FILE", help="the PNG (default: sweep.png beside the CSV)")
    args = parser.parse_args(argv)
    try:
        header, body, varied = read_sweep(args.csv)
        if len(varied) > 2:
            raise BadInput("%s: %d varied parameters; a picture shows one (lines) or two (heat "
                           "maps)" % (args.csv, len(varied)))
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = (draw_one if len(varied) == 1 else draw_two)(plt, args.csv, header, body, varied)
        save(fig, args.out or os.path.join(os.path.dirname(os.path.abspath(args.csv)), "sweep.png"))
    except BadInput as e:
        print("plot_sweep.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

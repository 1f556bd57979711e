"""The matplotlib helpers every picture of a run shares: the time axis, step lines over
whole report intervals, the scenario's marks, y scales, legends, and the bands a figure is
stacked from. Long runs are coarsened here to at most MAX_POINTS points per line.

Imports matplotlib's pyplot: import this after the command line has chosen the Agg
backend (tools/plot.py does). Tested by tests/cli/plot_test.cc.
"""

import math

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Annotation
from matplotlib.ticker import MaxNLocator

from apfplot.atomic import write_png
from apfplot.runfiles import Series

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

# One color per rejection reason (runfiles.REJECT_REASONS).
REJECT_COLORS = {"queue-full": "#d62728", "time-out": "#ff7f0e", "concurrency-limit": "#9467bd"}


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


def save_figure(fig, path, metadata=None):
    write_png(fig, path, metadata)
    plt.close(fig)
    print("wrote %s" % path)


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


def legend_axes(fig_or_subfig, spec, handles, title):
    """An empty panel holding one column's legend, so legends never cover data."""
    ax = fig_or_subfig.add_subplot(spec)
    ax.axis("off")
    ax.legend(handles=handles, loc="upper left", ncol=2 if len(handles) > 3 else 1,
              fontsize=8, frameon=False, title=title, title_fontsize=9, borderaxespad=0,
              alignment="left", handlelength=1.8, columnspacing=1.0)
    return ax


def handle_line(color, label, **kwargs):
    return Line2D([], [], color=color, label=label, **kwargs)


def handle_patch(color, label, alpha=1.0):
    return Patch(facecolor=color, alpha=alpha, label=label, linewidth=0)


def draw_row_title(subfig, name, detail):
    """The row's name in bold with its numbers after it on the same line. The name is the
    subfigure's suptitle, so the layout leaves room for it above the panels (and above the
    mark labels of the top row)."""
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
    # A long title (compare's verdict over seeds) steps down a size to stay on the page.
    band.text(0.0, 0.98, title, ha="left", va="top", fontsize=14 if len(title) <= 140 else 11.5,
              fontweight="bold",
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

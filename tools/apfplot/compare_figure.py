"""Two runs side by side (tools/plot.py --compare): each priority level and client on one
row, run A left and run B right of each pair of panels, on the same axis scales. Levels are
summed over the replicas, except the executing seats (one line per replica, so a single
saturated replica is not averaged away) and the wait percentiles (the worst replica).
A pair of panels in which nothing happened in either run (no request waited, none was
rejected, ...) is dropped, and the footnote says which; with compare.json the title is the
verdict `apfsim compare` opens with. A run with spec.events (or the run without them that
compare measures from the other's event) has each level's time to recover in its
summary.json: the instant a level recovered is a solid green line on its rejection and
wait panels, and the footnote gives both runs' times.

Tested by tests/cli/plot_test.cc.
"""

import math
import os
import textwrap

from apfplot.drawing import (COLOR_CURRENT, COLOR_NOMINAL, REPLICA_COLORS, TimeAxis, coarsen,
                             draw_row_title, draw_step, fill_step, finish_axes, finite_max,
                             footnote_band, handle_line, handle_patch, label_band, legend_band,
                             new_figure, no_data, row_heights, say_empty, set_y_top,
                             title_band)
from apfplot.formatting import fmt_count, fmt_interval
from apfplot.panels import (CLIENT_COLUMNS_DRAWN, CLIENT_RULES, LEVEL_COLUMNS, LEVEL_RULES,
                            client_panels, panel_rejections, panel_wait, panel_waiting,
                            rejection_handles, wait_handles, waiting_handles)
from apfplot.runfiles import (TIMELINE_COLUMNS, Series, client_is_active, is_max_in_flight,
                              level_is_active, nominal_of, sort_clients, sort_levels)

# The instant a level recovered after the event (summary.json's "recovery").
COLOR_RECOVERED = "#2ca02c"


def recovery_of(run, name):
    """(event instant, recovered instant or None, time to recover or None) of level `name`
    in `run`'s summary.json "recovery", or None when the run measured none for it."""
    recovery = run.summary.get("recovery")
    if not recovery or name not in recovery.get("levels", {}):
        return None
    level = recovery["levels"][name]
    return recovery["atSeconds"], level.get("recoveredAtSeconds"), level.get(
        "timeToRecoverSeconds")


def draw_recovery(axes, recovered_at, taxis):
    """The recovered instant on a level's rejection and wait panels (columns 2 and 3)."""
    if recovered_at is None:
        return
    for ax in axes[2:4]:
        ax.axvline(taxis.x(recovered_at), color=COLOR_RECOVERED, linewidth=1.3, alpha=0.9,
                   zorder=3)


def recovery_text(name, recoveries):
    """'workload-low 599 s → 1 s' (A → B), 'never' where a run did not recover; None when the
    level recovered at once in both runs or neither run measured it."""
    times = []
    for r in recoveries:
        if r is None:
            times.append("-")
        elif r[2] is None:
            times.append("never")
        else:
            times.append("%g s" % r[2])
    if all(t in ("-", "0 s") for t in times):
        return None
    return "%s %s" % (name, " → ".join(times))


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


def drop_quiet_pairs(pairs, tops, names, keep_first):
    """Removes the pairs whose panels are all zero in both runs (the first kept when
    `keep_first`: a level's seats against its limits, a client's calls, say what the row is);
    returns the names of those dropped, in column order, and the pairs kept (None where
    dropped)."""
    dropped = []
    kept = []
    for col, pair in enumerate(pairs):
        if tops[col] <= 0 and not (keep_first and col == 0):
            for ax in pair:
                ax.remove()
            dropped.append(names[col])
            kept.append(None)
        else:
            kept.append(pair)
    return dropped, kept


def finish_pairs(pairs, runs, taxis, row, rows, ylabels, tops, empties, present,
                 integer_first):
    """Styles a row of pairs (None: a pair dropped). An all-zero panel says so unless the
    level or client is not in that run at all (which the panel already says)."""
    for col, pair in enumerate(pairs):
        if pair is None:
            continue
        ax_a, ax_b = pair
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


# The footnote's lines wrap at this many characters, about the width of the figure.
FOOTNOTE_WIDTH = 320

# What a dropped pair is called in the footnote, per column of a level's and a client's row.
LEVEL_PAIR_NAMES = ["seats", "waiting", "rejected", "queue wait"]
CLIENT_PAIR_NAMES = ["calls", "429s and failures", "latency"]


def draw_compare(run_a, run_b, verdict=None):
    """The figure, the pairs dropped as ["LEVEL: waiting, rejected", ...], and the footnote's
    line of the times to recover ([] without a recovery in either run). `verdict` is
    runfiles.verdict_of's (line, reference lines) for the title, or None."""
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
    # The footnote: three lines (room for the dropped pairs' to wrap once), then the
    # reference lines, each wrapped to the page.
    references = [textwrap.fill(line, FOOTNOTE_WIDTH) for line in (verdict[1] if verdict else [])]
    footnote_in = 0.95 + 0.17 * sum(line.count("\n") + 1 for line in references)
    if any(r.summary.get("recovery") for r in runs):
        footnote_in += 0.34  # the line of the times to recover, wrapped once at most
    fig, bands = new_figure(20.0, [0.6, 1.0, 0.3] + level_rows + [1.05] + client_rows +
                            [footnote_in])
    unit = "requests" if pools else "seats"
    layout = ("Each row: run A (left) and run B (right) on the same scale. Levels with any "
              "activity in either run, largest nominal limit first; then the clients.")
    if verdict is None:
        title_band(bands[0], "A: %s    vs    B: %s" % (run_a.title(), run_b.title()), layout)
    else:
        # The verdict first, as `apfsim compare` prints it; A is its before run, B its after.
        title_band(bands[0], verdict[0], "A (before): %s    B (after): %s.  %s" % (
            run_a.title(), run_b.title(), layout))
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

    dropped = []
    recovered = []  # recovery_text of each level shown
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
            recovery = recovery_of(runs[side], name)
            if recovery is not None:
                draw_recovery(axes, recovery[1], taxis)
        text = recovery_text(name, [recovery_of(r, name) for r in runs])
        if text:
            recovered.append(text)
        gone, pairs = drop_quiet_pairs(pairs, tops, LEVEL_PAIR_NAMES, True)
        if gone:
            dropped.append("%s: %s" % (name, ", ".join(gone)))
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
        gone, pairs = drop_quiet_pairs(pairs, tops, CLIENT_PAIR_NAMES, True)
        if gone:
            dropped.append("%s: %s" % (name, ", ".join(gone)))
        if row == 0:
            for pair in pairs:
                if pair is None:
                    continue
                for side, ax in enumerate(pair):
                    ax.set_title("%s: %s" % ("AB"[side], runs[side].name), loc="left",
                                 fontsize=9, fontweight="bold", color="#333333")
        finish_pairs(pairs, runs, taxis, row + 1, len(client_names) + 1,
                     [column[1] for column in CLIENT_COLUMNS_DRAWN], tops,
                     [column[3] for column in CLIENT_COLUMNS_DRAWN], [name in c for c in clients],
                     False)

    recovery = recovery_lines(runs, recovered)
    footnote_band(bands[-1], [
        "Executing seats are time-weighted means per interval on each replica (intervals: A %s, "
        "B %s); waiting requests and rejections are summed over the replicas; the wait "
        "percentiles are the largest over the replicas. Dashed vertical lines: each run's "
        "marks." % (fmt_interval(run_a.interval_s), fmt_interval(run_b.interval_s)),
        "Idle in both runs, left out: %s." % (", ".join(idle) or "none"),
        textwrap.fill("Nothing happened in either run, dropped: %s." % (
            "; ".join(dropped) or "none"), FOOTNOTE_WIDTH)] + recovery + references)
    return fig, dropped, recovery


def recovery_lines(runs, recovered):
    """The footnote's line of the times to recover, A → B, when either run measured one."""
    ats = [r.summary["recovery"]["atSeconds"] for r in runs if r.summary.get("recovery")]
    if not ats:
        return []
    return [textwrap.fill(
        "Time to recover after the event at %s (solid green lines: the instant each level "
        "recovered), A → B: %s." % (" / ".join("%g s" % at for at in dict.fromkeys(ats)),
                                   "; ".join(recovered) or "every level at once in both runs"),
        FOOTNOTE_WIDTH)]


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

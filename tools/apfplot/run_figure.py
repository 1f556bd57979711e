"""The pictures of one run: DIR/plot-<replica>.png for each apiserver replica (a row per
priority level with any activity, largest nominal limit first, four panels each) and
DIR/clients.png (a row per client that made calls, most calls first).

Tested by tests/cli/plot_test.cc.
"""

import os

from apfplot.drawing import (TimeAxis, coarsen, draw_row_title, finish_axes, finite_max,
                             footnote_band, legend_band, new_figure, no_data, row_heights,
                             save_figure, set_y_top, title_band)
from apfplot.formatting import fmt_count, fmt_interval, plural
from apfplot.panels import (CLIENT_COLUMNS_DRAWN, CLIENT_RULES, LEVEL_COLUMNS, LEVEL_RULES,
                            client_panels, panel_rejections, panel_seats, panel_wait,
                            panel_waiting, seats_handles)
from apfplot.runfiles import (REJECT_REASONS, Run, client_is_active, is_max_in_flight,
                              level_is_active, nominal_of, safe_name, sort_clients,
                              sort_levels)


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
    rejected = [(reason, sum(s[column])) for reason, column in REJECT_REASONS]
    total = sum(n for _, n in rejected)
    if total:
        parts.append("%s rejected (%s)" % (fmt_count(total), ", ".join(
            "%s %s" % (reason, fmt_count(n)) for reason, n in rejected if n)))
        retry_after = finite_max(s["retry_after_s"])
        if retry_after:
            # doc/model.md#retry-after: the level's Retry-After grows from 1 s while drops go on.
            parts.append("Retry-After up to %g s" % retry_after)
    else:
        parts.append("none rejected")
    return name, "   ·   ".join(parts)


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


def client_row_title(name, s):
    parts = ["%s calls" % fmt_count(sum(s["calls"])),
             "%s attempts" % fmt_count(sum(s["attempts"])),
             "%s × HTTP 429" % fmt_count(sum(s["http429"])),
             "%s failed after retries" % fmt_count(sum(s["failed"]))]
    return name, "   ·   ".join(parts)


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

"""The panels of a priority level (executing seats against the limits, waiting requests,
rejections by reason, queue wait) and of a client (calls and attempts, 429s and failures,
latency), with their legends. The run figure and the compare figure draw the same panels,
so a level reads the same in both.

Each panel draws one metric of one level or client into one axes and returns the largest y
value it drew, so that paired panels can share a scale. Tested by tests/cli/plot_test.cc.
"""

from apfplot.drawing import (COLOR_429, COLOR_ATTEMPTS, COLOR_CALLS, COLOR_CURRENT,
                             COLOR_FAILED, COLOR_NOMINAL, COLOR_P50, COLOR_P99, COLOR_SEATS,
                             COLOR_WAITING, REJECT_COLORS, draw_gappy, draw_step, fill_step,
                             finite_max, handle_line, handle_patch)
from apfplot.runfiles import REJECT_REASONS

# How coarsen() merges the intervals of a level's and a client's columns ("mean" when not
# named).
LEVEL_RULES = {"peak_executing_seats": "max", "dispatched": "sum", "rejected_queue_full": "sum",
               "rejected_time_out": "sum", "rejected_concurrency_limit": "sum",
               "wait_p50_s": "max", "wait_p99_s": "max", "retry_after_s": "max"}
CLIENT_RULES = {"calls": "sum", "attempts": "sum", "succeeded": "sum", "failed": "sum",
                "http429": "sum", "latency_p50_s": "max", "latency_p99_s": "max"}


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
    for reason, column in REJECT_REASONS:
        color = REJECT_COLORS[reason]
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
    return [handle_patch(REJECT_COLORS[reason], reason, alpha=0.7)
            for reason, _ in REJECT_REASONS]


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

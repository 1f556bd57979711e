"""How numbers read in the pictures and on the page: counts with thousands separators,
seconds in ms or s, the report interval, a run's length and a mark's time of day.

Tested by tests/cli/plot_test.cc (the page's tables).
"""

import math


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


def fmt_interval(seconds):
    return "%g s" % seconds


def fmt_duration(seconds):
    if seconds >= 120:
        return "%g min" % round(seconds / 60, 2)
    return "%g s" % seconds


def fmt_clock(seconds):
    whole = int(round(seconds))
    return "%d:%02d" % (whole // 60, whole % 60)

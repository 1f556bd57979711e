#!/usr/bin/env python3
"""Draws what `apfsim sweep` writes (sweep.csv).

  tools/plot_sweep.py SWEEP_CSV [--out FILE] [--scenario NAME] [--subtitle TEXT] [--describe]

The varied parameters are the columns before the first `level.` or `client.` column.
With one varied parameter the picture has lines against the parameter's value: per
priority level (the levels with any dispatched or rejected request somewhere in the sweep)
its rejections (all reasons) and its queue wait (p99 solid, max dashed), and per client
(those that made calls) its 429s and latency p99. With two it has heat maps over the grid:
the rejections summed over all levels, the worst level's wait, the 429s of all clients and
the worst client's latency p99. More than two varied parameters cannot be drawn on one
page: plot a slice (a sweep with fewer --vary). The title names the scenario (--scenario,
else the summary.json of a run beside the CSV) and the varied values; --subtitle adds a
line under it. --describe prints the title and each panel's labels. Without --out the
picture is sweep.png beside the CSV.

Bad input (a missing file, no varied column, a cell that is not a number) is one line on
stderr and exit code 2. The PNG is written under a temporary name and renamed when
complete. Needs Python 3 with matplotlib: `$(tools/find-python.sh) tools/plot_sweep.py`.
"""


# This file is the command line; the reading and drawing are in apfplot/sweep.py beside it,
# the atomic writing is the one every picture shares (apfplot/atomic.py). Tested by
# tests/cli/plot_test.cc.

import argparse
import os
import sys

# Found wherever the script is run from: the package sits beside it.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from apfplot import sweep  # noqa: E402 (needs the path above)
from apfplot.atomic import write_png  # noqa: E402
from apfplot.errors import EXIT_BAD_INPUT, InputError  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(prog="tools/plot_sweep.py", description=__doc__.split("\n")[0])
    parser.add_argument("csv", metavar="SWEEP_CSV")
    parser.add_argument("--out", metavar="FILE", help="the PNG (default: sweep.png beside the CSV)")
    parser.add_argument("--scenario", metavar="NAME", help="the scenario's name, for the title")
    parser.add_argument("--subtitle", metavar="TEXT", help="a line under the title")
    parser.add_argument("--describe", action="store_true",
                        help="print the title and each panel's title and axis labels")
    args = parser.parse_args(argv)
    try:
        header, body, varied = sweep.read_sweep(args.csv)
        if len(varied) > 2:
            raise InputError("%s: %d varied parameters; a picture shows one (lines) or two "
                             "(heat maps)" % (args.csv, len(varied)))
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        draw = sweep.draw_one if len(varied) == 1 else sweep.draw_two
        fig = draw(plt, args.csv, header, body, varied, args.scenario, args.subtitle)
        if args.describe:
            sys.stdout.write(sweep.describe(fig))
        write_png(fig, args.out or os.path.join(os.path.dirname(os.path.abspath(args.csv)),
                                                "sweep.png"))
    except InputError as e:
        print("plot_sweep.py: %s" % e, file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Draws what `apfsim run` writes: per-replica priority-level plots, client plots, a
side-by-side comparison of two runs, and an HTML page that shows runs with their summary
tables.

  tools/plot.py DIR...
      For each run directory DIR, writes DIR/plot-<replica>.png (one per apiserver replica:
      a row per priority level that had any activity, sorted by nominal concurrency limit,
      showing executing seats against the current and nominal limits, waiting requests,
      rejections per second by reason and the wait p99) and DIR/clients.png (a row per
      client: calls and attempts per second, 429s and failures per second, latency).

  tools/plot.py --compare DIR_A DIR_B [--out FILE] [--compare-json FILE]
      Draws the two runs side by side, each level and client on one row with the same
      axis scales for both runs. Levels are summed over the replicas, except the executing
      seats (one line per replica, so a single saturated replica is not averaged away) and
      the wait p99 (the worst replica). A pair of panels in which nothing happened in
      either run (all zero: no request waited, none rejected, no 429) is dropped; the
      footnote, the standard output and the PNG's Description say which. With
      --compare-json (the compare.json of `apfsim compare --out`, whose before and after
      runs DIR_A and DIR_B are) the picture is titled with the verdict compare opens with,
      also the PNG's Title, and the footnote adds where a side differs from the scenario's
      spec.reference. Without --out the picture is written to
      compare-<A>-vs-<B>.png in the parent directory of DIR_A, where <A> and <B> are the
      two directories' names (out/drift-sweep and out/drift-sweep-fixed give
      out/compare-drift-sweep-vs-drift-sweep-fixed.png).

  tools/plot.py --index OUT_HTML DIR... [--compare-png FILE] [--compare-json FILE]
      Writes an HTML page (inline CSS and scripts, relative links to the PNGs) showing
      the comparison picture if given, interactive timelines (per replica and priority
      level, and per client, the runs overlaid, the scenario's marks drawn; drag or wheel
      to zoom, Shift+drag to pan; drawn by the uPlot vendored in tools/apfplot/vendor/, so
      the page needs no network), then for each run its summary tables (per priority
      level and per client, the whole cluster and each replica) and its plots. Draw the
      plots first: the page links to them and says which are missing. With
      --compare-json (the compare.json of `apfsim compare --out`), the page opens with
      compare's verdict (and where a side differs from its spec.reference), then what
      the change moves per client request: FlowSchema and level, flow distinguisher,
      seats and hand of queues, before and after.

Input is the contract of `apfsim run` (summary.json, timeline.csv, clients.csv). Bad input
(a missing file, a header that is not exactly the expected one, a value that is not a
number) is reported as one line naming the file, and the exit code is 2; an internal
error exits with 3. Each output is written under a temporary name in its directory and
renamed when complete, so a reader never sees half a file.

Needs Python 3 with matplotlib and nothing else; tools/find-python.sh prints such a
Python: `$(tools/find-python.sh) tools/plot.py DIR`.
"""

# This file is the command line; the drawing is in the apfplot package beside it
# (tools/apfplot/, see its __init__.py). Tested by tests/cli/plot_test.cc.

import argparse
import os
import sys

# Found wherever the script is run from: the package sits beside it.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from apfplot import page  # noqa: E402 (needs the path above)
from apfplot.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, InputError  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="tools/plot.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        usage="%(prog)s DIR...\n       %(prog)s --compare DIR_A DIR_B [--out FILE] "
              "[--compare-json FILE]\n"
              "       %(prog)s --index OUT_HTML DIR... [--compare-png FILE] "
              "[--compare-json FILE]")
    parser.add_argument("dirs", nargs="*", metavar="DIR", help="run directories")
    parser.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"),
                        help="draw two runs side by side")
    parser.add_argument("--out", metavar="FILE",
                        help="with --compare: the PNG to write (default: "
                             "compare-<A>-vs-<B>.png in the parent directory of DIR_A)")
    parser.add_argument("--index", metavar="OUT_HTML", help="write an HTML page of the runs")
    parser.add_argument("--compare-png", metavar="FILE",
                        help="with --index: a comparison picture to show first")
    parser.add_argument("--compare-json", metavar="FILE",
                        help="with --index: the compare.json whose verdict and per-client "
                             "moves to show first; with --compare: whose verdict titles the "
                             "picture")
    args = parser.parse_args(argv)
    if args.compare and args.index:
        parser.error("--compare and --index are separate commands; run them one after another")
    if args.compare and args.dirs:
        parser.error("--compare takes exactly two directories: --compare DIR_A DIR_B")
    if args.out and not args.compare:
        parser.error("--out goes with --compare")
    if args.compare_png and not args.index:
        parser.error("--compare-png goes with --index")
    if args.compare_json and not (args.index or args.compare):
        parser.error("--compare-json goes with --index or --compare")
    if not args.compare and not args.dirs:
        parser.error("give a run directory (DIR...), --compare DIR_A DIR_B or "
                     "--index OUT_HTML DIR...")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        print("error: %s has no matplotlib; install the Debian package python3-matplotlib or "
              "run it with $(tools/find-python.sh)" % sys.executable, file=sys.stderr)
        return EXIT_BAD_INPUT
    # The figures import pyplot, so only now that the Agg backend is chosen.
    from apfplot import compare_figure, run_figure
    from apfplot.drawing import save_figure
    from apfplot.runfiles import Run, load_comparison, verdict_of
    try:
        if args.index:
            page.write_index(args.index, args.dirs, args.compare_png, args.compare_json)
        elif args.compare:
            run_a, run_b = Run(args.compare[0]), Run(args.compare[1])
            out = args.out or compare_figure.default_compare_path(*args.compare)
            verdict = (verdict_of(load_comparison(args.compare_json), args.compare_json)
                       if args.compare_json else None)
            fig, dropped, recovery = compare_figure.draw_compare(run_a, run_b, verdict)
            description = "\n".join(["dropped: %s" % ("; ".join(dropped) or "none")] +
                                    [line.replace("\n", " ") for line in recovery])
            metadata = {"Description": description}
            if verdict:
                metadata["Title"] = verdict[0]
            save_figure(fig, out, metadata)
            print(description)
        else:
            for run_dir in args.dirs:
                run_figure.plot_run(run_dir)
    except InputError as e:
        print("error: %s" % e, file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:  # pylint: disable=broad-except
        import traceback
        traceback.print_exc()
        print("internal error in tools/plot.py (a bug, not bad input); please report it with "
              "the run directory", file=sys.stderr)
        sys.exit(EXIT_INTERNAL)

"""Draws what apfsim writes: the pictures and the page behind tools/plot.py and
tools/plot_sweep.py, which are its command lines.

One module per job, each importing only those above it in this list:
  errors          bad input as one exception, and the exit codes
  atomic          writing an output whole or not at all (every PNG and the page)
  runfiles        reading a run directory (summary.json, timeline.csv, clients.csv)
  formatting      how numbers read, in the pictures and on the page
  drawing         matplotlib helpers the pictures share: time axis, steps, marks, bands
  panels          the panels of a priority level and of a client
  run_figure      one run: a picture per replica and one of the clients
  compare_figure  two runs side by side
  page            the HTML page of runs (index.html)
  sweep           what `apfsim sweep` writes (sweep.csv) as lines or heat maps

drawing, panels, run_figure and compare_figure import matplotlib's pyplot when imported, so
the command lines import them only once they have checked that matplotlib is there and
chosen the Agg backend; sweep is handed pyplot. Tested by tests/cli/plot_test.cc.
"""

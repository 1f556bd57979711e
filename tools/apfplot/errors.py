"""Bad input, as the plotters report it: one exception whose message names the file (and
line or field) at fault, and the exit codes of tools/plot.py and tools/plot_sweep.py.

Tested by tests/cli/plot_test.cc.
"""

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3


class InputError(Exception):
    """Bad user input. The message names the file (and line or field) at fault."""

"""Writes an output whole or not at all: to a temporary file beside the target, renamed
over it when complete, so a reader (a browser on index.html, `apfsim` waiting for
sweep.png) never sees half a file. Every PNG and the page go through here.

Tested by tests/cli/plot_test.cc (no temporary file is left beside the outputs).
"""

import os
import tempfile

from apfplot.errors import InputError


def write_atomically(path, write):
    """Calls write(file object) on a temporary file beside `path`, then renames it."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
    except OSError as e:
        raise InputError("%s: cannot write: %s" % (path, e)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise InputError("%s: cannot write: %s" % (path, e)) from None
        raise


def write_png(fig, path, metadata=None):
    """A matplotlib figure as a PNG at 100 dots per inch; `metadata` ({"Title": ...,
    "Description": ...}) goes in its text chunks, where a test or `exiftool` reads it."""
    write_atomically(path, lambda f: fig.savefig(f, format="png", dpi=100, metadata=metadata))

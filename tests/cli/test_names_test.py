#!/usr/bin/env python3
"""No Catch2 test case is named with a semicolon: catch_discover_tests hands ctest the name
as a CMake list, which ends at the first ';', and Catch2 then runs no test for the cut name
and exits 0, so the test would never run in CI (ten did not, until this check).
usage: tests/cli/test_names_test.py SOURCE_DIR"""
import glob
import os
import re
import sys

bad = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "tests", "**", "*.cc"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    # The name may be on the line after TEST_CASE(, and split into adjacent literals.
    for m in re.finditer(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', text):
        name = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        if ";" in name:
            line = text.count("\n", 0, m.start()) + 1
            bad.append("%s:%d: %s" % (os.path.relpath(path, sys.argv[1]), line, name))
for b in bad:
    print("FAIL test_names_test: a ';' in a test name keeps ctest from running it:", b,
          file=sys.stderr)
sys.exit(1 if bad else 0)

#!/usr/bin/env bash
# Prints the path of a Python 3 that can import matplotlib. The python3 first on the PATH
# may be a private interpreter without Debian's python3-matplotlib, so the system one is
# tried as well. Fails with a message naming what to install when none can.
for py in "${APFSIM_PYTHON:-}" /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
  [[ -n "$py" && -x "$py" ]] || continue
  if "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    echo "$py"
    exit 0
  fi
done
echo "error: no Python 3 with matplotlib found (tried \$APFSIM_PYTHON, /usr/bin/python3, python3 on PATH);" \
  "install the Debian package python3-matplotlib or set APFSIM_PYTHON" >&2
exit 1

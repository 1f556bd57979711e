#!/usr/bin/env bash
# CI proof that the page of `tools/plot.py --index` draws its interactive timelines
# (tools/apfplot/timelines.py): two-minute runs of the drift sweep as it was and as it was
# fixed are plotted and put on one page, which headless Chromium opens with no network.
# The DOM it dumps must hold a <canvas> in every element of class `timeline` (uPlot drew
# them), as many timelines as the page's script says it made, every one showing the
# stretch the link asked for (#t=55-80: a zoom applied to one chart reaches all), and no
# `script-error` element (the page's window.onerror writes one). A screenshot is kept in
# build/page-test/page.png. Needs Debian's chromium (deps/ci-packages.txt); without it the
# test says so and skips. Usage: tests/ci/page_test.sh [APFSIM]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
apfsim=${1:-$here/build/apfsim}
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "SKIP page_test: chromium not installed (Debian package chromium, listed in" \
    "deps/ci-packages.txt)"
  exit 0
fi
out="$here/build/page-test"
rm -rf "$out"
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

"$apfsim" run "$here/scenarios/drift-sweep.yaml" --set duration=2m --out "$out/before" --quiet
"$apfsim" run "$here/scenarios/drift-sweep-fixed.yaml" --set duration=2m --out "$out/after" \
  --quiet
py=$("$here/tools/find-python.sh")
"$py" "$here/tools/plot.py" "$out/before" "$out/after"
"$py" "$here/tools/plot.py" --index "$out/index.html" "$out/before" "$out/after"

chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size=1400,2400 --virtual-time-budget=10000 "$@" \
    2>>"$out/chromium.log"
}
# #t=55-80 opens the page zoomed to the sweep at 1m: every chart must show that stretch.
chrome --dump-dom "file://$out/index.html#t=55-80" >"$out/dom.html"
chrome --screenshot="$out/page.png" "file://$out/index.html#t=55-80" >/dev/null

"$py" - "$out/dom.html" <<'PY'
import sys
from html.parser import HTMLParser


class Timelines(HTMLParser):
    """Counts the elements of class `timeline` and the canvases inside each."""

    def __init__(self):
        super().__init__()
        self.stack = []  # open elements: True for a .timeline
        self.canvases = []  # per .timeline
        self.ranges = []  # per .timeline: the time range it shows
        self.error = None
        self.declared = None
        self.in_error = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.declared = attrs.get("data-timelines")
        if attrs.get("id") == "script-error":
            self.error = ""
            self.in_error = True
        if tag == "canvas" and any(self.stack):
            self.canvases[-1] += 1
        if tag in ("br", "img", "input", "meta", "link", "hr", "col", "wbr", "source"):
            return
        is_timeline = "timeline" in (attrs.get("class") or "").split()
        if is_timeline:
            self.canvases.append(0)
            self.ranges.append((attrs.get("data-x-min"), attrs.get("data-x-max")))
        self.stack.append(is_timeline)

    def handle_endtag(self, tag):
        if tag in ("br", "img", "input", "meta", "link", "hr", "col", "wbr", "source"):
            return
        if self.stack:
            self.stack.pop()
        self.in_error = False

    def handle_data(self, data):
        if self.in_error:
            self.error += data


parser = Timelines()
parser.feed(open(sys.argv[1], encoding="utf-8").read())
failures = []
if parser.error is not None:
    failures.append("the page recorded a script error: %s" % parser.error.strip())
if not parser.canvases:
    failures.append("no element of class timeline in the DOM")
if any(n == 0 for n in parser.canvases):
    failures.append("%d of %d timelines have no canvas" % (
        sum(1 for n in parser.canvases if n == 0), len(parser.canvases)))
if parser.declared != str(len(parser.canvases)):
    failures.append("the script made %s charts, the DOM has %d timelines" % (
        parser.declared, len(parser.canvases)))
zoomed = [r for r in parser.ranges if r != ("55", "80")]
if zoomed:
    failures.append("%d of %d timelines do not show 55-80 s: %s" % (
        len(zoomed), len(parser.ranges), zoomed[:3]))
if failures:
    sys.exit("page_test FAILED:\n  " + "\n  ".join(failures))
print("page_test: %d timelines drawn, each with a canvas and zoomed to 55-80 s; no script "
      "error" % len(parser.canvases))
PY
echo "page_test: screenshot in build/page-test/page.png"

#!/usr/bin/env python3
"""Every relative link of the README, doc/ and scenarios/README.md names a file of the
repository, and every #anchor into a Markdown file names one of its headings (GitHub's
rule: lower case, punctuation but hyphens dropped, spaces made hyphens) or an
<a id="..."></a> of its own, so that moving a
section out of the README cannot leave a reader at a dead link.
usage: tests/cli/doc_links_test.py SOURCE_DIR"""
import glob
import os
import re
import sys

src = sys.argv[1]


def anchors(path):
    out = set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r"#+ (.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
        out.update(re.findall(r'<a id="([^"]+)"></a>', line))  # an anchor of its own
    return out


files = ["README.md", "scenarios/README.md"] + sorted(
    os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "doc", "*.md")))
bad = []
for f in files:
    text = open(os.path.join(src, f), encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code are not links
    for m in re.finditer(r"\]\(([^)\s]*)\)", text):
        target = m.group(1)
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(os.path.join(src, resolved)):
            bad.append(f"{f}: {target}: no file {resolved}")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(os.path.join(src, resolved)):
            bad.append(f"{f}: {target}: no heading #{anchor} in {resolved}")
for b in bad:
    print("FAIL doc_links_test:", b, file=sys.stderr)
sys.exit(1 if bad else 0)

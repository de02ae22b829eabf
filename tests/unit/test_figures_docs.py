#!/usr/bin/env python3
"""docs/PERFORMANCE.md and docs/RELIABILITY.md state what is true now.

usage: test_figures_docs.py SOURCE_ROOT

1. Each is under MAX_LINES lines: the current figure for each subject,
   not a diary (the history is in git log).
2. No section is a dated entry ("## 2026-12-01: ..."): a figure carries
   its date in its table, and a newer one replaces it.
3. Every section of PERFORMANCE.md but the summary shows the command that
   makes its figures (an indented command line).

The checks are first run on made-up pages that break them, so a check
that cannot fail fails the test. Prints one line per problem and ends
with "N passed, M failed".
"""
import os
import re
import sys

MAX_LINES = 450
DOCS = ("PERFORMANCE.md", "RELIABILITY.md")
NO_COMMAND = {"Summary"}   # PERFORMANCE.md's sections without a command of their own
DATED = re.compile(r"^#+\s+\d{4}-\d{2}-\d{2}", re.M)


def sections(text):
    """[(heading, body)] of the "## " sections."""
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def problems(name, text):
    out = []
    n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if n >= MAX_LINES:
        out.append("%s is %d lines, not under %d: keep the current figure of each subject "
                   "and leave the history to git log" % (name, n, MAX_LINES))
    for m in DATED.finditer(text):
        line = text[m.start():text.index("\n", m.start()) if "\n" in text[m.start():] else None]
        out.append("%s has a dated section: %s" % (name, line))
    if name == "PERFORMANCE.md":
        for head, body in sections(text):
            if head not in NO_COMMAND and not re.search(r"^    \S", body, re.M):
                out.append("%s: the section \"%s\" shows no command (an indented line)"
                           % (name, head))
    return out


def self_check():
    good = "# P\n\n## Summary\n\n| a | b |\n\n## Grading (`x`)\n\n    build/bench/x\n\n| a |\n"
    return [
        ("a short page with its commands passes", problems("PERFORMANCE.md", good) == []),
        ("a page of 450 lines fails",
         any("not under" in p for p in problems("RELIABILITY.md", "x\n" * MAX_LINES))),
        ("a dated section fails",
         any("dated" in p for p in problems("RELIABILITY.md", "# R\n## 2026-12-01: a run\n"))),
        ("a section without its command fails",
         any("no command" in p for p in problems("PERFORMANCE.md", good + "## Pool\n\nfigures\n"))),
    ]


def main():
    root = sys.argv[1]
    passed = failed = 0
    for name, ok in self_check():
        print("%s: self-check: %s" % ("ok" if ok else "FAIL", name))
        passed, failed = passed + ok, failed + (not ok)
    for name in DOCS:
        with open(os.path.join(root, "docs", name), encoding="utf-8") as f:
            text = f.read()
        found = problems(name, text)
        for p in found:
            print("FAIL: " + p)
        if found:
            failed += 1
        else:
            print("ok: %s, %d lines" % (name, text.count("\n")))
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

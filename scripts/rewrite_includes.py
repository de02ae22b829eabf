#!/usr/bin/env python3
"""Rewrites bare project includes ("verdict.h") as room-qualified ones.

A grader header is written from grader/ ("common/verdict.h",
"engine/diagnosis/summary.h"); any other project header from the
repository root ("server/request.h", "tests/test_bodies.h"). Run from the
repository root; prints each file it changes. Used once for issue 19 and
kept for branches that still carry bare includes.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.dirname(__file__) + "/..")
GENERATED = {"config.h": "common/config.h",
             "harness_template.h": "engine/harness_template.h",
             "openapi_doc.h": "server/openapi_doc.h"}
INCLUDE = re.compile(r'^(\s*#\s*include\s+)"([^"/]+)"', re.M)


def header_map():
    names = dict(GENERATED)
    for top, strip in (("grader", "grader/"), ("server", ""), ("tests", ""), ("bench", "")):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            if "node_modules" in d:
                continue
            for f in files:
                if f.endswith(".h"):
                    rel = os.path.relpath(os.path.join(d, f), ROOT)
                    path = rel[len(strip):] if rel.startswith(strip) else rel
                    if f in names and names[f] != path:
                        sys.exit(f"two headers named {f}: {names[f]}, {path}")
                    names[f] = path
    return names


def main():
    names = header_map()
    for top in ("grader", "server", "tests", "bench", "fuzz"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            if "node_modules" in d:
                continue
            for f in files:
                if not f.endswith((".c", ".h", ".cc")):
                    continue
                p = os.path.join(d, f)
                text = open(p, encoding="utf-8").read()

                def sub(m):
                    name = m.group(2)
                    if name not in names:
                        sys.exit(f"{p}: no project header {name}")
                    return f'{m.group(1)}"{names[name]}"'
                new = INCLUDE.sub(sub, text)
                if new != text:
                    open(p, "w", encoding="utf-8").write(new)
                    print(os.path.relpath(p, ROOT))


if __name__ == "__main__":
    main()

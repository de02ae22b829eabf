#!/usr/bin/env python3
"""Writes tests/page/mistake-verdicts.json: the grader's verdict on every
kernel of tests/samples/mistakes/, cut down to what the page's picture of
the worked cell reads (status, diagnosis, worked_cell and the worked
cells of the same half and output, both planes), so that the page's tests
draw the picture of every named mistake from the real grader's numbers.

usage (from the repository root, after a build):
    /usr/bin/python3 tests/page/make_mistake_verdicts.py [BUILD_DIR]
BUILD_DIR defaults to build; the seed is fixed, so a rerun on the same
grader gives the same file.
"""
import glob
import json
import os
import subprocess
import sys

SEED = "20261129"


def trim(v):
    out = {k: v.get(k) for k in ("schema", "task", "status", "passed", "message", "diagnosis", "summary")}
    wc = v.get("worked_cell")
    out["worked_cell"] = wc
    cells = v.get("worked_cells") or []
    if wc:
        cells = [c for c in cells
                 if c.get("half") == wc.get("half") and c.get("i") == wc.get("i")
                 and c.get("spectrum") == wc.get("spectrum")]
    else:
        cells = []
    out["worked_cells"] = cells
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    grade = os.path.join(root, build, "grader", "butterfly-grade")
    result = {}
    for path in sorted(glob.glob(os.path.join(root, "tests", "samples", "mistakes", "*.glsl"))):
        name = os.path.splitext(os.path.basename(path))[0]
        p = subprocess.run([grade, "--json", "--seed", SEED, path], capture_output=True, text=True, timeout=120)
        if p.returncode not in (0, 1, 2, 3):
            sys.exit(f"{name}: butterfly-grade exited {p.returncode}: {p.stderr}")
        result[name] = trim(json.loads(p.stdout))
    target = os.path.join(root, "tests", "page", "mistake-verdicts.json")
    with open(target, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{target}: {len(result)} verdicts")


if __name__ == "__main__":
    main()

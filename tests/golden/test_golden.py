#!/usr/bin/env python3
"""The golden verdicts: every sample, hostile body and mutant gets the
verdict it got when tests/golden/verdicts.txt was written, byte for byte.

usage: test_golden.py GOLDEN SOURCE_ROOT [--write]

GOLDEN is build/tests/golden (tests/golden/golden.c says what a line is).
Every body in tests/samples (all folders) and tests/hostile/bodies is
graded, every body the hostile corpus generates (tests/hostile/run_corpus.py's
generate; the line is named hostile:CASE), and every single-token mutant of
the three correct samples, at the fixed seed, on lavapipe: the file holds
lavapipe's outputs, whose floats a GPU may round otherwise, and it tests
the grader's code, not a device.

A line that differs fails the test and names the body; a body with no line
in the file (a new sample) or a line with no body (a sample removed) fails
too, until the file is written again with --write, which is done only when
a change is meant to change verdicts, and says so in its commit.
An Internal Error (the grader's own limit on a busy machine) is reported
and left out of the comparison: it says nothing about the code.
"""
import json
import os
import subprocess
import sys
import tempfile

MUTATED = ["tests/samples/correct.glsl", "tests/samples/correct_branches.glsl",
           "tests/samples/correct_vec2.glsl"]
GOLDEN_FILE = "tests/golden/verdicts.txt"
DEVICE = "llvmpipe"
HOSTILE = "tests/hostile"
# A case sent as json_raw has for its body the request's own JSON, which the
# server refuses (HTTP 400) before any grader sees a source: graded as a
# kernel it would test nothing the corpus means. These are left out:
# invalid_utf8_in_json, nul_escape_in_json, lone_surrogate_in_json.
UNGRADED_SENDS = ("json_raw",)


def bodies(root):
    found = []
    for top in ("tests/samples", "tests/hostile/bodies"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith(".glsl"):
                    found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def generated(root, folder):
    """Writes each body the hostile corpus generates into folder, the bytes
    it sends, and returns {path: "hostile:CASE"}. A body past the server's
    bound is graded too: golden reads one byte past it, as butterfly-grade
    does, and the grader refuses it as too long."""
    sys.path.insert(0, os.path.join(root, HOSTILE))
    import run_corpus
    with open(os.path.join(root, HOSTILE, "cases.json")) as f:
        cases = json.load(f)["cases"]
    names = {}
    for case in cases:
        if "generate" not in case or case.get("send") in UNGRADED_SENDS:
            continue
        path = os.path.join(folder, case["name"])
        with open(path, "wb") as f:
            f.write(run_corpus.generate(case["generate"]))
        names[path] = "hostile:" + case["name"]
    return names


def run(golden, root, args):
    out = subprocess.run([golden, "--device", DEVICE] + args, cwd=root, check=True,
                         capture_output=True, text=True, timeout=3000)
    lines = {}
    for line in out.stdout.splitlines():
        first, name = line.split(" ", 1)
        lines[name] = first
    return lines


def by_hand(name):
    """The command that shows the verdict of the line `name`."""
    grade = "`build/grader/butterfly-grade --json --seed 20261129 %s`"
    if name.startswith("hostile:"):
        return (grade % "BODY" + f", BODY the body {HOSTILE}/run_corpus.py generates "
                f"for the case {name[len('hostile:'):]}")
    return grade % name


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    golden, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    got = run(golden, root, bodies(root))
    got.update(run(golden, root, ["--mutants"] + MUTATED))
    with tempfile.TemporaryDirectory() as folder:
        names = generated(root, folder)
        got.update((names[p], h) for p, h in run(golden, root, sorted(names)).items())
    path = os.path.join(root, GOLDEN_FILE)
    if sys.argv[3:] == ["--write"]:
        internal = [n for n, h in got.items() if h == "internal"]
        if internal:
            sys.exit(f"not written: Internal Error (the grader's limit) for {internal}; run again "
                     "on a quieter machine")
        with open(path, "w") as f:
            for name in sorted(got):
                f.write(f"{got[name]} {name}\n")
        print(f"wrote {len(got)} verdicts to {GOLDEN_FILE}")
        return
    want = {}
    with open(path) as f:
        for line in f:
            first, name = line.rstrip("\n").split(" ", 1)
            want[name] = first
    failed = 0
    skipped = [n for n in sorted(got) if got[n] == "internal"]
    for name in sorted(set(want) | set(got)):
        if name in skipped:
            continue
        if name not in got:
            print(f"FAIL: {name}: in {GOLDEN_FILE} but not graded (removed? write the file again)")
        elif name not in want:
            print(f"FAIL: {name}: graded but not in {GOLDEN_FILE} (new? write the file again)")
        elif got[name] != want[name]:
            print(f"FAIL: {name}: verdict {got[name]}, was {want[name]}: "
                  f"compare {by_hand(name)} with the build before")
        else:
            continue
        failed += 1
    for name in skipped:
        print(f"skipped: {name}: Internal Error (the grader's limit on this machine), not compared")
    print(f"{len(want)} golden verdicts, {len(got) - len(skipped)} compared, {failed} differ, "
          f"{len(skipped)} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

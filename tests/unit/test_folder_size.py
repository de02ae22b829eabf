#!/usr/bin/env python3
"""No folder of C files under grader/ or server/ holds more than
MAX_C_FILES of them (issue 30): a folder past that is a room that grew by
features and wants splitting. (tests/ is out: its folders are its suites,
one folder a suite, which test_rooms.py holds.)

usage: test_folder_size.py SOURCE_ROOT
"""
import os
import sys
import tempfile

MAX_C_FILES = 24
C_EXT = (".c", ".h", ".cc")
SKIP = {"build", "build-asan", "node_modules", ".git"}


def crowded(root):
    """(folder, count) for each folder under root with too many C files."""
    out = []
    for folder, dirs, files in (w for top in ("grader", "server")
                                for w in os.walk(os.path.join(root, top))):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith("build")]
        n = sum(1 for f in files if f.endswith(C_EXT))
        if n > MAX_C_FILES:
            out.append((os.path.relpath(folder, root), n))
    return out


def main():
    failures = passed = 0
    # the check must be able to fail: a made-up folder of 25 files
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, "grader", "big"))
        for i in range(MAX_C_FILES + 1):
            open(os.path.join(t, "grader", "big", "f%d.c" % i), "w").close()
        ok = crowded(t) == [("grader/big", MAX_C_FILES + 1)]
        print(("ok" if ok else "FAIL") + ": self-check: a folder of %d C files fails"
              % (MAX_C_FILES + 1))
        failures += not ok
        passed += ok
    found = crowded(sys.argv[1])
    for folder, n in found:
        print("FAIL: %s holds %d C files (at most %d): split it into rooms"
              % (folder, n, MAX_C_FILES))
    if not found:
        print("ok: every folder of the tree holds at most %d C files" % MAX_C_FILES)
    failures += len(found)
    passed += not found
    print("%d passed, %d failed" % (passed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

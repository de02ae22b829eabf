#!/usr/bin/env python3
"""test_csv_differential.py - the batch's CSV reader against Python's csv.

usage: test_csv_differential.py CSV_DUMP [CORPUS_DIR...]

The batch imitates a CSV dialect, so it is checked against a real reader
(CODING_STYLE, and /work/shared/STYLE.md practice 15): thousands of inputs
made of the characters that matter (delimiters, quotes, CR, LF, blanks, a
byte-order mark, bytes that are not ASCII), from a fixed seed, and the
fuzzer's corpus when one is given (build-fuzz/corpus/csv after
scripts/fuzz.sh), go through csv_dump (the C reader) and through Python's
csv.reader with the same delimiter; both must give the same records. The
known, documented differences are normalised first: a blank line is one
empty field for the batch (and no input), an empty list for Python; a
byte-order mark at the start is skipped by the batch.
"""
import csv
import io
import os
import random
import subprocess
import sys
import tempfile

DUMP = sys.argv[1]
CORPORA = sys.argv[2:]
PIECES = ["a", "b", "xy", ",", ",", ";", ";", '"', '"', '""', "\r", "\n", "\r\n", " ", "\t",
          "\xc3\xa9", "="]


def ours(paths, delim):
    """What the C reader reads from each file, in one run of csv_dump."""
    p = subprocess.run([DUMP, delim] + paths, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    files = []
    for line in p.stdout.decode().splitlines():
        if line == "I":
            files.append([])
        elif line in ("R", "U"):
            files[-1].append([])
        else:
            files[-1][-1].append(bytes.fromhex(line[2:]))
    assert len(files) == len(paths)
    return [[r if r else [b""] for r in records] for records in files]


def python(data, delim):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = io.StringIO(data.decode("latin-1"), newline="")
    return [[f.encode("latin-1") for f in r] or [b""]
            for r in csv.reader(text, delimiter=delim, strict=False)]


def inputs():
    rng = random.Random(20261130)
    for _ in range(3000):
        pieces = rng.choices(PIECES, k=rng.randrange(0, 40))
        if rng.random() < 0.1:
            pieces.insert(0, "\xef\xbb\xbf")
        yield "".join(pieces).encode("latin-1")
    for corpus in CORPORA:
        if os.path.isdir(corpus):
            for name in sorted(os.listdir(corpus)):
                with open(os.path.join(corpus, name), "rb") as f:
                    yield f.read()[1:]       # the fuzzer's first byte picks its bounds


def main():
    # Python's csv and C strings part ways on NUL, which is no text anyway
    cases = [d for d in inputs() if b"\0" not in d]
    failures = []
    with tempfile.TemporaryDirectory(prefix="butterfly-csv-") as tmp:
        paths = []
        for i, data in enumerate(cases):
            paths.append(os.path.join(tmp, "%05d.csv" % i))
            with open(paths[-1], "wb") as f:
                f.write(data)
        for delim in (",", ";"):
            for data, a in zip(cases, ours(paths, delim)):
                b = python(data, delim)
                if a != b:
                    failures.append((data, delim, a, b))
    count = 2 * len(cases)
    for data, delim, a, b in failures[:10]:
        print("DIFFERENT with %r on %r:\n  batch:  %r\n  python: %r" % (delim, data, a, b))
    print("%d inputs compared, %d different" % (count, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

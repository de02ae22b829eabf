#!/usr/bin/env python3
"""test_gradebooks.py - the gradebooks learning systems import, read back.

usage: test_gradebooks.py BUTTERFLY_BATCH SAMPLES_DIR

A small class with ids a spreadsheet would run as formulas, accents,
commas, a duplicated id and an id missing from the roster, exported as a
semicolon CSV on standard input, is graded with --gradebook canvas and a
Canvas roster (semicolons, a byte-order mark, Canvas's "Points Possible"
row), then with --gradebook moodle --excel. Each file is read with
Python's csv module and with pandas, as an importer would: the ids must
come back exactly as they went in, display text must be guarded, the
points must be the gradebook's.
"""
import csv
import io
import os
import subprocess
import sys
import tempfile


def need_pandas():
    """pandas, from Debian's python3-pandas: re-run under the system's
    python3 when this one (a pyenv, a venv) does not have it."""
    try:
        import pandas  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if (os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK)
            and subprocess.call([system, "-c", "import pandas"], stderr=subprocess.DEVNULL) == 0):
        os.execv(system, [system] + sys.argv)
    print("SKIP: pandas is not installed (Debian: apt-get install python3-pandas)")
    sys.exit(77)


need_pandas()
import pandas as pd  # noqa: E402

BATCH = os.path.abspath(sys.argv[1])
SAMPLES = os.path.abspath(sys.argv[2])
COLUMNS = ["id", "verdict", "score", "max_score", "halves_passed", "hidden_passed",
           "diagnosis_id", "diagnosis_title", "message", "input", "grading_ms"]
CANVAS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
FORMULA = "=cmd|' /C calc'!A0"


def sample(name):
    with open(os.path.join(SAMPLES, name + ".glsl")) as f:
        return f.read()


def write_export(path):
    """The class, as a spreadsheet with a decimal comma exports it: ';'."""
    correct, wrong = sample("correct"), sample("wrong_twiddle_sign")
    rows = [("alice", correct), ("@jdoe", wrong), ("-5", correct), (FORMULA, correct),
            ("José", wrong), ("a,b", correct), ("dup", correct), ("dup", wrong),
            ("stranger", correct), ("broken", "float x = nope;\nreturn x;\n")]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=";")
        w.writerow(["student_id", "name", "code"])
        for sid, src in rows:
            w.writerow([sid, "n/a", src])


def write_roster(path):
    """Canvas's gradebook export: a byte-order mark, ';', its second row."""
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Earlier quiz (77)"],
        ["    Points Possible", "", "", "", "", "10"],
        ["Liddell, Alice", "101", "S-1", "alice", "Mon; 9:00", "7"],
        ["Doe, Jane", "102", "S-2", "@jdoe", "Tue", "8"],
        ["Minus, Five", "103", "S-3", "-5", "Tue", ""],
        ["=EVIL()", "104", "S-4", FORMULA, "=SECTION()", ""],
        ["Pérez, José", "105", "S-5", "José", "Wed", ""],
        ["Comma, A", "106", "S-6", "a,b", "Wed", ""],
        ["Twice, D", "107", "S-7", "dup", "Wed", ""],
        ["Absent, Ann", "108", "S-8", "ann", "Wed", ""],
        ["Broken, B", "109", "S-9", "broken", "Wed", ""],
    ]
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f, delimiter=";").writerows(rows)


def batch(args, stdin=None):
    p = subprocess.run([BATCH, "-j", "2", "--seed", "5"] + args, input=stdin,
                       capture_output=True, timeout=240)
    assert p.returncode == 0, (args, p.stdout.decode(), p.stderr.decode())
    return p.stdout.decode(), p.stderr.decode()


def read_csv(path, bom=False):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw.startswith(b"\xef\xbb\xbf") == bom, (path, raw[:8])
    assert b"\r\n" in raw
    text = raw.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline="")))


def read_pandas(path):
    # strings as they are: an importer must not turn "-5" into -5 or "" into NaN
    return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")


def test_canvas(tmp):
    export, roster, out = (os.path.join(tmp, n) for n in ("export.csv", "roster.csv", "canvas"))
    write_export(export)
    write_roster(roster)
    with open(export, "rb") as f:
        stdout, stderr = batch(["--gradebook", "canvas", "--roster", roster, "--assignment",
                                "Butterfly (4242)", "-o", out, "-"], stdin=f.read())
    assert "Canvas: 9 roster students, 7 with points (ids matched on SIS Login ID)" in stdout, \
        stdout
    assert "1 graded ids are not in the roster" in stderr and "stranger" in stderr, stderr

    rows = read_csv(os.path.join(out, "gradebook-canvas.csv"))
    assert rows[0] == CANVAS + ["Butterfly (4242)"], rows[0]
    assert rows[1] == ["    Points Possible", "", "", "", "", "9"], rows[1]
    by_login = {r[3]: r for r in rows[2:]}
    assert [r[3] for r in rows[2:]] == ["alice", "@jdoe", "-5", FORMULA, "José", "a,b", "dup",
                                        "ann", "broken"], rows     # the roster's order
    # the ids Canvas matches on: exactly the roster's
    assert by_login["@jdoe"][1:4] == ["102", "S-2", "@jdoe"]
    assert by_login[FORMULA][1:4] == ["104", "S-4", FORMULA]
    # display text a spreadsheet would run is guarded; the rest is as it was
    assert by_login[FORMULA][0] == "'=EVIL()" and by_login[FORMULA][4] == "'=SECTION()"
    assert by_login["alice"][0] == "Liddell, Alice" and by_login["alice"][4] == "Mon; 9:00"
    assert by_login["José"][0] == "Pérez, José"
    points = {login: r[5] for login, r in by_login.items()}
    assert points == {"alice": "9", "@jdoe": "3", "-5": "9", FORMULA: "9", "José": "3",
                      "a,b": "9", "dup": "", "ann": "", "broken": "0"}, points

    df = read_pandas(os.path.join(out, "gradebook-canvas.csv"))
    assert list(df.columns) == CANVAS + ["Butterfly (4242)"], list(df.columns)
    assert df.iloc[0]["Student"].strip() == "Points Possible"
    got = dict(zip(df["SIS Login ID"][1:], df["Butterfly (4242)"][1:]))
    assert got == points, got
    assert pd.to_numeric(df["Butterfly (4242)"][1:].replace("", None)).max() == 9

    # the batch's own gradebook keeps its layout beside it
    rows = read_csv(os.path.join(out, "gradebook.csv"))
    assert rows[0] == COLUMNS and len(rows) == 11, rows[0]
    ids = {r[0] for r in rows[1:]}
    assert {"alice", "'@jdoe", "-5", "'" + FORMULA} <= ids, ids   # guarded for reading
    assert pd.read_csv(os.path.join(out, "gradebook.csv"), dtype=str,
                       keep_default_na=False).shape == (10, len(COLUMNS))


def test_moodle(tmp):
    export, out = os.path.join(tmp, "export.csv"), os.path.join(tmp, "moodle")
    stdout, _ = batch(["--gradebook", "moodle", "--excel", "-o", out, export])
    assert "Moodle: 8 students with points; 2 rows left out" in stdout, stdout
    rows = read_csv(os.path.join(out, "gradebook-moodle.csv"), bom=True)
    assert rows[0] == ["Identifier", "Grade", "Feedback"], rows[0]
    got = {r[0]: r for r in rows[1:]}
    assert sorted(got) == sorted(["alice", "@jdoe", "-5", FORMULA, "José", "a,b", "stranger",
                                  "broken"]), sorted(got)    # no duplicated id, each once
    assert got["alice"][1:] == ["9", "Accepted: 9 of 9 points. Every cell is right for half = "
                                "1, 2 and 4, on the visible and the hidden spectra."]
    assert got["@jdoe"][1] == "3" and got["@jdoe"][2].startswith("Wrong Answer: 3 of 9 points.")
    assert "twiddle" in got["@jdoe"][2]
    assert got["broken"][2].startswith("Compilation Error: 0 of 9 points. line 1: ")
    df = read_pandas(os.path.join(out, "gradebook-moodle.csv"))
    assert list(df.columns) == ["Identifier", "Grade", "Feedback"], list(df.columns)
    assert dict(zip(df["Identifier"], df["Grade"].astype(int))) == \
        {k: int(v[1]) for k, v in got.items()}
    # --excel marks the batch's own gradebook too, and it still reads back
    rows = read_csv(os.path.join(out, "gradebook.csv"), bom=True)
    assert rows[0] == COLUMNS and len(rows) == 11
    # without --excel: no mark
    read_csv(os.path.join(tmp, "canvas", "gradebook.csv"), bom=False)


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="butterfly-gradebooks-") as tmp:
        for t in (test_canvas, test_moodle):
            try:
                t(tmp)
                print("ok  ", t.__name__, flush=True)
            except Exception:
                import traceback
                traceback.print_exc()
                print("FAIL", t.__name__, flush=True)
                failed += 1
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

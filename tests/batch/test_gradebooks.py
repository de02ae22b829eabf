#!/usr/bin/env python3
"""test_gradebooks.py - the gradebooks learning systems import, read back.

usage: test_gradebooks.py BUTTERFLY_BATCH SAMPLES_DIR

A small class with ids a spreadsheet would run as formulas, accents,
commas, a duplicated id and an id missing from the roster, exported as a
semicolon CSV on standard input, is graded with --gradebook canvas and a
Canvas roster (semicolons, a byte-order mark, Canvas's "Points Possible"
row), then with --gradebook moodle --excel. Each file is read with
Python's csv module and with pandas, as an importer would: the ids must
come back exactly as they went in, no cell may be one a spreadsheet
runs, the points must be the gradebook's.

The learning systems' own rules: Canvas's gradebook import matches a row
by its ID, SIS User ID or SIS Login ID exactly, and Moodle's "Import
grades from CSV" matches the Identifier exactly against the user field it
is mapped to; neither drops a leading apostrophe. So a guarded id would
match nobody: a Canvas roster with an id a spreadsheet would run is
refused (naming the line), and Moodle's file leaves such an id out and
says so. The rosters refused: Latin-1, UTF-16, a control character, a
duplicated id, ids like =HYPERLINK(...) or -3+4.
"""
import csv
import io
import os
import re
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
           "diagnosis_id", "diagnosis_title", "message", "input", "late",
           "best_on_time", "grading_ms"]
CANVAS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
FORMULA = "=cmd|' /C calc'!A0"


def sample(name):
    with open(os.path.join(SAMPLES, name + ".glsl")) as f:
        return f.read()


def write_export(path, jdoe="@jdoe", evil=FORMULA):
    """The class, as a spreadsheet with a decimal comma exports it: ';'."""
    correct, wrong = sample("correct"), sample("wrong_twiddle_sign")
    rows = [("alice", correct), (jdoe, wrong), ("-5", correct), (evil, correct),
            ("José", wrong), ("a,b", correct), ("dup", correct), ("dup", wrong),
            ("stranger", correct), ("broken", "float x = nope;\nreturn x;\n")]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=";")
        w.writerow(["student_id", "name", "code"])
        for sid, src in rows:
            w.writerow([sid, "n/a", src])


def write_roster(path, jdoe="jdoe", evil="evil"):
    """Canvas's gradebook export: a byte-order mark, ';', its second row."""
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Earlier quiz (77)"],
        ["    Points Possible", "", "", "", "", "10"],
        ["Liddell, Alice", "101", "S-1", "alice", "Mon; 9:00", "7"],
        ["Doe, Jane", "102", "S-2", jdoe, "Tue", "8"],
        ["Minus, Five", "103", "S-3", "-5", "Tue", ""],
        ["=EVIL()", "104", "S-4", evil, "=SECTION()", ""],
        ["Pérez, José", "105", "S-5", "José", "Wed", ""],
        ["Comma, A", "106", "S-6", "a,b", "Wed", ""],
        ["Twice, D", "107", "S-7", "dup", "Wed", ""],
        ["Absent, Ann", "108", "S-8", "ann", "Wed", ""],
        ["Broken, B", "109", "S-9", "broken", "Wed", ""],
    ]
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f, delimiter=";").writerows(rows)


def batch(args, stdin=None, code=0):
    p = subprocess.run([BATCH, "-j", "2", "--seed", "5"] + args, input=stdin,
                       capture_output=True, timeout=240)
    assert p.returncode == code, (args, p.returncode, p.stdout.decode(), p.stderr.decode())
    return p.stdout.decode(), p.stderr.decode()


def spreadsheet_runs(cell):
    """Whether a spreadsheet opening the file would evaluate the cell: it
    starts with = or @, or with + or - and is no plain number, or with a
    TAB or CR (which some programs drop before looking again)."""
    if not cell:
        return False
    if cell[0] in "=@\t\r":
        return True
    if cell[0] in "+-":
        try:
            float(cell)
            return not re.fullmatch(r"[+-][0-9.]+([eE][+-]?[0-9]+)?", cell)
        except ValueError:
            return True
    return False


def assert_nothing_runs(rows, path):
    for r in rows:
        for cell in r:
            assert not spreadsheet_runs(cell), (path, cell)


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
    write_export(export, jdoe="jdoe", evil="evil")
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
    assert [r[3] for r in rows[2:]] == ["alice", "jdoe", "-5", "evil", "José", "a,b", "dup",
                                        "ann", "broken"], rows     # the roster's order
    # the ids Canvas matches on: exactly the roster's ("-5" is a number, no formula)
    assert by_login["jdoe"][1:4] == ["102", "S-2", "jdoe"]
    assert by_login["-5"][1:4] == ["103", "S-3", "-5"]
    # text a spreadsheet would run is guarded; the rest is as it was
    assert by_login["evil"][0] == "'=EVIL()" and by_login["evil"][4] == "'=SECTION()"
    assert by_login["alice"][0] == "Liddell, Alice" and by_login["alice"][4] == "Mon; 9:00"
    assert by_login["José"][0] == "Pérez, José"
    assert_nothing_runs(rows, "gradebook-canvas.csv")
    points = {login: r[5] for login, r in by_login.items()}
    assert points == {"alice": "9", "jdoe": "3", "-5": "9", "evil": "9", "José": "3",
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
    assert {"alice", "jdoe", "-5", "evil"} <= ids, ids
    assert_nothing_runs(rows, "gradebook.csv")
    assert pd.read_csv(os.path.join(out, "gradebook.csv"), dtype=str,
                       keep_default_na=False).shape == (10, len(COLUMNS))


def test_moodle(tmp):
    export, out = os.path.join(tmp, "export-moodle.csv"), os.path.join(tmp, "moodle")
    write_export(export)
    stdout, stderr = batch(["--gradebook", "moodle", "--excel", "-o", out, export])
    assert "Moodle: 6 students with points; 4 rows left out" in stdout, stdout
    # Moodle matches the Identifier exactly: an id a spreadsheet would run
    # cannot be guarded, so it is left out, and said
    assert ("2 graded ids are left out of Moodle's file" in stderr and "@jdoe" in stderr
            and FORMULA in stderr), stderr
    rows = read_csv(os.path.join(out, "gradebook-moodle.csv"), bom=True)
    assert rows[0] == ["Identifier", "Grade", "Feedback"], rows[0]
    assert_nothing_runs(rows, "gradebook-moodle.csv")
    got = {r[0]: r for r in rows[1:]}
    assert sorted(got) == sorted(["alice", "-5", "José", "a,b", "stranger",
                                  "broken"]), sorted(got)    # no duplicated id, each once
    assert got["alice"][1:] == ["9", "Accepted: 9 of 9 points. Every cell is right for half = "
                                "1, 2 and 4, on the visible and the hidden spectra."]
    assert got["José"][1] == "3" and got["José"][2].startswith("Wrong Answer: 3 of 9 points.")
    assert "twiddle" in got["José"][2]
    assert got["broken"][2].startswith("Compilation Error: 0 of 9 points. line 1: ")
    df = read_pandas(os.path.join(out, "gradebook-moodle.csv"))
    assert list(df.columns) == ["Identifier", "Grade", "Feedback"], list(df.columns)
    assert dict(zip(df["Identifier"], df["Grade"].astype(int))) == \
        {k: int(v[1]) for k, v in got.items()}
    # --excel marks the batch's own gradebook too, and it still reads back,
    # with the ids a spreadsheet would run guarded there
    rows = read_csv(os.path.join(out, "gradebook.csv"), bom=True)
    assert rows[0] == COLUMNS and len(rows) == 11
    assert {"'@jdoe", "'" + FORMULA} <= {r[0] for r in rows[1:]}
    assert_nothing_runs(rows, "gradebook.csv")
    # without --excel: no mark
    read_csv(os.path.join(tmp, "canvas", "gradebook.csv"), bom=False)


def test_canvas_rosters_refused(tmp):
    """A roster Canvas's import could not match, or that would lie, is
    refused whole, naming the line and the reason; nothing is written."""
    export = os.path.join(tmp, "export-refused.csv")
    write_export(export, jdoe="jdoe", evil="evil")
    good = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    cases = [
        ("formula login", [good, ["Doe, Jane", "102", "S-2", "@jdoe", "Tue"]], "utf-8",
         ["roster.csv:2:", "SIS Login ID", "@jdoe", "spreadsheet would run"]),
        ("hyperlink id", [good, ["A", "1", "S-1", "a", ""],
                          ["B", '=HYPERLINK("http://x")', "S-2", "b", ""]], "utf-8",
         ["roster.csv:3:", "the ID", "spreadsheet would run"]),
        ("sum id", [good, ["A", "-3+4", "S-1", "a", ""]], "utf-8",
         ["roster.csv:2:", "the ID \"-3+4\"", "spreadsheet would run"]),
        ("duplicate", [good, ["A", "1", "S-1", "a", ""], ["B", "2", "S-2", "b", ""],
                       ["C", "3", "S-3", "a", ""]], "utf-8",
         ["roster.csv:4:", "SIS Login ID \"a\" is on line 2 too"]),
        ("latin-1", [good, ["Pérez, José", "1", "S-1", "jose", ""]], "latin-1",
         ["roster.csv:2:", "not UTF-8"]),
        ("utf-16", [good, ["Pérez, José", "1", "S-1", "jose", ""]], "utf-16",
         ["UTF-16"]),
        ("escape", [good, ["\x1b[2J\x1b]0;x\x07", "1", "S-1", "a", ""]], "utf-8",
         ["roster.csv:2:", "control character", "%1B[2J"]),
    ]
    for what, rows, encoding, words in cases:
        d = os.path.join(tmp, "refused-" + what.replace(" ", "-"))
        os.mkdir(d)
        roster = os.path.join(d, "roster.csv")
        with open(roster, "w", newline="", encoding=encoding) as f:
            csv.writer(f).writerows(rows)
        out = os.path.join(d, "out")
        _, stderr = batch(["--gradebook", "canvas", "--roster", roster, "-o", out, export],
                          code=2)
        for w in words:
            assert w in stderr, (what, w, stderr)
        assert "\x1b" not in stderr, (what, stderr)
        assert not os.path.exists(os.path.join(out, "gradebook-canvas.csv")), what


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="butterfly-gradebooks-") as tmp:
        for t in (test_canvas, test_moodle, test_canvas_rosters_refused):
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

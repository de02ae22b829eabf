#!/usr/bin/env python3
"""test_batch.py - butterfly-batch end to end, on lavapipe.

usage: test_batch.py BUTTERFLY_BATCH SAMPLES_DIR

A generated class of 60 (make_class.py) must give the expected verdict for
every id and exactly 60 rows; a batch killed with SIGKILL halfway, or
stopped with a Ctrl-C sent to its whole process group, and then resumed
must give the same gradebook as one uninterrupted run; every results.json
must have Gradescope's fields and types, and what a student sees before
publication must not depend on a hidden spectrum; the gradebook must parse
with Python's csv module; CSV and JSON Lines exports (on standard input
too), hostile ids and bad usage must be handled as docs/BATCH.md says; the
seed is drawn per folder and kept for resumes; the progress line fits a
pseudo-terminal and honours NO_COLOR and TERM=dumb.
"""
import csv
import fcntl
import io
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_class  # noqa: E402

BATCH = os.path.abspath(sys.argv[1])
SAMPLES = os.path.abspath(sys.argv[2])
DEADLINE = "2000"
SEED = "20261129"          # the reference run's: runs compared with it byte for byte use it
COLUMNS = ["id", "verdict", "score", "max_score", "halves_passed", "hidden_passed",
           "diagnosis_id", "diagnosis_title", "message", "input", "late",
           "best_on_time", "grading_ms"]
VERDICTS = {
    "accepted": "Accepted",
    "wrong_answer": "Wrong Answer",
    "compilation_error": "Compilation Error",
    "time_limit_exceeded": "Time Limit Exceeded",
    "runtime_error": "Runtime Error",
    "rejected": "Rejected",
}
KEY = re.compile(r"^(?:[a-z0-9_-]|%[0-9A-F]{2})(?:[a-z0-9._-]|%[0-9A-F]{2})*$")


def run(args, **kw):
    return subprocess.run([BATCH] + args, capture_output=True, text=True, timeout=240, **kw)


def grade(inp, out, *extra):
    return run(["-j", "2", "--deadline-ms", DEADLINE, "-o", out] + list(extra) + [inp])


def read_rows(out):
    with open(os.path.join(out, "gradebook.csv"), newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert header == COLUMNS, header
        return [dict(zip(COLUMNS, row)) for row in reader if len(row) == len(COLUMNS) or
                fail("a row with %d columns: %r" % (len(row), row))]


def without_timing(out):
    """The gradebook's bytes, with the one column that changes from run to run blanked."""
    with open(os.path.join(out, "gradebook.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    text = io.StringIO()
    w = csv.writer(text)
    for row in rows:
        w.writerow(row[:-1])
    return text.getvalue()


def fail(msg):
    raise AssertionError(msg)


def results_files(out):
    base = os.path.join(out, "students")
    return [os.path.join(base, k, "results.json") for k in sorted(os.listdir(base))
            if os.path.exists(os.path.join(base, k, "results.json"))]


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_gradescope(path):
    """The fields and types Gradescope's autograder specification documents."""
    with open(path, encoding="utf-8") as f:
        r = json.load(f)
    assert is_number(r["score"]), path
    assert is_number(r["execution_time"]) and r["execution_time"] >= 0, path
    assert isinstance(r["output"], str) and r["output"], path
    assert r.get("output_format", "text") in ("text", "html", "simple_format", "md", "ansi")
    assert isinstance(r.get("extra_data", {}), dict)
    if "visibility" in r:
        assert r["visibility"] in ("hidden", "after_due_date", "after_published", "visible")
    tests = r["tests"]
    assert isinstance(tests, list) and len(tests) == 6, path
    for t in tests:
        assert isinstance(t["name"], str) and t["name"]
        assert is_number(t["score"]) and is_number(t["max_score"])
        assert 0 <= t["score"] <= t["max_score"]
        assert t["status"] in ("passed", "failed")
        assert (t["status"] == "passed") == (t["score"] == t["max_score"])
        assert isinstance(t["output"], str)
        assert t["visibility"] in ("hidden", "after_due_date", "after_published", "visible")
    assert r["score"] == sum(t["score"] for t in tests), path
    assert sum(t["max_score"] for t in tests) == 9
    return r


# --- the tests ----------------------------------------------------------

def test_class_of_60(ctx):
    cls, out = ctx["class"], ctx["ref"]
    p = grade(cls, out, "--seed", SEED)
    assert p.returncode == 0, p.stderr + p.stdout
    assert "Rows in gradebook.csv: 60 = inputs: 60" in p.stdout, p.stdout
    assert "1 entries left out (hidden files" in p.stdout, p.stdout
    rows = read_rows(out)
    assert len(rows) == make_class.EXPECTED_ROWS, len(rows)
    by_id = {}
    for row in rows:
        by_id.setdefault(row["id"], []).append(row)
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows), "not sorted by id"
    expected = ctx["expected"]
    assert set(by_id) == set(expected), set(by_id) ^ set(expected)
    for sid, (verdict, diagnosis, reason) in expected.items():
        got = by_id[sid]
        assert len(got) == (2 if sid == "dup" else 1), sid
        for row in got:
            want = VERDICTS[verdict]
            assert row["verdict"].startswith(want), (sid, row["verdict"], want, row["message"])
            if diagnosis is not None:
                assert row["diagnosis_id"] == diagnosis, (sid, row["diagnosis_id"], diagnosis)
            if reason is not None:
                assert reason in row["message"], (sid, row["message"], reason)
            score = int(row["score"])
            assert row["max_score"] == "9"
            if verdict == "accepted":
                assert score == 9 and row["halves_passed"] == "3" and row["hidden_passed"] == "24"
            elif verdict != "wrong_answer":
                assert score == 0 and row["halves_passed"] == "0", (sid, row)
    # a message with quotes, commas and line breaks survives the CSV
    two = by_id["e_two_errors"][0]["message"]
    assert two.startswith("line 1: 'nope1' is not declared") and \
        "\nline 2: 'nope2' is not declared" in two, repr(two)
    assert "\"dup\" appears 2 times (dup.glsl, dup.txt)" in by_id["dup"][0]["message"]
    assert by_id['x,"q"'][0]["input"] == 'x,"q".glsl'

    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    assert summary["rows"] == 60 and summary["inputs"] == 60, summary
    counts = {v["status"]: v["count"] for v in summary["verdicts"]}
    assert counts["Accepted"] == 14 and counts["Time Limit Exceeded"] == 1, counts
    assert [h["half"] for h in summary["halves"]] == [1, 2, 4]
    assert summary["compile_errors"][0] == {"message": "'_' : undeclared identifier", "count": 2}
    # the most common names first (the conjugate multiply is now named as
    # such, so the twiddle's sign shares the top count with others)
    top = summary["diagnoses"][0]["count"]
    assert "twiddle_sign" in [d["id"] for d in summary["diagnoses"] if d["count"] == top], summary["diagnoses"]
    assert "Most common compile errors" in p.stdout and "Pass rate per half" in p.stdout

    # the layout: one folder per usable id, a safe name, only results.json in it
    keys = sorted(os.listdir(os.path.join(out, "students")))
    assert all(KEY.match(k) for k in keys), keys
    assert "%55pper" in keys and "%4Aos%C3%A9" in keys and "x%2C%22q%22" in keys, keys
    for k in keys:
        assert os.listdir(os.path.join(out, "students", k)) == ["results.json"], k
    assert os.listdir(os.path.join(out, ".tmp")) == []
    files = results_files(out)
    assert len(files) == 58, len(files)    # 60 rows: "dup" twice, "bad\nid" has no file
    for path in files:
        check_gradescope(path)
    r = check_gradescope(os.path.join(out, "students", "c01", "results.json"))
    assert r["score"] == 9 and all(t["status"] == "passed" for t in r["tests"])
    r = check_gradescope(os.path.join(out, "students", "w_wrong_twiddle_sign", "results.json"))
    # the diagnosis rests on the hidden spectra too: it waits for publication (issue 11)
    assert r["score"] == 3 and "twiddle" in r["tests"][3]["output"]
    body = r["output"].split("\n", 1)[1]          # after "Student: w_wrong_twiddle_sign"
    assert "twiddle" not in body and "Likely mistake" not in body, body
    assert [t["visibility"] for t in r["tests"]] == ["visible", "after_published"] * 3


def test_rerun_reuses_everything(ctx):
    out = ctx["tmp"] + "/rerun"
    shutil.copytree(ctx["ref"], out)
    before = open(os.path.join(out, "gradebook.csv"), "rb").read()
    t0 = time.monotonic()
    p = grade(ctx["class"], out)     # no --seed: the one the folder's run kept
    assert p.returncode == 0, p.stderr
    assert "Graded 0 now, reused 53 from an earlier run, refused 7 before grading" in p.stdout, \
        p.stdout
    assert "Seed %s, kept from the earlier run" % SEED in p.stdout, p.stdout
    assert time.monotonic() - t0 < 5
    # rows come from the same records: identical, timing included
    assert open(os.path.join(out, "gradebook.csv"), "rb").read() == before
    # a changed source is graded again, not reused
    c03 = os.path.join(ctx["class"], "c03.glsl")
    original = open(c03).read()
    with open(c03, "a") as f:
        f.write("// changed after the first run\n")
    p = grade(ctx["class"], out)
    assert "Graded 1 now, reused 52" in p.stdout, p.stdout
    # --force regrades everything, with the same gradebook for the same seed
    p = grade(ctx["class"], out, "--force", "--seed", SEED)
    assert p.returncode == 0 and "Graded 53 now, reused 0" in p.stdout, p.stdout
    assert without_timing(out) == without_timing(ctx["ref"])
    with open(c03, "w") as f:
        f.write(original)


def slow_env(tmp):
    """An environment whose first job to reach the run has its worker sleep
    (a test build's hook, grader/worker/test_fault.h) until the deadline,
    as on a machine too slow for it: a batch still running, on any
    machine's speed, since no kernel within the cost bounds is slow."""
    fd, token = tempfile.mkstemp(dir=tmp, prefix="sleep-")
    os.close(fd)
    env = dict(os.environ)
    env["BUTTERFLY_TEST_WORKER_FAULT"] = "SLEEP_RUN:" + token
    return env


def wait_for_results(out, proc, count):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            n = len(results_files(out))
        except FileNotFoundError:
            n = 0
        if n >= count:
            return n
        if proc.poll() is not None:
            fail("the batch ended before it was interrupted (%d results)" % n)
        time.sleep(0.005)
    fail("no progress")


def check_complete_files(out):
    """Every file left is whole: each results.json parses, .tmp holds only temporaries."""
    for path in results_files(out):
        with open(path, encoding="utf-8") as f:
            json.load(f)


def test_kill9_halfway_then_resume(ctx):
    out = ctx["tmp"] + "/killed"
    proc = subprocess.Popen([BATCH, "-j", "2", "--deadline-ms", DEADLINE, "-q", "--seed", SEED,
                             "-o", out, ctx["class"]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    n = wait_for_results(out, proc, 25)
    proc.kill()                       # SIGKILL: no chance to clean up
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    assert not os.path.exists(os.path.join(out, "gradebook.csv")), "it had finished"
    check_complete_files(out)
    p = grade(ctx["class"], out)     # no --seed: the interrupted run's
    assert p.returncode == 0, p.stderr
    m = re.search(r"reused (\d+)", p.stdout)
    assert m and int(m.group(1)) >= n - 7, (n, p.stdout)   # at most 7 refusals among them
    assert os.listdir(os.path.join(out, ".tmp")) == []
    assert without_timing(out) == without_timing(ctx["ref"])
    with open(os.path.join(out, "summary.json"), "rb") as a, \
            open(os.path.join(ctx["ref"], "summary.json"), "rb") as b:
        assert a.read() == b.read()


def test_ctrl_c_to_the_process_group_then_resume(ctx):
    """A terminal's Ctrl-C reaches the whole process group: the workers too."""
    out = ctx["tmp"] + "/interrupted"
    proc = subprocess.Popen([BATCH, "-j", "2", "--deadline-ms", DEADLINE, "--seed", SEED,
                             "-o", out, ctx["class"]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    wait_for_results(out, proc, 25)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert b"interrupted after" in err, err
    assert not os.path.exists(os.path.join(out, "gradebook.csv"))
    check_complete_files(out)
    # no worker died of the signal: no runtime error at all (the class's
    # one compiler crash, t_deep, is refused before the compiler now)
    for path in results_files(out):
        with open(path) as f:
            v = json.load(f)["extra_data"]["butterfly"]["verdict"]["status"]["description"]
        assert not v.startswith("Runtime Error"), (path, v)
        assert v != "Internal Error", path
    p = grade(ctx["class"], out)
    assert p.returncode == 0, p.stderr
    assert without_timing(out) == without_timing(ctx["ref"])


def test_csv_export(ctx):
    correct = open(os.path.join(SAMPLES, "correct.glsl")).read()
    wrong = open(os.path.join(SAMPLES, "wrong_twiddle_sign.glsl")).read()
    path = os.path.join(ctx["tmp"], "export.csv")
    rows = [
        ("alice", correct, "Alice A."),
        ("Alice", wrong, "another Alice"),
        ("  bob  ", "float a = nope1;\nfloat b = nope2;\nreturn a + b;", "two errors"),
        ("../../escape", correct, ""),
        ("a/b", correct, ""),
        (".", correct, ""),
        ("", correct, "no id"),
        ("dup", correct, ""),
        ("dup", wrong, ""),
        ('=HYPERLINK("http://evil")', correct, ""),
        ("huge", "// " + "y" * 70000 + "\n" + correct, ""),
        ("s" * 81, correct, "an id too long"),
    ]
    with open(path, "w", newline="", encoding="utf-8-sig") as f:   # with a BOM, CRLF
        w = csv.writer(f)
        w.writerow(["Student_ID", "Name", "Code"])
        for sid, src, name in rows:
            w.writerow([sid, name, src])
        f.write("nosource,only a name\r\n")
        f.write("\r\n")                                  # a blank line is no input
        f.write("late,\"never closed, return 0.0;\n")     # a quote open to the end
    out = os.path.join(ctx["tmp"], "csv_out")
    listing = sorted(os.listdir(ctx["tmp"]))
    p = grade(path, out)
    assert p.returncode == 0, p.stderr + p.stdout
    assert sorted(os.listdir(ctx["tmp"])) == sorted(listing + ["csv_out"]), "wrote outside"
    got = read_rows(out)
    assert len(got) == len(rows) + 2, len(got)
    assert "Rows in gradebook.csv: 14 = inputs: 14" in p.stdout
    by = {}
    for r in got:
        by.setdefault(r["id"], []).append(r)
    assert by["alice"][0]["verdict"] == "Accepted"
    assert by["Alice"][0]["verdict"] == "Wrong Answer"
    assert by["bob"][0]["verdict"] == "Compilation Error"
    assert re.fullmatch(r"export\.csv:\d+", by["bob"][0]["input"]), by["bob"][0]["input"]
    assert by["bob"][0]["message"].count("\n") == 1, by["bob"][0]["message"]
    assert by["../../escape"][0]["verdict"] == "Accepted"
    assert by["a/b"][0]["verdict"] == "Accepted"
    assert by["."][0]["verdict"] == "Rejected"
    assert by[""][0]["message"] == "the id is empty"
    assert [r["verdict"] for r in by["dup"]] == ["Rejected", "Rejected"]
    assert by["'=HYPERLINK(\"http://evil\")"][0]["verdict"] == "Accepted"   # neutralised
    assert "over the limit" in by["huge"][0]["message"]
    assert by["s" * 81][0]["message"] == "the id is over 80 bytes"
    assert by["nosource"][0]["message"] == "the record has no source cell"
    assert "not closed" in by["late"][0]["message"]
    keys = sorted(os.listdir(os.path.join(out, "students")))
    assert all(KEY.match(k) for k in keys), keys
    assert "alice" in keys and "%41lice" in keys and "%2E.%2F..%2Fescape" in keys, keys
    for f in results_files(out):
        check_gradescope(f)
    # the columns named by options
    path2 = os.path.join(ctx["tmp"], "named.csv")
    with open(path2, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["login", "kernel"])
        w.writerow(["zoe", correct])
    p = grade(path2, os.path.join(ctx["tmp"], "named_out"))
    assert p.returncode == 2 and "no id column" in p.stderr, p.stderr
    p = grade(path2, os.path.join(ctx["tmp"], "named_out"), "--id-column", "login",
              "--source-column", "kernel")
    assert p.returncode == 0, p.stderr
    assert read_rows(os.path.join(ctx["tmp"], "named_out"))[0]["verdict"] == "Accepted"


def test_jsonl_export(ctx):
    correct = open(os.path.join(SAMPLES, "correct.glsl")).read()
    path = os.path.join(ctx["tmp"], "export.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"id": 123, "source": correct}) + "\n")
        f.write("\n")
        f.write(json.dumps({"student": "zed", "submission": "return 0.0;\u0000"}) + "\n")
        f.write("{not json\n")
        f.write(json.dumps({"id": "nosrc"}) + "\n")
        f.write(json.dumps({"id": ["x"], "source": correct}) + "\n")
        f.write(json.dumps({"student_id": "w", "code": correct}))   # no final newline
    out = os.path.join(ctx["tmp"], "jsonl_out")
    p = grade(path, out)
    assert p.returncode == 0, p.stderr
    got = {r["input"]: r for r in read_rows(out)}
    assert len(got) == 6, got.keys()
    assert got["export.jsonl:1"]["id"] == "123" and got["export.jsonl:1"]["verdict"] == "Accepted"
    assert "NUL" in got["export.jsonl:3"]["message"]
    assert got["export.jsonl:4"]["id"] == "" and "not a JSON object" in got["export.jsonl:4"]["message"]
    assert got["export.jsonl:5"]["message"] == "the object has no source key"
    assert "not a string" in got["export.jsonl:6"]["message"]
    assert got["export.jsonl:7"]["verdict"] == "Accepted"


def test_usage_and_refusals(ctx):
    assert run([ctx["class"]]).returncode == 64                     # no -o
    assert run(["-o", ctx["tmp"] + "/x", "-j", "0", ctx["class"]]).returncode == 64
    p = run(["-o", ctx["tmp"] + "/x", ctx["tmp"] + "/does-not-exist"])
    assert p.returncode == 2 and "does-not-exist" in p.stderr, p.stderr
    empty = ctx["tmp"] + "/empty"
    os.mkdir(empty)
    p = run(["-o", ctx["tmp"] + "/x", empty])
    assert p.returncode == 2 and "no submissions" in p.stderr, p.stderr
    p = run(["-o", ctx["class"], ctx["class"]])
    assert p.returncode == 2 and "cannot be the input folder" in p.stderr, p.stderr
    # one batch at a time per output folder
    out = ctx["tmp"] + "/locked"
    os.mkdir(out)
    with open(os.path.join(out, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = run(["-o", out, ctx["class"]])
        assert p.returncode == 2 and "another batch" in p.stderr, p.stderr


def small_class(ctx, name, count=6):
    """A folder of `count` correct kernels (c1.glsl ...), made once."""
    folder = os.path.join(ctx["tmp"], name)
    if not os.path.isdir(folder):
        os.makedirs(folder)
        correct = open(os.path.join(SAMPLES, "correct.glsl")).read()
        for i in range(count):
            with open(os.path.join(folder, "c%d.glsl" % (i + 1)), "w") as f:
                f.write(correct)
    return folder


def on_terminal(args, columns, env):
    """Runs the batch with standard error on a pseudo-terminal `columns` wide;
    returns (exit status, what the terminal got)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen([BATCH] + args, stdout=subprocess.DEVNULL, stderr=slave,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    got = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            fail("the batch hung")
        try:
            chunk = os.read(master, 65536)
        except OSError:          # EIO: the last writer has gone
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return proc.wait(timeout=60), got.decode("utf-8", "replace")


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def test_progress_fits_the_terminal(ctx):
    cls = small_class(ctx, "six")
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "COLUMNS")}
    for columns in (100, 44):
        rc, got = on_terminal(["-j", "2", "--force", "-o", ctx["tmp"] + "/tty", cls], columns,
                              dict(base, TERM="xterm"))
        assert rc == 0, got
        draws = [d for d in got.replace("\r\n", "\n").split("\r") if d.strip()]
        assert len(draws) >= 2, got
        for d in draws:
            line = ANSI.sub("", d).split("\n")[0]
            assert len(line) <= columns - 1, (columns, line)
        assert "6/6 100%" in got, got
        if columns == 100:
            assert "\x1b[32mAC 6" in got, got          # colour on a terminal
        else:
            assert "AC" not in ANSI.sub("", got.split("Graded")[0]), got   # no room for them
    # NO_COLOR: the bar without a colour (a cursor's return and erase are no colour)
    rc, got = on_terminal(["-j", "2", "--force", "-o", ctx["tmp"] + "/tty", cls], 100,
                          dict(base, TERM="xterm", NO_COLOR="1"))
    assert rc == 0 and "6/6 100%" in got and "AC 6" in got, got
    assert not re.search(r"\x1b\[[0-9;]*m", got), got
    # TERM=dumb, or no terminal: plain lines, no cursor movement
    rc, got = on_terminal(["-j", "2", "--force", "-o", ctx["tmp"] + "/tty", cls], 100,
                          dict(base, TERM="dumb"))
    assert rc == 0 and "\r" not in got.replace("\r\n", "\n") and "\x1b" not in got, got
    assert "butterfly-batch: 6/6 done (100%)" in got, got
    p = run(["-j", "2", "--force", "-o", ctx["tmp"] + "/tty", cls], env=dict(base, TERM="xterm"))
    assert p.returncode == 0 and "\r" not in p.stderr and "\x1b" not in p.stderr, p.stderr
    assert "butterfly-batch: 6/6 done (100%)" in p.stderr, p.stderr


def test_gradescope_shows_nothing_hidden_early(ctx):
    """Issue 11: before the grades are published a student sees the top-level
    output and the visible tests; neither may depend on a hidden spectrum."""
    files = results_files(ctx["ref"])

    def body(r):
        return r["output"].split("\n", 1)[1]      # after "Student: ID"

    def visible_part(r):
        return body(r), [t for t in r["tests"] if t["visibility"] == "visible"]

    reference = None
    fitted = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        status = r["extra_data"]["butterfly"]["verdict"]["status"]["description"]
        assert r["stdout_visibility"] in ("hidden", "after_published"), path
        hidden = [t for t in r["tests"] if t["visibility"] != "visible"]
        assert [t["visibility"] for t in hidden] == ["after_published"] * 3, path
        # so Gradescope keeps the total from students until publication
        assert sum(t["max_score"] for t in hidden) > 0
        text, visible = visible_part(r)
        for words in ("hidden spectra are right", "Likely mistake", "Where it fails", "of 9",
                      "Accepted", "Wrong Answer", "Verdict over"):
            assert words not in text, (path, words, text)
            assert all(words not in t["output"] for t in visible), (path, words)
        if status in ("Accepted", "Wrong Answer"):
            assert "Verdict" not in text, (path, text)
            if all(t["status"] == "passed" for t in visible):
                # right on the visible spectrum: the same as a correct kernel's,
                # whatever the hidden spectra say
                if reference is None:
                    reference = visible_part(r)
                assert visible_part(r) == reference, path
                fitted += status == "Wrong Answer"
        # the hidden results are there, for after publication
        assert all("hidden spectra" in t["output"] or t["output"].startswith("Not run")
                   for t in hidden), path
    assert reference is not None and fitted >= 1, fitted   # hardcoded_visible is among them
    with open(os.path.join(ctx["ref"], "students", "w_hardcoded_visible", "results.json")) as f:
        r = json.load(f)
    assert r["score"] == 3 and sum(t["score"] for t in r["tests"]) == 3
    assert "0 of 8 hidden spectra" in r["tests"][1]["output"]


def test_a_seed_per_run(ctx):
    """Issue 11: unpredictable hidden spectra, one seed per run, kept for resumes."""
    cls = os.path.join(ctx["tmp"], "seeds")
    os.makedirs(cls)
    for name, sample in (("c1", "correct"), ("c2", "correct_branches"),
                         ("w", "wrong_twiddle_sign")):
        shutil.copy(os.path.join(SAMPLES, sample + ".glsl"), os.path.join(cls, name + ".glsl"))

    def seeds(out):
        """The seed of the state file, of summary.json and of every record."""
        with open(os.path.join(out, ".state.json")) as f:
            state = json.load(f)["seed"]
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)["seed"]
        records = set()
        for path in results_files(out):
            with open(path) as f:
                records.add(json.load(f)["extra_data"]["butterfly"]["seed"])
        assert records == {state} and summary == state, (state, summary, records)
        assert 0 <= state < 2 ** 53
        return state

    one, two = ctx["tmp"] + "/seed1", ctx["tmp"] + "/seed2"
    p = grade(cls, one)
    assert p.returncode == 0 and "drawn from the operating system" in p.stdout, p.stdout
    s1 = seeds(one)
    p = grade(cls, two)
    assert p.returncode == 0, p.stderr
    assert seeds(two) != s1, "two classes graded on the same hidden spectra"
    p = grade(cls, one)
    assert "Graded 0 now, reused 3" in p.stdout and "kept from the earlier run" in p.stdout, \
        p.stdout
    assert seeds(one) == s1
    p = grade(cls, one, "--force")
    assert "Graded 3 now, reused 0" in p.stdout and "drawn from" in p.stdout, p.stdout
    s3 = seeds(one)
    assert s3 != s1
    p = grade(cls, one, "--seed", str(s1))
    assert "Graded 3 now" in p.stdout and "given with --seed" in p.stdout, p.stdout
    assert seeds(one) == s1
    # an instructor reproduces a grade with the recorded seed: the same rows, elsewhere
    p = grade(cls, two, "--seed", str(s1))
    assert p.returncode == 0 and seeds(two) == s1, p.stderr
    assert without_timing(one) == without_timing(two)

    # killed halfway with a drawn seed: the rest is graded with that seed
    slow = os.path.join(ctx["tmp"], "seeds_slow")
    shutil.copytree(cls, slow)
    with open(os.path.join(slow, "t_runaway.glsl"), "w") as f:
        f.write(make_class.RUNAWAY)
    out = ctx["tmp"] + "/seed_killed"
    proc = subprocess.Popen([BATCH, "-j", "2", "--deadline-ms", "20000", "-q", "-o", out, slow],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=slow_env(ctx["tmp"]))
    wait_for_results(out, proc, 3)
    proc.kill()
    proc.communicate()
    assert not os.path.exists(os.path.join(out, "summary.json")), "it had finished"
    with open(os.path.join(out, ".state.json")) as f:
        drawn = json.load(f)["seed"]
    p = grade(slow, out)
    assert p.returncode == 0 and "reused 3" in p.stdout, p.stdout
    assert "Seed %d, kept from the earlier run" % drawn in p.stdout, p.stdout
    assert seeds(out) == drawn


def test_standard_input(ctx):
    correct = open(os.path.join(SAMPLES, "correct.glsl")).read()
    lines = json.dumps({"id": "zoe", "source": correct}) + "\n" + \
        json.dumps({"id": "yan", "source": "return 0.0;"}) + "\n"
    out = ctx["tmp"] + "/stdin"
    p = run(["-j", "2", "--seed", SEED, "-o", out, "-"], input=lines)
    assert p.returncode == 0 and "2 inputs (jsonl)" in p.stdout, p.stdout + p.stderr
    rows = {r["id"]: r for r in read_rows(out)}
    assert rows["zoe"]["verdict"] == "Accepted" and rows["zoe"]["input"] == "stdin:1", rows
    assert rows["yan"]["verdict"] == "Wrong Answer" and rows["yan"]["input"] == "stdin:2", rows
    p = run(["--format", "dir", "-o", out, "-"], input="")
    assert p.returncode == 2 and "not a folder" in p.stderr, p.stderr
    p = run(["-o", out, "-"], input="")
    assert p.returncode == 2, p.stderr


def test_duplicates_beside_an_id_that_prints_alike(ctx):
    """An unusable id ("a" and a newline) prints as "a%0A", like two usable
    ones: the two must still be refused as duplicates, not both graded into
    one record."""
    cls = os.path.join(ctx["tmp"], "alike")
    os.makedirs(cls)
    for name in ("a%0A.comp", "a%0A.glsl", "a\n.glsl"):
        shutil.copy(os.path.join(SAMPLES, "correct.glsl"), os.path.join(cls, name))
    out = ctx["tmp"] + "/alike_out"
    p = grade(cls, out)
    assert p.returncode == 0, p.stderr
    rows = read_rows(out)
    assert len(rows) == 3, rows
    assert all(r["verdict"] == "Rejected" for r in rows), rows
    assert sum("appears 2 times" in r["message"] for r in rows) == 2, rows


def test_version_and_help(ctx):
    p = run(["--version"])
    assert p.returncode == 0 and re.fullmatch(r"butterfly-batch \d+\.\d+\.\d+\n", p.stdout), p.stdout
    p = run(["--help"])
    assert p.returncode == 0 and p.stdout.startswith("usage: butterfly-batch"), p.stdout
    assert run(["--gradebook", "blackboard", "-o", "x", "y"]).returncode == 64
    p = run(["--gradebook", "canvas", "-o", "x", "y"])
    assert p.returncode == 64 and "--roster" in p.stderr, p.stderr
    p = run(["--roster", "r.csv", "-o", "x", "y"])
    assert p.returncode == 64 and "for --gradebook canvas" in p.stderr, p.stderr


def main():
    tests = [test_class_of_60, test_rerun_reuses_everything, test_kill9_halfway_then_resume,
             test_ctrl_c_to_the_process_group_then_resume, test_csv_export, test_jsonl_export,
             test_usage_and_refusals, test_gradescope_shows_nothing_hidden_early,
             test_a_seed_per_run, test_standard_input, test_progress_fits_the_terminal,
             test_duplicates_beside_an_id_that_prints_alike, test_version_and_help]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="butterfly-batch-test-") as tmp:
        ctx = {"tmp": tmp, "class": os.path.join(tmp, "class"), "ref": os.path.join(tmp, "ref")}
        ctx["expected"] = make_class.make_class(ctx["class"], SAMPLES)
        for t in tests:
            t0 = time.monotonic()
            try:
                t(ctx)
                print("ok   %s (%.1f s)" % (t.__name__, time.monotonic() - t0), flush=True)
            except Exception:
                failed += 1
                print("FAIL %s" % t.__name__, flush=True)
                traceback.print_exc()
                if t is test_class_of_60:
                    break    # the others compare against its output
    print("%d of %d failed" % (failed, len(tests)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

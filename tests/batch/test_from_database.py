#!/usr/bin/env python3
"""test_from_database.py - butterfly-batch --from-database: the gradebooks
from a grading server's records, without grading again.

usage: test_from_database.py BUTTERFLY_BATCH BUTTERFLY_ADMIN SAMPLES

The records are made as the server makes them: real verdicts (the batch
grades the samples once, on lavapipe), stored with butterfly-admin's
store (a roster imported, an open lab's student added unverified). Then
what an instructor checks: one row per student, the policy's record
(best: the most points; last: the latest), --until leaves later ones
out, nothing is graded again (the pool is never started), every row
keeps the verdict and seed its student was answered, an unverified name
is marked in every layout (gradebook.csv, Canvas, Moodle, Gradescope's
results.json, the report pages), and --regrade grades again with one
fresh seed.
"""
import csv
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

BATCH, ADMIN, SAMPLES = sys.argv[1:4]
MARK = "(unverified name)"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def run(*args, code=0, env=None):
    p = subprocess.run(list(args), capture_output=True, text=True,
                       env=dict(os.environ, TERM="dumb", **(env or {})))
    check(p.returncode == code, "%s: exit %d, not %d: %s" % (" ".join(args[1:]), p.returncode,
                                                             code, p.stderr[-800:]))
    return p


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def graded_verdicts(tmp):
    """Real verdicts of three samples, graded once by the batch."""
    klass = os.path.join(tmp, "class")
    os.mkdir(klass)
    for name in ("correct.glsl", "wrong_twiddle_sign.glsl", "compile_error_line3.glsl"):
        shutil.copy(os.path.join(SAMPLES, name), klass)
    out = os.path.join(tmp, "graded")
    run(BATCH, "-q", "-j", "2", "-o", out, klass)
    # a rerun reuses every record of the exercise, none of another's
    p = run(BATCH, "-j", "2", "-o", out, klass)
    check("Graded 0 now, reused 3" in p.stdout, p.stdout)
    path = os.path.join(out, "students", "correct", "results.json")
    with open(path) as f:
        r = json.load(f)
    check(r["extra_data"]["butterfly"].get("task") == "butterfly", "results.json names it")
    r["extra_data"]["butterfly"]["task"] = "bit_reversal"
    with open(path, "w") as f:
        json.dump(r, f)
    p = run(BATCH, "-j", "2", "-o", out, klass)
    check("Graded 1 now, reused 2" in p.stdout, "another exercise's record is not reused: "
          + p.stdout)
    verdicts = {}
    for sid in ("correct", "wrong_twiddle_sign", "compile_error_line3"):
        with open(os.path.join(out, "students", sid, "results.json")) as f:
            r = json.load(f)
        verdicts[sid] = (json.dumps(r["extra_data"]["butterfly"]["verdict"]).encode(),
                         int(r["score"]))
    return verdicts


def make_store(tmp, verdicts):
    db = os.path.join(tmp, "state", "records.sqlite")
    roster = os.path.join(tmp, "roster.csv")
    with open(roster, "w") as f:
        f.write("id,name,section,email\ns1,Ada Lovelace,A,ada@example.org\n"
                "s2,Grace Hopper,B,\n")
    run(ADMIN, "--database", "sqlite:" + db, "class", "import", roster)
    c = sqlite3.connect(db)
    c.execute("INSERT INTO students (id, name, section, email, verified, created_ms) "
              "VALUES ('u7f3a', 'Visitor', '', '', 0, 0)")
    rows = [  # id, student, received_ms, sample, seed
        ("r1" + "0" * 30, "s1", 1000, "wrong_twiddle_sign", 11),
        ("r2" + "0" * 30, "s1", 2000, "correct", 12),
        ("r3" + "0" * 30, "s1", 3000, "compile_error_line3", 13),   # last, not best
        ("r4" + "0" * 30, "s2", 1500, "wrong_twiddle_sign", 14),
        ("r5" + "0" * 30, "u7f3a", 1700, "correct", 15),
        ("r6" + "0" * 30, None, 1800, "correct", 16),               # nobody signed in
        ("r7" + "0" * 30, "s2", 9000, "correct", 17),               # after the deadline
    ]
    files = {"correct": "correct.glsl", "wrong_twiddle_sign": "wrong_twiddle_sign.glsl",
             "compile_error_line3": "compile_error_line3.glsl"}
    for rid, student, ms, name, seed in rows:
        src = sample(files[name])
        verdict, points = verdicts[name]
        status = json.loads(verdict)["status"]["id"]
        c.execute("INSERT INTO records (id, task, student, received_ms, graded_ms, source, "
              "sha256, status, points, max_points, verdict, seed, device, grader_version) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                  (rid, "butterfly", student, ms, ms + 20, src,
                   hashlib.sha256(src).hexdigest(), status, points, 9, verdict, seed,
                   "llvmpipe", "0.1.0"))
    c.commit()
    c.close()
    return "sqlite:" + db


def exercise_title(task):
    """The title exercises/TASK/exercise.json gives it."""
    path = os.path.join(SAMPLES, "..", "..", "exercises", task, "exercise.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)["title"]


def gradebook(out, name="gradebook.csv"):
    with open(os.path.join(out, name), newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def results(out, sid):
    with open(os.path.join(out, "students", sid, "results.json")) as f:
        return json.load(f)


def late_checks(tmp, url, no_worker):
    """s2's correct attempt came after the due date (records.late as the
    server marks it): the default layout counts it and gives the best on
    time beside the best; Canvas's and Moodle's score follows
    --late-policy, as the server's score to a platform does."""
    db = url[len("sqlite:"):]
    late_db = os.path.join(tmp, "late.sqlite")
    shutil.copy(db, late_db)
    c = sqlite3.connect(late_db)
    c.execute("UPDATE records SET late = 1 WHERE id = ?", ("r7" + "0" * 30,))
    c.commit()
    wrong = c.execute("SELECT points FROM records WHERE id = ?", ("r4" + "0" * 30,)).fetchone()[0]
    c.close()
    late_url = "sqlite:" + late_db
    check(0 < wrong < 9, "the wrong attempt has some points: %r" % wrong)
    want = {"none": str(wrong), "accept": "9", "penalty:10%": "8.1"}
    for policy, score in want.items():
        out = os.path.join(tmp, "late-" + policy.replace(":", "").replace("%", ""))
        args = [BATCH, "--from-database", late_url, "--gradebook", "moodle", "-o", out]
        if policy != "none":
            args += ["--late-policy", policy]
        run(*args, env=no_worker)
        rows = {r["id"]: r for r in gradebook(out)}
        s2, s1 = rows.get("s2", {}), rows.get("s1", {})
        check(s2.get("verdict") == "Accepted" and s2.get("score") == "9",
              "the row is still the best attempt: %r" % s2)
        check(s2.get("late") == "1" and s2.get("best_on_time") == str(wrong),
              "late and best_on_time of s2: %r" % s2)
        check(s1.get("late") == "0" and s1.get("best_on_time") == "9",
              "s1 was on time: %r" % s1)
        moodle = {r["Identifier"]: r for r in gradebook(out, "gradebook-moodle.csv")}
        check(moodle.get("s2", {}).get("Grade") == score,
              "--late-policy %s: Moodle's grade %r, not %s" % (
                  policy, moodle.get("s2", {}).get("Grade"), score))
        check(moodle.get("s1", {}).get("Grade") == "9", "s1's grade stays: %r" % moodle.get("s1"))
        out2 = out + "-canvas"
        run(*(args[:4] + ["canvas", "-o", out2] + args[7:]), env=no_worker)
        canvas = {r["ID"]: r for r in gradebook(out2, "gradebook-canvas.csv") if r.get("ID")}
        col = [k for k in (canvas.get("s2") or {}) if k not in
               ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")]
        check(col and canvas["s2"][col[0]] == score,
              "--late-policy %s: Canvas's score %r" % (policy, canvas.get("s2")))
    # the unchanged store: no late attempt, nothing counted
    out = os.path.join(tmp, "on-time")
    run(BATCH, "--from-database", url, "-o", out, env=no_worker)
    rows = {r["id"]: r for r in gradebook(out)}
    check(rows.get("s2", {}).get("late") == "0" and rows["s2"].get("best_on_time") == "9",
          "no due date: %r" % rows.get("s2"))


def exercise_checks(tmp, url, verdicts, no_worker):
    """Records of a second exercise in the same store (task
    bit_reversal, as POST /api/tasks/ID/submissions keeps them): the
    default gradebook is the butterfly's alone, --task reads that
    exercise's records alone, and its files name it."""
    db = os.path.join(tmp, "two.sqlite")
    shutil.copy(url[len("sqlite:"):], db)
    c = sqlite3.connect(db)
    c.execute("INSERT INTO students (id, name, section, email, verified, created_ms) "
              "VALUES ('s3', 'Only Bits', '', '', 1, 0)")
    src = sample("wrong_twiddle_sign.glsl")
    for rid, student, ms, name in (("b1" + "0" * 30, "s1", 8000, "wrong_twiddle_sign"),
                                   ("b2" + "0" * 30, "s3", 8100, "correct")):
        verdict, points = verdicts[name]
        c.execute("INSERT INTO records (id, task, student, received_ms, graded_ms, source, "
                  "sha256, status, points, max_points, verdict, seed, device, grader_version) "
                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                  (rid, "bit_reversal", student, ms, ms + 20, src,
                   hashlib.sha256(src).hexdigest(), json.loads(verdict)["status"]["id"],
                   points, 9, verdict, 99, "llvmpipe", "0.1.0"))
    c.commit()
    c.close()
    two = "sqlite:" + db
    out = os.path.join(tmp, "two-default")
    run(BATCH, "--from-database", two, "-o", out, env=no_worker)
    rows = {r["id"]: r for r in gradebook(out)}
    check(sorted(rows) == ["s1", "s2", "u7f3a"], "the butterfly's students only: %r" % sorted(rows))
    check(rows.get("s1", {}).get("verdict") == "Accepted" and
          "record r2" in rows.get("s1", {}).get("input", ""),
          "s1's butterfly row is its butterfly record: %r" % rows.get("s1"))
    with open(os.path.join(out, "summary.json")) as f:
        check(json.load(f)["task"] == "butterfly", "summary.json names the butterfly")

    out = os.path.join(tmp, "two-bits")
    p = run(BATCH, "--from-database", two, "--task", "bit_reversal", "--gradebook", "canvas",
            "-o", out, env=no_worker)
    rows = {r["id"]: r for r in gradebook(out)}
    check(sorted(rows) == ["s1", "s3"], "bit_reversal's students only: %r" % sorted(rows))
    check(rows.get("s1", {}).get("verdict") == "Wrong Answer" and
          "record b1" in rows.get("s1", {}).get("input", ""),
          "s1's bit_reversal row, not its Accepted butterfly: %r" % rows.get("s1"))
    check("2 records of bit_reversal read (7 of other exercises left out)" in p.stdout, p.stdout)
    with open(os.path.join(out, "summary.json")) as f:
        check(json.load(f)["task"] == "bit_reversal", "summary.json names bit_reversal")
    check(results(out, "s1")["extra_data"]["butterfly"].get("task") == "bit_reversal",
          "results.json names the exercise")
    title = exercise_title("bit_reversal")
    with open(os.path.join(out, "gradebook-canvas.csv"), newline="") as f:
        canvas = list(csv.reader(f))
    check(canvas[0][-1] == title, "Canvas's column is the exercise's: %r" % canvas[0])
    check(canvas[1][-1] == "9", "bit_reversal is out of 9 points (3 sizes): %r" % canvas[1])
    page = open(os.path.join(out, "summary.html"), encoding="utf-8").read()
    check(title + ": class report" in page, "the class report names the exercise")

    # a built-in exercise is graded again as itself: the butterfly's sources
    # do not compile against bit_reversal's kernel API
    p = run(BATCH, "--from-database", two, "--task", "bit_reversal", "--regrade",
            "-o", tmp + "/z1", env=None)
    rows = {r["id"]: r for r in gradebook(tmp + "/z1")}
    check(sorted(rows) == ["s1", "s3"] and
          all(r.get("verdict") == "Compilation Error" for r in rows.values()),
          "regraded as bit_reversal: %r" % rows)

    # records of an exercise this build lacks are read, never graded
    old = os.path.join(tmp, "retired.sqlite")
    shutil.copy(db, old)
    c = sqlite3.connect(old)
    c.execute("UPDATE records SET task = 'retired_task' WHERE task = 'bit_reversal'")
    c.commit()
    c.close()
    out = os.path.join(tmp, "retired")
    run(BATCH, "--from-database", "sqlite:" + old, "--task", "retired_task", "--gradebook",
        "canvas", "-o", out, env=no_worker)
    with open(os.path.join(out, "gradebook-canvas.csv"), newline="") as f:
        header = next(csv.reader(f))
    check(header[-1] == "retired_task", "a retired exercise's column is its id: %r" % header)
    p = run(BATCH, "--from-database", "sqlite:" + old, "--task", "retired_task", "--regrade",
            "-o", tmp + "/z4", code=2)
    check("is no exercise of this build (built in: butterfly" in p.stderr, p.stderr)
    p = run(BATCH, "--from-database", two, "--task", "../up", "-o", tmp + "/z2", code=2)
    check("--task '../up'" in p.stderr and not os.path.exists(tmp + "/z2"), p.stderr)
    p = run(BATCH, "--task", "retired_task", "-o", tmp + "/z3", SAMPLES, code=2)
    check("no exercise of this build" in p.stderr and not os.path.exists(tmp + "/z3"), p.stderr)


def main():
    tmp = tempfile.mkdtemp(prefix="test_from_db.")
    try:
        verdicts = graded_verdicts(tmp)
        url = make_store(tmp, verdicts)
        # a worker that cannot start: a run that grades nothing never needs one
        no_worker = {"BUTTERFLY_WORKER": "/nonexistent/butterfly-worker"}

        out = os.path.join(tmp, "best")
        p = run(BATCH, "--from-database", url, "--until", "1970-01-01T00:00:05Z",
                "--gradebook", "moodle", "-o", out, env=no_worker)
        check("Graded 0 now" in p.stdout, p.stdout)
        check("1 of no signed-in student left out" in p.stdout, p.stdout)
        rows = {r["id"]: r for r in gradebook(out)}
        check(sorted(rows) == ["s1", "s2", "u7f3a"], sorted(rows))
        check(rows.get("s1", {}).get("score") == "9" and rows["s1"]["verdict"] == "Accepted",
              "best: s1's correct attempt, not its last: %r" % rows.get("s1"))
        check(rows.get("s2", {}).get("verdict") == "Wrong Answer",
              "--until leaves s2's late correct attempt out: %r" % rows.get("s2"))
        check("record r2" in rows.get("s1", {}).get("input", ""), rows.get("s1"))
        check(MARK in rows.get("u7f3a", {}).get("input", "") and
              MARK not in rows["s1"]["input"], "gradebook.csv marks the unverified name")
        r = results(out, "s1")["extra_data"]["butterfly"]
        check(r["seed"] == 12, "the stored seed: %r" % r["seed"])
        check(r["source_sha256"] == hashlib.sha256(sample("correct.glsl")).hexdigest(),
              "the stored source's SHA-256")
        check(MARK in results(out, "u7f3a")["extra_data"]["butterfly"]["location"],
              "Gradescope's results.json marks it")
        moodle = {r["Identifier"]: r for r in gradebook(out, "gradebook-moodle.csv")}
        check(moodle.get("u7f3a", {}).get("Feedback", "").startswith("Visitor " + MARK),
              "Moodle's feedback marks it: %r" % moodle.get("u7f3a"))
        check(MARK not in moodle.get("s1", {}).get("Feedback", MARK), "only that one")
        reports = os.listdir(os.path.join(out, "reports"))
        page = open(os.path.join(out, "reports", [f for f in reports if "u7f3a" in f][0]),
                    encoding="utf-8").read()
        check(MARK in page, "the report page marks it")

        out = os.path.join(tmp, "last")
        run(BATCH, "--from-database", url, "--policy", "last", "--gradebook", "canvas",
            "-o", out, env=no_worker)
        rows = {r["id"]: r for r in gradebook(out)}
        check(rows.get("s1", {}).get("verdict") == "Compilation Error", "last: %r" % rows.get("s1"))
        check(rows.get("s2", {}).get("verdict") == "Accepted", "no --until: the late one counts")
        canvas = gradebook(out, "gradebook-canvas.csv")
        names = {r["ID"]: r["Student"] for r in canvas if r["ID"]}
        check(names.get("u7f3a") == "Visitor " + MARK and names.get("s1") == "Ada Lovelace",
              "Canvas's roster from the store, the unverified name marked: %r" % names)

        out = os.path.join(tmp, "regrade")
        p = run(BATCH, "--from-database", url, "--regrade", "-j", "2", "-o", out)
        seeds = {results(out, s)["extra_data"]["butterfly"]["seed"] for s in ("s1", "s2", "u7f3a")}
        check(len(seeds) == 1 and not seeds & {11, 12, 13, 14, 15, 16, 17},
              "--regrade: one fresh seed: %r" % seeds)
        rows = {r["id"]: r for r in gradebook(out)}
        check(rows.get("s1", {}).get("verdict") == "Accepted", "regraded: %r" % rows.get("s1"))
        check("Graded 3 now" in p.stdout, p.stdout)

        late_checks(tmp, url, no_worker)
        exercise_checks(tmp, url, verdicts, no_worker)

        for args in (["--from-database", url, "-o", os.path.join(tmp, "x"), SAMPLES],
                     ["--from-database", url, "--late-policy", "penalty:101%", "-o", tmp + "/x"],
                     ["--from-database", url, "--late-policy", "half", "-o", tmp + "/x"],
                     ["--late-policy", "accept", "-o", tmp + "/x", SAMPLES],
                     ["--from-database", url, "--until", "yesterday", "-o", tmp + "/x"],
                     ["--from-database", url, "--policy", "first", "-o", tmp + "/x"],
                     ["--from-database", url, "--seed", "5", "-o", tmp + "/x"],
                     ["--regrade", "-o", tmp + "/x", SAMPLES],
                     ["--until", "@5", "-o", tmp + "/x", SAMPLES]):
            run(BATCH, *args, code=64)
        run(BATCH, "--from-database", "sqlite:/nonexistent/dir/x.sqlite", "-o", tmp + "/y",
            code=2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

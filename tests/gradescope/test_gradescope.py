#!/usr/bin/env python3
"""test_gradescope.py - the Gradescope autograder, in a simulated /autograder.

usage: test_gradescope.py BUTTERFLY_BATCH BUTTERFLY_WORKER SOURCE_ROOT [--setup]

Builds the autograder zip with gradescope/make_zip.py, unpacks it as
Gradescope does into a temporary AUTOGRADER_ROOT (source/, submission/,
results/, submission_metadata.json), runs run_autograder on submissions
of every kind, and checks each results.json field by field against
Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/), and that
what students see before publication speaks of the visible spectrum only.

The batch and its worker come from the build tree, as BUTTERFLY_BATCH and
BUTTERFLY_WORKER say. With --setup the zip's setup.sh runs first, building
the grader inside the unpacked sources (installing packages only if some
are missing), and run_autograder uses what it built: slow, so it is its
own suite ('gradescope').
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

BATCH = os.path.abspath(sys.argv[1])
WORKER = os.path.abspath(sys.argv[2])
ROOT = os.path.abspath(sys.argv[3])
SETUP = "--setup" in sys.argv[4:]
SAMPLES = os.path.join(ROOT, "tests", "samples")

# The specification's fields, and what each may hold.
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format",
            "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
            "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output",
             "output_format", "tags", "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUS = {"passed", "failed"}


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_spec(r):
    """results.json against Gradescope's specification, field by field."""
    assert isinstance(r, dict) and set(r) <= TOP_KEYS, set(r) - TOP_KEYS
    assert number(r["score"]) and r["score"] >= 0
    assert number(r["execution_time"]) and r["execution_time"] >= 0
    assert isinstance(r["output"], str) and r["output"]
    assert r["output_format"] in FORMATS
    assert r.get("stdout_visibility", "hidden") in VISIBILITY
    assert r.get("visibility", "visible") in VISIBILITY
    assert isinstance(r.get("extra_data", {}), dict)
    tests = r["tests"]
    assert isinstance(tests, list) and len(tests) == 6
    for t in tests:
        assert isinstance(t, dict) and set(t) <= TEST_KEYS, set(t) - TEST_KEYS
        assert isinstance(t["name"], str) and t["name"]
        assert number(t["score"]) and number(t["max_score"]) and 0 <= t["score"] <= t["max_score"]
        assert t["status"] in STATUS and (t["status"] == "passed") == (t["score"] == t["max_score"])
        assert isinstance(t["output"], str) and t["output"]
        assert t["output_format"] in FORMATS
        assert t["visibility"] in VISIBILITY
    # the top-level score overrides the tests' sum: they must agree
    assert r["score"] == sum(t["score"] for t in tests)
    assert sum(t["max_score"] for t in tests) == 9


def check_nothing_hidden_early(r):
    """What a student sees before publication: the output and the visible tests."""
    assert r.get("stdout_visibility") in ("hidden", "after_published")
    visible = [t for t in r["tests"] if t["visibility"] == "visible"]
    hidden = [t for t in r["tests"] if t["visibility"] != "visible"]
    assert len(visible) == 3 and all(t["visibility"] == "after_published" for t in hidden)
    seen = r["output"].split("\n", 1)[1] + "".join(t["output"] for t in visible)
    for words in ("hidden spectra are right", "Likely mistake", "Where it fails", "of 9",
                  "Accepted", "Wrong Answer"):
        assert words not in seen, (words, seen)


def unpack(zip_path, dest):
    """As Gradescope does (with unzip): files and their permission bits."""
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            path = z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(path, mode)


def run_autograder(layout, files, metadata=None, env_extra=None, raw_metadata=None):
    """One submission: fills submission/, empties results/, runs the script."""
    sub, res = os.path.join(layout, "submission"), os.path.join(layout, "results")
    shutil.rmtree(sub, ignore_errors=True)
    shutil.rmtree(res, ignore_errors=True)
    os.makedirs(sub)
    os.makedirs(res)
    for name, data in files.items():
        path = os.path.join(os.fsencode(sub), name) if isinstance(name, bytes) else \
            os.path.join(sub, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
    meta = os.path.join(layout, "submission_metadata.json")
    if raw_metadata is not None:
        with open(meta, "wb") as f:
            f.write(raw_metadata)
    else:
        with open(meta, "w") as f:
            json.dump(metadata or {"id": 1, "users": [{"email": "ada@example.edu", "id": 7,
                                                        "name": "Ada L."}]}, f)
    env = dict(os.environ, AUTOGRADER_ROOT=layout, BUTTERFLY_DEADLINE_MS="3000")
    if not SETUP:
        env.update(BUTTERFLY_BATCH=BATCH, BUTTERFLY_WORKER=WORKER)
    env.update(env_extra or {})
    # Gradescope copies run_autograder to /autograder and runs it from there
    p = subprocess.run([os.path.join(layout, "run_autograder")], cwd=layout, env=env,
                       capture_output=True, text=True, timeout=600)
    path = os.path.join(res, "results.json")
    result = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
    return p, result


def sample(name):
    with open(os.path.join(SAMPLES, name + ".glsl")) as f:
        return f.read()


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="butterfly-gradescope-") as tmp:
        zip_path = os.path.join(tmp, "autograder.zip")
        subprocess.run([sys.executable, os.path.join(ROOT, "gradescope", "make_zip.py"),
                        zip_path], check=True, stdout=subprocess.DEVNULL)
        with zipfile.ZipFile(zip_path) as z:
            names = z.namelist()
            modes = {i.filename: (i.external_attr >> 16) for i in z.infolist()}
        assert "setup.sh" in names and "run_autograder" in names, names[:5]
        assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
        assert "butterfly-grader/meson.build" in names
        assert not any("/build/" in n or "node_modules" in n for n in names)

        layout = os.path.join(tmp, "autograder")
        unpack(zip_path, os.path.join(layout, "source"))
        shutil.copy2(os.path.join(layout, "source", "run_autograder"), layout)
        if SETUP:
            p = subprocess.run(["bash", os.path.join(layout, "source", "setup.sh")],
                               capture_output=True, text=True, timeout=3000)
            print(p.stdout[-2000:], p.stderr[-2000:])
            assert p.returncode == 0, "setup.sh failed"
            assert "a correct kernel gets 9 of 9" in p.stdout

        cases = [
            ("a correct kernel", {"butterfly.glsl": sample("correct")}, 9, None),
            ("fitted to the visible spectrum", {"kernel.glsl": sample("hardcoded_visible")}, 3,
             None),
            ("a known mistake", {"k.comp": sample("wrong_twiddle_sign")}, 3, "twiddle"),
            ("notes beside the kernel", {"README.md": "notes", "kernel.glsl": sample("correct"),
                                         "old/kernel.glsl": "return 0.0;"}, 9, None),
            ("a compile error", {"kernel.glsl": "float x = nope;\nreturn x;\n"}, 0, None),
            ("an empty submission", {}, 0, None),
            ("two kernels", {"a.glsl": sample("correct"), "b.glsl": sample("correct")}, 0, None),
            ("a link out", {}, 0, None),
        ]
        outputs = {}
        for name, files, score, hidden_word in cases:
            try:
                if name == "a link out":
                    sub = os.path.join(layout, "submission")
                    p, r = run_autograder(layout, {"kernel.glsl": "x"})
                    os.unlink(os.path.join(sub, "kernel.glsl"))
                    os.symlink("/etc/passwd", os.path.join(sub, "kernel.glsl"))
                    env = dict(os.environ, AUTOGRADER_ROOT=layout)
                    if not SETUP:
                        env.update(BUTTERFLY_BATCH=BATCH, BUTTERFLY_WORKER=WORKER)
                    p = subprocess.run([os.path.join(layout, "run_autograder")], cwd=layout,
                                       env=env, capture_output=True, text=True, timeout=600)
                    with open(os.path.join(layout, "results", "results.json")) as f:
                        r = json.load(f)
                    assert "root:" not in json.dumps(r), "the link was followed"
                else:
                    p, r = run_autograder(layout, files)
                assert p.returncode == 0 and r is not None, p.stdout + p.stderr
                check_spec(r)
                check_nothing_hidden_early(r)
                assert r["score"] == score, (r["score"], score)
                assert r["output"].startswith("Student: ada@example.edu\n"), r["output"][:60]
                seed = r["extra_data"]["butterfly"]["seed"]
                assert isinstance(seed, int) and 0 <= seed < 2 ** 53
                if hidden_word:
                    assert hidden_word in r["tests"][3]["output"]
                outputs[name] = r
                print("ok   %s (%s of 9)" % (name, r["score"]))
            except AssertionError as e:
                failures.append(name)
                print("FAIL %s: %r" % (name, e))

        try:
            a, b = outputs["a correct kernel"], outputs["fitted to the visible spectrum"]
            # before publication the two read the same; the totals differ
            assert a["output"] == b["output"]
            assert [t for t in a["tests"] if t["visibility"] == "visible"] == \
                [t for t in b["tests"] if t["visibility"] == "visible"]
            # every submission draws its own seed
            seeds = {r["extra_data"]["butterfly"]["seed"] for r in outputs.values()}
            assert len(seeds) == len(outputs), seeds
            print("ok   nothing hidden shows early; a seed per submission")
        except (AssertionError, KeyError) as e:
            failures.append("visibility")
            print("FAIL visibility: %r" % (e,))

        try:
            # the grader's own failure (here: no such Vulkan device) records
            # nothing rather than 0 points
            p, r = run_autograder(layout, {"kernel.glsl": sample("correct")},
                                  env_extra={"BUTTERFLY_DEVICE": "no-such-device"})
            assert p.returncode != 0 and r is None, (p.returncode, r)
            assert "the grader failed" in p.stdout, p.stdout
            p, r = run_autograder(layout, {"kernel.glsl": sample("correct")},
                                  metadata={"users": [{"email": "x\ny"}]})
            assert r["output"].startswith("Student: student\n"), r["output"][:40]
            print("ok   a failing grader records nothing; an odd id is replaced")
        except AssertionError as e:
            failures.append("failures")
            print("FAIL failures: %r" % (e,))

        try:
            # one package per exercise: --task writes its id into the zip,
            # run_autograder grades as it (butterfly-batch --task); an
            # exercise the sources lack makes no package
            per = os.path.join(tmp, "butterfly.zip")
            subprocess.run([sys.executable, os.path.join(ROOT, "gradescope", "make_zip.py"),
                            "--task", "butterfly", per], check=True, stdout=subprocess.DEVNULL)
            with zipfile.ZipFile(per) as z:
                assert z.read("exercise") == b"butterfly\n", z.read("exercise")
            with zipfile.ZipFile(zip_path) as z:
                assert "exercise" not in z.namelist(), "the default package names none"
            bad = subprocess.run([sys.executable, os.path.join(ROOT, "gradescope", "make_zip.py"),
                                  "--task", "../x", os.path.join(tmp, "bad.zip")],
                                 capture_output=True, text=True)
            assert bad.returncode != 0 and "no exercise of exercises/ (there: " in bad.stderr \
                and "butterfly" in bad.stderr and \
                not os.path.exists(os.path.join(tmp, "bad.zip")), bad.stderr
            task_file = os.path.join(layout, "source", "exercise")
            with open(task_file, "w") as f:
                f.write("butterfly\n")
            p, r = run_autograder(layout, {"kernel.glsl": sample("correct")})
            assert p.returncode == 0 and r["score"] == 9, p.stdout[-800:]
            with open(task_file, "w") as f:
                f.write("bit_reversal\n")   # another built-in exercise, graded as itself
            with open(os.path.join(ROOT, "exercises", "bit_reversal", "solutions",
                                   "correct_loop.glsl")) as f:
                bits = f.read()
            p, r = run_autograder(layout, {"kernel.glsl": bits})
            assert p.returncode == 0 and r["score"] == 9, p.stdout[-800:]
            p, r = run_autograder(layout, {"kernel.glsl": sample("correct")})
            assert p.returncode == 0 and r["score"] == 0, "the butterfly is not bit_reversal"
            with open(task_file, "w") as f:
                f.write("retired_task\n")   # not built in: the batch refuses, nothing recorded
            p, r = run_autograder(layout, {"kernel.glsl": sample("correct")})
            assert p.returncode != 0 and r is None, (p.returncode, r)
            assert "--task 'retired_task' is no exercise of this build" in p.stdout, p.stdout
            os.unlink(task_file)
            print("ok   a package per exercise: --task in the zip, graded as it")
        except (AssertionError, subprocess.CalledProcessError, KeyError) as e:
            failures.append("per exercise")
            print("FAIL per exercise: %r" % (e,))

        # Every input is read inside the autograder's error handling: odd
        # metadata still gives a valid results.json, labelled by the
        # fallback id (or the name, when only the e-mail is odd).
        odd_metadata = [
            ("a lone surrogate", b'{"users": [{"email": "a\\ud800@example.edu"}]}', "student"),
            ("a lone surrogate, a usable name", b'{"users": [{"email": "\\udfff", '
             b'"name": "Ada L."}]}', "Ada L."),
            ("invalid UTF-8", b'{"users": [{"email": "\xff\xfe@example.edu"}]}', "student"),
            ("a BOM and UTF-16", '{"users": [{"email": "a@b"}]}'.encode("utf-16"), "student"),
            ("not JSON", b"{users: [", "student"),
            ("a list", b"[1, 2]", "student"),
            ("users not a list", b'{"users": "ada"}', "student"),
            ("a user not an object", b'{"users": [7]}', "student"),
            ("an e-mail not a string", b'{"users": [{"email": 7, "name": null}]}', "student"),
            ("no users", b'{"users": []}', "student"),
            ("nothing", b"", "student"),
            ("a dot name", b'{"users": [{"email": "..", "name": "../x"}]}', "student"),
            ("an id too long", b'{"users": [{"email": "%s"}]}' % (b"a" * 200), "student"),
        ]
        for what, raw_meta, sid in odd_metadata:
            try:
                p, r = run_autograder(layout, {"kernel.glsl": sample("correct")},
                                      raw_metadata=raw_meta)
                assert p.returncode == 0 and r is not None, p.stdout[-500:] + p.stderr[-2000:]
                check_spec(r)
                assert r["score"] == 9, r["score"]
                assert r["output"].startswith("Student: %s\n" % sid), r["output"][:60]
                print("ok   metadata with %s" % what)
            except AssertionError as e:
                failures.append("metadata: " + what)
                print("FAIL metadata with %s: %r" % (what, e))

        # A body the compiler would echo back at length is the student's
        # Compilation Error (0 points, a valid results.json), not a failed
        # autograder; a file whose name is not UTF-8 does not stop it.
        try:
            echo = ("#error " + '"\\' * 500 + "\n") * 64 + "return 0.0;\n"
            p, r = run_autograder(layout, {"kernel.glsl": echo})
            assert p.returncode == 0 and r is not None, p.stdout[-500:] + p.stderr[-2000:]
            check_spec(r)
            assert r["score"] == 0 and len(json.dumps(r)) < 256 * 1024, r["score"]
            p, r = run_autograder(layout, {b"k\xff.glsl": sample("correct")})
            assert p.returncode == 0 and r is not None, p.stdout[-500:] + p.stderr[-2000:]
            check_spec(r)
            print("ok   an echoing body is a Compilation Error; an odd file name is graded")
        except AssertionError as e:
            failures.append("echo")
            print("FAIL echo: %r" % (e,))
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

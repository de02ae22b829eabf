#!/usr/bin/env python3
"""The build's check on load (exercises/meson.build): `ninja` grades every
exercise's solutions and stops at one that does not get what its expect
line says.

usage: test_build_check.py SOURCE_ROOT BUTTERFLY_GRADE

butterfly-grade --check-exercise grades only the definition the build
embedded (a folder edited since is refused: "run ninja"), so the expect
lines are flipped in a fresh copy of the sources, which is then built:
what an author does. In that copy:

- with three expect lines made false (an `accepted` that is a Wrong
  Answer, a `wrong` that is Accepted, a `wrong MISTAKE` diagnosed as
  another), the butterfly's check step fails, naming each file and what
  it got, and leaves no stamp;
- with no Vulkan driver to be found, the same step warns and succeeds
  (a build must work on a machine without a device);
- with the files put back, the step runs again and passes, its stamp
  holding the checker's summary.

Exits 77 (skipped) where BUTTERFLY_GRADE --list-devices finds no device:
there the step only warns, by design. Prints one line per check.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT, GRADE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
STEP = "exercises/check_exercise_butterfly.stamp"
SOLUTIONS = "exercises/butterfly/solutions"
# file: (its expect line, the false one, what the check must say of it)
FLIPS = {
    "correct.glsl": ("// expect: accepted", "// expect: wrong",
                     "expected wrong, got Accepted"),
    "wrong_swapped_planes.glsl": ("// expect: wrong planes_swapped", "// expect: accepted",
                                  "expected accepted, got Wrong Answer (planes_swapped)"),
    "wrong_twiddle_sign.glsl": ("// expect: wrong twiddle_sign", "// expect: wrong both_plus",
                                "expected wrong both_plus, got Wrong Answer (twiddle_sign)"),
}
# the loader finds no driver: what a machine without a Vulkan device sees
NO_DRIVER = {"VK_DRIVER_FILES": "/nonexistent/icd.json", "VK_ICD_FILENAMES": "/nonexistent/icd.json"}

failures = []


def check(name, ok, detail=""):
    print("%s: %s" % (name, "ok" if ok else "FAILED"))
    if not ok:
        failures.append(name)
        if detail:
            print(detail)


def run(*args, env=None, **kw):
    e = dict(os.environ)
    e.pop("VK_ADD_DRIVER_FILES", None)
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=e, **kw)


def fresh_copy(dst):
    """The files a clone of this working tree would have, into dst."""
    files = run("git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                "--exclude-standard").stdout.split("\0")
    for name in filter(None, files):
        src = os.path.join(ROOT, name)
        if not os.path.lexists(src) or os.path.isdir(src):
            continue    # deleted in the working tree; a submodule
        os.makedirs(os.path.dirname(os.path.join(dst, name)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, name), follow_symlinks=False)


def read_stamp(path):
    """The stamp's text, "" when there is none."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def set_expect(src, name, old, new):
    path = os.path.join(src, SOLUTIONS, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # the first line holds it (after a byte-order mark, in one sample)
    assert old in text.split("\n", 1)[0], (name, old)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


def main():
    if run(GRADE, "--list-devices").returncode == 3:
        print("no Vulkan device: the build's check only warns here")
        return 77
    tmp = tempfile.mkdtemp(prefix="butterfly-build-check-")
    try:
        src, build = os.path.join(tmp, "src"), os.path.join(tmp, "build")
        fresh_copy(src)
        for name, (old, new, _) in FLIPS.items():
            set_expect(src, name, old, new)
        setup = run("meson", "setup", build, src)
        if setup.returncode != 0:
            check("meson setup of the copy", False, setup.stdout[-3000:] + setup.stderr[-3000:])
            return 1
        stamp = os.path.join(build, STEP)

        got = run("ninja", "-C", build, STEP)
        said = got.stdout + got.stderr
        check("false expect lines fail the build", got.returncode != 0, said[-3000:])
        for name, (_, _, what) in FLIPS.items():
            line = "%s/%s: %s" % (SOLUTIONS, name, what)
            check("the build names %s and what it got" % name, line in said, said[-3000:])
        check("no stamp after a failed check", not os.path.exists(stamp))

        got = run("ninja", "-C", build, STEP, env=NO_DRIVER)
        said = got.stdout + got.stderr
        check("no device: the step succeeds", got.returncode == 0, said[-3000:])
        check("no device: the step warns",
              "WARNING: exercises/butterfly: solutions not graded at build time: "
              "no Vulkan device" in said, said[-3000:])
        check("no device: the stamp says not checked", "not checked" in read_stamp(stamp))

        for name, (old, new, _) in FLIPS.items():
            set_expect(src, name, new, old)
        got = run("ninja", "-C", build, STEP)
        said = got.stdout + got.stderr
        check("the files put back: the step runs again and passes",
              got.returncode == 0 and "check_exercise_butterfly" in said, said[-3000:])
        summary = read_stamp(stamp)
        check("the stamp holds the summary",
              summary.startswith("exercises/butterfly: ") and "as expected" in summary, summary)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

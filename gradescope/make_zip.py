#!/usr/bin/env python3
"""make_zip.py - builds the Gradescope autograder zip in one command.

usage: gradescope/make_zip.py [--task ID] [OUT.zip]
       (default: build/gradescope-autograder.zip; with --task, ...-ID.zip)

The zip holds, at its root as Gradescope requires, setup.sh and
run_autograder from this folder, and the project's sources under
butterfly-grader/: the files git tracks, and new ones it does not ignore
(so an edited checkout is packed as it is), never build folders or
node_modules. Upload it on the assignment's "Configure Autograder" page.

One package per exercise: --task ID (an exercise of exercises/, default the
butterfly's, the one every package made before grades) writes the id into
the zip's EXERCISE_FILE, from which run_autograder grades with
butterfly-batch --task ID. Without --task the zip has no such file.
"""
import os
import re
import stat
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PREFIX = "butterfly-grader/"
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
EXERCISE_FILE = "exercise"           # at the zip's root: the id run_autograder grades as
ID_SHAPE = re.compile(r"[a-z0-9_-]{1,32}\Z")   # an exercise's id (exercise.h's EX_ID_MAX)


def project_files():
    """The project's files, relative to its root."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, check=True).stdout
        names = [n for n in out.decode("utf-8").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        # not a git checkout (an unpacked archive): everything but builds
        names = []
        for d, dirs, files in os.walk(ROOT):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
            names += [os.path.relpath(os.path.join(d, f), ROOT) for f in files]
    return sorted(n for n in names if os.path.isfile(os.path.join(ROOT, n))
                  and not os.path.islink(os.path.join(ROOT, n))
                  and not any(part in SKIP_DIRS for part in n.split("/")))


def add(z, path, arcname):
    """Adds a file with its permission bits (run_autograder must stay executable)."""
    st = os.stat(path)
    info = zipfile.ZipInfo(arcname, time.localtime(st.st_mtime)[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | (0o755 if st.st_mode & 0o111 else 0o644)) << 16
    with open(path, "rb") as f:
        z.writestr(info, f.read())


def parse_args(argv):
    """(task or None, the output path) from the command line; exits on a bad one."""
    task, rest = None, []
    args = iter(argv)
    for a in args:
        if a == "--task":
            task = next(args, None)
            if task is None:
                sys.exit("make_zip.py: --task needs an exercise's id")
        elif a.startswith("--task="):
            task = a[len("--task="):]
        else:
            rest.append(a)
    if len(rest) > 1:
        sys.exit(__doc__.strip().splitlines()[2])
    name = "gradescope-autograder%s.zip" % ("-" + task if task else "")
    return task, os.path.abspath(rest[0] if rest else os.path.join(ROOT, "build", name))


def main():
    task, out = parse_args(sys.argv[1:])
    files = project_files()
    for required in ("meson.build", "grader/batch/batch_main.c", "tests/samples/correct.glsl"):
        if required not in files:
            sys.exit("make_zip.py: %s is missing from the sources" % required)
    if task is not None:
        known = sorted({n.split("/")[1] for n in files
                        if n.startswith("exercises/") and n.count("/") >= 2})
        if not ID_SHAPE.match(task) or task not in known:
            sys.exit("make_zip.py: --task %r is no exercise of exercises/ (there: %s)"
                     % (task, ", ".join(known)))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w") as z:
        add(z, os.path.join(HERE, "setup.sh"), "setup.sh")
        add(z, os.path.join(HERE, "run_autograder"), "run_autograder")
        if task is not None:
            info = zipfile.ZipInfo(EXERCISE_FILE, time.localtime()[:6])
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, task + "\n")
        for name in files:
            add(z, os.path.join(ROOT, name), PREFIX + name)
    os.replace(tmp, out)
    print("make_zip.py: wrote %s (%d files, %.0f KiB)%s" % (
        out, len(files) + 2 + (task is not None), os.path.getsize(out) / 1024,
        ", exercise %s" % task if task else ""))


if __name__ == "__main__":
    main()

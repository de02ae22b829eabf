#!/usr/bin/env python3
"""make_zip.py - builds the Gradescope autograder zip in one command.

usage: gradescope/make_zip.py [OUT.zip]     (default: build/gradescope-autograder.zip)

The zip holds, at its root as Gradescope requires, setup.sh and
run_autograder from this folder, and the project's sources under
butterfly-grader/: the files git tracks, and new ones it does not ignore
(so an edited checkout is packed as it is), never build folders or
node_modules. Upload it on the assignment's "Configure Autograder" page.
"""
import os
import stat
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PREFIX = "butterfly-grader/"
SKIP_DIRS = {".git", "node_modules", "__pycache__"}


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


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                          else os.path.join(ROOT, "build", "gradescope-autograder.zip"))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    files = project_files()
    for required in ("meson.build", "grader/batch/batch_main.c", "tests/samples/correct.glsl"):
        if required not in files:
            sys.exit("make_zip.py: %s is missing from the sources" % required)
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w") as z:
        add(z, os.path.join(HERE, "setup.sh"), "setup.sh")
        add(z, os.path.join(HERE, "run_autograder"), "run_autograder")
        for name in files:
            add(z, os.path.join(ROOT, name), PREFIX + name)
    os.replace(tmp, out)
    print("make_zip.py: wrote %s (%d files, %.0f KiB)" % (out, len(files) + 2,
                                                       os.path.getsize(out) / 1024))


if __name__ == "__main__":
    main()

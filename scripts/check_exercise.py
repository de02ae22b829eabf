#!/usr/bin/env python3
"""The check on load at build time: one exercise graded as the server grades
it before it listens, or the build stops.

usage: check_exercise.py GRADE WORKER SOURCE_ROOT DIR STAMP DEPFILE

Runs GRADE (butterfly-grade) --worker WORKER --check-exercise DIR from
SOURCE_ROOT, so that the checker's messages name the files as the author
knows them ("exercises/ID/solutions/FILE.glsl: ..."). Exit status 0: STAMP
gets the checker's summary. 1, or anything else: the checker's messages
are printed and the build fails. 3 (not checked: no worker could start)
while GRADE --list-devices finds no device either (its status 3 too): a
warning, and STAMP says "not checked", since a build must work on a
machine without a Vulkan device (the server checks again when it
starts). 3 while a device is there is a worker that does not start: the
build fails.

DEPFILE names every file and folder under DIR, so that ninja checks again
when one changes or a file is added.
"""
import os
import subprocess
import sys

NOT_CHECKED = 3   # butterfly-grade --check-exercise: no worker could start
NO_DEVICE = 3     # butterfly-grade --list-devices (the worker's): no device found

WARNING = ('WARNING: {dir}: solutions not graded at build time: no Vulkan device '
           'can be opened here ({why}); the server checks them when it starts')


def folder_paths(folder):
    """Every folder and file under folder (itself included), sorted."""
    out = [folder]
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        out += [os.path.join(top, d) for d in dirs]
        out += [os.path.join(top, f) for f in sorted(files)]
    return out


def write_depfile(path, stamp, folder):
    esc = [p.replace('\\', '\\\\').replace(' ', '\\ ').replace('$', '$$')
           for p in folder_paths(folder)]
    with open(path, 'w', encoding='utf-8') as f:
        f.write(stamp.replace(' ', '\\ ') + ': ' + ' \\\n  '.join(esc) + '\n')


def no_device(grade, worker, root):
    """The worker's reason when --list-devices finds no device, else None."""
    run = subprocess.run([grade, '--worker', worker, '--list-devices'], cwd=root,
                         capture_output=True, text=True)
    if run.returncode != NO_DEVICE:
        return None
    lines = run.stderr.strip().splitlines()
    return lines[-1] if lines else 'butterfly-grade --list-devices finds none'


def main():
    if len(sys.argv) != 7:
        sys.stderr.write(__doc__)
        return 64
    grade, worker, root, folder, stamp, depfile = sys.argv[1:7]
    grade, worker = os.path.abspath(grade), os.path.abspath(worker)
    stamp, depfile = os.path.abspath(stamp), os.path.abspath(depfile)
    write_depfile(depfile, stamp, os.path.join(root, folder))
    run = subprocess.run([grade, '--worker', worker, '--check-exercise', folder], cwd=root,
                         capture_output=True, text=True)
    said = run.stdout.strip()
    if run.returncode == NOT_CHECKED:
        why = no_device(grade, worker, root)
        if why is not None:
            print(WARNING.format(dir=folder, why=why))
            said = '%s: not checked: no Vulkan device' % folder
            run.returncode = 0
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        sys.stderr.write('%s: the check on load failed (butterfly-grade --check-exercise %s, '
                         'exit %d)\n' % (folder, folder, run.returncode))
        if os.path.exists(stamp):
            os.unlink(stamp)
        return 1
    with open(stamp, 'w', encoding='utf-8') as f:
        f.write(said + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""The files docs/EXERCISES.md's worked example writes out, as written.

A block 'File `exercises/ID/NAME`:' followed by a fenced block is file
NAME of folder ID. Imported by tests/unit/test_exercise_docs.py; as a
program, for the build and the device test:

usage: doc_files.py DOC OUTDIR            writes every folder under OUTDIR
       doc_files.py DOC --one ID/NAME OUT writes that one file to OUT
"""
import os
import re
import sys

FILE = re.compile(r'^File `exercises/([a-z0-9_-]+)/([^`]+)`:\n\n```[a-z]*\n(.*?)^```', re.M | re.S)


def doc_files(doc):
    """{folder: {name: text}} of the doc's 'File `exercises/ID/NAME`:' blocks."""
    out = {}
    for folder, name, text in FILE.findall(doc):
        out.setdefault(folder, {})[name] = text
    return out


def write_folder(root, folder, files):
    """Writes files ({name: text}) under root/folder; returns that folder."""
    for name, text in files.items():
        path = os.path.join(root, folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
    return os.path.join(root, folder)


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 4) or (len(args) == 4 and args[1] != '--one'):
        sys.exit(__doc__)
    with open(args[0], encoding='utf-8') as f:
        files = doc_files(f.read())
    if len(args) == 2:
        for folder, named in files.items():
            write_folder(args[1], folder, named)
        return 0
    folder, name = args[2].split('/', 1)
    if name not in files.get(folder, {}):
        sys.exit(f'{args[0]}: no file exercises/{args[2]} in it')
    with open(args[3], 'w') as f:
        f.write(files[folder][name])
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""Writes docs/EXERCISES.md's worked example out as the doc writes it and
runs test_doc_example on that folder (see tests/vulkan/test_doc_example.c).

usage: test_doc_example.py DOC TEST_DOC_EXAMPLE
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from doc_files import doc_files, write_folder  # noqa: E402


def main():
    doc, binary = sys.argv[1], sys.argv[2]
    with open(doc, encoding='utf-8') as f:
        files = doc_files(f.read()).get('scale')
    if not files:
        print(f'{doc}: no worked example (exercises/scale) in it')
        return 1
    with tempfile.TemporaryDirectory() as t:
        folder = write_folder(t, os.path.join('exercises', 'scale'), files)
        return subprocess.run([binary, folder], timeout=300).returncode


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""The README's option table of butterfly-server is the one --help prints
(scripts/options_table.py makes it): an option added, removed or changed
in the program fails here until the README says so too.

usage: test_readme_options.py SERVER_BINARY README
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from options_table import table  # noqa: E402

want = table(sys.argv[1])
with open(sys.argv[2]) as f:
    readme = f.read()
if want not in readme:
    print("README.md's option table differs from --help; replace it with:\n" + want)
    sys.exit(1)
print("ok: README.md's option table is --help's (%d options)" % (want.count("\n") - 2))

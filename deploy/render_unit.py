#!/usr/bin/env python3
"""Writes the systemd unit with ExecStart pointing at the installed server.

usage: render_unit.py INPUT OUTPUT BINDIR
The unit in the sources names /usr/local/bin, the default prefix's; this
puts the configured bindir in its place, and fails if there is none.
"""
import sys


def main():
    src, dst, bindir = sys.argv[1:4]
    with open(src) as f:
        text = f.read()
    old = "ExecStart=/usr/local/bin/butterfly-server"
    if text.count(old) != 1:
        sys.exit("render_unit.py: %s has no single %r" % (src, old))
    with open(dst, "w") as f:
        f.write(text.replace(old, "ExecStart=%s/butterfly-server" % bindir.rstrip("/")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

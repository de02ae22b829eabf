#!/usr/bin/env python3
"""Every header of an answer is added through response_header
(server/core/response.c): only there is a header that cannot be added
(out of memory) seen, and the answer that lost it not sent. A call of
libmicrohttpd's MHD_add_response_header anywhere else in server/ skips
that (issue 30: a class stream whose Content-Type was lost read, to its
client, as a body that never ends).

usage: test_one_header_path.py SOURCE_ROOT
Checks a made-up tree first: the check must fail on a violation.
"""
import os
import re
import sys
import tempfile

ALLOWED = os.path.join("server", "core", "response.c")
CALL = re.compile(r"\bMHD_add_response_header\s*\(")


def strays(root):
    """(file, line) of each MHD_add_response_header call outside ALLOWED."""
    out = []
    for folder, dirs, files in os.walk(os.path.join(root, "server")):
        dirs[:] = [d for d in dirs if not d.startswith("build")]
        for name in files:
            if not name.endswith(".c"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel == ALLOWED:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if CALL.search(line):
                        out.append((rel, n))
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "server", "core"))
        os.makedirs(os.path.join(tmp, "server", "grade"))
        with open(os.path.join(tmp, ALLOWED), "w") as f:
            f.write("x = MHD_add_response_header(resp, a, b);\n")
        with open(os.path.join(tmp, "server", "grade", "g.c"), "w") as f:
            f.write("int a;\n    MHD_add_response_header (resp, a, b);\n")
        found = strays(tmp)
        if found != [(os.path.join("server", "grade", "g.c"), 2)]:
            print("FAIL: the check misses a made-up stray call: %r" % found)
            return 1
    found = strays(sys.argv[1])
    for rel, n in found:
        print("FAIL: %s:%d adds a header past response_header" % (rel, n))
    if found:
        return 1
    print("ok: every header of an answer through response_header")
    return 0


if __name__ == "__main__":
    sys.exit(main())

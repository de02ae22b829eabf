#!/usr/bin/env python3
"""Runs the page's browser test against a real butterfly-server.

usage: with_server.py SERVER_BINARY ARTIFACTS_DIR [ADMIN_BINARY]
Starts the server on a free loopback port, runs tests/browser/run.sh with
BUTTERFLY_URL pointing at it, and exercises.mjs (the course index and
every exercise's template page), stops the server; then the same with
records.mjs against a server that keeps records (a SQLite store in a
temporary folder); then class.mjs, the instructor's class view, which
starts (and restarts) its own server; and, given butterfly-admin, lab.mjs,
students with a roster's links taking turns on one browser profile (it
starts its own server on a store it imports a roster into). Exits with the
first failing status, else 0.
"""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "http"))
from serverproc import Server  # noqa: E402


def main():
    binary, artifacts = sys.argv[1], sys.argv[2]
    os.makedirs(artifacts, exist_ok=True)
    srv = Server(binary, "--workers", "2")
    try:
        env = dict(os.environ, BUTTERFLY_URL=srv.url + "/", BUTTERFLY_ARTIFACTS=artifacts)
        rc = subprocess.call([os.path.join(here, "run.sh")], env=env, timeout=600)
        # every exercise's index and template page (issue 33): run even when
        # the page's own failed, so that its failures are seen too
        env = dict(env, BUTTERFLY_E2E="exercises.mjs")
        rc_ex = subprocess.call([os.path.join(here, "run.sh")], env=env, timeout=600)
        rc = rc or rc_ex
    finally:
        srv.stop()
    with tempfile.TemporaryDirectory() as state:
        srv = Server(binary, "--workers", "2", "--database",
                     "sqlite:" + os.path.join(state, "records.sqlite"))
        try:
            env = dict(os.environ, BUTTERFLY_URL=srv.url + "/", BUTTERFLY_E2E="records.mjs")
            rc2 = subprocess.call([os.path.join(here, "run.sh")], env=env, timeout=600)
        finally:
            srv.stop()
    # the class view restarts its server itself: it gets the program
    env = dict(os.environ, BUTTERFLY_URL="(class.mjs starts its own)", BUTTERFLY_E2E="class.mjs",
               BUTTERFLY_SERVER=binary, BUTTERFLY_ARTIFACTS=artifacts)
    rc3 = subprocess.call([os.path.join(here, "run.sh")], env=env, timeout=600)
    rc4 = 0
    if len(sys.argv) > 3:
        env = dict(os.environ, BUTTERFLY_URL="(lab.mjs starts its own)", BUTTERFLY_E2E="lab.mjs",
                   BUTTERFLY_SERVER=binary, BUTTERFLY_ADMIN=sys.argv[3])
        rc4 = subprocess.call([os.path.join(here, "run.sh")], env=env, timeout=600)
    return rc or rc2 or rc3 or rc4


if __name__ == "__main__":
    sys.exit(main())

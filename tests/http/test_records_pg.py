#!/usr/bin/env python3
"""The records over HTTP on PostgreSQL: every check of test_records.py on
a cluster of the test's own (tests/support/postgres.py: initdb in a
temporary folder, loopback only), then the cluster stopped under a running
server: grading goes on with `recorded: false` (unavailable), /healthz and
/metrics say so, and once the cluster is back recording resumes without a
restart.

usage: test_records_pg.py SERVER_BINARY SAMPLES_DIR [ADMIN_BINARY]
Exits 77 (skipped) without PostgreSQL's server programs.
"""
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import test_records as tr  # noqa: E402  (reads the same arguments)
from postgres import Cluster, SKIP, server_bindir  # noqa: E402


def until_recorded(w, want, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        st, _, data = tr.submit(w.srv)
        v = json.loads(data)
        assert st == 200 and v["status"]["id"] == 3, (st, v)   # graded all the same
        if v["recorded"] is want:
            return v
        time.sleep(0.2)
    raise AssertionError("never recorded=%s" % want)


def main():
    if not server_bindir():
        print("skipped: no PostgreSQL server programs (Debian: postgresql)")
        return SKIP
    checks = tr.Checks()
    with tempfile.TemporaryDirectory() as d, Cluster() as pg:
        def t_postgres_stopped_then_back(w):
            until_recorded(w, True)
            pg.stop()
            try:
                v = until_recorded(w, False)
                assert v["record_error"]["code"] == "unavailable", v["record_error"]
                h = json.loads(tr.call(w.srv, "GET", "/healthz")[2])
                assert h["status"] == "ok" and h["store"]["status"] == "unavailable", h
                assert tr.metric(w, 'butterfly_records_total{outcome="failed",reason="unavailable"}') >= 1
            finally:
                pg.start()
            until_recorded(w, True)
        tr.run_all(checks, d, pg.url, extra=[("PostgreSQL stopped, then back",
                                              t_postgres_stopped_then_back)])
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

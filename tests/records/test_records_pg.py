#!/usr/bin/env python3
"""The records over HTTP on PostgreSQL: every check of test_records.py on
a cluster of the test's own (tests/support/postgres.py: initdb in a
temporary folder, loopback only), then the cluster stopped under a running
server: grading goes on with `recorded: false` (unavailable), /healthz and
/metrics say so, and once the cluster is back recording resumes without a
restart; then the cluster frozen (SIGSTOP: its sockets still accept and
acknowledge, nothing answers) under load: every answer still comes, within
the bound the store's waits add up to, as not recorded, and once it thaws
recording resumes.

usage: test_records_pg.py SERVER_BINARY SAMPLES_DIR [ADMIN_BINARY]
Exits 77 (skipped) without PostgreSQL's server programs.
"""
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "http"))  # serverproc
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


def defaults():
    """The store's bounds, from the one place they are set."""
    path = os.path.join(HERE, "..", "..", "grader", "common", "defaults.h")
    with open(path) as f:
        text = f.read()
    def num(name):
        return int(re.search(r"#define %s\s+(\d+)u" % name, text).group(1))
    return num("STORE_PG_ANSWER_MS") / 1000.0, num("DEFAULT_STORE_CONNECT_S")


def cluster_pids(pg):
    """The postmaster of the cluster and every process it started."""
    with open(os.path.join(pg.data, "postmaster.pid")) as f:
        master = int(f.readline())
    pids = [master]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == master:
                pids.append(int(entry))
    return pids


def frozen_answers(w, pg, n):
    """n submissions while the cluster is frozen: each (seconds, verdict)."""
    out = [None] * n
    def one(k):
        t0 = time.monotonic()
        st, _, data = tr.submit(w.srv)
        out[k] = (time.monotonic() - t0, st, json.loads(data))
    pids = cluster_pids(pg)
    for p in pids:
        os.kill(p, signal.SIGSTOP)
    try:
        threads = [threading.Thread(target=one, args=(k,)) for k in range(n)]
        for t in threads:
            t.start()
            time.sleep(0.3)
        for t in threads:
            t.join(timeout=120)
        assert all(not t.is_alive() for t in threads), "an answer never came"
    finally:
        for p in pids:
            os.kill(p, signal.SIGCONT)
    return out


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
        def t_postgres_frozen_then_thawed(w):
            answer_s, connect_s = defaults()
            # the writer's worst: the statement in flight waits its bound,
            # then one new connection its own; later records fail at once
            bound = answer_s + connect_s + 10
            until_recorded(w, True)
            answers = frozen_answers(w, pg, 4)
            for took, st, v in answers:
                assert st == 200 and v["status"]["id"] == 3, (st, v)   # graded all the same
                assert v["recorded"] is False, v
                assert v["record_error"]["code"] == "unavailable", v["record_error"]
                assert took < bound, "an answer took %.1f s (bound %.0f s)" % (took, bound)
            until_recorded(w, True, timeout=answer_s + 30)
            print("  frozen store: answers in %s s (bound %.0f s)"
                  % (", ".join("%.1f" % a[0] for a in answers), bound))
        tr.run_all(checks, d, pg.url, extra=[("PostgreSQL stopped, then back",
                                              t_postgres_stopped_then_back),
                                             ("PostgreSQL frozen, then thawed",
                                              t_postgres_frozen_then_thawed)])
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

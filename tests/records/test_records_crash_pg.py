#!/usr/bin/env python3
"""Nothing lost, nothing half-written (issue 20, item 6), on PostgreSQL:
test_records_crash.py's SIGKILL check against a real server whose store
is a cluster of the test's own (tests/support/postgres.py, fsync on, as a
deployment has it).

usage: test_records_crash_pg.py SERVER_BINARY SAMPLES_DIR [ROUNDS]

The server is killed with SIGKILL at a random moment under load ROUNDS
times and started again on the same database; then every id answered
`recorded: true` is in the records table, its row complete, and every row
belongs to a submission whose client was told `recorded: true` with that
id or got no answer (the kill between the commit and the answer). Prints
one line per check and ends with "N passed, M failed"; exits 77 (skipped)
without PostgreSQL's server programs.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import test_records_crash as crash  # noqa: E402  (reads the same arguments)
from postgres import Cluster, SKIP, server_bindir  # noqa: E402

# every row as one JSON document: the bytes columns in hex, so that any
# source and verdict come back as they are stored
ROWS = ("SELECT coalesce(json_agg(json_build_array(id, encode(source, 'hex'), sha256, "
        "encode(verdict, 'hex'), status, points, max_points, grader_version)), '[]') "
        "FROM records")


def pg_rows(pg):
    out = subprocess.run(pg.cmd("psql", "-X", "-At", "-h", "127.0.0.1", "-p", str(pg.port),
                                "-U", "butterfly", "-d", pg.db, "-c", ROWS),
                         check=True, capture_output=True, text=True, cwd=pg.dir).stdout
    rows = {}
    for r in json.loads(out):
        rows[r[0]] = (r[0], bytes.fromhex(r[1]), r[2], bytes.fromhex(r[3]), *r[4:])
    return rows


def main():
    if not server_bindir():
        print("skipped: no PostgreSQL server programs (Debian: postgresql)")
        return SKIP
    checks = crash.Checks()
    with Cluster(fsync=True) as pg:
        checks.run("SIGKILL under load, %d times (PostgreSQL)" % crash.ROUNDS,
                   crash.sigkill_many_times, pg.url, lambda: pg_rows(pg))
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

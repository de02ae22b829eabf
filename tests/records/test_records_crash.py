#!/usr/bin/env python3
"""Nothing lost, nothing half-written (issue 20, item 6), against a real
server on a SQLite store.

usage: test_records_crash.py SERVER_BINARY SAMPLES_DIR [ROUNDS]

SIGKILL: clients submit, each source carrying a nonce of its own, while
the server is killed with SIGKILL at a random moment, ROUNDS times, and
restarted on the same store. Then, read from the store file:
  - every id answered `recorded: true` is there, its row complete (the
    source sent, its SHA-256, the verdict as answered, with that id);
  - every row belongs to a submission a client sent, and that client was
    either told `recorded: true` with that id, or got no answer at all (the
    kill came between the commit and the answer's last byte). A row for a
    submission that was answered `recorded: false`, or under another id,
    or that no client sent, is a failure.
The answer is sent after the commit, so a client told `recorded: true`
can always find its row; the converse cannot hold for an answer cut by
the kill, which is why a row whose client got no answer is allowed.

Store failures: the store full (SQLite's max_page_count), read-only (also
with LTI's idle connections open), and locked past its busy timeout:
grading goes on, the answer says `recorded: false` with the reason,
/metrics counts it, /healthz reports it, and once the cause is gone
recording resumes without a restart.
Prints one line per check and ends with "N passed, M failed".
"""
import hashlib
import http.client
import json
import os
import random
import re
import secrets
import signal
import subprocess
import sqlite3
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "http"))  # serverproc
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import Checks  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
SUBMIT = "/api/tasks/butterfly/submissions"
with open(os.path.join(SAMPLES, "correct.glsl")) as f:
    CORRECT = f.read()


def body_with(nonce):
    return "// attempt %s\n%s" % (nonce, CORRECT)


def post(port, body, timeout=60):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", SUBMIT, body.encode(), {"Content-Type": "text/plain"})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def start(db, *extra, wrapper=()):
    return start_url("sqlite:" + db, *extra, wrapper=wrapper)


def start_url(url, *extra, wrapper=()):
    return Server(BINARY, "--workers", "1", "--per-client-queue", "0",
                  "--database", url, *extra, wrapper=wrapper)


def sqlite_rows(db):
    """The store's rows by id: (id, source, sha256, verdict, status, points,
    max_points, grader_version), source and verdict as bytes."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = {r[0]: (r[0], bytes(r[1]), *r[2:3], bytes(r[3]), *r[4:]) for r in con.execute(
        "SELECT id, source, sha256, verdict, status, points, max_points, grader_version "
        "FROM records")}
    con.close()
    return rows


def t_sigkill_many_times(folder):
    db = os.path.join(folder, "crash.sqlite")
    return sigkill_many_times("sqlite:" + db, lambda: sqlite_rows(db))


def sigkill_many_times(url, read_rows):
    """Kills a server on the store at url ROUNDS times under load, then
    checks every answer against read_rows() (as sqlite_rows gives them)."""
    sent = {}        # nonce -> source
    told = {}        # nonce -> ("recorded", id) | ("unrecorded", id) | ("lost", None)
    lock = threading.Lock()
    for rnd in range(ROUNDS):
        srv = start_url(url)
        stop = threading.Event()

        def client():
            while not stop.is_set():
                nonce = secrets.token_hex(8)
                src = body_with(nonce)
                with lock:
                    sent[nonce] = src
                try:
                    st, data = post(srv.port, src)
                    v = json.loads(data)
                    outcome = ("recorded" if v.get("recorded") is True else "unrecorded",
                               v.get("id"))
                except (OSError, http.client.HTTPException, ValueError):
                    outcome = ("lost", None)
                with lock:
                    told[nonce] = outcome
                if outcome[0] == "lost":
                    return

        threads = [threading.Thread(target=client) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(random.uniform(0.3, 1.5))
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait()
        stop.set()
        for t in threads:
            t.join(60)
        srv.stop()
    # the store after the last kill, opened again by a server first (its
    # start recovers SQLite's WAL as any later use would), then read here
    srv = start_url(url)
    srv.stop()
    rows = read_rows()
    recorded = {n: o[1] for n, o in told.items() if o[0] == "recorded"}
    assert len(recorded) >= ROUNDS, "too few recorded answers to prove anything: %d" % len(recorded)
    for nonce, rid in recorded.items():
        assert rid in rows, "answered recorded:true but not in the store: %s" % rid
        _, src, sha, verdict, status, points, maxp, version = rows[rid]
        src = src.decode()
        assert src == sent[nonce], rid
        assert sha == hashlib.sha256(src.encode()).hexdigest()
        v = json.loads(verdict)
        assert v["id"] == rid and v["status"]["id"] == status == 3, v["status"]
        assert points == maxp == 9 and version
    by_nonce = {}
    for rid, row in rows.items():
        m = re.match(r"// attempt ([0-9a-f]{16})\n", row[1].decode())
        assert m and m.group(1) in sent, "a row no client sent: %s" % rid
        by_nonce[m.group(1)] = rid
    allowed_lost = 0
    for nonce, rid in by_nonce.items():
        outcome = told.get(nonce, ("lost", None))
        if outcome[0] == "lost":
            allowed_lost += 1
            continue
        assert outcome == ("recorded", rid), (nonce, rid, outcome)
    lost = sum(1 for o in told.values() if o[0] == "lost")
    return "%d rounds, %d recorded answers all found; %d rows of %d cut answers" % (
        ROUNDS, len(recorded), allowed_lost, lost)


def metric(port, name):
    _, data = get(port, "/metrics")
    for line in data.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError("no metric " + name)


def health(port):
    return json.loads(get(port, "/healthz")[1])["store"]


def until_recorded(port, want, timeout=20):
    """Submits until the answer's recorded is `want`; the last verdict."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        st, data = post(port, body_with(secrets.token_hex(8)))
        v = json.loads(data)
        assert st == 200 and v["status"]["id"] == 3, (st, v)   # graded all the same
        if v["recorded"] is want:
            return v
        time.sleep(0.1)
    raise AssertionError("never recorded=%s" % want)


def t_full_then_frees(folder):
    db = os.path.join(folder, "full.sqlite")
    srv = start(db + "?max_page_count=60")
    try:
        v = until_recorded(srv.port, False, timeout=60)
        assert v["record_error"]["code"] == "full", v["record_error"]
        assert "id" in v
        assert metric(srv.port, 'butterfly_records_total{outcome="failed",reason="full"}') >= 1
        assert health(srv.port)["status"] == "full"
        assert json.loads(get(srv.port, "/healthz")[1])["status"] == "ok"   # grading is fine
        con = sqlite3.connect(db, timeout=10)
        con.execute("DELETE FROM records")
        con.commit()
        con.close()
        until_recorded(srv.port, True)
        assert health(srv.port)["status"] == "ok"
    finally:
        srv.stop()


def lti_config(folder):
    """Args for a server with LTI on: its connections to the store are open
    all along, waiting for a launch (the platform is never called here)."""
    path = os.path.join(folder, "lti.json")
    with open(path, "w") as f:
        json.dump({"platforms": [{
            "name": "P", "issuer": "https://platform.example", "client_id": "c1",
            "deployment_ids": ["d1"], "auth_login_url": "http://127.0.0.1:9/auth",
            "auth_token_url": "http://127.0.0.1:9/token",
            "key_set_url": "http://127.0.0.1:9/jwks"}]}, f)
    os.chmod(path, 0o644)
    return ("--lti-config", path, "--public-url", "http://127.0.0.1:9")


def open_to_others(path):
    """Lets other users pass through every folder above path (a clone made
    by `mktemp -d` is 0700), so that a server run as nobody finds its own
    build, its worker and its page files. Returns what to put back."""
    changed = []
    d = os.path.dirname(os.path.abspath(path))
    while True:
        mode = os.stat(d).st_mode
        if not mode & 0o001:
            os.chmod(d, (mode & 0o7777) | 0o001)
            changed.append((d, mode & 0o7777))
        if d == "/":
            return changed
        d = os.path.dirname(d)


def t_read_only_then_writable(folder, with_lti=False):
    # root writes through a file's mode: as root, the server runs as nobody
    sub = os.path.join(folder, "ro-lti" if with_lti else "ro")
    os.mkdir(sub)
    wrapper = ()
    opened = []
    if os.geteuid() == 0:
        import pwd
        nobody = pwd.getpwnam("nobody")
        os.chown(sub, nobody.pw_uid, nobody.pw_gid)
        os.chmod(folder, 0o755)
        opened = open_to_others(BINARY) + open_to_others(folder)
        wrapper = ("setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                   "--clear-groups", "--")
    try:
        read_only_then_writable(sub, folder, with_lti, wrapper)
    finally:
        for d, mode in reversed(opened):
            os.chmod(d, mode)


def read_only_then_writable(sub, folder, with_lti, wrapper):
    db = os.path.join(sub, "ro.sqlite")
    # a store made, then made read-only (a file's mode binds only when it
    # is opened, so the server starts on it): it starts and grades
    extra = lti_config(folder) if with_lti else ()
    start(db, *extra, wrapper=wrapper).stop()
    files = [p for p in (db, db + "-wal", db + "-shm") if os.path.exists(p)]
    for p in files:
        os.chmod(p, 0o444)
    srv = start(db, *extra, wrapper=wrapper)
    try:
        v = until_recorded(srv.port, False)
        assert v["record_error"]["code"] == "read_only", v["record_error"]
        assert health(srv.port)["status"] == "read_only"
        assert metric(srv.port, 'butterfly_records_total{outcome="failed",reason="read_only"}') >= 1
        for p in (db, db + "-wal", db + "-shm"):
            if os.path.exists(p):
                os.chmod(p, 0o644)
        until_recorded(srv.port, True)
    finally:
        srv.stop()


def t_small_tmpfs_full_then_grown(folder):
    """The file system full (a small tmpfs), then made bigger: needs root
    and mount, as CI has; skipped (said so) elsewhere."""
    mnt = os.path.join(folder, "tmpfs")
    os.mkdir(mnt)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs",
                                            mnt], capture_output=True).returncode != 0:
        return "skipped: cannot mount a tmpfs here"
    srv = None
    try:
        srv = start(os.path.join(mnt, "small.sqlite"))
        v = until_recorded(srv.port, False, timeout=120)
        assert v["record_error"]["code"] == "full", v["record_error"]
        assert health(srv.port)["status"] == "full"
        subprocess.run(["mount", "-o", "remount,size=64m", mnt], check=True)
        until_recorded(srv.port, True)
    finally:
        if srv:
            srv.stop()
        subprocess.run(["umount", "-l", mnt])


def t_locked_past_timeout(folder):
    db = os.path.join(folder, "locked.sqlite")
    srv = start(db + "?busy_timeout_ms=300")
    try:
        until_recorded(srv.port, True)
        con = sqlite3.connect(db, timeout=10, isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        try:
            v = until_recorded(srv.port, False)
            assert v["record_error"]["code"] == "locked", v["record_error"]
            assert metric(srv.port, 'butterfly_records_total{outcome="failed",reason="locked"}') >= 1
            assert health(srv.port)["status"] == "locked"
        finally:
            con.execute("ROLLBACK")
            con.close()
        until_recorded(srv.port, True)
        assert health(srv.port)["status"] == "ok"
    finally:
        srv.stop()


def t_retention_days(folder):
    """--retention-days N: records older than N days leave the store, off
    the HTTP thread, and /metrics counts them."""
    db = os.path.join(folder, "retention.sqlite")
    srv = start(db)
    try:
        old = json.loads(post(srv.port, body_with("old0000000000000"))[1])["id"]
        new = json.loads(post(srv.port, body_with("new0000000000000"))[1])["id"]
    finally:
        srv.stop()
    con = sqlite3.connect(db)
    con.execute("UPDATE records SET received_ms = received_ms - 3 * 86400000 WHERE id = ?", (old,))
    con.commit()
    con.close()
    srv = start(db, "--retention-days", "2")
    try:
        deadline = time.time() + 20
        while time.time() < deadline and metric(srv.port, "butterfly_records_purged_total") < 1:
            time.sleep(0.1)
        assert metric(srv.port, "butterfly_records_purged_total") == 1
    finally:
        srv.stop()
    con = sqlite3.connect(db)
    ids = {r[0] for r in con.execute("SELECT id FROM records")}
    con.close()
    assert old not in ids and new in ids, ids


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as d:
        checks.run("SIGKILL under load, %d times" % ROUNDS, t_sigkill_many_times, d)
        checks.run("store full, then space freed", t_full_then_frees, d)
        checks.run("store read-only, then writable", t_read_only_then_writable, d)
        checks.run("the same with LTI's connections open", t_read_only_then_writable, d, True)
        checks.run("store locked past its timeout", t_locked_past_timeout, d)
        checks.run("small tmpfs full, then grown", t_small_tmpfs_full_then_grown, d)
        checks.run("--retention-days", t_retention_days, d)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

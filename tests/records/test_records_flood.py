#!/usr/bin/env python3
"""Issue 29 item 3: a signed-out client cannot fill the store.

usage: test_records_flood.py SERVER_BINARY SAMPLES_DIR ADMIN_BINARY [--pg]

The attack: one signed-out client, three connections, posting 64 KiB
bodies that are Rejected in a millisecond, for 5 s (bounded by count and
time, loopback only). Before issue 29 every one was recorded with its
source (6,000 records and 393 MB in 5 s on a quiet machine). Checked
here, as a user would see it:

- the store stays under 10 MB after the flood (SQLite: the file and its
  WAL on disk; PostgreSQL: what the database grew by, from psql);
- every answer the flood got says honestly whether it was recorded, and
  the ones refused say why (record_error.code), never recorded: true for
  a record that is not there;
- a signed-in roster student's submission is still recorded;
- /metrics counts what the budget refused;
- with a small --store-max-mb, signed-out records are refused past it
  (code "store_limit") while the student's still go in, and /healthz and
  /metrics show how full the store is;
- an open lab's guest has the same budget (--guest-records), and a
  ?wait=false submission past it is answered recorded: false as well.

With --pg it runs on a PostgreSQL cluster of its own
(tests/support/postgres.py).
"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from common import Checks  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES, ADMIN = sys.argv[1], sys.argv[2], sys.argv[3]
PG = "--pg" in sys.argv[4:]
SUBMIT = "/api/tasks/butterfly/submissions"
MB = 1000 * 1000
FLOOD_S = 5.0              # the flood
FLOOD_CONNECTIONS = 3
FLOOD_MAX_POSTS = 20000    # a bound on the loop whatever the machine's speed


def rejected_body():
    """64 KiB (just under the body limit) that the body checks refuse at
    once: a #version directive, which the harness owns, then comments."""
    head = b"#version 450\n"
    line = b"// " + b"a" * 60 + b"\n"
    n = (64 * 1024 - 64 - len(head)) // len(line)
    return head + line * n


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def call(port, method, path, body=None, headers=None, source=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def metrics(port):
    _, data = call(port, "GET", "/metrics")
    out = {}
    for line in data.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def flood(port, seconds, source=None, max_posts=FLOOD_MAX_POSTS):
    """FLOOD_CONNECTIONS keep-alive connections posting the Rejected body
    as a signed-out client for `seconds` (or max_posts in all). A list of
    (status, answer or None) per post."""
    body = rejected_body()
    deadline = time.monotonic() + seconds
    answers, lock = [], threading.Lock()

    def one():
        conn = None
        while time.monotonic() < deadline:
            with lock:
                if len(answers) >= max_posts:
                    return
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(
                        "127.0.0.1", port, timeout=60,
                        source_address=(source, 0) if source else None)
                conn.request("POST", SUBMIT, body=body, headers={"Content-Type": "text/plain"})
                r = conn.getresponse()
                data = r.read()
                try:
                    v = json.loads(data)
                except ValueError:
                    v = None
                with lock:
                    answers.append((r.status, v))
            except (OSError, http.client.HTTPException):
                if conn:
                    conn.close()
                conn = None
        if conn:
            conn.close()

    threads = [threading.Thread(target=one) for _ in range(FLOOD_CONNECTIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


class World:
    """A server on a fresh store with a roster of one student."""

    def __init__(self, folder, url, psql, *args):
        self.folder, self.url, self.psql = folder, url, psql
        self.db = url[len("sqlite:"):] if url.startswith("sqlite:") else None
        self.log = open(os.path.join(folder, "server-%d.log" % time.monotonic_ns()), "w")
        self.srv = Server(BINARY, "--workers", "1", "--database", url, *args,
                          env={"BUTTERFLY_QUIET": "0"}, log=self.log)
        banner = "".join(self.srv.read_banner())
        self.port = self.srv.port
        # a shared store's later starts print none: make a new one
        m = re.search(r"class\?token=([0-9a-f]+)", banner) or \
            re.search(r"class\?token=([0-9a-f]+)", self.admin("token"))
        self.instructor = m.group(1)
        roster = os.path.join(folder, "roster.csv")
        with open(roster, "w") as f:
            f.write("id,name,section\ns1,Sam One,A\n")
        self.admin("class", "import", roster)
        line = self.admin("links", "--all").splitlines()[1]
        self.token = line.split(",")[2].split("?k=")[1]
        self.base = self.size()

    def admin(self, *args):
        r = subprocess.run([ADMIN, "--database", self.url, *args], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def size(self):
        """The store's bytes as a user would measure them."""
        if self.db:
            return sum(os.path.getsize(p) for p in (self.db, self.db + "-wal")
                       if os.path.exists(p))
        cmd, cwd = self.psql
        out = subprocess.run(cmd + ["-Atc", "SELECT pg_database_size(current_database())"],
                             capture_output=True, text=True, timeout=60, check=True, cwd=cwd)
        return int(out.stdout.strip())

    def student_submits(self):
        st, data = call(self.port, "POST", SUBMIT, sample("correct.glsl"),
                        {"Content-Type": "text/plain", "Authorization": "Bearer " + self.token})
        assert st == 200, (st, data)
        return json.loads(data)

    def close(self):
        self.srv.stop()
        self.log.close()


def honest(answers):
    """Every graded answer says recorded true or false; a false one has
    its code and sentence. The count of each."""
    recorded = refused = 0
    codes = {}
    for st, v in answers:
        if st != 200 or v is None:
            continue
        assert "recorded" in v, v
        if v["recorded"] is True:
            recorded += 1
        else:
            assert v["recorded"] is False, v
            err = v.get("record_error") or {}
            assert err.get("code") and err.get("message"), v
            codes[err["code"]] = codes.get(err["code"], 0) + 1
            refused += 1
    return recorded, refused, codes


def t_flood_keeps_store_small(w):
    answers = flood(w.port, FLOOD_S)
    recorded, refused, codes = honest(answers)
    grew = w.size() - w.base
    print("  flood: %d posts, %d recorded, %d not (%s); the store grew %.2f MB"
          % (len(answers), recorded, refused, codes, grew / MB))
    assert recorded + refused > 0, answers[:3]
    assert grew < 10 * MB, "the store grew %.1f MB" % (grew / MB)
    v = w.student_submits()
    assert v["recorded"] is True, v
    # what a kept flood record holds: the verdict, not the 64 KiB filler;
    # the student's record holds their source whole
    kept = next(v for st, v in answers if st == 200 and v and v["recorded"])
    bearer = {"Authorization": "Bearer " + w.instructor}
    st, data = call(w.port, "GET", "/api/submissions/" + kept["id"], headers=bearer)
    assert st == 200 and json.loads(data)["source"] == "", (st, data[:200])
    st, data = call(w.port, "GET", "/api/submissions/" + v["id"], headers=bearer)
    assert st == 200 and json.loads(data)["source"] == sample("correct.glsl").decode(), data
    # the records refused are counted where an operator looks
    m = metrics(w.port)
    counted = sum(v for k, v in m.items()
                  if k.startswith("butterfly_record_budget_refused_total"))
    assert counted >= codes.get("over_budget", 0) > 0, (codes, counted)
    assert "butterfly_store_bytes" in m and m["butterfly_store_bytes"] > 0, m


def t_store_limit_refuses_anonymous_first(w):
    # several clients (loopback's own addresses), each with a budget of
    # its own, until the store's limit stops them
    limit_refused = 0
    for i in range(2, 40):
        answers = flood(w.port, 30, source="127.0.0.%d" % i, max_posts=60)
        _, _, codes = honest(answers)
        limit_refused += codes.get("store_limit", 0)
        if limit_refused:
            break
    assert limit_refused, "no signed-out record was refused at the store's limit"
    v = w.student_submits()
    assert v["recorded"] is True, v
    _, data = call(w.port, "GET", "/healthz")
    h = json.loads(data)["store"]
    # between two reads of the store's size (STORE_SIZE_POLL_S) the size is
    # estimated from each record's source and verdict, more than SQLite's
    # pages hold: refusals may begin a little below the limit, and the size
    # shown drops back to the store's own at the next read, whenever that
    # comes. So: the store is shown well filled, not to the byte.
    assert h["max_bytes"] == 2 * 1024 * 1024 and h["bytes"] >= h["max_bytes"] // 2, h
    m = metrics(w.port)
    assert m["butterfly_store_max_bytes"] == 2 * 1024 * 1024, m
    assert m['butterfly_records_total{outcome="refused",reason="store_limit"}'] >= limit_refused
    print("  store limit: %d refused past it; the store holds %.2f MB of %.2f MB"
          % (limit_refused, h["bytes"] / MB, h["max_bytes"] / MB))


def t_guest_budget_and_detached(folder, url):
    """An open lab's guest (a name anyone can make) has the same budget,
    and a ?wait=false answer past it says recorded: false too."""
    log = open(os.path.join(folder, "guest.log"), "w")
    srv = Server(BINARY, "--workers", "1", "--database", url, "--guest-records", "2",
                 env={"BUTTERFLY_QUIET": "0"}, log=log)
    try:
        page = {"X-Requested-With": "butterfly"}
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
        conn.request("POST", "/api/session", body=json.dumps({"name": "Flo"}),
                     headers={"Content-Type": "application/json", **page})
        r = conn.getresponse()
        r.read()
        conn.close()
        assert r.status == 200, r.status
        cookie = r.getheader("Set-Cookie").split(";")[0]
        hdr = {"Content-Type": "text/plain", "Cookie": cookie, **page}
        got = []
        for _ in range(2):
            st, data = call(srv.port, "POST", SUBMIT, sample("correct.glsl"), hdr)
            got.append(json.loads(data)["recorded"])
        assert got == [True, True], got
        st, data = call(srv.port, "POST", SUBMIT, sample("correct.glsl"), hdr)
        v = json.loads(data)
        assert st == 200 and v["status"]["id"] == 3, v     # graded all the same
        assert v["recorded"] is False and v["record_error"]["code"] == "over_budget", v
        st, data = call(srv.port, "POST", SUBMIT + "?wait=false", sample("correct.glsl"), hdr)
        assert st == 202, (st, data)
        where = json.loads(data)["url"]
        for _ in range(600):   # at most 60 s
            st, data = call(srv.port, "GET", where, headers={"Cookie": cookie})
            if st != 202:
                break
            time.sleep(0.1)
        v = json.loads(data)
        assert st == 200 and v["recorded"] is False, (st, v)
        assert v["record_error"]["code"] == "over_budget", v
    finally:
        srv.stop()
        log.close()


def run(checks, folder, url, psql):
    w = World(folder, url, psql)
    try:
        checks.run("a signed-out flood keeps the store under 10 MB", t_flood_keeps_store_small, w)
    finally:
        w.close()
    if url.startswith("sqlite:"):
        url = url + ".limit"
    w = World(folder, url, psql, "--store-max-mb", "2")
    try:
        checks.run("past --store-max-mb, signed-out records are refused, students' go in",
                   t_store_limit_refuses_anonymous_first, w)
    finally:
        w.close()
    if url.startswith("sqlite:"):   # an open lab: a store with no roster
        checks.run("a guest's budget, and ?wait=false past it", t_guest_budget_and_detached,
                   folder, "sqlite:" + os.path.join(folder, "lab.sqlite"))


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as d:
        if not PG:
            run(checks, d, "sqlite:" + os.path.join(d, "records.sqlite"), None)
        else:
            from postgres import Cluster, SKIP, server_bindir
            if not server_bindir():
                print("skipped: no PostgreSQL server programs (Debian: postgresql)")
                return SKIP
            with Cluster() as pg:
                psql = pg.cmd("psql", "-h", "127.0.0.1", "-p", str(pg.port), "-U", "butterfly",
                              "-d", pg.db)
                run(checks, d, pg.url, (psql, pg.dir))
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

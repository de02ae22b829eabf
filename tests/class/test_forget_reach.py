#!/usr/bin/env python3
"""butterfly-admin's forget, links --renew and token reach every running
server (issue 31, item 5), which share nothing with the admin but the
store: on SQLite one server, on PostgreSQL (--pg) two instances on one
database of a cluster of the test's own (tests/support/postgres.py).

- forget STUDENT: on every instance the student leaves the live class
  view (a connected /api/class/events stream is told to reload, and
  /api/class/students and the summary's counts lose them) and their
  session ends (their next request is not signed in), without a restart;
- links --renew STUDENT: the session made with the old link ends on every
  instance, the new link signs in;
- token: the instructor's session made with the old token ends on every
  instance, the new token reads the class;
- forget while a run of the student's is being graded (the test builds'
  slow body, tests/hostile/common.py slow_body): the run is not recorded
  when it ends (its answer says "recorded": false, "student_forgotten"),
  no record of theirs is left in the store, and no tile comes back.

The servers read the store's changes every IDENTITY_POLL_MS (defaults.h):
the 2 s promise is that interval plus a read, so what is asserted is the
interval's configuration (at most 1 s), that each change arrives (polled
for up to WAIT_S, a generous bound), and that once an instance says it has
applied the change (/metrics: butterfly_identity_change_seq) the session
is ended there at once. The measured latencies are printed.

usage: test_forget_reach.py SERVER_BINARY ADMIN_BINARY SAMPLES_DIR [--pg]
Exits 77 (skipped) with --pg when PostgreSQL's server programs are missing.
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
sys.path.insert(0, os.path.join(HERE, "..", "http"))      # serverproc, sse
sys.path.insert(0, os.path.join(HERE, "..", "support"))   # postgres
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))   # common.Checks
from common import Checks, slow_body  # noqa: E402
from serverproc import Server  # noqa: E402
from sse import Stream  # noqa: E402

BINARY, ADMIN, SAMPLES = sys.argv[1], sys.argv[2], sys.argv[3]
PG = "--pg" in sys.argv[4:]
SUBMIT = "/api/tasks/butterfly/submissions"
PAGE = {"X-Requested-With": "butterfly"}
WAIT_S = 10   # every change is polled for this long: far past the 2 s promise
# the run in flight while forget runs sleeps this long in its worker: far
# longer than a forget (one transaction) takes, so that the forget is done
# before the run ends on any machine; the test says so if it was not
SLOW_RUN_MS = 8000
DEADLINE_MS = 60000   # the servers' --deadline-ms: well past SLOW_RUN_MS


def defaults_num(name):
    """A bound from the one place it is set (grader/common/defaults.h)."""
    with open(os.path.join(HERE, "..", "..", "grader", "common", "defaults.h")) as f:
        return int(re.search(r"#define %s\s+(\d+)u" % name, f.read()).group(1))


def call(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    hdrs = {}
    for k, v in r.getheaders():
        hdrs.setdefault(k.lower(), v)
        hdrs.setdefault(k.lower() + "s", []).append(v)
    conn.close()
    return r.status, hdrs, data


def cookie_of(hdrs, name="butterfly_session"):
    for sc in hdrs.get("set-cookies", []):
        if sc.startswith(name + "="):
            return sc.split(";")[0]
    return ""


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


class World:
    def __init__(self, folder, url):
        self.folder, self.url = folder, url
        args = ["--workers", "1", "--database", url, "--heartbeat-s", "2",
                "--deadline-ms", str(DEADLINE_MS)]
        self.servers = [Server(BINARY, *args)]
        if PG:
            self.servers.append(Server(BINARY, *args))
        self.token = None
        for line in self.servers[0].read_banner():
            m = re.search(r"/class\?token=([0-9a-f]+)", line)
            if m:
                self.token = m.group(1)
        for srv in self.servers[1:]:
            srv.read_banner()
        assert self.token, "the first server printed no instructor token"
        for srv in self.servers:   # the class is read after the start
            deadline = time.time() + 60
            while self.get(srv, "/api/class/summary")[0] == 503:
                assert time.time() < deadline, "the class never loaded"
                time.sleep(0.05)

    def stop(self):
        for srv in self.servers:
            srv.stop()

    def bearer(self):
        return {"Authorization": "Bearer " + self.token}

    def get(self, srv, path, headers=None):
        return call(srv.port, "GET", path, headers=headers or self.bearer())

    def admin(self, *args):
        r = subprocess.run([ADMIN, "--database", self.url, *args], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout

    def link_cookie(self, srv, token):
        """A personal link's session: the link asks first, the page says yes."""
        st, h, _ = call(srv.port, "GET", "/?k=" + token)
        assert st == 303 and h["location"] == "/?signin=confirm", (st, h)
        pending = cookie_of(h, "butterfly_pending")
        st, _, data = call(srv.port, "GET", "/api/me", headers={"Cookie": pending})
        asked = json.loads(data)["pending"]
        st, h, data = call(srv.port, "POST", "/api/session",
                           json.dumps({"confirm": True, "id": asked["id"]}),
                           {"Content-Type": "application/json", "Cookie": pending, **PAGE})
        assert st == 200, (st, data)
        return cookie_of(h)

    def kind(self, srv, cookie):
        st, _, data = call(srv.port, "GET", "/api/me", headers={"Cookie": cookie})
        assert st == 200, (st, data)
        return json.loads(data)["kind"]

    def applied(self, srv):
        """butterfly_identity_change_seq in srv's /metrics (None: not shown)."""
        _, _, data = call(srv.port, "GET", "/metrics")
        m = re.search(rb"^butterfly_identity_change_seq (\d+)$", data, re.M)
        return int(m.group(1)) if m else None

    def tiles(self, srv):
        st, _, data = self.get(srv, "/api/class/students")
        assert st == 200, (st, data)
        return {t["id"]: t for t in json.loads(data)["students"]}

    def summary(self, srv):
        st, _, data = self.get(srv, "/api/class/summary")
        assert st == 200, (st, data)
        return json.loads(data)


def until(pred, what):
    """Seconds until pred() holds, polled for up to WAIT_S."""
    t0 = time.monotonic()
    while not pred():
        assert time.monotonic() - t0 < WAIT_S, "%s: not within %d s" % (what, WAIT_S)
        time.sleep(0.05)
    return time.monotonic() - t0


def ended_after(pred, t0):
    """Seconds from t0 until pred() holds (polled for up to WAIT_S), None
    when it never did: a figure, the assertion is applied_on's."""
    while not pred():
        if time.monotonic() - t0 > WAIT_S:
            return None
        time.sleep(0.05)
    return time.monotonic() - t0


def applied_on(w, srv, before, ended):
    """srv says (in /metrics) that it applied a change after `before`."""
    until(lambda: w.applied(srv) is not None and w.applied(srv) != before,
          "the change applied on port %d (the session ended after %s s)" % (srv.port, ended))


def t_poll_interval_is_within_the_promise(w):
    poll = defaults_num("IDENTITY_POLL_MS")
    assert 0 < poll <= 1000, "IDENTITY_POLL_MS %d leaves no room in the 2 s promise" % poll
    return "IDENTITY_POLL_MS %d" % poll


def setup_class(w):
    roster = os.path.join(w.folder, "roster.csv")
    with open(roster, "w") as f:
        f.write("id,name,section\nf1,Fay Forgotten,A\nr1,Rae Renewed,A\nk1,Kit Kept,B\n"
                "g1,Gil Graded,B\n")
    w.admin("class", "import", roster)
    links = {}
    for line in w.admin("--public-url", "http://127.0.0.1:1", "links").splitlines()[1:]:
        sid, _, link = line.strip().split(",")
        links[sid] = link.split("?k=")[1]
    return links


def t_forget_reaches_every_view_and_session(w, links):
    first = w.servers[0]
    fay = w.link_cookie(first, links["f1"])
    kit = w.link_cookie(first, links["k1"])
    # each graded on its own instance (with two): both reach both views
    ids = []
    for cookie, srv in ((fay, first), (kit, w.servers[-1])):
        st, _, data = call(srv.port, "POST", SUBMIT, sample("wrong_twiddle_sign.glsl"),
                           {"Content-Type": "text/plain", "Cookie": cookie, **PAGE})
        assert st == 200 and json.loads(data)["recorded"] is True, data
        ids.append(json.loads(data)["id"])
    fay_record = ids[0]
    for srv in w.servers:
        until(lambda: {"f1", "k1"} <= set(w.tiles(srv)), "the tiles on port %d" % srv.port)
        assert w.kind(srv, fay) == "student"
    before = [w.summary(srv) for srv in w.servers]
    seq = [w.applied(srv) for srv in w.servers]
    views = [Stream(srv.port, w.token) for srv in w.servers]
    try:
        for v in views:
            assert v.status == 200 and v.wait_for(lambda b: b"butterfly class events" in b, 5)
        t0 = time.monotonic()
        out = w.admin("forget", "f1")
        assert "forgot f1" in out, out
        figures = []
        for srv, v, b, s0 in zip(w.servers, views, before, seq):
            # the view is told to read the class again, and what it reads
            # has no Fay: no tile, not counted
            assert v.wait_for(lambda body: b"event: reset" in body, WAIT_S) is not None, (
                "the connected view on port %d was not told" % srv.port, v.body[-300:])
            told = time.monotonic() - t0
            until(lambda: "f1" not in w.tiles(srv), "f1's tile on port %d" % srv.port)
            gone = time.monotonic() - t0
            assert "k1" in w.tiles(srv), "a student not forgotten left the view"
            s = w.summary(srv)
            assert s["students"] == b["students"] - 1, (b["students"], s["students"])
            assert s["records"] == b["records"] - 1, (b["records"], s["records"])
            # her session: ended once the instance has applied the change
            applied_on(w, srv, s0, None)
            assert w.kind(srv, fay) == "none", "f1 still signed in on port %d" % srv.port
            st, _, data = call(srv.port, "GET", "/api/me/submissions",
                               headers={"Cookie": fay})
            assert st == 401, (st, data)
            assert w.kind(srv, kit) == "student", "the forget ended another's session"
            # a view reconnecting after her record is told to reload, and
            # no replay sends it
            again = Stream(srv.port, w.token, last_id=fay_record)
            try:
                assert again.wait_for(lambda body: b"event: reset" in body, WAIT_S) is not None
                assert fay_record.encode() not in again.body.split(b"event: reset")[1]
            finally:
                again.close()
            figures.append("port %d: view told in %.2f s, tile gone in %.2f s" % (
                srv.port, told, gone))
        return "; ".join(figures)
    finally:
        for v in views:
            v.close()


def busy(srv):
    """butterfly_workers_busy in srv's /metrics."""
    _, _, data = call(srv.port, "GET", "/metrics")
    return int(re.search(rb"^butterfly_workers_busy (\d+)$", data, re.M).group(1))


def t_forget_while_graded_keeps_no_record(w, links):
    """A run of Gil's in flight (its worker sleeping in the test build's
    hook) while `forget g1` runs: when it ends it is not recorded, and
    says why; nothing of Gil's is in the store or the class view."""
    srv = w.servers[-1]
    gil = w.link_cookie(w.servers[0], links["g1"])
    before = w.summary(srv)
    answer = {}

    def submit():
        answer["at"] = None
        try:
            st, _, data = call(srv.port, "POST", SUBMIT, slow_body(SLOW_RUN_MS, "gil").encode(),
                               {"Content-Type": "text/plain", "Cookie": gil, **PAGE})
            answer["status"], answer["body"] = st, data
        finally:
            answer["at"] = time.monotonic()

    th = threading.Thread(target=submit)
    th.start()
    try:
        until(lambda: busy(srv) == 1, "Gil's run with the worker")
        seq = w.applied(srv)
        out = w.admin("forget", "g1")
        forgot = time.monotonic()
        assert "forgot g1" in out, out
        # the change reaches this instance while the run is still graded
        applied_on(w, srv, seq, None)
    finally:
        th.join(SLOW_RUN_MS / 1000 + 60)
    assert not th.is_alive(), "the slow run was never answered"
    assert answer["at"] > forgot, (
        "the run ended before forget did (SLOW_RUN_MS %d too short for this machine): "
        "nothing was raced" % SLOW_RUN_MS)
    # no tile comes back, "(unknown)" or other, on any instance
    for s in w.servers:
        tiles = w.tiles(s)
        assert "g1" not in tiles, ("Gil's tile came back", tiles.get("g1"))
        assert all(t.get("name") != "(unknown)" for t in tiles.values()), tiles
        assert w.summary(s)["records"] == before["records"], (before, w.summary(s))
    # and no orphan in the store: a second forget finds neither student nor record
    r = subprocess.run([ADMIN, "--database", w.url, "forget", "g1"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0 and "no record" in (r.stdout + r.stderr), (r.stdout, r.stderr)
    assert answer.get("status") == 200, answer
    got = json.loads(answer["body"])
    said = {k: got.get(k) for k in ("id", "recorded", "record_error")}
    assert got["recorded"] is False, said
    assert got["record_error"]["code"] == "student_forgotten", said
    assert "not recorded" in got["record_error"]["message"], said
    return "forget done %.2f s before the run's answer" % (answer["at"] - forgot)


def t_renew_ends_the_old_session_everywhere(w, links):
    first = w.servers[0]
    rae = w.link_cookie(first, links["r1"])
    for srv in w.servers:
        assert w.kind(srv, rae) == "student"
    seq = [w.applied(srv) for srv in w.servers]
    t0 = time.monotonic()
    line = w.admin("--public-url", "http://127.0.0.1:1", "links", "--renew",
                   "r1").splitlines()[1].strip()
    new = line.split("?k=")[1]
    figures = []
    for srv, s0 in zip(w.servers, seq):
        ended = ended_after(lambda: w.kind(srv, rae) == "none", t0)
        applied_on(w, srv, s0, ended)
        assert w.kind(srv, rae) == "none", "the old link's session goes on at port %d" % (
            srv.port)
        figures.append("port %d: %s s" % (srv.port, ended and "%.2f" % ended))
    # the new link signs in, on every instance
    fresh = w.link_cookie(w.servers[-1], new)
    for srv in w.servers:
        assert w.kind(srv, fresh) == "student"
    return "old session ended: " + "; ".join(figures)


def t_token_ends_the_old_session_everywhere(w):
    first = w.servers[0]
    st, h, _ = call(first.port, "GET", "/class?token=" + w.token)
    assert st == 303, st
    teacher = {"Cookie": cookie_of(h)}
    for srv in w.servers:
        assert w.get(srv, "/api/class/students", teacher)[0] == 200
    seq = [w.applied(srv) for srv in w.servers]
    t0 = time.monotonic()
    out = w.admin("--public-url", "http://127.0.0.1:1", "token")
    w.token = re.search(r"token=([0-9a-f]+)", out).group(1)
    figures = []
    for srv, s0 in zip(w.servers, seq):
        ended = ended_after(lambda: w.get(srv, "/api/class/students", teacher)[0] == 401, t0)
        applied_on(w, srv, s0, ended)
        st, _, _ = w.get(srv, "/api/class/students", teacher)
        assert st == 401, ("the old token's session goes on at port %d" % srv.port, st)
        figures.append("port %d: %s s" % (srv.port, ended and "%.2f" % ended))
        assert w.get(srv, "/api/class/students")[0] == 200, "the new token does not read"
    return "old session ended: " + "; ".join(figures)


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as folder:
        if PG:
            from postgres import SKIP, Cluster, server_bindir
            if not server_bindir():
                print("skipped: needs PostgreSQL's server programs")
                return SKIP
            pg = Cluster()
            pg.__enter__()
            url = pg.url
        else:
            pg = None
            url = "sqlite:" + os.path.join(folder, "records.sqlite")
        try:
            w = World(folder, url)
            try:
                checks.run("the poll's interval is within the 2 s promise",
                           t_poll_interval_is_within_the_promise, w)
                links = setup_class(w)
                checks.run("forget reaches every view and session",
                           t_forget_reaches_every_view_and_session, w, links)
                checks.run("a run graded while forget runs keeps no record",
                           t_forget_while_graded_keeps_no_record, w, links)
                checks.run("links --renew ends the old session everywhere",
                           t_renew_ends_the_old_session_everywhere, w, links)
                checks.run("token ends the old session everywhere",
                           t_token_ends_the_old_session_everywhere, w)
            finally:
                w.stop()
        finally:
            if pg:
                pg.__exit__(None, None, None)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

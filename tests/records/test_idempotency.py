#!/usr/bin/env python3
"""Issue 31 items 3 and 6: no run recorded as nobody's by mistake, and a
retried POST is one record.

usage: test_idempotency.py SERVER_BINARY SAMPLES_DIR ADMIN_BINARY [--pg]

Checked as a student (or nginx retrying for them) would see it, and in
the store itself (a count of its records):

- a browser whose personal link's sign-in waits for "Sign in as NAME?"
  is refused a run (409 sign_in_pending) and nothing is kept; once it
  answers, the run is the student's;
- the same Idempotency-Key and body twice: one record, and the second
  answer is the first's (same status, same bytes) with
  Idempotent-Replayed: true;
- the same key with another body: 422 idempotency_key_reused, nothing kept;
- the same key from another student: their own record, never the first's;
- the same key sent several times at once: one record, and every answer
  is that record's or a 409 idempotency_key_in_use;
- the key still holds after a restart (the keys are in the store);
- keys of the wrong shape are 400, and without a key two posts are two
  records, as before.

With --pg the store is a PostgreSQL cluster of the test's own
(tests/support/postgres.py) shared by two instances: the same key sent to
both at once is one record, and each instance replays what the other
recorded.
"""
import http.client
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from common import Checks  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES, ADMIN = sys.argv[1], sys.argv[2], sys.argv[3]
PG = "--pg" in sys.argv[4:]
SUBMIT = "/api/tasks/butterfly/submissions"
PAGE_HEADER = {"X-Requested-With": "butterfly"}
KEY = "Idempotency-Key"
AT_ONCE = 6          # same-key posts sent together


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def call(port, method, path, body=None, headers=None):
    """(status, headers with lower-case names, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        hdrs = {"set-cookies": []}
        for k, v in r.getheaders():
            hdrs.setdefault(k.lower(), v)
            if k.lower() == "set-cookie":
                hdrs["set-cookies"].append(v)
        return r.status, hdrs, data
    finally:
        conn.close()


def submit(port, token=None, key=None, body=None, cookie=None, query=""):
    headers = {"Content-Type": "text/plain"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if cookie:
        headers["Cookie"] = cookie
        headers.update(PAGE_HEADER)
    if key is not None:
        headers[KEY] = key
    return call(port, "POST", SUBMIT + query, body or sample("correct.glsl"), headers)


def cookie_of(hdrs, name):
    for sc in hdrs["set-cookies"]:
        if sc.startswith(name + "="):
            return sc.split(";")[0]
    return ""


def short(data):
    """An answer cut for an assertion's message: a verdict is kilobytes."""
    return data[:160] if isinstance(data, (bytes, str)) else data


def error_code(data):
    try:
        return json.loads(data)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


class World:
    """The store, a roster of three students, and one or two servers on it."""

    def __init__(self, folder, url, psql):
        self.folder, self.url, self.psql = folder, url, psql
        self.logs = []
        self.servers = [self.start()]
        roster = os.path.join(folder, "roster.csv")
        with open(roster, "w") as f:
            f.write("id,name,section\ns1,Sam One,A\ns2,Sue Two,A\ns3,Pat Three,B\n")
        self.admin("class", "import", roster)
        self.tokens = {}
        for line in self.admin("links", "--all").splitlines()[1:]:
            sid, _, link = line.strip().split(",")
            self.tokens[sid] = link.split("?k=")[1]
        if psql:   # a second instance on the same store
            self.servers.append(self.start())

    def start(self):
        log = open(os.path.join(self.folder, "server-%d.log" % len(self.logs)), "w")
        self.logs.append(log)
        return Server(BINARY, "--workers", "1", "--database", self.url,
                      env={"BUTTERFLY_QUIET": "0"}, log=log)

    @property
    def port(self):
        return self.servers[0].port

    def admin(self, *args):
        r = subprocess.run([ADMIN, "--database", self.url, *args], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def records(self):
        """How many records the store holds, read from the store itself."""
        if not self.psql:
            db = sqlite3.connect("file:%s?mode=ro" % self.url[len("sqlite:"):], uri=True)
            try:
                return db.execute("SELECT count(*) FROM records").fetchone()[0]
            finally:
                db.close()
        cmd, cwd = self.psql
        out = subprocess.run(cmd + ["-Atc", "SELECT count(*) FROM records"],
                             capture_output=True, text=True, timeout=60, check=True, cwd=cwd)
        return int(out.stdout.strip())

    def restart(self, i=0):
        # a clean stop (0), which a sanitizer's report at exit would not be
        assert self.servers[i].stop() == 0, "the server did not stop cleanly"
        self.servers[i] = self.start()

    def close(self):
        codes = [s.stop() for s in self.servers]
        for log in self.logs:
            log.close()
        assert codes == [0] * len(codes), codes


# --- item 3: a pending sign-in -------------------------------------------------

def t_pending_sign_in_refused(w):
    st, h, _ = call(w.port, "GET", "/?k=" + w.tokens["s3"])
    assert st == 303 and h["location"] == "/?signin=confirm", (st, h)
    pending = cookie_of(h, "butterfly_pending")
    assert pending, h
    before = w.records()
    st, _, data = submit(w.port, cookie=pending)
    assert st == 409 and error_code(data) == "sign_in_pending", (st, short(data))
    assert "Sign in as" in json.loads(data)["error"]["message"], data
    st, _, data = submit(w.port, cookie=pending, query="?wait=false")
    assert st == 409 and error_code(data) == "sign_in_pending", (st, short(data))
    assert w.records() == before, "a refused run was kept"
    # the page's yes: the run is the student's now
    st, _, data = call(w.port, "GET", "/api/me", headers={"Cookie": pending})
    asked = json.loads(data)["pending"]
    st, h, data = call(w.port, "POST", "/api/session",
                       json.dumps({"confirm": True, "id": asked["id"]}),
                       {"Content-Type": "application/json", "Cookie": pending, **PAGE_HEADER})
    assert st == 200, (st, short(data))
    session = cookie_of(h, "butterfly_session")
    st, _, data = submit(w.port, cookie=session)
    assert st == 200 and json.loads(data)["recorded"] is True, (st, short(data))
    rid = json.loads(data)["id"]
    st, _, data = call(w.port, "GET", "/api/me/submissions", headers={"Cookie": session})
    assert [x["id"] for x in json.loads(data)["submissions"]] == [rid], data
    assert w.records() == before + 1


def t_signed_out_without_pending_as_before(w):
    """No pending cookie, no session: graded and kept as nobody's, as before."""
    before = w.records()
    st, _, data = submit(w.port)
    assert st == 200, (st, short(data))
    assert w.records() == before + 1


# --- item 6: Idempotency-Key ------------------------------------------------------

def t_same_key_one_record(w):
    key = str(uuid.uuid4())
    before = w.records()
    st1, h1, d1 = submit(w.port, w.tokens["s1"], key)
    assert st1 == 200 and json.loads(d1)["recorded"] is True, (st1, short(d1))
    assert "idempotent-replayed" not in h1, h1
    st2, h2, d2 = submit(w.port, w.tokens["s1"], key)
    assert (st2, d2) == (st1, d1), (st2, short(d2), short(d1))
    assert h2.get("idempotent-replayed") == "true", h2
    assert w.records() == before + 1
    st, _, data = call(w.port, "GET", "/api/me/submissions",
                       headers={"Authorization": "Bearer " + w.tokens["s1"]})
    ids = [x["id"] for x in json.loads(data)["submissions"]]
    assert ids.count(json.loads(d1)["id"]) == 1, ids
    # a wrong answer replays as itself too (its status and its bytes)
    key = str(uuid.uuid4())
    st1, _, d1 = submit(w.port, w.tokens["s1"], key, sample("wrong_swapped_planes.glsl"))
    st2, h2, d2 = submit(w.port, w.tokens["s1"], key, sample("wrong_swapped_planes.glsl"))
    assert st1 == 200 and (st2, d2) == (st1, d1) and h2.get("idempotent-replayed") == "true"
    assert json.loads(d1)["status"]["id"] == 4, short(d1)
    return "replayed %s" % json.loads(d1)["id"][:8]


def t_other_body_same_key_422(w):
    key = str(uuid.uuid4())
    st, _, d1 = submit(w.port, w.tokens["s1"], key)
    assert st == 200, (st, short(d1))
    before = w.records()
    st, h, data = submit(w.port, w.tokens["s1"], key, sample("wrong_twiddle_sign.glsl"))
    assert st == 422 and error_code(data) == "idempotency_key_reused", (st, short(data))
    assert w.records() == before, "a body refused was kept"
    # and the key still answers its own body
    st, h, d2 = submit(w.port, w.tokens["s1"], key)
    assert st == 200 and d2 == d1 and h.get("idempotent-replayed") == "true"


def t_key_is_per_student(w):
    key = str(uuid.uuid4())
    _, _, d1 = submit(w.port, w.tokens["s1"], key)
    before = w.records()
    st, h, d2 = submit(w.port, w.tokens["s2"], key)
    assert st == 200 and "idempotent-replayed" not in h, (st, h)
    v1, v2 = json.loads(d1), json.loads(d2)
    assert v2["id"] != v1["id"] and v2["recorded"] is True, (v1["id"], v2["id"])
    assert w.records() == before + 1
    # Sue's record is Sue's; Sam's stays out of her reach
    st, _, _ = call(w.port, "GET", "/api/submissions/" + v1["id"],
                    headers={"Authorization": "Bearer " + w.tokens["s2"]})
    assert st == 404, st


def at_once(ports, token, key, n=AT_ONCE):
    """n posts with one key, released together, spread over ports."""
    out = [None] * n
    gate = threading.Barrier(n)

    def one(i):
        gate.wait(timeout=30)
        out[i] = submit(ports[i % len(ports)], token, key)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert all(not t.is_alive() for t in threads), "an answer never came"
    return out


REPLAYED = 'butterfly_records_total{outcome="replayed",reason="idempotency_key"}'


def metric(port, name):
    _, _, data = call(port, "GET", "/metrics")
    for line in data.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError("no metric " + name)


def t_concurrent_same_key_one_record(w):
    ports = [s.port for s in w.servers]
    key = str(uuid.uuid4())
    before = w.records()
    replays = [metric(p, REPLAYED) for p in ports]
    answers = at_once(ports, w.tokens["s3"], key)
    ok = [(st, d) for st, _, d in answers if st == 200]
    busy = [d for st, _, d in answers if st == 409]
    assert all(h.get("retry-after") for st, h, _ in answers if st == 409), answers
    other = [(st, d) for st, _, d in answers if st not in (200, 409)]
    assert not other, [(st, short(d)) for st, d in other]
    assert all(error_code(d) == "idempotency_key_in_use" for d in busy), busy
    assert ok, [(st, short(d)) for st, _, d in answers]
    ids = {json.loads(d)["id"] for _, d in ok}
    assert len(ids) == 1, ids
    assert all(json.loads(d)["recorded"] is True for _, d in ok)
    assert w.records() == before + 1, (w.records(), before)
    # how many were graded and then found the key taken (a figure, not a
    # check: how the posts interleave is the machine's)
    replayed = sum(metric(p, REPLAYED) - r for p, r in zip(ports, replays))
    # once graded, every instance answers the one record
    for p in ports:
        st, h, d = submit(p, w.tokens["s3"], key)
        assert st == 200 and json.loads(d)["id"] in ids, (st, short(d))
        assert h.get("idempotent-replayed") == "true", h
    assert w.records() == before + 1
    return "%d answered, %d told 409, over %d instance(s); %d graded, found the key taken" % (
        len(ok), len(busy), len(ports), replayed)


def t_key_survives_restart(w):
    key = str(uuid.uuid4())
    st, _, d1 = submit(w.port, w.tokens["s2"], key)
    assert st == 200, (st, short(d1))
    before = w.records()
    w.restart(0)
    st, h, d2 = submit(w.port, w.tokens["s2"], key)
    assert st == 200 and d2 == d1 and h.get("idempotent-replayed") == "true", (st, h, short(d2))
    if len(w.servers) > 1:   # and the other instance, which never saw it sent
        st, h, d3 = submit(w.servers[1].port, w.tokens["s2"], key)
        assert st == 200 and d3 == d1 and h.get("idempotent-replayed") == "true"
    assert w.records() == before


def t_bad_keys_400(w):
    before = w.records()
    for key in ("", "a" * 256, "has space", "semi;colon", "quote\"", "caf\u00e9".encode()):
        st, _, data = submit(w.port, w.tokens["s1"], key)
        assert st == 400 and error_code(data) == "bad_request", (key, st, short(data))
    st, _, data = submit(w.port, w.tokens["s1"], "a" * 255)
    assert st == 200, (st, short(data))
    st, _, data = submit(w.port, w.tokens["s1"], str(uuid.uuid4()), query="?wait=false")
    assert st == 400 and error_code(data) == "bad_request", (st, short(data))
    assert w.records() == before + 1


def t_without_key_as_before(w):
    before = w.records()
    a = json.loads(submit(w.port, w.tokens["s1"])[2])
    b = json.loads(submit(w.port, w.tokens["s1"])[2])
    assert a["id"] != b["id"] and a["recorded"] and b["recorded"]
    assert w.records() == before + 2


def t_signed_out_key_by_address(w):
    """A client signed in as nobody has its address as its scope."""
    key = str(uuid.uuid4())
    before = w.records()
    st1, _, d1 = submit(w.port, key=key)
    st2, h2, d2 = submit(w.port, key=key)
    assert st1 == 200 and (st2, d2) == (st1, d1) and h2.get("idempotent-replayed") == "true"
    # the same key from a student is not that anonymous record
    st3, h3, d3 = submit(w.port, w.tokens["s1"], key)
    assert st3 == 200 and json.loads(d3)["id"] != json.loads(d1)["id"]
    assert w.records() == before + 2


CHECKS = [
    ("a pending sign-in's run is refused, nothing kept", t_pending_sign_in_refused),
    ("signed out without a pending link: as before", t_signed_out_without_pending_as_before),
    ("the same key twice is one record, one answer", t_same_key_one_record),
    ("the same key with another body is 422", t_other_body_same_key_422),
    ("a key is one student's", t_key_is_per_student),
    ("the same key at once is one record", t_concurrent_same_key_one_record),
    ("a key holds across a restart", t_key_survives_restart),
    ("keys of the wrong shape are 400", t_bad_keys_400),
    ("without a key, two posts are two records", t_without_key_as_before),
    ("a signed-out client's key is its address's", t_signed_out_key_by_address),
]


def run(checks, folder, url, psql):
    w = World(folder, url, psql)
    try:
        for name, fn in CHECKS:
            checks.run(name, fn, w)
    finally:
        checks.run("every instance stops cleanly", w.close)


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

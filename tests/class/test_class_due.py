#!/usr/bin/env python3
"""test_class_due.py - a roster class's due date (butterfly-admin class
due): what an instructor checks after setting one in the past.

usage: test_class_due.py SERVER_BINARY SAMPLES ADMIN_BINARY BATCH_BINARY [--pg]

On a SQLite store, or with --pg on a PostgreSQL cluster of the test's own
(tests/support/postgres.py; exits 77, skipped, without PostgreSQL's server
programs): the late mark is made by the insert's SQL on either backend.

A roster of two, signed in by their personal links. Sam submits a wrong
kernel before any due date; then `class due` sets one in the past, on
the running server's store (no restart): Sam's correct kernel and Sue's
are late in the student's own records, in /api/class/* (the attempt,
the tile, the summary's count) and in every gradebook download (the
default layout's late and best_on_time, Canvas's and Moodle's score as
--late-policy says), and each download is butterfly-batch
--from-database's file from the same store with the same policy. A
server restarted with --late-policy penalty:50% gives the scores that
policy says, still the batch's bytes. `class due --clear`: the next
attempt is on time. Prints one line per check.
"""
import csv
import http.client
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))  # serverproc
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))   # postgres
from common import Checks  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES, ADMIN, BATCH = sys.argv[1:5]
PG = "--pg" in sys.argv[5:]
SUBMIT = "/api/tasks/butterfly/submissions"
PAGE = {"X-Requested-With": "butterfly"}
LAYOUTS = {"default": "gradebook.csv", "canvas": "gradebook-canvas.csv",
           "moodle": "gradebook-moodle.csv"}
PAST = "2001-02-03T04:05:06Z"


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def call(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    cookies = [v for k, v in r.getheaders() if k.lower() == "set-cookie"]
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    hdrs["set-cookies"] = cookies
    conn.close()
    return r.status, hdrs, data


def cookie(hdrs, name):
    for sc in hdrs["set-cookies"]:
        if sc.startswith(name + "="):
            return sc.split(";")[0]
    return ""


class World:
    def __init__(self, folder, url):
        self.folder = folder
        self.url = url
        self.srv = None
        self.start()

    def start(self, *extra):
        self.srv = Server(BINARY, "--workers", "1", "--database", self.url, *extra,
                          env={"BUTTERFLY_QUIET": "0"})
        token = None
        for line in self.srv.read_banner():
            m = re.search(r"/class\?token=([0-9a-f]+)", line)
            if m:
                token = m.group(1)
        # a restart keeps the token (the banner then names none)
        assert token or getattr(self, "bearer", None), "no instructor token in the banner"
        self.port = self.srv.port
        if token:
            self.bearer = {"Authorization": "Bearer " + token}
        deadline = time.time() + 60
        while call(self.port, "GET", "/api/class/summary", headers=self.bearer)[0] == 503:
            assert time.time() < deadline, "the class never loaded"
            time.sleep(0.05)

    def stop(self):
        self.srv.stop()

    def admin(self, *args, code=0):
        r = subprocess.run([ADMIN, "--database", self.url, "--public-url", self.srv.url, *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
        return r.stdout

    def sign_in(self, token):
        """A personal link, then the page's "yes": the session cookie."""
        st, h, _ = call(self.port, "GET", "/?k=" + token)
        assert st == 303, (st, h)
        pending = cookie(h, "butterfly_pending")
        st, _, data = call(self.port, "GET", "/api/me", headers={"Cookie": pending})
        asked = json.loads(data)["pending"]
        st, h, data = call(self.port, "POST", "/api/session",
                           json.dumps({"confirm": True, "id": asked["id"]}),
                           {"Content-Type": "application/json", "Cookie": pending, **PAGE})
        assert st == 200, (st, data)
        return cookie(h, "butterfly_session")

    def submit(self, who, name):
        st, _, data = call(self.port, "POST", SUBMIT, sample(name),
                           {"Content-Type": "text/plain", "Cookie": who, **PAGE})
        assert st == 200, data
        v = json.loads(data)
        assert v["recorded"] is True, v
        return v

    def tiles(self, attempts):
        """The tiles once the view has learnt of `attempts` records in all
        (it learns after the commit, on its own thread: a moment's lag)."""
        deadline = time.time() + 10
        while True:
            st, _, data = call(self.port, "GET", "/api/class/students", headers=self.bearer)
            assert st == 200, data
            tiles = {t["id"]: t for t in json.loads(data)["students"]}
            if sum(t["attempts"] for t in tiles.values()) >= attempts:
                return tiles
            assert time.time() < deadline, tiles
            time.sleep(0.05)

    def download(self, layout):
        st, h, data = call(self.port, "GET", "/api/class/gradebook?layout=" + layout,
                           headers=self.bearer)
        assert st == 200, (layout, st, data[:300])
        return data

    def batch(self, layout, *extra):
        with tempfile.TemporaryDirectory() as out:
            args = [BATCH, "--from-database", self.url, "--quiet", "-o", out, *extra]
            if layout != "default":
                args += ["--gradebook", layout]
            r = subprocess.run(args, capture_output=True, timeout=120)
            assert r.returncode == 0, (layout, r.returncode, r.stderr.decode())
            with open(os.path.join(out, LAYOUTS[layout]), "rb") as f:
                return f.read()


def rows_of(data, key):
    return {r[key]: r for r in csv.DictReader(io.StringIO(data.decode("utf-8-sig")))}


def canvas_score(row):
    cols = [k for k in row if k not in ("Student", "ID", "SIS User ID", "SIS Login ID",
                                         "Section")]
    return row[cols[0]] if cols else None


# --- checks -----------------------------------------------------------------

def t_setup(w):
    roster = os.path.join(w.folder, "roster.csv")
    with open(roster, "w") as f:
        f.write("id,name,section\ns1,Sam One,A\ns2,Sue Two,B\n")
    w.admin("class", "import", roster)
    links = dict((l.split(",")[0], l.split("?k=")[1])
                 for l in w.admin("links").splitlines()[1:])
    w.sam, w.sue = w.sign_in(links["s1"]), w.sign_in(links["s2"])
    assert w.admin("class", "due") == "due: none\n"
    w.wrong = w.submit(w.sam, "wrong_twiddle_sign.glsl")
    return "a roster of two; Sam's wrong attempt before any due date"


def t_due_marks_new_attempts(w):
    out = w.admin("class", "due", PAST)
    assert out == "due: 2001-02-03T04:05:06Z\n", out
    # a date without a zone, or none at all: refused, the date kept
    for bad in ("2001-02-03T04:05:06", "tomorrow", ""):
        w.admin("class", "due", bad, code=64)
    w.admin("class", "due", PAST, "--clear", code=64)
    assert w.admin("class", "due") == out
    w.right = w.submit(w.sam, "correct.glsl")
    w.sue_right = w.submit(w.sue, "correct.glsl")
    # the student's own records
    st, _, data = call(w.port, "GET", "/api/me/submissions", headers={"Cookie": w.sam})
    assert st == 200, data
    items = {x["id"]: x for x in json.loads(data)["submissions"]}
    assert items[w.right["id"]]["late"] is True, items
    assert items[w.wrong["id"]]["late"] is False, items
    st, _, data = call(w.port, "GET", "/api/submissions/" + w.right["id"],
                       headers={"Cookie": w.sam})
    assert st == 200 and json.loads(data)["late"] is True, data[:300]
    # the student's data as butterfly-admin export gives it
    exported = {r["id"]: r["late"] for r in json.loads(w.admin("export", "s1"))["records"]}
    assert exported == {w.wrong["id"]: False, w.right["id"]: True}, exported
    return "the attempts after it are late in the student's records and export; not the one before"


def t_class_view(w):
    tiles = w.tiles(3)
    assert tiles["s1"]["late"] == 1 and tiles["s2"]["late"] == 1, tiles
    st, _, data = call(w.port, "GET", "/api/class/summary", headers=w.bearer)
    s = json.loads(data)
    assert s["late"] == 2 and s["records"] == 3, s
    st, _, data = call(w.port, "GET", "/api/class/students/s1", headers=w.bearer)
    a = {x["id"]: x["late"] for x in json.loads(data)["attempts"]}
    assert a == {w.wrong["id"]: False, w.right["id"]: True}, a
    st, _, data = call(w.port, "GET", "/api/class/gradebook.csv", headers=w.bearer)
    rows = rows_of(data, "student_id")
    assert rows["s1"]["late"] == "1" and rows["s2"]["late"] == "1", rows
    # a view reading the class afresh (a restart loads it from the store)
    w.stop()
    w.start()
    tiles = w.tiles(3)
    assert tiles["s1"]["late"] == 1 and tiles["s2"]["late"] == 1, tiles
    return "the tiles, the attempts, the summary's count, its CSV; again after a restart"


def t_gradebooks(w):
    got = {}
    for layout in LAYOUTS:
        data = w.download(layout)
        want = w.batch(layout)
        assert data == want, (layout, data.decode(errors="replace")[:800],
                              want.decode(errors="replace")[:800])
        got[layout] = data
    rows = rows_of(got["default"], "id")
    sam, sue = rows["s1"], rows["s2"]
    assert sam["score"] == "9" and sam["late"] == "1", sam
    wrong_points = sam["best_on_time"]
    assert wrong_points and 0 < int(wrong_points) < 9, sam
    assert sue["score"] == "9" and sue["late"] == "1" and sue["best_on_time"] == "", sue
    # --late-policy none (the default): never above the best on time
    moodle = rows_of(got["moodle"], "Identifier")
    assert moodle["s1"]["Grade"] == wrong_points and moodle["s2"]["Grade"] == "0", moodle
    canvas = rows_of(got["canvas"], "ID")
    assert canvas_score(canvas["s1"]) == wrong_points, canvas["s1"]
    assert canvas_score(canvas["s2"]) == "0", canvas["s2"]
    w.wrong_points = wrong_points
    return "each download is the batch's file; Sam's score stays at %s on time" % wrong_points


def t_penalty_policy(w):
    w.stop()
    w.start("--late-policy", "penalty:50%")
    for layout in ("canvas", "moodle"):
        data = w.download(layout)
        want = w.batch(layout, "--late-policy", "penalty:50%")
        assert data == want, (layout, data.decode(errors="replace")[:800],
                              want.decode(errors="replace")[:800])
    moodle = rows_of(w.download("moodle"), "Identifier")
    # Sam: max(on time, 9 less 50%) = 4.5 unless the wrong attempt had more
    sam = max(float(w.wrong_points), 4.5)
    assert float(moodle["s1"]["Grade"]) == sam and moodle["s2"]["Grade"] == "4.5", moodle
    return "penalty:50%%: Sam %s, Sue 4.5, as the batch writes them" % moodle["s1"]["Grade"]


def t_clear(w):
    assert w.admin("class", "due", "--clear") == "due: none\n"
    again = w.submit(w.sue, "correct.glsl")
    st, _, data = call(w.port, "GET", "/api/me/submissions", headers={"Cookie": w.sue})
    items = {x["id"]: x["late"] for x in json.loads(data)["submissions"]}
    assert items[again["id"]] is False and items[w.sue_right["id"]] is True, items
    w.tiles(4)
    rows = rows_of(w.download("default"), "id")
    assert rows["s2"]["late"] == "1" and rows["s2"]["best_on_time"] == "9", rows["s2"]
    return "cleared: the next attempt is on time; the late one keeps its mark"


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as d:
        pg = None
        if PG:
            from postgres import SKIP, Cluster, server_bindir
            if not server_bindir():
                print("skipped: needs PostgreSQL's server programs")
                return SKIP
            pg = Cluster()
            pg.__enter__()
        try:
            w = World(d, pg.url if pg else "sqlite:" + os.path.join(d, "records.sqlite"))
        except BaseException:
            if pg:
                pg.__exit__(None, None, None)
            raise
        try:
            for name, fn in [
                ("a roster class, an attempt before any due date", t_setup),
                ("class due in the past: new attempts are late in records", t_due_marks_new_attempts),
                ("the class view shows and counts them", t_class_view),
                ("every gradebook: late, best on time, the batch's bytes", t_gradebooks),
                ("--late-policy penalty:50%: the server's and the batch's", t_penalty_policy),
                ("class due --clear", t_clear),
            ]:
                checks.run(name, fn, w)
        finally:
            w.stop()
            if pg:
                pg.__exit__(None, None, None)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

"""Issue 34, item 6 (part): due dates from the launch, and the late policy.

A resource link's due date comes from the launch's custom parameter
due_at (ISO 8601; Canvas fills it from $Canvas.assignment.dueAt.iso8601).
One student makes an on-time 3/9 (the link due tomorrow), then the
platform moves the due date to yesterday and the student makes a late
9/9. With --late-policy none the gradebook keeps 3 (the late attempt is
kept, never scored above the best on time), accept sends 9, penalty:50%
sends max(3, 4.5) = 4.5. The late attempt is marked late in the records
(records.late), the on-time one is not. A due_at the tool cannot read
(Canvas's substitution left unmade) is no due date.

usage: test_lti_due.py BUTTERFLY_SERVER SAMPLES [DATABASE_URL]
(run with /usr/bin/python3; SQLite in a temporary folder unless a URL is
given: the lti_pg suite gives a PostgreSQL cluster's, which the three
runs share, each with a platform of its own)
"""
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import AGS, CLAIM, SCORE_SCOPE, Platform  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
PG = sys.argv[3] if len(sys.argv) > 3 else None
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def wait_for(cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


def submit(b, url, name):
    h = {"Content-Type": "text/plain", "X-Requested-With": "butterfly"}
    st, _, body = b.go("POST", url + "/api/tasks/butterfly/submissions", sample(name), h)
    try:
        return st, json.loads(body)
    except ValueError:
        return st, {}


def iso(days):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)
    return t.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def records_of(database, issuer):
    """(points, late) of the records of the platform's students, oldest first."""
    sql = ("SELECT r.points, r.late FROM records r JOIN lti_users u ON u.student = r.student "
           "WHERE u.issuer = '%s' ORDER BY r.received_ms" % issuer.replace("'", "''"))
    if database.startswith("sqlite:"):
        with sqlite3.connect(database[len("sqlite:"):]) as c:
            return c.execute(sql).fetchall()
    out = subprocess.run(["psql", "-qAt", "-F", ",", database, "-c", sql], capture_output=True,
                         text=True, timeout=30).stdout
    return [tuple(int(x) for x in line.split(",")) for line in out.split()]


def run(policy, want):
    plat = Platform()
    plat.users.update({"s-1", "s-2"})
    folder = tempfile.mkdtemp(prefix="lti-due-")
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    plat.tool_jwks_url = url + "/lti/jwks.json"
    config = os.path.join(folder, "lti.json")
    with open(config, "w") as f:
        json.dump({"platforms": [plat.registration()]}, f)
    db = PG or "sqlite:" + os.path.join(folder, "r.sqlite")
    args = ["--port", str(port), "--database", db, "--public-url", url,
            "--lti-config", config, "--workers", "1"]
    if policy:
        args += ["--late-policy", policy]
    srv = Server(BINARY, *args)
    LI = plat.url + "/lineitems/3"

    def claims(due):
        return {CLAIM + "resource_link": {"id": "hw-1"},
                CLAIM + "custom": {"due_at": due},
                AGS: {"scope": [SCORE_SCOPE], "lineitem": LI}}

    def got():
        return [s for li, s in plat.received if li == LI and s["userId"] == "s-1"]

    name = policy or "none (the default)"
    try:
        srv.read_banner()
        b = Browser(url)
        st, _, _ = b.launch(plat, sub="s-1", extra=claims(iso(1)))
        s1, v1 = submit(b, url, "wrong_twiddle_sign.glsl")
        check(st == 303 and s1 == 200 and v1.get("recorded") is True,
              "%s: an on-time attempt (3/9), recorded (%s)" % (name, s1))
        check(wait_for(lambda: got(), 30) and got()[-1]["scoreGiven"] == 3,
              "%s: the gradebook gets 3" % name)
        n = len(got())
        # the platform moves the due date to yesterday: the next attempt is late
        st, _, _ = b.launch(plat, sub="s-1", extra=claims(iso(-1)))
        s2, v2 = submit(b, url, "correct.glsl")
        check(st == 303 and s2 == 200 and v2.get("recorded") is True,
              "%s: a late attempt (9/9), recorded (%s)" % (name, s2))
        check(wait_for(lambda: len(got()) > n, 30), "%s: its score is sent" % name)
        last = (got() or [{}])[-1]
        check(last.get("scoreGiven") == want and last.get("scoreMaximum") == 9,
              "%s: the gradebook gets %s after the late 9/9: %s"
              % (name, want, last.get("scoreGiven")))
        rows = records_of(db, plat.issuer)
        check(rows == [(3, 0), (9, 1)], "%s: the records say the 9/9 is late, the 3/9 not: %s"
              % (name, rows))
        if policy == "accept":
            # the due date is each student's own (Canvas's overrides): another
            # student's launch due tomorrow is on time, whatever s-1's says
            other = Browser(url)
            st, _, _ = other.launch(plat, sub="s-2", extra=claims(iso(1)))
            s4, _ = submit(other, url, "correct.glsl")
            rows = records_of(db, plat.issuer)
            check(st == 303 and s4 == 200 and rows[-1] == (9, 0),
                  "another student's own due date (tomorrow) keeps their attempt on time: %s"
                  % rows)
            # the link's exercise (custom exercise): one the tool has is the
            # butterfly's page; one it does not have refuses the launch, saying why
            ex = {CLAIM + "resource_link": {"id": "hw-1"}, AGS: {"scope": [SCORE_SCOPE],
                                                             "lineitem": LI}}
            ex[CLAIM + "custom"] = {"exercise": "butterfly"}
            st, h, _ = Browser(url).launch(plat, sub="s-2", extra=ex)
            check(st == 303 and (h.get("Location") or "").split("#")[0] == "/",
                  "exercise=butterfly: the butterfly's page (%s %s)" % (st, h.get("Location")))
            for bad in ("no_such_exercise", "", 7):
                ex[CLAIM + "custom"] = {"exercise": bad}
                st, _, page = Browser(url).launch(plat, sub="s-2", extra=ex)
                check(st == 400 and '<code id="check">exercise</code>' in page and
                      "GET /api/tasks" in page,
                      "exercise=%r is refused, saying why: %s %s" % (bad, st, page[-300:]))
            # a due_at the tool cannot read (Canvas leaves an unmade substitution) is none
            st, _, _ = b.launch(plat, sub="s-1",
                                extra=claims("$Canvas.assignment.dueAt.iso8601"))
            s3, _ = submit(b, url, "wrong_twiddle_sign.glsl")
            late = (records_of(db, plat.issuer) or [(None, None)])[-1][1:]
            check(st == 303 and s3 == 200 and late == (0,),
                  "an unreadable due_at is no due date: the attempt is not late (%s)" % late)
    finally:
        rc = srv.stop()
        check(rc == 0, "%s: the server stops cleanly (exit %s)" % (name, rc))
        plat.stop()


run(None, 3)
run("accept", 9)
run("penalty:50%", 4.5)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

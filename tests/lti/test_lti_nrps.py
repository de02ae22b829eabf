"""Issue 34, item 2: the roster from the course (Names and Role Provisioning
Services 2.0), against the emulated platform (platform_lti.py).

Course 1's roster comes in three pages (Link rel="next"): an instructor, a
learner who launched, a teaching assistant and an inactive learner (both of
whom once launched as learners), and a learner who never launched. After
an instructor's launch the class view lists the active learners (the one
who never launched as silent) and neither the inactive one nor the
teaching ones; a second instructor's launch at once reads nothing again.
A platform that refuses (403 to the token, 403 to the roster, a roster that
is no JSON) leaves the view as it was (the learners who launched) and
says so; a next page at another origin is not fetched; a roster with no
end is read up to its page bound.

usage: test_lti_nrps.py BUTTERFLY_SERVER DEFAULTS_H [DATABASE_URL]
(run with /usr/bin/python3; SQLite in a temporary folder unless a URL is
given: the lti_pg suite gives a PostgreSQL cluster's)
"""
import json
import os
import re
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import (CLAIM, INSTRUCTOR, LEARNER, NRPS_SCOPE, TA,  # noqa: E402
                          Platform)

BINARY, DEFAULTS = sys.argv[1], sys.argv[2]
with open(DEFAULTS) as f:
    MAX_PAGES = int(re.search(r"#define LTI_ROSTER_MAX_PAGES\s+(\d+)u", f.read()).group(1))
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def wait_for(cond, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.2)
    return None


def course(n, roster=True, p=None):
    c = {CLAIM + "context": {"id": n, "title": "Course " + n},
         CLAIM + "resource_link": {"id": "assignment-" + n}}
    if roster:
        c.update((p or plat).nrps(n))
    return c


def learner_launch(sub, name, n, roster=False, p=None):
    b = Browser(SERVER_URL)
    st, _, _ = b.launch(p or plat, sub=sub, extra=dict(course(n, roster, p), name=name))
    return st, b


def instructor(n, roster=True, p=None):
    """An instructor's launch into course n: its browser and class id."""
    b = Browser(SERVER_URL)
    st, h, _ = b.launch(p or plat, sub="teach-1", roles=(INSTRUCTOR,),
                        extra=dict(course(n, roster, p), name="Prof"))
    loc = h.get("Location", "")
    klass = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(loc).query)).get("class")
    assert st == 303 and klass, (st, loc)
    return b, klass


def view(b, klass, what):
    st, _, body = b.go("GET", SERVER_URL + "/api/class/%s?class=%s" % (what, klass))
    try:
        return st, json.loads(body)
    except ValueError:
        return st, {}


def roster_of(b, klass, states=("read", "partial", "refused")):
    """The summary's roster once its read is over (None until then)."""
    def over():
        st, j = view(b, klass, "summary")
        r = j.get("roster") if st == 200 else None
        return r if r and r.get("state") in states else None
    return wait_for(over)


def names(b, klass):
    st, j = view(b, klass, "students")
    return {s["name"]: s for s in j.get("students", [])} if st == 200 else {}


def requests_of(n):
    return [r for r in plat.roster_requests if r[0] == n]


class Elsewhere(BaseHTTPRequestHandler):
    """Another origin: counts what reaches it, answers a roster page."""
    hits = []

    def log_message(self, *a):
        pass

    def do_GET(self):
        Elsewhere.hits.append((self.path, self.headers.get("Authorization")))
        body = json.dumps({"members": [{"user_id": "far-away", "roles": [LEARNER],
                                        "name": "Far Away"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


folder = tempfile.mkdtemp(prefix="lti-nrps-")
plat = Platform()
# a second registration whose token endpoint refuses the roster's scope
# (a platform where the tool's key lacks it: Canvas without the scope)
refusing = Platform(client_id="tool-2")
refusing.mode["nrps_token"] = "403"
other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
other.daemon_threads = True
threading.Thread(target=other.serve_forever, daemon=True).start()
OTHER = "http://127.0.0.1:%d" % other.server_address[1]
port = free_port()
SERVER_URL = "http://127.0.0.1:%d" % port
plat.tool_jwks_url = refusing.tool_jwks_url = SERVER_URL + "/lti/jwks.json"
config = os.path.join(folder, "lti.json")
with open(config, "w") as f:
    json.dump({"platforms": [plat.registration(), refusing.registration()]}, f)
DATABASE = sys.argv[3] if len(sys.argv) > 3 else "sqlite:" + os.path.join(folder, "r.sqlite")
srv = Server(BINARY, "--port", str(port), "--database", DATABASE, "--public-url", SERVER_URL,
             "--lti-config", config, "--workers", "1")


def member(sub, name, roles=(LEARNER,), status="Active", **more):
    m = {"user_id": sub, "roles": list(roles), "status": status, "name": name}
    m.update(more)
    return m


plat.rosters["course-1"] = [
    [member("teach-1", "Prof", (INSTRUCTOR,)), member("ada", "Ada Lovelace")],
    [member("ta-1", "Tess Assist", (TA,)), member("gone", "Gone Student", status="Inactive")],
    [{"user_id": "silent-1", "roles": [LEARNER], "given_name": "Sil", "family_name": "Ent"}],
]
try:
    srv.read_banner()

    # ---- course 1: three pages, an inactive member, a TA, one never launched
    for sub, name in (("ada", "Ada Lovelace"), ("gone", "Gone Student"), ("ta-1", "Tess Assist")):
        st, _ = learner_launch(sub, name, "course-1")
        check(st == 303, "%s launches into course 1 as a learner (no roster claim) (%s)"
              % (name, st))
    ins, class1 = instructor("course-1")
    r = roster_of(ins, class1)
    check(r is not None and r.get("state") == "read" and r.get("learners") == 2,
          "after the instructor's launch the summary says the course's roster was read, "
          "2 active learners: %s" % r)
    seen = names(ins, class1)
    check(set(seen) == {"Ada Lovelace", "Sil Ent"},
          "the class view lists the active learners, not the inactive one, the TA or the "
          "instructor: %s" % sorted(seen))
    sil = seen.get("Sil Ent", {})
    check(sil.get("attempts") == 0 and sil.get("silent") is True,
          "the learner who never launched is there, silent: %s"
          % {k: sil.get(k) for k in ("attempts", "silent")})
    st, summ = view(ins, class1, "summary")
    check(summ.get("students") == 2 and summ.get("silent") == 2,
          "the summary counts 2 students, 2 silent (%s, %s)"
          % (summ.get("students"), summ.get("silent")))
    pages = [p for _, p, _ in requests_of("course-1")]
    check(pages == [1, 2, 3], "the tool read the three pages, following rel=\"next\": %s"
          % pages)
    check(all(a and a.startswith("Bearer tok-") for _, _, a in requests_of("course-1")),
          "every page was asked with the platform's access token")
    check(any(NRPS_SCOPE in s.split() for s in plat.scope_requests),
          "the token was asked for the contextmembership.readonly scope: %s"
          % plat.scope_requests)
    # an instructor's launch again at once: not read again (at most every few minutes)
    n = len(requests_of("course-1"))
    instructor("course-1")
    time.sleep(3)   # longer than the reader's poll: a read would have started
    check(len(requests_of("course-1")) == n,
          "a second instructor's launch within the refresh interval reads nothing again "
          "(%d requests, then %d)" % (n, len(requests_of("course-1"))))
    # the silent one launches: the same student, no second tile
    st, _ = learner_launch("silent-1", "Sil Ent", "course-1")
    seen2 = names(ins, class1)
    check(st == 303 and set(seen2) == {"Ada Lovelace", "Sil Ent"} and
          seen2["Sil Ent"]["id"] == sil.get("id"),
          "the roster's learner, launching, is the same student (one tile): %s"
          % sorted(seen2))

    # ---- refusals leave today's view, and say so
    plat.roster_mode.update({"course-3": "403", "course-4": "badjson"})
    for n, how, p, why in (("course-2", "403 to the token", refusing, "403"),
                           ("course-3", "403 to the roster", plat, "403"),
                           ("course-4", "a roster that is not JSON", plat, "membership")):
        p.rosters[n] = [[member("never-" + n, "Never " + n)]]
        st, _ = learner_launch("ada", "Ada Lovelace", n, p=p)
        b, klass = instructor(n, p=p)
        r = roster_of(b, klass)
        seen = names(b, klass)
        check(r is not None and r.get("state") == "refused" and why in r.get("message", ""),
              "%s: the summary says the roster was refused, and why: %s" % (how, r))
        check(set(seen) == {"Ada Lovelace"},
              "%s: the class view is as today (who launched): %s" % (how, sorted(seen)))
    check(not requests_of("course-2") and not [r for r in refusing.roster_requests],
          "no roster page was asked without a token")

    # ---- a next page at another origin is not followed
    plat.rosters["course-5"] = [[member("near-1", "Near One")], [member("near-2", "Near Two")]]
    plat.roster_mode["course-5"] = OTHER + "/memberships/course-5?page=2"
    b, klass = instructor("course-5")
    r = roster_of(b, klass)
    check(not Elsewhere.hits, "the next page at another origin got no request (nor our "
          "token): %s" % Elsewhere.hits)
    check(r is not None and r.get("state") == "partial" and OTHER.split("//")[1] in
          r.get("message", ""), "the summary says the roster was read in part, naming the "
          "origin not followed: %s" % r)
    check(set(names(b, klass)) == {"Near One"}, "the first page's learner is listed: %s"
          % sorted(names(b, klass)))

    # ---- a roster with no end: read up to the page bound
    plat.roster_mode["course-6"] = "endless"
    b, klass = instructor("course-6")
    r = roster_of(b, klass)
    got = len(requests_of("course-6"))
    check(got == MAX_PAGES, "an endless roster is read for LTI_ROSTER_MAX_PAGES = %d pages, "
          "no more: %d" % (MAX_PAGES, got))
    check(r is not None and r.get("state") == "partial" and r.get("learners") == MAX_PAGES,
          "the summary says the roster was read in part (%s)" % r)
    time.sleep(1)
    check(len(requests_of("course-6")) == got, "and the reading stopped there")

    # ---- the class page shows the roster's line
    st, _, page = ins.go("GET", SERVER_URL + "/class?class=" + class1)
    st2, _, js = ins.go("GET", SERVER_URL + "/static/class-view.mjs")
    check(st == 200 and 'id="course-roster"' in page and "rosterLine" in js,
          "the class page has the roster's line (%s, %s)" % (st, st2))
finally:
    rc = srv.stop()
    check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    plat.stop()
    refusing.stop()
    other.shutdown()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

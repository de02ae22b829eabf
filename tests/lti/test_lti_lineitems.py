"""Issue 29, item 6: a score goes to the line item of the launch it came from.

One student, one browser (one cookie jar), the exercise open in two tabs:
tab A launched from course A's assignment, then tab B from course B's
(another context, resource link and line item). As the page does, each
tab sends the launch its address carries (/#launch=TAG, the header
X-Butterfly-Launch). An Accepted in A's tab must reach A's line item, a
Wrong Answer in B's tab B's, and neither the other's. A page of another
student's launch, or a tag that is not one, is refused (403); a
submission with no tag goes to the latest launch (as before).

usage: test_lti_lineitems.py BUTTERFLY_SERVER SAMPLES [DATABASE_URL]
(run with /usr/bin/python3; SQLite in a temporary folder unless a URL is
given: the lti_pg suite gives a PostgreSQL cluster's)
"""
import json
import os
import re
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import AGS, CLAIM, SCORE_SCOPE, Platform  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
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


def course(n):
    """The claims of course n's assignment: its context, resource link and line item."""
    return {CLAIM + "context": {"id": "course-%s" % n, "title": "Course %s" % n},
            CLAIM + "resource_link": {"id": "assignment-%s" % n},
            AGS: {"scope": [SCORE_SCOPE], "lineitem": plat.url + "/lineitems/%s" % n}}


def tag_of(location):
    """What the page reads from its address: the launch in the fragment."""
    frag = urllib.parse.urlparse(location).fragment
    return dict(urllib.parse.parse_qsl(frag)).get("launch")


def submit(b, name, tag):
    """A submission as the page in that tab makes it."""
    h = {"Content-Type": "text/plain", "X-Requested-With": "butterfly"}
    if tag:
        h["X-Butterfly-Launch"] = tag
    st, _, body = b.go("POST", SERVER_URL + "/api/tasks/butterfly/submissions", sample(name), h)
    try:
        return st, json.loads(body)
    except ValueError:
        return st, {}


def at(lineitem, user):
    return [s for li, s in plat.received if li == lineitem and s["userId"] == user]


folder = tempfile.mkdtemp(prefix="lti-lineitems-")
plat = Platform()
plat.users.update({"learner-a", "learner-z"})
port = free_port()
SERVER_URL = "http://127.0.0.1:%d" % port
plat.tool_jwks_url = SERVER_URL + "/lti/jwks.json"
config = os.path.join(folder, "lti.json")
with open(config, "w") as f:
    json.dump({"platforms": [plat.registration()]}, f)
DATABASE = sys.argv[3] if len(sys.argv) > 3 else "sqlite:" + os.path.join(folder, "r.sqlite")
srv = Server(BINARY, "--port", str(port), "--database", DATABASE, "--public-url", SERVER_URL,
             "--lti-config", config, "--workers", "1")
LI_A, LI_B = plat.url + "/lineitems/1", plat.url + "/lineitems/2"
try:
    srv.read_banner()
    browser = Browser(SERVER_URL)   # one browser: one cookie jar for both tabs
    st_a, h_a, _ = browser.launch(plat, sub="learner-a", extra=dict(course(1), name="Ada"))
    tab_a = tag_of(h_a.get("Location", ""))
    st_b, h_b, _ = browser.launch(plat, sub="learner-a", extra=dict(course(2), name="Ada"))
    tab_b = tag_of(h_b.get("Location", ""))
    check(st_a == 303 and st_b == 303, "the same student launches from course A, then from "
          "course B, in one browser (%s, %s)" % (st_a, st_b))
    check(tab_a and tab_b and tab_a != tab_b,
          "each launch lands on a page whose address names its launch: %s / %s"
          % (h_a.get("Location"), h_b.get("Location")))

    # the attack: an Accepted in A's tab, a Wrong Answer in B's, one session
    st1, v1 = submit(browser, "correct.glsl", tab_a)
    st2, v2 = submit(browser, "wrong_twiddle_sign.glsl", tab_b)
    check(st1 == 200 and v1.get("recorded") is True and v1.get("status", {}).get("id") == 3,
          "A's tab: Accepted, recorded (%s %s)" % (st1, v1.get("status")))
    check(st2 == 200 and v2.get("recorded") is True and v2.get("status", {}).get("id") == 4,
          "B's tab: Wrong Answer, recorded (%s %s)" % (st2, v2.get("status")))
    wait_for(lambda: at(LI_A, "learner-a") and at(LI_B, "learner-a"), 30)
    time.sleep(1.5)   # a score sent to the wrong line item would be here by now
    got_a, got_b = at(LI_A, "learner-a"), at(LI_B, "learner-a")
    check(got_a and all(s["scoreGiven"] == s["scoreMaximum"] for s in got_a),
          "course A's line item gets the Accepted's full score: %s"
          % [(s["scoreGiven"], s["scoreMaximum"]) for s in got_a])
    check(got_b and all(s["scoreGiven"] < s["scoreMaximum"] for s in got_b),
          "course B's line item gets the Wrong Answer's score, not A's full marks: %s"
          % [(s["scoreGiven"], s["scoreMaximum"]) for s in got_b])
    refused = [r for r in plat.refused if r[0] != "assertion"]
    check(not refused, "the platform refused no score: %s" % refused)

    # a page with no launch (curl, an old page): the latest launch, B
    n_b = len(at(LI_B, "learner-a"))
    n_a = len(at(LI_A, "learner-a"))
    st, v = submit(browser, "correct.glsl", None)
    check(st == 200 and v.get("recorded") is True and
          wait_for(lambda: len(at(LI_B, "learner-a")) > n_b, 30) and
          at(LI_B, "learner-a")[-1]["scoreGiven"] == at(LI_B, "learner-a")[-1]["scoreMaximum"]
          and len(at(LI_A, "learner-a")) == n_a,
          "a submission naming no launch is scored at the latest launch's line item (B)")

    # a tag not made for this student: forged, or another student's page
    other = Browser(SERVER_URL)
    _, h_z, _ = other.launch(plat, sub="learner-z", extra=dict(course(1), name="Zed"))
    tab_z = tag_of(h_z.get("Location", ""))
    link_a = (tab_a or "0.").split(".")[0]
    n_a = len(at(LI_A, "learner-a"))
    tries = {"another student's launch": tab_z,
             "a forged one (A's link, a made-up signature)": link_a + "." + "0" * 32,
             "not a tag at all": "x" * 300}
    for what, tag in tries.items():
        st, v = submit(browser, "correct.glsl", tag)
        code = (v.get("error") or {}).get("code")
        check(st == 403 and code == "launch_not_yours" and "status" not in v,
              "a page's launch that is %s is refused, not graded (%s %s)" % (what, st, code))
    # the other student's own tab still works, with their own launch
    st, v = submit(other, "correct.glsl", tab_z)
    check(st == 200 and v.get("recorded") is True and
          wait_for(lambda: at(LI_A, "learner-z"), 30),
          "the other student's own launch is scored at its line item (A)")
    time.sleep(1)
    check(len(at(LI_A, "learner-a")) == n_a,
          "nothing of the refused submissions reached the platform for the first student")
finally:
    rc = srv.stop()
    check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    plat.stop()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

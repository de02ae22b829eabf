"""Issue 34, item 5: the line item belongs to the resource link.

A platform that gives a course's line items (`lineitems`, with the
lineitem scope) but no `lineitem` gets one line item per resource link,
made by the tool once (scoreMaximum, label, resourceLinkId, tag) and
reused by every later launch of that link, whoever launches: two
students' first launches at the same moment (on PostgreSQL at two
instances sharing the store), then a restart, make one column, never a
second. Each score carries userId, scoreGiven, scoreMaximum,
activityProgress, gradingProgress and the submission's time as its
timestamp, also when it is sent again after the platform was down.
Moodle's "grade sync only" (a lineitem, no lineitem scope) still scores
to the lineitem it gives, and the tool asks for no lineitem scope there.

usage: test_lti_made_lineitem.py BUTTERFLY_SERVER SAMPLES [DATABASE_URL]
(run with /usr/bin/python3; SQLite in a temporary folder unless a URL is
given: the lti_pg suite gives a PostgreSQL cluster's, and a second
instance shares it)
"""
import datetime
import json
import os
import re
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from html import unescape

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import AGS, CLAIM, LINEITEM_SCOPE, SCORE_SCOPE, Platform  # noqa: E402

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


def metric(url, name):
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        text = r.read().decode()
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else 0


def submit(b, url, name):
    h = {"Content-Type": "text/plain", "X-Requested-With": "butterfly"}
    st, _, body = b.go("POST", url + "/api/tasks/butterfly/submissions", sample(name), h)
    try:
        return st, json.loads(body)
    except ValueError:
        return st, {}


def newest_received_ms(b, url):
    """The student's newest submission's time, as the tool recorded it."""
    st, _, body = b.go("GET", url + "/api/me/submissions?limit=1")
    return json.loads(body)["submissions"][0]["received_ms"] if st == 200 else None


def iso(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def link_claims(link, ctx="c1", title="Butterfly homework"):
    """A Canvas-like launch: the course's line items, the lineitem scope, no lineitem."""
    return {CLAIM + "context": {"id": ctx, "title": "Course " + ctx},
            CLAIM + "resource_link": {"id": link, "title": title},
            AGS: {"scope": [SCORE_SCOPE, LINEITEM_SCOPE],
                  "lineitems": plat.url + "/contexts/%s/lineitems" % ctx}}


def prepare(b, **claims):
    """A launch up to the platform's auto-posting form (its id_token signed
    now): the post to the tool is left for later."""
    plat.pending_target = b.server + "/lti/launch"
    plat.pending_claims = claims
    st, h, _ = b.go("GET", b.server + "/lti/login?" + urllib.parse.urlencode({
        "iss": plat.issuer, "login_hint": "hint-1", "client_id": plat.client_id,
        "target_link_uri": plat.pending_target}))
    assert st == 302, st
    st, _, form = b.go("GET", h["Location"])
    assert st == 200, st
    action = unescape(re.search(r'action="([^"]*)"', form).group(1))
    fields = dict((m.group(1), unescape(m.group(2))) for m in
                  re.finditer(r'name=(\w+) value="([^"]*)"', form))
    return action, fields


def made_for(link):
    return [li for _, li in plat.made if li.get("resourceLinkId") == link]


def at(lineitem, user):
    return [s for li, s in plat.received if li == lineitem and s["userId"] == user]


folder = tempfile.mkdtemp(prefix="lti-made-")
plat = Platform()
plat.users.update({"s-a", "s-b", "s-c", "s-m"})
DATABASE = sys.argv[3] if len(sys.argv) > 3 else "sqlite:" + os.path.join(folder, "r.sqlite")
two = DATABASE.startswith("postgres")
ports = [free_port(), free_port()]
URLS = ["http://127.0.0.1:%d" % p for p in ports]
plat.tool_jwks_url = URLS[0] + "/lti/jwks.json"
config = os.path.join(folder, "lti.json")
with open(config, "w") as f:
    json.dump({"platforms": [plat.registration()]}, f)


def start(i):
    s = Server(BINARY, "--port", str(ports[i]), "--database", DATABASE, "--public-url",
               URLS[i], "--lti-config", config, "--workers", "1")
    s.read_banner()
    return s


servers = [start(0)] + ([start(1)] if two else [])
try:
    with urllib.request.urlopen(URLS[0] + "/api/tasks", timeout=10) as r:
        tasks = json.load(r)
    tasks = tasks.get("tasks", tasks) if isinstance(tasks, dict) else tasks
    POINTS = [t for t in tasks if t["id"] == "butterfly"][0]["points"]
    # ---- two students' first launches of one link at the same moment ------------------------
    # (on PostgreSQL one at each instance): one line item, never two
    plat.mode["lineitems"] = "slow1"   # the platform takes its time: the race window is wide
    a, b = Browser(URLS[0]), Browser(URLS[1] if two else URLS[0])
    forms = [prepare(a, sub="s-a", extra=dict(link_claims("rl-1"), name="Ada")),
             prepare(b, sub="s-b", extra=dict(link_claims("rl-1"), name="Bea"))]
    answers = [None, None]

    def post(i, br):
        answers[i] = br.go("POST", forms[i][0], forms[i][1])[0]

    ts = [threading.Thread(target=post, args=(0, a)), threading.Thread(target=post, args=(1, b))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    check(answers == [303, 303], "two students' first launches of one link at once (%s%s)"
          % (answers, ", at two instances" if two else ""))
    check(wait_for(lambda: made_for("rl-1"), 30), "the tool makes the link's line item")
    time.sleep(3)   # a second maker (the other instance) would have posted by now
    plat.mode.pop("lineitems")
    made = made_for("rl-1")
    check(len(made) == 1, "exactly one line item for the link: %s" % made)
    li = made[0] if made else {}
    check(li.get("scoreMaximum") == POINTS and li.get("label") == "Butterfly homework" and
          li.get("resourceLinkId") == "rl-1" and li.get("tag") == "butterfly",
          "it carries scoreMaximum %s, the link's title, resourceLinkId and tag: %s"
          % (POINTS, li))
    LI = li.get("id", "?")

    # ---- both students' scores go to it, with every field and the submission's time ---------
    st1, v1 = submit(a, URLS[0], "wrong_twiddle_sign.glsl")
    st2, v2 = submit(b, URLS[1] if two else URLS[0], "correct.glsl")
    check(st1 == 200 and v1.get("recorded") and st2 == 200 and v2.get("recorded"),
          "both submit, recorded")
    check(wait_for(lambda: at(LI, "s-a") and at(LI, "s-b"), 30),
          "both scores reach the made line item")
    sa = (at(LI, "s-a") or [{}])[-1]
    ra = newest_received_ms(a, URLS[0])
    check(set(sa) >= {"userId", "scoreGiven", "scoreMaximum", "activityProgress",
                      "gradingProgress", "timestamp"} and sa.get("scoreMaximum") == POINTS and
          sa.get("scoreGiven", POINTS) < POINTS and sa.get("activityProgress") == "Submitted" and
          sa.get("gradingProgress") == "FullyGraded",
          "the score has userId, scoreGiven, scoreMaximum, activityProgress, gradingProgress: %s"
          % sa)
    check(ra is not None and sa.get("timestamp") == iso(ra),
          "its timestamp is the submission's time (%s, recorded %s)"
          % (sa.get("timestamp"), ra and iso(ra)))

    # ---- a retried send still carries the submission's time ---------------------------------
    retried = metric(URLS[0], 'butterfly_lti_scores_total{outcome="retried"}')
    plat.mode["scores"] = "5xx"
    n = len(at(LI, "s-a"))
    st, v = submit(a, URLS[0], "correct.glsl")
    ra2 = newest_received_ms(a, URLS[0])
    wait_for(lambda: sum(metric(u, 'butterfly_lti_scores_total{outcome="retried"}')
                         for u in URLS[:2 if two else 1]) > retried, 20)
    time.sleep(1.5)   # the send is now well after the submission
    plat.mode.pop("scores")
    check(wait_for(lambda: len(at(LI, "s-a")) > n, 30), "once the platform is back the score "
          "arrives")
    sa = (at(LI, "s-a") or [{}])[-1]
    check(sa.get("scoreGiven") == POINTS and sa.get("activityProgress") == "Completed" and
          ra2 is not None and sa.get("timestamp") == iso(ra2),
          "the retried score is full marks, Completed, timestamped with the submission's time "
          "%s, not the retry's: %s" % (ra2 and iso(ra2), sa.get("timestamp")))

    # ---- reused after a restart, by a third student; no line item made again ----------------
    rc = servers[0].stop()
    check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    servers[0] = start(0)
    gets = plat.gets
    c = Browser(URLS[0])
    st, _, _ = c.launch(plat, sub="s-c", extra=dict(link_claims("rl-1"), name="Cy"))
    st2, v = submit(c, URLS[0], "correct.glsl")
    check(st == 303 and st2 == 200 and wait_for(lambda: at(LI, "s-c"), 30),
          "after a restart a third student's score goes to the same line item")
    time.sleep(1)
    check(len(made_for("rl-1")) == 1 and plat.gets == gets,
          "the link's line item is neither made nor looked for again (%d made)"
          % len(made_for("rl-1")))
    check(not [r for r in plat.refused if r[0] != "assertion"],
          "the platform refused no score: %s" % [r for r in plat.refused if r[0] != "assertion"])

    # ---- another link of the course: a line item of its own ---------------------------------
    st, _, _ = c.launch(plat, sub="s-c", extra=dict(link_claims("rl-2", title="Second"), name="Cy"))
    check(st == 303 and wait_for(lambda: made_for("rl-2"), 30) and
          len(made_for("rl-1")) == 1 and made_for("rl-2")[0]["id"] != LI,
          "another resource link of the course gets a line item of its own")

    # ---- a link of another exercise: its line item is that exercise's ---------------------
    # (issue 33: custom exercise=ID; butterfly16 is out of 12, the butterfly of 9)
    P16 = [t for t in tasks if t["id"] == "butterfly16"][0]["points"]
    claims = dict(link_claims("rl-16", title=""), name="Cy")
    claims[CLAIM + "custom"] = {"exercise": "butterfly16"}
    st, h16, _ = c.launch(plat, sub="s-c", extra=claims)
    check(st == 303 and h16.get("Location", "").split("#")[0].endswith("/tasks/butterfly16"),
          "a butterfly16 link's launch opens butterfly16's page: %s" % h16.get("Location"))
    check(wait_for(lambda: made_for("rl-16"), 30), "a butterfly16 link's launch makes its "
          "line item")
    li16 = (made_for("rl-16") or [{}])[0]
    title16 = [t for t in tasks if t["id"] == "butterfly16"][0]["title"]
    check(li16.get("scoreMaximum") == P16 != POINTS and li16.get("tag") == "butterfly16" and
          li16.get("label") == title16,
          "it carries butterfly16's points (%s), its tag and, the link untitled, its title: %s"
          % (P16, li16))
    with open(os.path.join(SAMPLES, "..", "..", "exercises", "butterfly16", "solutions",
                           "correct_bits.glsl"), "rb") as f:
        body16 = f.read()
    st, _, _ = c.go("POST", URLS[0] + "/api/tasks/butterfly16/submissions", body16,
                    {"Content-Type": "text/plain", "X-Requested-With": "butterfly"})
    LI16 = li16.get("id", "?")
    check(st == 200 and wait_for(lambda: at(LI16, "s-c"), 30),
          "a butterfly16 submission's score goes to that line item")
    s16 = (at(LI16, "s-c") or [{}])[-1]
    check(s16.get("scoreGiven") == P16 and s16.get("scoreMaximum") == P16,
          "scored out of butterfly16's %s: %s" % (P16, s16))

    # ---- Moodle's "grade sync only": a lineitem, no lineitem scope --------------------------
    plat.grant = {SCORE_SCOPE}   # the registration withholds the lineitem scope
    given = plat.url + "/lineitems/55"
    m = Browser(URLS[0])
    before = len(plat.made)
    st, _, _ = m.launch(plat, sub="s-m", extra={
        CLAIM + "context": {"id": "c9", "title": "Moodle course"},
        CLAIM + "resource_link": {"id": "rl-m"},
        AGS: {"scope": [SCORE_SCOPE], "lineitem": given,
              "lineitems": plat.url + "/contexts/c9/lineitems"}})
    st2, v = submit(m, URLS[0], "correct.glsl")
    check(st == 303 and st2 == 200 and wait_for(lambda: at(given, "s-m"), 30),
          "grade sync only: the score goes to the given lineitem")
    check(len(plat.made) == before and
          not [r for r in plat.refused if r[0] == "assertion"],
          "and the tool makes no line item there, nor asks for a scope it lacks: %s"
          % plat.refused)
finally:
    for s in servers:
        rc = s.stop()
        check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    plat.stop()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

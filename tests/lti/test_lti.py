"""LTI 1.3 end to end: our server against a platform written for the tests
(tests/lti/platform.py), the test playing the browser with a cookie jar.

usage: test_lti.py BUTTERFLY_SERVER SAMPLES BUTTERFLY_ADMIN [DATABASE_URL]
(run with /usr/bin/python3; the store is a SQLite file in a temporary folder
unless a URL is given: the lti_pg suite gives a PostgreSQL cluster's)
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from html import unescape

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from sse import Stream  # noqa: E402
from lti_browser import Browser as BaseBrowser, free_port  # noqa: E402
from platform_lti import CLAIM, INSTRUCTOR, Platform  # noqa: E402

BINARY, SAMPLES, ADMIN = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def lti_session_lifetimes():
    """(a launched instructor's, anyone else's) session seconds, from the
    one place they are set."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grader",
                        "common", "defaults.h")
    with open(path) as f:
        text = f.read()
    def seconds(name):
        expr = re.search(r"#define %s\s+\(([\d\su*]+)\)" % name, text).group(1)
        value = 1
        for factor in expr.replace("u", "").split("*"):
            value *= int(factor)
        return value
    return seconds("LTI_INSTRUCTOR_SESSION_S"), seconds("SESSION_LIFETIME_S")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def submit(b, name):
    return b.go("POST", SERVER_URL + "/api/tasks/butterfly/submissions", sample(name),
                {"Content-Type": "text/plain", "X-Requested-With": "butterfly"})


def wait_for(cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


def metric(name):
    with urllib.request.urlopen(SERVER_URL + "/metrics", timeout=10) as r:
        text = r.read().decode()
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else 0


folder = tempfile.mkdtemp(prefix="lti-")
plat = Platform()
plat.users.update({"learner-1", "learner-2", "learner-3", "learner-4", "learner-5",
                   "learner-6"})
port = free_port()
SERVER_URL = "http://127.0.0.1:%d" % port


class Browser(BaseBrowser):
    def __init__(self):
        super().__init__(SERVER_URL)
plat.tool_jwks_url = SERVER_URL + "/lti/jwks.json"
config = os.path.join(folder, "lti.json")
FRAME = "https://lms.example.edu"   # the course's frame, which may embed the pages
with open(config, "w") as f:
    json.dump({"platforms": [dict(plat.registration(), frame_origins=[FRAME])]}, f)
DATABASE = sys.argv[4] if len(sys.argv) > 4 else "sqlite:" + os.path.join(folder, "r.sqlite")
args = ("--port", str(port), "--database", DATABASE, "--public-url", SERVER_URL,
        "--lti-config", config, "--workers", "1")
srv = Server(BINARY, *args)


def banner_token():
    for line in srv.read_banner():
        m = re.search(r"/class\?token=([0-9a-f]+)", line)
        if m:
            return m.group(1)
    return None


instructor_token = banner_token()


def bearer_get(path):
    req = urllib.request.Request(SERVER_URL + path,
                                 headers={"Authorization": "Bearer %s" % instructor_token})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


try:
    check(instructor_token is not None, "the server prints the instructor's address")
    with urllib.request.urlopen(SERVER_URL + "/", timeout=10) as r:
        csp = r.headers.get("Content-Security-Policy", "")
    check("frame-ancestors %s;" % FRAME in csp,
          "the page may be embedded by the frame_origins of --lti-config only: %s" % csp)
    # ---- keys ---------------------------------------------------------------
    with urllib.request.urlopen(SERVER_URL + "/lti/jwks.json", timeout=10) as r:
        keys = json.load(r)["keys"]
    check(len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["kid"] and
          keys[0]["alg"] == "RS256" and "d" not in keys[0],
          "GET /lti/jwks.json publishes one public RSA key with its kid")

    # ---- login ------------------------------------------------------------------
    b = Browser()
    st, h, _ = b.go("POST", SERVER_URL + "/lti/login", {
        "iss": plat.issuer, "login_hint": "h", "target_link_uri": SERVER_URL + "/lti/launch",
        "lti_message_hint": "a b&c"})
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(h.get("Location", "")).query))
    check(st == 302 and q.get("scope") == "openid" and q.get("response_type") == "id_token"
          and q.get("response_mode") == "form_post" and q.get("prompt") == "none"
          and q.get("client_id") == plat.client_id
          and q.get("redirect_uri") == SERVER_URL + "/lti/launch"
          and q.get("login_hint") == "h" and q.get("lti_message_hint") == "a b&c"
          and len(q.get("state", "")) >= 32 and len(q.get("nonce", "")) >= 32,
          "POST /lti/login redirects to the platform with every parameter")
    check(b.jar.get("butterfly_lti_state") == q.get("state"), "the login sets the state cookie")
    st, _, page = Browser().go("GET", SERVER_URL + "/lti/login?iss=http://nobody&login_hint=x"
                               "&target_link_uri=" + SERVER_URL)
    check(st == 400 and "unregistered" in page, "a login from an unregistered issuer is refused")

    # the LTI forms are read as every POST body (issue 30, defect 5): a
    # Content-Length that is no number is a 400, and neither a length nor
    # a chunked body a 411, before any of it is read
    def raw_status(path, length_header):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        try:
            s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                       "Content-Type: application/x-www-form-urlencoded\r\n%s\r\n"
                       % (path, length_header)).encode())
            reply = b""
            while b"\r\n" not in reply:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        finally:
            s.close()
        return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
    for path in ("/lti/login", "/lti/launch"):
        got = raw_status(path, "Content-Length: 12abc\r\n")
        check(got == 400, "POST %s with a malformed Content-Length is a 400 (got %s)"
              % (path, got))
        got = raw_status(path, "")
        check(got == 411, "POST %s with neither a length nor chunked is a 411 (got %s)"
              % (path, got))

    # ---- a learner -----------------------------------------------------------------
    learner = Browser()
    st, h, page = learner.launch(plat, sub="learner-1", extra={"name": "Ada Lovelace",
                                                                "email": "ada@example.org"})
    check(st == 303 and h["Location"].split("#launch=")[0] == "/" and
          "butterfly_session" in learner.jar,
          "a learner's launch lands on the exercise page signed in (%s)" % st)
    st, _, me = learner.go("GET", SERVER_URL + "/api/me")
    me = json.loads(me)
    check(me.get("kind") == "student" and me.get("name") == "Ada Lovelace",
          "the learner is a student named from the launch")
    check(me.get("section") == "",
          "a launch's learner has no section (the platform sends none): %r" % me.get("section"))
    st, _, v1 = submit(learner, "wrong_twiddle_sign.glsl" if os.path.exists(
        os.path.join(SAMPLES, "wrong_twiddle_sign.glsl")) else "compile_error_line3.glsl")
    st2, _, v2 = submit(learner, "correct.glsl")
    check(st == 200 and st2 == 200 and json.loads(v2).get("recorded") is True,
          "a wrong then a correct submission are graded and recorded")
    got = wait_for(lambda: len(plat.scores) >= 1 and
                   plat.scores[-1]["scoreGiven"] == plat.scores[-1]["scoreMaximum"])
    check(got, "the platform records the full score (best policy): %s" % plat.scores[-1:])
    if plat.scores:
        s = plat.scores[-1]
        check(s["userId"] == "learner-1" and s["gradingProgress"] == "FullyGraded" and
              s["activityProgress"] == "Completed" and
              re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", s["timestamp"]),
              "the score carries userId, FullyGraded, Completed and a ms timestamp")
    check(not [r for r in plat.refused if r[0] != "assertion"] and plat.tokens_issued >= 1,
          "the platform refused no score, and issued a token for our signed assertion")
    n_before = len(plat.scores)
    submit(learner, "compile_error_line3.glsl")
    wait_for(lambda: len(plat.scores) > n_before, 15)
    check(plat.scores[-1]["scoreGiven"] == plat.scores[-1]["scoreMaximum"],
          "best policy: a worse attempt after the best sends the best again")

    # ---- no name, email only, no personal data ------------------------------------------
    for sub, extra, want in (("learner-2", {}, "Learner "), ("learner-3",
                             {"email": "only@example.org"}, "only@example.org"),
                             ("learner-4", {"name": ""}, "Learner ")):
        bb = Browser()
        st, h, _ = bb.launch(plat, sub=sub, extra=extra)
        me = json.loads(bb.go("GET", SERVER_URL + "/api/me")[2])
        check(st == 303 and me.get("kind") == "student" and me.get("name", "").startswith(want),
              "a launch with %s signs in (%s)" % (extra or "no personal data", me))

    # ---- an instructor ---------------------------------------------------------------------
    ins = Browser()
    st, h, _ = ins.launch(plat, sub="teacher-1", roles=(INSTRUCTOR,))
    check(st == 303 and h["Location"].startswith("/class"),
          "an instructor's launch lands on the class view (%s)" % h.get("Location"))
    st, _, _ = ins.go("GET", SERVER_URL + "/class")
    check(st == 200, "the instructor is signed in to /class")
    launched_at = time.time()
    day, fortnight = lti_session_lifetimes()
    ages = [re.findall(r"Max-Age=(\d+)", b.attrs.get("butterfly_session", "")) for b in (ins, bb)]
    check(ages == [[str(day)], [str(fortnight)]],
          "a launched instructor's session lasts %d s, a learner's %d s (Max-Age %s)"
          % (day, fortnight, ages))

    # ---- two contexts: each instructor's class view holds its own learners ---------------------
    def class_of(hh):
        return urllib.parse.parse_qs(urllib.parse.urlparse(hh.get("Location", "")).query).get(
            "class", [""])[0]

    def roster(b, klass):
        for _ in range(50):   # 503 "loading" while the feed reads a launch
            st, _, body = b.go("GET", SERVER_URL + "/api/class/students?class=" + klass)
            if st != 503:
                break
            time.sleep(0.2)
        return st, (json.loads(body)["students"] if st == 200 else [])

    course2 = {CLAIM + "context": {"id": "course-2", "title": "Second course"}}
    class1 = class_of(h)
    ins2 = Browser()
    _, h2, _ = ins2.launch(plat, sub="teacher-2", roles=(INSTRUCTOR,), extra=course2)
    class2 = class_of(h2)
    grace = Browser()
    grace.launch(plat, sub="learner-5", extra=dict(course2, name="Grace Hopper"))
    plat.mode["scores"] = "5xx"
    submit(grace, "correct.glsl")

    def names(b, klass):
        return sorted(t["name"] for t in roster(b, klass)[1])
    check(class1 and class2 and class1 != class2 and
          wait_for(lambda: names(ins2, class2) == ["Grace Hopper"], 10) and
          "Ada Lovelace" in names(ins, class1) and "Grace Hopper" not in names(ins, class1),
          "each context's class view lists only its learners: %s / %s"
          % (names(ins, class1), names(ins2, class2)))
    st, _, _ = ins.go("GET", SERVER_URL + "/api/class/students?class=" + "0" * 32)
    st2, _, _ = ins.go("GET", SERVER_URL + "/api/class/students?class=" + class2)
    st3, _, body = ins.go("GET", SERVER_URL + "/api/class/students")
    # its own: Ada, and the learners who launched without trying (silent)
    check(st == 403 and st2 == 403 and st3 == 200 and
          sorted(t["name"] for t in json.loads(body)["students"]) == names(ins, class1) and
          "Ada Lovelace" in body and "Grace Hopper" not in body,
          "a launch's instructor reads its class alone: another class %s, an unknown one %s, "
          "none named: its own (%s)" % (st2, st, body[:80]))
    st = bearer_get("/api/class/students?class=" + "0" * 32)[0]
    st2, body = bearer_get("/api/class/students?class=" + class2)
    check(st == 404 and st2 == 200 and "Grace Hopper" in body,
          "the instructor's token reads any class; an unknown class answers 404 (%s)" % st)
    # the summary and the gradebooks of a class: its learners' records only
    st, _, body = ins2.go("GET", SERVER_URL + "/api/class/summary?class=" + class2)
    sm = json.loads(body) if st == 200 else {}
    check(sm.get("records") == 1 and len(sm.get("accepted_series", [])) == 1 and
          sm["accepted_series"][-1]["share"] == 1.0,
          "a class's summary counts and charts its own records only: %s"
          % {k: sm.get(k) for k in ("records", "accepted_series")})
    st, _, body = ins.go("GET", SERVER_URL + "/api/class/summary?class=" + class1)
    check(st == 200 and json.loads(body)["records"] >= 3 and
          json.loads(body)["records"] < json.loads(
              bearer_get("/api/class/summary")[1])["records"],
          "the other class's summary leaves Grace's record out")
    st, _, body = ins2.go("GET", SERVER_URL + "/api/class/gradebook?layout=default&class=" + class2)
    rows = body.splitlines()
    check(st == 200 and len(rows) == 2 and "Grace Hopper" in rows[1] and
          ",Accepted," in rows[1], "a class's gradebook holds its learners only: %s" % rows)
    st, _, body = ins.go("GET", SERVER_URL + "/api/class/gradebook?layout=canvas&class=" + class1)
    check(st == 200 and "Ada Lovelace" in body and "Grace Hopper" not in body,
          "the other class's Canvas file leaves Grace out (%s)" % st)

    def flag(b, klass):
        t = roster(b, klass)[1]
        return t[0].get("score_not_sent", "missing") if t else "missing"
    check(wait_for(lambda: isinstance(flag(ins2, class2), dict) and
                   flag(ins2, class2)["state"] == "retrying", 30),
          "with the scores endpoint failing the tile says the score was not sent: %s"
          % flag(ins2, class2))
    plat.mode.pop("scores")
    check(wait_for(lambda: flag(ins2, class2) is None, 60),
          "once the score is sent the marker clears: %s" % flag(ins2, class2))

    # ---- a class's events: its learners' records only -------------------------------------
    def cookie(b):
        return {"Cookie": "butterfly_session=" + b.jar["butterfly_session"]}
    ids = dict((t["name"], t["id"]) for t in roster(ins, class1)[1] + roster(ins2, class2)[1])
    ada, grace_id = ids.get("Ada Lovelace"), ids.get("Grace Hopper")
    one = Stream(port, headers=cookie(ins), path="/api/class/events?class=" + class1)
    two = Stream(port, headers=cookie(ins2), path="/api/class/events?class=" + class2)
    own = Stream(port, headers=cookie(ins), path="/api/class/events")   # names no class
    other = Stream(port, headers=cookie(ins), path="/api/class/events?class=" + class2)
    every = Stream(port, token=instructor_token, path="/api/class/events")
    n_ada = len([x for x in plat.scores if x["userId"] == "learner-1"])
    n_grace = len([x for x in plat.scores if x["userId"] == "learner-5"])
    submit(grace, "compile_error_line3.glsl")
    submit(learner, "compile_error_line3.glsl")

    def students(stream):
        return [d.get("student") for ev, _, d in stream.events() if ev == "record"]
    for stream in (one, two, own, every):
        stream.wait_for(lambda b: b.count(b"event: record") >= (2 if stream is every else 1), 20)
    for stream in (one, two, own):
        stream.wait_for(lambda b: False, 1)   # what else comes (nothing should)
    check(one.status == 200 and students(one) == [ada] and students(own) == [ada] and
          two.status == 200 and students(two) == [grace_id],
          "each instructor's stream (?class=, or none named) carries its class's records "
          "only: %s / %s / %s" % (students(one), students(own), students(two)))
    check(other.status == 403 and sorted(students(every)) == sorted([ada, grace_id]),
          "another class's stream is refused (%s); the token's carries both (%s)"
          % (other.status, students(every)))
    for stream in (one, two, own, other, every):
        stream.close()

    # ---- a class's records: its learners' only -----------------------------------------------
    st, body = bearer_get("/api/me/submissions?student=" + urllib.parse.quote(grace_id))
    grace_rec = json.loads(body)["submissions"][0]["id"] if st == 200 else ""
    mine = ins.go("GET", SERVER_URL + "/api/me/submissions?student=" + urllib.parse.quote(ada))[0]
    theirs = ins.go("GET", SERVER_URL + "/api/me/submissions?student=" +
                    urllib.parse.quote(grace_id))[0]
    rec_other = ins.go("GET", SERVER_URL + "/api/submissions/" + grace_rec)[0]
    rec_own = ins2.go("GET", SERVER_URL + "/api/submissions/" + grace_rec)[0]
    check(grace_rec and mine == 200 and theirs == 403 and rec_other == 404 and rec_own == 200,
          "a launch's instructor reads its learners' records only: own list %s, another class's "
          "%s, another class's record %s, its own instructor's %s"
          % (mine, theirs, rec_other, rec_own))
    check(wait_for(lambda: len([x for x in plat.scores if x["userId"] == "learner-1"]) > n_ada
                   and len([x for x in plat.scores if x["userId"] == "learner-5"]) > n_grace,
                   30), "their scores are sent")

    # ---- no AGS claim: nothing sent -------------------------------------------------------
    n = len(plat.scores)
    nb = Browser()
    nb.launch(plat, sub="learner-2", ags=False)
    submit(nb, "correct.glsl")
    time.sleep(2)
    check(len(plat.scores) == n, "a launch without the grades claim sends nothing")

    # the credentials table (read every 3 s) must not end a launched
    # instructor's session: no token of ours made it
    time.sleep(max(0.0, launched_at + 7.5 - time.time()))
    st, _, _ = ins.go("GET", SERVER_URL + "/class")
    check(st == 200, "a launched instructor is still signed in after the credentials are reread")

    # ---- known-bad payloads ------------------------------------------------------------------
    def bad(name, code, hook=None, target=None, **kw):
        plat.claims_hook = hook
        bb = Browser()
        try:
            st, _, page = bb.launch(plat, target=target, **kw)
        finally:
            plat.claims_hook = None
        m = re.search(r'<code id="check">([^<]*)</code>', page)
        codes = code if isinstance(code, tuple) else (code,)
        check(400 <= st < 500 and m and m.group(1) in codes and "butterfly_session" not in bb.jar,
              "refused: %s -> %s (%s %s)" % (name, code, st, m and m.group(1)))

    def drop(key):
        def f(c, h):
            c.pop(key, None)
            return c, h, None
        return f

    def setc(key, value):
        def f(c, h):
            c[key] = value
            return c, h, None
        return f

    def header(**hh):
        def f(c, h):
            h.update(hh)
            return c, h, None
        return f

    import jwt as pyjwt

    bad("no kid", "kid", header(kid=None))
    bad("a wrong kid", "kid", header(kid="nope"))
    bad("a wrong version", "version", setc(CLAIM + "version", "1.1"))
    bad("no version", "version", drop(CLAIM + "version"))
    bad("not a JWT", "not_a_jwt", lambda c, h: (c, h, "not.a.jwt"))
    bad("no message_type", "message_type", drop(CLAIM + "message_type"))
    # (an LtiDeepLinkingRequest is taken from an instructor: test_lti_deep_link.py)
    bad("another message_type", "message_type",
        setc(CLAIM + "message_type", "LtiSubmissionReviewRequest"))
    bad("no roles", "roles", drop(CLAIM + "roles"))
    bad("no deployment_id", "deployment_id", drop(CLAIM + "deployment_id"))
    bad("an unregistered deployment", "deployment_id", setc(CLAIM + "deployment_id", "x"))
    bad("no resource_link id", "resource_link", setc(CLAIM + "resource_link", {}))
    bad("no sub", "sub", drop("sub"))
    bad("iat in the future", "iat", setc("iat", int(time.time()) + 3600))
    bad("exp in the past", "exp", setc("exp", int(time.time()) - 10))
    bad("a wrong iss", "iss", setc("iss", "http://evil.example"))
    bad("a wrong aud", "aud", setc("aud", "someone-else"))
    bad("a list aud without azp", "azp", setc("aud", [plat.client_id, "other"]))
    bad("a different target_link_uri", "target_link_uri",
        setc(CLAIM + "target_link_uri", SERVER_URL + "/elsewhere"))
    bad("a bad signature", "signature",
        lambda c, h: (c, h, plat.sign(c, h)[:-6] + ("AAAAAA" if not plat.sign(c, h).endswith(
            "AAAAAA") else "BBBBBB")))
    bad("alg none", "alg_none", lambda c, h: (c, h, pyjwt.encode(
        c, None, algorithm="none", headers={"kid": plat.keys[0][1]})))

    def none_signed(c, h):
        # "NONE" with the platform's real signature kept: still unsigned
        import base64

        def b64(x):
            return base64.urlsafe_b64encode(x).rstrip(b"=").decode()
        head = b64(json.dumps({"alg": "NONE", "typ": "JWT", "kid": plat.keys[0][1]}).encode())
        return c, h, head + "." + plat.sign(c, h).split(".", 1)[1]
    bad("alg NONE with a signature", "alg_none", none_signed)

    def hs256(c, h):
        # PyJWT refuses a PEM as an HMAC secret: sign by hand
        import base64
        import hashlib
        import hmac

        def b64(x):
            return base64.urlsafe_b64encode(x).rstrip(b"=")
        head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": plat.keys[0][1]}).encode())
        body = b64(json.dumps(c).encode())
        sig = b64(hmac.new(plat.public_pem(), head + b"." + body, hashlib.sha256).digest())
        return c, h, (head + b"." + body + b"." + sig).decode()
    bad("HS256 with the public key as the secret", "alg", hs256)
    bad("an id_token over 64 KiB", "too_large", setc("pad", "x" * 70000))

    def replay():
        bb = Browser()
        st, _, form = None, None, None
        plat.pending_target = SERVER_URL + "/lti/launch"
        plat.pending_claims = {}
        st, h, _ = bb.go("GET", SERVER_URL + "/lti/login?" + urllib.parse.urlencode({
            "iss": plat.issuer, "login_hint": "h", "target_link_uri": plat.pending_target}))
        st, _, form = bb.go("GET", h["Location"])
        fields = dict((m.group(1), unescape(m.group(2))) for m in
                      re.finditer(r'name=(\w+) value="([^"]*)"', form))
        st1, _, _ = bb.go("POST", SERVER_URL + "/lti/launch", fields)
        st2, _, page = bb.go("POST", SERVER_URL + "/lti/launch", fields)
        return st1, st2, page, fields
    st1, st2, page, fields = replay()
    check(st1 == 303 and st2 == 400 and 'id="check">state' in page,
          "a launch posted twice is refused the second time (state used once)")
    # the old id_token with a fresh login: its nonce is not the new login's
    cc = Browser()
    st, h, _ = cc.go("GET", SERVER_URL + "/lti/login?" + urllib.parse.urlencode({
        "iss": plat.issuer, "login_hint": "h", "target_link_uri": SERVER_URL + "/lti/launch"}))
    new_state = cc.jar["butterfly_lti_state"]
    st, _, page = cc.go("POST", SERVER_URL + "/lti/launch",
                        {"id_token": fields["id_token"], "state": new_state})
    check(st == 400 and 'id="check">nonce' in page, "a replayed nonce is refused")
    dd = Browser()
    st, h, _ = dd.go("GET", SERVER_URL + "/lti/login?" + urllib.parse.urlencode({
        "iss": plat.issuer, "login_hint": "h", "target_link_uri": SERVER_URL + "/lti/launch"}))
    st, _, form = dd.go("GET", h["Location"])
    fields = dict((m.group(1), unescape(m.group(2))) for m in
                  re.finditer(r'name=(\w+) value="([^"]*)"', form))
    saved = dict(dd.jar)
    dd.jar.pop("butterfly_lti_state")
    st, _, page = dd.go("POST", SERVER_URL + "/lti/launch", fields)
    check(st == 400 and 'id="check">state_cookie' in page, "a missing state cookie is refused")
    link = re.search(r'<a id="new-window" href="([^"]*)" target="_blank"', page)
    check(link is not None, "... with an open-in-a-new-window link")
    if link:
        # the new window: a fresh top-level context that keeps the cookies
        nw = Browser()
        plat.pending_claims = {"sub": "learner-1"}
        st, h, _ = nw.go("GET", unescape(link.group(1)))
        st, _, form = nw.go("GET", h["Location"]) if st == 302 else (st, None, "")
        f2 = dict((m.group(1), unescape(m.group(2))) for m in
                  re.finditer(r'name=(\w+) value="([^"]*)"', form))
        st, h, _ = nw.go("POST", SERVER_URL + "/lti/launch", f2) if f2 else (0, {}, "")
        check(st == 303 and "butterfly_session" in nw.jar,
              "the link's login in a new window launches and signs in (%s)" % st)
    dd.jar = dict(saved, butterfly_lti_state="0" * 64)
    st, _, page = dd.go("POST", SERVER_URL + "/lti/launch", fields)
    check(st == 400 and 'id="check">state' in page, "a state that is not the cookie's is refused")
    text = urllib.request.urlopen(SERVER_URL + "/metrics", timeout=10).read().decode()
    check(metric('butterfly_lti_launches_refused_total{reason="kid"}') >= 2 and
          metric('butterfly_lti_launches_refused_total{reason="alg_none"}') >= 2 and
          'butterfly_lti_launches_refused_total{reason="iss"} 1\n' in text and
          metric("butterfly_lti_launches_total") >= 6, "/metrics counts launches and refusals")

    # ---- the platform rotates its key ----------------------------------------------------
    plat.rotate()
    time.sleep(5.5)   # an unknown kid refetches at most every LTI_KEY_SET_REFETCH_S
    st, h, _ = Browser().launch(plat, sub="learner-1")
    check(st == 303, "after the platform rotates its key, a launch with the new kid works")

    # ---- the platform's key set hangs ------------------------------------------------------
    plat.rotate()          # a kid we have not seen: we must fetch
    plat.mode["jwks"] = "hang"
    time.sleep(5.5)
    t0 = time.time()
    st, _, page = Browser().launch(plat, sub="learner-1")
    took = time.time() - t0
    with urllib.request.urlopen(SERVER_URL + "/healthz", timeout=5) as r:
        healthy = r.status == 200
    check(400 <= st < 600 and 'id="check">key_set' in page and took < 10 and healthy,
          "a hanging key set fails the launch in %.1f s, /healthz stays 200" % took)
    plat.mode.pop("jwks")

    # ---- the token and score endpoints down, then back, across a restart ---------------------
    time.sleep(5.5)   # the key set's refetch bound
    learner = Browser()
    st, _, _ = learner.launch(plat, sub="learner-1")
    check(st == 303, "a launch after the key set came back works")
    # slow: past our 10 s bound per call; the student's answer does not wait for it
    n = len(plat.scores)
    plat.mode["scores"] = "slow"
    t0 = time.time()
    st, _, _ = submit(learner, "correct.glsl")
    answered = time.time() - t0
    time.sleep(1)
    with urllib.request.urlopen(SERVER_URL + "/healthz", timeout=5) as r:
        healthy = r.status == 200
    check(st == 200 and answered < 5 and healthy,
          "with the scores endpoint slow the answer takes %.1f s, /healthz 200" % answered)
    wait_for(lambda: metric('butterfly_lti_scores_total{outcome="retried"}') >= 1, 20)
    plat.mode.pop("scores")
    check(wait_for(lambda: len(plat.scores) > n, 30),
          "once the scores endpoint is fast again the score arrives")
    time.sleep(6)   # the slow call's late arrival, after our retry of it
    # the retry carries the same timestamp (the submission's) and score: the
    # timed-out attempt coming in late is the same update again, and a
    # platform refuses at most an older one (never the retry)
    last = plat.last_ts.get((plat.lineitem, "learner-1"), "")
    stale = [r for r in plat.refused if r[0] != "assertion"]
    check(all(r[0].startswith("timestamp") and r[1]["timestamp"] < last for r in stale),
          "after a timeout only the stale attempt can be refused, never the retry: %s" % stale)
    plat.refused.clear()

    # ---- the token endpoint slow alone (the scores endpoint fine) ------------------------------
    # the platform ends our token (a 401), so the retry must ask the token
    # endpoint, which answers past our 10 s bound per call
    retried = metric('butterfly_lti_scores_total{outcome="retried"}')
    plat.mode["scores"] = "401once"
    plat.mode["token"] = "slow"
    slow_at = time.time()
    six = Browser()
    st, _, _ = six.launch(plat, sub="learner-6")
    submit(six, "compile_error_line3.glsl")
    st2, _, _ = submit(six, "correct.glsl")
    check(st == 303 and st2 == 200, "a learner launches and submits twice with the token "
          "endpoint slow")
    time.sleep(2)   # the sender is now in a token call that will time out
    t0 = time.time()
    bystander = Browser()
    st, _, _ = bystander.launch(plat, sub="learner-2", ags=False)
    st2, _, v = submit(bystander, "correct.glsl")
    with urllib.request.urlopen(SERVER_URL + "/healthz", timeout=5) as r:
        healthy = r.status == 200
    took = time.time() - t0
    check(st == 303 and st2 == 200 and json.loads(v).get("recorded") is True and healthy and
          took < 5, "meanwhile a bystander's launch, submission and /healthz answer in %.1f s"
          % took)
    check(wait_for(lambda: metric('butterfly_lti_scores_total{outcome="retried"}') >=
                   retried + 2, 25),
          "the 401 and the token call past its bound are counted as retried (%d -> %d)"
          % (retried, metric('butterfly_lti_scores_total{outcome="retried"}')))
    six_scores = lambda: [x for x in plat.scores if x["userId"] == "learner-6"]  # noqa: E731
    check(not six_scores() and time.time() - slow_at < 28,
          "while the token endpoint is slow no score arrives: %s" % six_scores())
    plat.mode.pop("token")
    check(wait_for(lambda: six_scores(), 30),
          "once the token endpoint is fast again the score arrives")
    time.sleep(1)
    got = six_scores()
    ts = [x["timestamp"] for x in got]
    check(got and got[-1]["scoreGiven"] == got[-1]["scoreMaximum"] and ts == sorted(ts) and
          len(set(ts)) == len(ts) and not [r for r in plat.refused if r[0] != "assertion"],
          "in order: the newest (full marks) last, timestamps increasing: %s"
          % [(x["scoreGiven"], x["timestamp"]) for x in got])
    plat.refused.clear()

    # an unknown user: the platform's 400 is final, counted as failed
    failed = metric('butterfly_lti_scores_total{outcome="failed"}')
    stranger = Browser()
    stranger.launch(plat, sub="stranger")
    submit(stranger, "correct.glsl")
    check(wait_for(lambda: metric('butterfly_lti_scores_total{outcome="failed"}') > failed, 20)
          and not [s for s in plat.scores if s["userId"] == "stranger"],
          "a score for a user the platform does not know is refused and counted as failed")
    plat.refused.clear()
    n = len(plat.scores)
    plat.mode["token"] = "5xx"
    plat.mode["scores"] = "down"
    # a fresh token is needed after the restart; the one cached dies with it
    submit(learner, "compile_error_line3.glsl")
    submit(learner, "correct.glsl")
    time.sleep(2)
    check(len(plat.scores) == n and metric('butterfly_lti_scores_total{outcome="retried"}') >= 1,
          "with the platform down nothing arrives, and the retries are counted")
    rc = srv.stop()
    check(rc == 0, "the server stops cleanly with scores waiting (exit %s)" % rc)
    srv = Server(BINARY, *args)
    plat.mode.clear()
    got = wait_for(lambda: len(plat.scores) > n, 40)
    check(got, "after our restart and the platform's return, the score arrives")
    ts = [s["timestamp"] for s in plat.scores if s["userId"] == "learner-1"]
    check(ts == sorted(ts) and len(set(ts)) == len(ts) and
          not [r for r in plat.refused if r[0].startswith("timestamp")],
          "the scores arrived in order, timestamps strictly increasing")

    # ---- our key rotation: the platform verifies our assertion with the new key -------------
    with urllib.request.urlopen(SERVER_URL + "/lti/jwks.json", timeout=10) as r:
        old = [k["kid"] for k in json.load(r)["keys"]]
    p = subprocess.run([ADMIN, "--database", DATABASE, "lti", "rotate-key"],
                       capture_output=True, text=True, timeout=60)
    new = re.search(r"new LTI key (\w+)", p.stdout)
    check(p.returncode == 0 and new, "butterfly-admin lti rotate-key makes a key: " +
          p.stdout + p.stderr)
    time.sleep(6)   # the server rereads its keys every LTI_KEYS_REFRESH_S
    with urllib.request.urlopen(SERVER_URL + "/lti/jwks.json", timeout=10) as r:
        now = [k["kid"] for k in json.load(r)["keys"]]
    check(new and new.group(1) in now and all(k in now for k in old),
          "after rotate-key both the new and the old key are published: %s" % now)
    n = len(plat.scores)
    plat.mode["scores"] = "401once"   # the platform ends our token: a new assertion is signed
    submit(learner, "correct.glsl")
    got = wait_for(lambda: len(plat.scores) > n, 30)
    check(got and new and plat.assertion_kids[-1] == new.group(1),
          "the next assertion is signed with the new key and the score arrives (%s)"
          % plat.assertion_kids[-2:])

    # ---- LTI uses the records' connections (issue 30, defect 2) -----------------------------
    if DATABASE.startswith("sqlite:"):
        # every SQLite connection holds the store's file open once: the
        # records' writer and their reader, and none of LTI's own (a
        # process's connections to one file share its locks and -shm)
        path = os.path.realpath(DATABASE[len("sqlite:"):])
        fd_dir = "/proc/%d/fd" % srv.proc.pid
        opened = 0
        for fd in os.listdir(fd_dir):
            try:
                opened += os.readlink(os.path.join(fd_dir, fd)) == path
            except OSError:
                pass   # closed meanwhile
        check(opened == 2, "after launches, scores and a key rotation the store's file is "
              "open twice, the records' writer and reader, LTI on theirs (%d)" % opened)
finally:
    rc = srv.stop()
    check(rc == 0, "the server stops cleanly (exit %s; under ASan: no leak)" % rc)
    plat.stop()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

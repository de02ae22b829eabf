"""LTI 1.3 through nginx with TLS (a self-signed certificate on loopback):
the state and session cookies are Secure and SameSite=None, as a launch
inside the course's frame needs, and named __Host- (Path=/, no Domain: no
sibling host can toss one in), two session cookies are refused, and the
whole flow works over https: a
learner's (graded, her score sent) and an instructor's (the class view of
the context: its page, its API and its events with the launch's session),
and Deep Linking's choice, whose cookie is __Host- and SameSite=None too.

usage: test_lti_tls.py BUTTERFLY_SERVER SAMPLES   (run with /usr/bin/python3)
Exit 77 (skipped) without nginx or openssl.
"""
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from html import unescape

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import AGS, CLAIM, INSTRUCTOR, Platform  # noqa: E402
from serverproc import Server  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "deploy"))
from nginxproc import top_config  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                  else None)
if not NGINX or not shutil.which("openssl"):
    print("nginx or openssl missing: skipped")
    sys.exit(77)
failures = []
# over TLS every cookie of ours is named __Host- (grader/common/defaults.h)
STATE, SESSION = "__Host-butterfly_lti_state", "__Host-butterfly_session"


def body_of(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def host_only(attrs):
    """Whether a Set-Cookie line is one a browser takes for a __Host- name."""
    parts = [a.strip() for a in attrs.split(";")]
    return (parts[0].startswith("__Host-") and "Secure" in parts and "Path=/" in parts and
            not any(a.lower().startswith("domain=") for a in parts))


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


tmp = tempfile.mkdtemp(prefix="lti-tls-")
cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", key, "-out", cert], check=True, capture_output=True)
tls_port, port = free_port(), free_port()
# the site alone; nginxproc.top_config gives the process its folders
site = os.path.join(tmp, "site.conf")
with open(site, "w") as f:
    f.write("""access_log off;
server {{
    listen 127.0.0.1:{tls} ssl;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    location / {{
        proxy_pass http://127.0.0.1:{port};
        proxy_set_header Host $host:$server_port;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto https;
    }}
    # the class view's events, unbuffered as deploy/nginx.conf has them
    location = /api/class/events {{
        proxy_pass http://127.0.0.1:{port};
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host:$server_port;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto https;
        proxy_buffering off;
        proxy_read_timeout 1h;
    }}
}}
""".format(tls=tls_port, cert=cert, key=key, port=port))
conf = os.path.join(tmp, "nginx.conf")
with open(conf, "w") as f:
    f.write(top_config(tmp, site))
nginx = subprocess.Popen([NGINX, "-p", tmp, "-e", os.path.join(tmp, "error.log"), "-c", conf],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
PUBLIC = "https://127.0.0.1:%d" % tls_port
plat = Platform()
plat.users.add("tls-learner")
plat.tool_jwks_url = "http://127.0.0.1:%d/lti/jwks.json" % port
config = os.path.join(tmp, "lti.json")
with open(config, "w") as f:
    json.dump({"platforms": [plat.registration()]}, f)
srv = Server(BINARY, "--port", str(port), "--database", "sqlite:" + os.path.join(tmp, "r.sqlite"),
             "--public-url", PUBLIC, "--lti-config", config, "--trusted-proxy", "127.0.0.1",
             "--workers", "1")
ctx = ssl.create_default_context(cafile=cert)
try:
    for _ in range(50):   # nginx up
        try:
            Browser(PUBLIC, ctx).go("GET", PUBLIC + "/healthz")
            break
        except OSError:
            time.sleep(0.1)
    b = Browser(PUBLIC, ctx)
    st, h, _ = b.launch(plat, sub="tls-learner", extra={"name": "Grace Hopper"})
    state_attrs = b.attrs.get(STATE, "")
    session = b.attrs.get(SESSION, "")
    check(st == 303 and h["Location"].split("#launch=")[0] == "/", "a learner's launch over https is accepted (%s)" % st)
    check(host_only(state_attrs) and host_only(session),
          "the state and session cookies are __Host- (Secure, Path=/, no Domain): %s | %s"
          % (state_attrs.split(";", 1)[-1], session.split(";", 1)[-1]))
    check("SameSite=None" in state_attrs and "Secure" in state_attrs and "HttpOnly" in state_attrs,
          "the state cookie is Secure, SameSite=None, HttpOnly: " + state_attrs)
    check("SameSite=None" in session and "Secure" in session and "HttpOnly" in session,
          "the session cookie is Secure, SameSite=None, HttpOnly: " + session.split(";", 1)[-1])
    st, _, me = b.go("GET", PUBLIC + "/api/me")
    check(st == 200 and json.loads(me).get("name") == "Grace Hopper",
          "signed in through nginx: " + me)
    # cookie tossing: a sibling host sets the bare name (it cannot set
    # __Host-) with a classmate's session, sent first. Both are refused,
    # and a bare one this server made is no session.
    grace = b.jar.get(SESSION, "")
    mallory = Browser(PUBLIC, ctx)
    mallory.launch(plat, sub="tls-mallory", extra={"name": "Mallory"})
    tossed = mallory.jar.get(SESSION, "")
    st, _, body = Browser(PUBLIC, ctx).go(
        "GET", PUBLIC + "/api/me", None,
        {"Cookie": "butterfly_session=%s; %s=%s" % (tossed, SESSION, grace)})
    check(st == 401 and json.loads(body)["error"]["code"] == "two_sessions",
          "a tossed session beside the learner's is refused through nginx (%s %s)" % (st, body))
    st, _, body = Browser(PUBLIC, ctx).go(
        "GET", PUBLIC + "/api/me", None,
        {"Cookie": "%s=%s; %s=%s" % (SESSION, tossed, SESSION, grace)})
    check(st == 401 and json.loads(body)["error"]["code"] == "two_sessions",
          "two __Host- sessions are refused (%s)" % st)
    st, _, body = Browser(PUBLIC, ctx).go("GET", PUBLIC + "/api/me", None,
                                          {"Cookie": "butterfly_session=" + tossed})
    check(st == 200 and json.loads(body)["kind"] == "none",
          "a session of this server's under the bare name is none over https: " + body)
    st, _, v = b.go("POST", PUBLIC + "/api/tasks/butterfly/submissions", body_of("correct.glsl"),
                    {"Content-Type": "text/plain", "Origin": PUBLIC})
    check(st == 200 and json.loads(v).get("recorded") is True,
          "a submission from the page's own https origin is graded and recorded")
    end = time.time() + 30
    while time.time() < end and not plat.scores:
        time.sleep(0.2)
    check(plat.scores and plat.scores[-1]["userId"] == "tls-learner" and
          plat.scores[-1]["scoreGiven"] == plat.scores[-1]["scoreMaximum"],
          "its score reaches the platform")

    # ---- the instructor of the same context, through nginx with TLS ----------------------
    ins = Browser(PUBLIC, ctx)
    st, h, _ = ins.launch(plat, sub="tls-teacher", roles=(INSTRUCTOR,))
    where = h.get("Location", "")
    klass = urllib.parse.parse_qs(urllib.parse.urlparse(where).query).get("class", [""])[0]
    state_attrs = ins.attrs.get(STATE, "")
    session = ins.attrs.get(SESSION, "")
    check(st == 303 and where == "/class?class=" + klass and len(klass) == 32,
          "an instructor's launch over https lands on the class view of its class (%s %s)"
          % (st, where))
    check("SameSite=None" in state_attrs and "Secure" in state_attrs and "HttpOnly" in state_attrs
          and "SameSite=None" in session and "Secure" in session and "HttpOnly" in session,
          "the instructor's state and session cookies are Secure, SameSite=None, HttpOnly: "
          + session.split(";", 1)[-1])
    st, _, me = ins.go("GET", PUBLIC + "/api/me")
    check(st == 200 and json.loads(me).get("kind") == "instructor",
          "signed in through nginx as the instructor: " + me)
    st, hh, page = ins.go("GET", PUBLIC + where)
    check(st == 200 and "text/html" in hh.get("Content-Type", "") and "<html" in page,
          "the class view's page answers through nginx (%s)" % st)
    own = {"Sec-Fetch-Site": "same-origin"}
    roster = []
    for _ in range(50):   # 503 "loading" while the feed reads the launch
        st, _, body = ins.go("GET", PUBLIC + "/api/class/students?class=" + klass, None, own)
        if st != 503:
            break
        time.sleep(0.2)
    if st == 200:
        roster = json.loads(body)["students"]
    # its learners: Grace, and Mallory, who launched and never tried (silent)
    grace = [t for t in roster if t["name"] == "Grace Hopper"]
    check(st == 200 and sorted(t["name"] for t in roster) == ["Grace Hopper", "Mallory"] and
          grace[0]["score_not_sent"] is None,
          "the class view's roster answers through nginx with the session: its learners, "
          "her score sent (%s %s)" % (st, body[:120]))
    st, _, body = ins.go("GET", PUBLIC + "/api/class/summary", None, own)
    check(st == 200 and json.loads(body).get("students") == 2,
          "the summary with no class named is the launch's class (%s %s)" % (st, body[:80]))
    st, _, _ = ins.go("GET", PUBLIC + "/api/class/students?class=" + "0" * 32, None, own)
    st2, _, _ = ins.go("GET", PUBLIC + "/api/class/students?class=" + klass, None,
                       {"Origin": "https://evil.example"})
    check(st == 403 and st2 == 403, "another class (%s) and a cross-site read (%s) are refused"
          % (st, st2))
    # the events through nginx: the stream's first bytes at once, then a
    # learner's new record
    req = urllib.request.Request(PUBLIC + "/api/class/events?class=" + klass, headers=dict(
        own, Cookie=SESSION + "=" + ins.jar.get(SESSION, "")))
    events = urllib.request.urlopen(req, timeout=10, context=ctx)
    first = events.readline().decode()
    check(events.status == 200 and first.startswith("retry:") and
          events.headers.get("Content-Type", "").startswith("text/event-stream"),
          "the class view's events answer through nginx: " + first.strip())
    st, _, _ = b.go("POST", PUBLIC + "/api/tasks/butterfly/submissions", body_of("correct.glsl"),
                    {"Content-Type": "text/plain", "Origin": PUBLIC})
    record = ""
    end = time.time() + 20
    while time.time() < end and not ("event: record" in record and record.endswith("\n\n")):
        record += events.readline().decode()   # to the blank line that ends the event
    data = [line[6:] for line in record.splitlines() if line.startswith("data: ")]
    check("event: record" in record and data and
          json.loads(data[-1]).get("student") == roster[0]["id"] if roster else False,
          "the learner's next submission reaches the instructor's stream through nginx")
    events.close()

    # ---- Deep Linking inside the course's frame: the choice's cookie -----------------------
    dl = Browser(PUBLIC, ctx)
    st, _, page = dl.launch(plat, sub="tls-teacher", roles=(INSTRUCTOR,),
                            extra=plat.deep_linking(), remove=(CLAIM + "resource_link", AGS))
    choice = dl.attrs.get("__Host-butterfly_lti_choice", "")
    check(st == 200 and host_only(choice) and "SameSite=None" in choice and
          "HttpOnly" in choice, "the deep-linking chooser's cookie is __Host-, Secure, "
          "SameSite=None, HttpOnly over https (%s): %s" % (st, choice))
    fields = dict(re.findall(r'name="(choice|exercise)" value="([^"]*)"', page))
    st, _, answer = dl.go("POST", PUBLIC + "/lti/deep-link", fields)
    action = re.search(r'action="([^"]*)"', answer)
    jwt_field = re.search(r'name="JWT" value="([^"]*)"', answer)
    before = len(plat.deep_links)
    if action and jwt_field:
        dl.go("POST", unescape(action.group(1)), {"JWT": unescape(jwt_field.group(1))})
    check(st == 200 and len(plat.deep_links) > before and plat.deep_links[-1][0] is not None,
          "the choice over https answers a response the platform verifies (%s %s)"
          % (st, plat.deep_links[-1][1] if len(plat.deep_links) > before else "nothing"))
finally:
    srv.stop()
    nginx.terminate()
    nginx.wait(10)
    plat.stop()
    shutil.rmtree(tmp, ignore_errors=True)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

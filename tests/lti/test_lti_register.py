"""Issue 34, item 3: LTI Dynamic Registration 1.0.

`butterfly-admin lti registration-url` prints a one-time address under the
public URL; the emulated platform (tests/lti/platform_lti.py) opens it with
openid_configuration and registration_token appended, as Moodle does. The
tool fetches the configuration, POSTs its registration (which the platform
checks: the bearer token, the redirect and login addresses, the key set,
private_key_jwt, the grants, the AGS and NRPS scopes, the tool configuration
with LtiDeepLinkingRequest) and answers a page that posts
org.imsglobal.lti.close. A launch from the new client then works at once,
its score reaches the platform, and after a restart too. A wrong, used or
expired token registers nothing and fetches nothing; a configuration whose
issuer or registration endpoint is on another host is refused before any
registration is sent; a huge configuration is refused within its bound.
Where --lti-config names the same (issuer, client_id), its platform wins.

usage: test_lti_register.py BUTTERFLY_SERVER SAMPLES BUTTERFLY_ADMIN [DATABASE_URL]
(run with /usr/bin/python3: python3-jwt, python3-cryptography; SQLite in a
temporary folder unless a URL is given: the lti_pg suite gives a PostgreSQL
cluster's)
"""
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import Platform  # noqa: E402

BINARY, SAMPLES, ADMIN = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def wait_for(cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


def check_code(page):
    m = re.search(r'<code id="check">([^<]*)</code>', page)
    return m.group(1) if m else None


folder = tempfile.mkdtemp(prefix="lti-reg-")
DB_PATH = os.path.join(folder, "r.sqlite")
DATABASE = sys.argv[4] if len(sys.argv) > 4 else "sqlite:" + DB_PATH


def sql(statement, params=()):
    """One statement on the store, as an operator's client would run it:
    its rows."""
    if DATABASE.startswith("sqlite:"):
        with sqlite3.connect(DB_PATH) as db:
            return [tuple(r) for r in db.execute(statement, params)]
    for p in params:   # psql takes no parameters: quoted here (test data only)
        statement = statement.replace("?", "'%s'" % str(p).replace("'", "''"), 1)
    out = subprocess.run(["psql", "-q", "-At", DATABASE, "-c", statement], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    return [tuple(line.split("|")) for line in out.splitlines() if line]
port = free_port()
SERVER_URL = "http://127.0.0.1:%d" % port
plat = Platform(client_id="unregistered-yet", deployment="none-yet")
plat.users.update({"learner-reg"})
plat.tool_jwks_url = SERVER_URL + "/lti/jwks.json"
plat.tool_url = SERVER_URL
CONFIG_URL = plat.url + "/.well-known/openid-configuration"
config = os.path.join(folder, "lti.json")
with open(config, "w") as f:
    json.dump({"platforms": []}, f)   # every platform registers itself


def admin_url():
    p = subprocess.run([ADMIN, "--database", DATABASE, "--public-url", SERVER_URL, "lti",
                        "registration-url"], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout.strip(), p.stderr


def open_registration(url, config_url=CONFIG_URL, token=None):
    """The platform's admin's browser opening the address with the
    platform's parameters appended."""
    b = Browser(SERVER_URL)
    sep = "&" if "?" in url else "?"
    full = url + sep + urllib.parse.urlencode({"openid_configuration": config_url,
                                               "registration_token": token or plat.reg_token})
    return b.go("GET", full)


def calls_since(n):
    return plat.calls[n:]


def start(at=None):
    p = at or port
    s = Server(BINARY, "--port", str(p), "--database", DATABASE, "--public-url",
               "http://127.0.0.1:%d" % p, "--lti-config", config, "--workers", "1")
    s.read_banner()
    return s


def login_status(server_url):
    st, _, page = Browser(server_url).go("GET", server_url + "/lti/login?" + urllib.parse.urlencode(
        {"iss": plat.issuer, "login_hint": "h", "client_id": plat.client_id,
         "target_link_uri": server_url + "/lti/launch"}))
    return st, check_code(page)


def learner_launch():
    b = Browser(SERVER_URL)
    return b, b.launch(plat, sub="learner-reg")


srv = srv2 = None
try:
    # the store is made (and its address printed) before the server runs
    rc, url, err = admin_url()
    check(rc == 0 and re.fullmatch(re.escape(SERVER_URL) + r"/lti/register\?token=[0-9a-f]{64}",
                                   url), "lti registration-url prints PUBLIC/lti/register?token="
          "... (%s %r %r)" % (rc, url, err[-200:]))
    token = urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get("token", [""])[0]
    kept = [r[0] for r in sql("SELECT token_sha256 FROM lti_registration_tokens")]
    check(kept == [hashlib.sha256(token.encode()).hexdigest()] and token not in kept,
          "the store keeps the token's SHA-256, not the token")
    srv = start()
    # another instance of the same store (as behind nginx)
    port2 = free_port()
    SERVER2 = "http://127.0.0.1:%d" % port2
    srv2 = start(port2)

    # ---- no valid one-time address: nothing registered, nothing fetched ---------
    before = len(plat.calls)
    wrong = SERVER_URL + "/lti/register?token=" + "0" * 64
    st, _, page = open_registration(wrong)
    check(st == 400 and check_code(page) == "registration_token",
          "a wrong token is refused (%s %s)" % (st, check_code(page)))
    st, _, page = open_registration(SERVER_URL + "/lti/register")
    check(st == 400 and check_code(page) == "registration_token",
          "no token is refused (%s %s)" % (st, check_code(page)))
    st, _, page = open_registration(SERVER_URL + "/lti/register?token=" + "z" * 5000)
    check(st == 400, "a token over its bound is refused (%s)" % st)
    # an expired token (made an hour and more ago: written as the admin would have)
    old = "ab" * 32
    sql("INSERT INTO lti_registration_tokens VALUES (?, ?)",
        (hashlib.sha256(old.encode()).hexdigest(), int(time.time() * 1000) - 1000))
    st, _, page = open_registration(SERVER_URL + "/lti/register?token=" + old)
    check(st == 400 and check_code(page) == "registration_token",
          "an expired token is refused (%s %s)" % (st, check_code(page)))
    check(calls_since(before) == [], "and the platform was not called: %s" % calls_since(before))
    plat.client_id = plat.next_client[0]
    said = login_status(SERVER_URL)
    check(said == (400, "unregistered"),
          "nothing was registered: a login of the client is refused (%s %s)" % said)

    # a look at the address (HEAD) spends nothing and calls nothing
    b = Browser(SERVER_URL)
    st, _, _ = b.go("HEAD", url + "&" + urllib.parse.urlencode(
        {"openid_configuration": CONFIG_URL, "registration_token": plat.reg_token}))
    check(st == 400 and plat.calls == [], "a HEAD of the address is refused, nothing fetched "
          "(%s %s)" % (st, plat.calls))

    # ---- the happy path ------------------------------------------------------------
    before = len(plat.calls)
    st, h, page = open_registration(url)
    check(st == 200 and re.search(r'postMessage\(\{subject: "org\.imsglobal\.lti\.close"\}', page),
          "a valid address registers and answers the page that posts org.imsglobal.lti.close "
          "(%s %s)" % (st, page[:300]))
    csp = h.get("Content-Security-Policy", "")
    check("frame-ancestors %s" % plat.url in csp and "script-src 'nonce-" in csp,
          "the page is framed by the platform only and runs its own script only: %s" % csp)
    check(calls_since(before) == [("GET", "/.well-known/openid-configuration"),
                                  ("POST", "/register")],
          "the tool fetched the configuration, then POSTed its registration: %s"
          % calls_since(before))
    check(len(plat.registrations) == 1 and plat.registrations[0][1] is None,
          "the platform took the registration (bearer token, addresses, private_key_jwt, "
          "grants, AGS and NRPS scopes, LtiDeepLinkingRequest): %s" % plat.registrations[-1:])

    # a launch from the new client, no restart, and its score goes back
    plat.deployment = plat.next_client[1]
    learner, (st, h, _) = learner_launch()
    check(st == 303 and h.get("Location", "").startswith("/#launch="),
          "a launch from the new client works without a restart (%s %s)"
          % (st, h.get("Location")))
    tag = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(h.get("Location", "")).fragment))
    with open(os.path.join(SAMPLES, "correct.glsl"), "rb") as f:
        body = f.read()
    st, _, _ = learner.go("POST", SERVER_URL + "/api/tasks/butterfly/submissions", body,
                          {"Content-Type": "text/plain", "X-Requested-With": "butterfly",
                           "X-Butterfly-Launch": tag.get("launch", "")})
    # (another instance may take the score first and try it again once it has read
    # the new platform: 2 x LTI_KEYS_REFRESH_S)
    check(st == 200 and wait_for(lambda: plat.received, timeout=60),
          "its score reaches the platform, through the token endpoint of its configuration "
          "(%s, %s)" % (st, plat.received[-1:]))

    # the other instance finds the platform in the store within its refresh
    check(wait_for(lambda: login_status(SERVER2)[0] == 302, timeout=20),
          "another instance of the store takes the new client's logins too, no restart")
    st, _, _ = Browser(SERVER2).launch(plat, sub="learner-reg")
    check(st == 303, "and its launches (%s)" % st)
    rc = srv2.stop()
    srv2 = None
    check(rc == 0, "the other instance stops cleanly (exit %s)" % rc)

    # ---- the address is spent ------------------------------------------------------
    before = len(plat.calls)
    st, _, page = open_registration(url)
    check(st == 400 and check_code(page) == "registration_token" and
          calls_since(before) == [], "the address registers once: used again, refused with no "
          "call to the platform (%s %s %s)" % (st, check_code(page), calls_since(before)))

    # ---- configurations on another host --------------------------------------------
    other = plat.url.replace("127.0.0.1", "localhost")
    for what, hook in (
            ("its issuer on another host", lambda c: dict(c, issuer=other)),
            ("its registration_endpoint on another host",
             lambda c: dict(c, registration_endpoint=other + "/register")),
            ("a huge configuration (2 MiB)",
             lambda c: json.dumps(dict(c, pad="x" * (2 << 20))).encode())):
        plat.openid_hook = hook
        _, url2, _ = admin_url()
        before, regs = len(plat.calls), len(plat.registrations)
        t0 = time.time()
        st, _, page = open_registration(url2)
        check(st in (400, 502) and check_code(page) == "openid_configuration" and
              ("POST", "/register") not in calls_since(before) and
              len(plat.registrations) == regs,
              "a configuration with %s is refused, no registration sent (%s %s, %.1f s)"
              % (what, st, check_code(page), time.time() - t0))
    plat.openid_hook = None
    _, url2, _ = admin_url()
    before = len(plat.calls)
    st, _, page = open_registration(url2, config_url="http://example.invalid/openid")
    check(st == 400 and check_code(page) == "openid_configuration" and calls_since(before) == [],
          "an openid_configuration over plain http to another machine is refused unfetched "
          "(%s %s)" % (st, check_code(page)))
    # the same client registered again: refused, the first kept
    _, url2, _ = admin_url()
    st, _, page = open_registration(url2)
    check(st == 409 and check_code(page) == "registered",
          "the same issuer and client_id again is refused (%s %s)" % (st, check_code(page)))

    # ---- after a restart: kept; --lti-config wins where both name the client -----
    rc = srv.stop()
    srv = None
    check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    srv = start()
    _, (st, h, _) = learner_launch()
    check(st == 303, "after a restart the registered platform still launches (%s)" % st)
    st, h, _ = Browser(SERVER_URL).go("GET", SERVER_URL + "/")
    check(plat.url in h.get("Content-Security-Policy", ""),
          "and its pages may be framed by the platform: %s" % h.get("Content-Security-Policy"))
    rc = srv.stop()
    srv = None
    with open(config, "w") as f:
        json.dump({"platforms": [dict(plat.registration(), deployment_ids=["file-dep"])]}, f)
    srv = start()
    _, (st, h, page) = learner_launch()
    check(st == 400 and check_code(page) == "deployment_id",
          "where --lti-config names the same client its registration is used (the stored "
          "deployment is not: %s %s)" % (st, check_code(page)))
finally:
    if srv2:
        srv2.stop()
    if srv:
        rc = srv.stop()
        check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    plat.stop()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

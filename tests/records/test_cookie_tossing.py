#!/usr/bin/env python3
"""Cookie tossing (issue 29 item 8) against real servers on SQLite stores.

A host next to the grader's (a.example.edu beside grader.example.edu) or
any plain-http page of the same host can set a cookie of the grader's name
for a narrower path: the browser then sends it first, beside the
student's own. Here the attacker is a classmate, Bob, who tosses his own
valid session: whichever the server picks, it must not be his. Checked:

- two values of the session cookie are refused both (401 two_sessions),
  over plain http and over TLS, on every route that acts for a session;
  a submission made with both is recorded for neither;
- over TLS (--public-url https://...) the session and pending cookies are
  named __Host- (Secure, Path=/, no Domain), which no other host can set;
  the bare name next to the __Host- one is refused; a bare one alone that
  this server made is a toss and is no session; a bare one an older
  server made (before the __Host- names) is honoured once and renamed;
- signing out clears both names.

usage: test_cookie_tossing.py SERVER_BINARY SAMPLES_DIR [ADMIN_BINARY]
"""
import binascii
import hashlib
import hmac
import http.client
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import Checks  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
ADMIN = sys.argv[3] if len(sys.argv) > 3 and os.access(sys.argv[3], os.X_OK) else None
SUBMIT = "/api/tasks/butterfly/submissions"
PAGE_HEADER = {"X-Requested-With": "butterfly"}
PUBLIC = "https://grader.example.edu"
BARE, HOST = "butterfly_session", "__Host-butterfly_session"


def call(srv, method, path, body=None, headers=None, cookies=()):
    """(status, Set-Cookie lines, body bytes); each of `cookies` is sent as
    a Cookie header of its own, in order (as a proxy may split them)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
    if isinstance(body, str):
        body = body.encode()
    conn.putrequest(method, path)
    for k, v in (headers or {}).items():
        conn.putheader(k, v)
    for c in cookies:
        conn.putheader("Cookie", c)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    r = conn.getresponse()
    data = r.read()
    sets = [v for k, v in r.getheaders() if k.lower() == "set-cookie"]
    conn.close()
    return r.status, sets, data


def setting(sets, name):
    """The Set-Cookie line for `name`, or ""."""
    return next((s for s in sets if s.startswith(name + "=")), "")


def value_of(line):
    return line.split(";")[0].split("=", 1)[1]


def guest(srv, name):
    st, sets, data = call(srv, "POST", "/api/session", json.dumps({"name": name}),
                          {"Content-Type": "application/json", **PAGE_HEADER})
    assert st == 200, (st, data)
    return sets


def me(srv, *cookies):
    st, sets, data = call(srv, "GET", "/api/me", cookies=cookies)
    return st, sets, json.loads(data)


def history(srv, cookie):
    st, _, data = call(srv, "GET", "/api/me/submissions", cookies=[cookie])
    assert st == 200, (st, data)
    return len(json.loads(data)["submissions"])


def start(folder, *args):
    db = os.path.join(folder, "records.sqlite")
    srv = Server(BINARY, "--workers", "1", "--database", "sqlite:" + db, *args)
    srv.read_banner()
    return srv, db


def old_server_value(db, value):
    """`value` (this server's) as a server older than the __Host- names
    made it: the same person, no "h", signed with the store's key."""
    key = sqlite3.connect(db).execute(
        "SELECT value FROM secrets WHERE name = 'session'").fetchone()[0]
    payload = json.loads(binascii.unhexlify(value.split(".")[0]))
    assert payload.pop("h") is True, payload
    text = binascii.hexlify(json.dumps(payload, separators=(",", ":")).encode()).decode()
    return text + "." + hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


# --- plain http: two values of the one name ------------------------------------

def t_two_values_refused(srv):
    ada = setting(guest(srv, "Ada"), BARE).split(";")[0]
    bob = setting(guest(srv, "Bob"), BARE).split(";")[0]
    assert ada and bob
    assert me(srv, ada)[2]["name"] == "Ada" and me(srv, bob)[2]["name"] == "Bob"
    # Bob's cookie, tossed for a narrower path, comes first: today the
    # server is Bob for Ada's page. Both are refused, in one header or two.
    for cookies in (["%s; %s" % (bob, ada)], [bob, ada], ["%s; x=1; %s" % (ada, bob)]):
        st, sets, body = me(srv, *cookies)
        assert st == 401 and body["error"]["code"] == "two_sessions", (cookies, st, body)
        # the answer clears ours (the tossed one, for its own path, stays)
        assert setting(sets, BARE) and "Max-Age=0" in setting(sets, BARE), sets
    # Ada's code, submitted with both, is recorded for neither
    before = history(srv, ada), history(srv, bob)
    with open(os.path.join(SAMPLES, "correct.glsl"), "rb") as f:
        st, _, body = call(srv, "POST", SUBMIT, f.read(),
                           {"Content-Type": "text/plain", **PAGE_HEADER},
                           cookies=["%s; %s" % (bob, ada)])
    assert st == 401 and json.loads(body)["error"]["code"] == "two_sessions", (st, body)
    assert (history(srv, ada), history(srv, bob)) == before
    # signing out is the way out: it acts for nobody and clears ours
    st, sets, _ = call(srv, "DELETE", "/api/session", headers=PAGE_HEADER,
                       cookies=["%s; %s" % (bob, ada)])
    assert st == 200 and "Max-Age=0" in setting(sets, BARE), (st, sets)
    # the page itself is still served (signed out), and each alone works
    st, _, _ = call(srv, "GET", "/", cookies=["%s; %s" % (bob, ada)])
    assert st == 200, st
    assert me(srv, ada)[2]["name"] == "Ada"
    # a __Host- cookie over plain http is no cookie of ours (a browser
    # sends one only over TLS): it neither signs in nor counts as a second
    st, _, body = me(srv, "__Host-%s; %s" % (bob, ada))
    assert st == 200 and body["name"] == "Ada", (st, body)


# --- over TLS: the __Host- names -------------------------------------------------

def t_host_names(srv):
    line = setting(guest(srv, "Ada"), HOST)
    attrs = [a.strip() for a in line.split(";")]
    assert line and "Secure" in attrs and "Path=/" in attrs, line
    assert not any(a.lower().startswith("domain") for a in attrs), line
    ada = HOST + "=" + value_of(line)
    assert me(srv, ada)[2]["name"] == "Ada"


def t_tls_two_refused(srv):
    # a name of its own: a second "Ada" of this open lab is "Ada (2)"
    ada = HOST + "=" + value_of(setting(guest(srv, "Ann"), HOST))
    bob_value = value_of(setting(guest(srv, "Bob"), HOST))
    # a sibling host cannot set __Host-, but it can set the bare name
    for cookies in (["%s=%s; %s" % (BARE, bob_value, ada)], ["%s; %s=%s" % (ada, BARE, bob_value)],
                    ["%s=%s; %s" % (HOST, bob_value, ada)]):
        st, sets, body = me(srv, *cookies)
        assert st == 401 and body["error"]["code"] == "two_sessions", (cookies, st, body)
        assert "Max-Age=0" in setting(sets, HOST), sets
    assert me(srv, ada)[2]["name"] == "Ann"


def t_tls_bare_toss_ignored(srv):
    bob_value = value_of(setting(guest(srv, "Bob"), HOST))
    # on a signed-out page, Bob's value under the bare name: tossed there
    # (this server never sets the bare name over TLS), so no session
    st, sets, body = me(srv, "%s=%s" % (BARE, bob_value))
    assert st == 200 and body["kind"] == "none", body
    assert "Max-Age=0" in setting(sets, BARE), sets
    assert not setting(sets, HOST), sets


def t_tls_old_cookie_honoured_once(srv, db):
    line = setting(guest(srv, "Cy"), HOST)
    old = old_server_value(db, value_of(line))
    # a browser that kept the older server's cookie through the upgrade:
    # still signed in, and the answer moves it to the __Host- name
    st, sets, body = me(srv, "%s=%s" % (BARE, old))
    assert st == 200 and body["kind"] == "guest" and body["name"] == "Cy", body
    assert "Max-Age=0" in setting(sets, BARE), sets
    renamed = setting(sets, HOST)
    assert value_of(renamed) == old and "Secure" in renamed and "Path=/" in renamed, sets
    assert me(srv, HOST + "=" + old)[2]["name"] == "Cy"


def t_tls_sign_out_clears_both(srv):
    ada = HOST + "=" + value_of(setting(guest(srv, "Ada"), HOST))
    st, sets, _ = call(srv, "DELETE", "/api/session", headers=PAGE_HEADER, cookies=[ada])
    assert st == 200, st
    assert "Max-Age=0" in setting(sets, HOST) and "Max-Age=0" in setting(sets, BARE), sets
    # and with two, tossed or not
    st, sets, _ = call(srv, "DELETE", "/api/session", headers=PAGE_HEADER,
                       cookies=["%s=x; %s" % (BARE, ada)])
    assert st == 200 and "Max-Age=0" in setting(sets, HOST) and \
        "Max-Age=0" in setting(sets, BARE), (st, sets)


def t_tls_pending_host(srv, db, folder):
    roster = os.path.join(folder, "roster.csv")
    with open(roster, "w") as f:
        f.write("id,name,section\np1,Pat One,A\n")
    for args in (["class", "import", roster], ["links"]):
        r = subprocess.run([ADMIN, "--database", "sqlite:" + db, "--public-url", PUBLIC, *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    token = r.stdout.splitlines()[1].split("?k=")[1]
    st, sets, _ = call(srv, "GET", "/?k=" + token)
    assert st == 303, st
    line = setting(sets, "__Host-butterfly_pending")
    assert line and "Secure" in line and "Path=/" in line, sets
    pending = "__Host-butterfly_pending=" + value_of(line)
    assert me(srv, pending)[2]["pending"]["id"] == "p1"
    # under the bare name over TLS it is none (and cleared)
    st, sets, body = me(srv, "butterfly_pending=" + value_of(line))
    assert "pending" not in body and "Max-Age=0" in setting(sets, "butterfly_pending"), (body, sets)


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as d:
        plain = os.path.join(d, "plain")
        tls = os.path.join(d, "tls")
        os.mkdir(plain)
        os.mkdir(tls)
        srv, _ = start(plain)
        try:
            checks.run("two session cookies are refused (http)", t_two_values_refused, srv)
        finally:
            srv.stop()
        srv, db = start(tls, "--public-url", PUBLIC)
        try:
            checks.run("__Host- names over TLS", t_host_names, srv)
            checks.run("two session cookies are refused (TLS)", t_tls_two_refused, srv)
            checks.run("a bare toss over TLS is no session", t_tls_bare_toss_ignored, srv)
            checks.run("an older server's cookie is honoured once",
                       t_tls_old_cookie_honoured_once, srv, db)
            checks.run("signing out clears both names", t_tls_sign_out_clears_both, srv)
            if ADMIN:
                checks.run("the pending cookie is __Host- too", t_tls_pending_host, srv, db, tls)
        finally:
            srv.stop()
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

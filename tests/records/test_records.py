#!/usr/bin/env python3
"""Records over HTTP against a real server on a SQLite store: who is who
(open lab names, the instructor's token, cookies), what each may read,
?wait=false, and every attack of issue 20's item 9.

usage: test_records.py SERVER_BINARY SAMPLES_DIR [ADMIN_BINARY]

With ADMIN_BINARY (butterfly-admin), a roster is imported too and the
personal links are tried. Prints one line per check and ends with
"N passed, M failed".
"""
import http.client
import json
import os
import re
import secrets
import socket
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "http"))  # serverproc
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import Checks  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
ADMIN = sys.argv[3] if len(sys.argv) > 3 and os.access(sys.argv[3], os.X_OK) else None
SUBMIT = "/api/tasks/butterfly/submissions"
PAGE_HEADER = {"X-Requested-With": "butterfly"}


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def call(srv, method, path, body=None, headers=None):
    """(status, headers as a dict of lower-case names, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
    if isinstance(body, str):
        body = body.encode()
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    hdrs = {"set-cookies": []}
    for k, v in r.getheaders():
        hdrs.setdefault(k.lower(), v)
        if k.lower() == "set-cookie":
            hdrs["set-cookies"].append(v)
    conn.close()
    return r.status, hdrs, data


def cookie_of(hdrs, name="butterfly_session"):
    """The cookie `name` as "name=value" from the answer's Set-Cookie lines,
    and its attributes ("", "" when it sets none)."""
    for sc in hdrs.get("set-cookies") or [hdrs.get("set-cookie", "")]:
        if sc.startswith(name + "="):
            return sc.split(";")[0], sc
    return "", ""


def guest(srv, name):
    st, h, data = call(srv, "POST", "/api/session", json.dumps({"name": name}),
                       {"Content-Type": "application/json", **PAGE_HEADER})
    assert st == 200, (st, data)
    cookie, attrs = cookie_of(h)
    return cookie, attrs, json.loads(data)


def submit(srv, body=None, cookie=None, extra=None, query=""):
    headers = {"Content-Type": "text/plain", **(extra or {})}
    if cookie:
        headers["Cookie"] = cookie
        headers.update(PAGE_HEADER)
    return call(srv, "POST", SUBMIT + query, body or sample("correct.glsl"), headers)


class World:
    """One server on a fresh SQLite store, and what the checks share."""

    def __init__(self, folder, url=None):
        self.db = os.path.join(folder, "records.sqlite")
        self.url = url or "sqlite:" + self.db
        self.folder = folder
        self.log_path = os.path.join(folder, "access.log")
        self.log = open(self.log_path, "w")
        self.srv = Server(BINARY, "--workers", "1", "--database", self.url,
                          env={"BUTTERFLY_QUIET": "0"}, log=self.log)
        banner = self.srv.read_banner()
        m = [re.search(r"instructor: (\S+)/class\?token=([0-9a-f]+)", l) for l in banner]
        m = [x for x in m if x]
        assert m, banner
        self.instructor = m[0].group(2)
        self.a_cookie, self.a_attrs, _ = guest(self.srv, "Ada")
        self.b_cookie, _, _ = guest(self.srv, "Bob")
        st, _, data = submit(self.srv, cookie=self.a_cookie)
        assert st == 200, data
        self.a_verdict = json.loads(data)
        self.a_id = self.a_verdict["id"]

    def close(self):
        self.srv.stop()
        self.log.close()


# --- checks -----------------------------------------------------------------

def t_answer_has_id_and_recorded(w):
    v = w.a_verdict
    assert v["recorded"] is True, v
    assert re.fullmatch(r"[0-9a-f]{32}", v["id"]), v["id"]   # 128 random bits
    st, _, data = submit(w.srv)   # signed out: graded and kept all the same
    v2 = json.loads(data)
    assert st == 200 and v2["recorded"] is True and v2["id"] != v["id"], v2


def t_banner_and_healthz(w):
    kind = w.url.split(":")[0]
    assert any(l.startswith("records: " + kind) for l in w.srv.banner), w.srv.banner
    assert not any("secret" in l for l in w.srv.banner), "a password in the banner"
    st, _, data = call(w.srv, "GET", "/healthz")
    h = json.loads(data)
    assert st == 200 and h["store"]["kind"] == kind and h["store"]["status"] == "ok", h


def t_cookie_attributes(w):
    attrs = w.a_attrs.lower()
    for a in ("httponly", "samesite=lax", "path=/"):
        assert a in attrs, w.a_attrs
    assert "secure" not in attrs, "Secure over plain http on loopback: " + w.a_attrs


def t_own_record_and_list(w):
    st, _, data = call(w.srv, "GET", "/api/submissions/" + w.a_id, headers={"Cookie": w.a_cookie})
    v = json.loads(data)
    assert st == 200 and v["id"] == w.a_id and v["recorded"] is True, (st, v)
    assert v["source"] == sample("correct.glsl").decode()
    assert v["status"] == w.a_verdict["status"]
    st, _, data = call(w.srv, "GET", "/api/me/submissions", headers={"Cookie": w.a_cookie})
    lst = json.loads(data)
    assert st == 200 and [s["id"] for s in lst["submissions"]] == [w.a_id], lst
    item = lst["submissions"][0]
    assert item["points"] == item["max_points"] == 9 and item["status"]["id"] == 3, item
    assert item["task"] == "butterfly", item   # the exercise of its route


def t_paging_newest_first(w):
    ids = [json.loads(submit(w.srv, cookie=w.b_cookie)[2])["id"] for _ in range(3)]
    seen, path = [], "/api/me/submissions?limit=2"
    while path:
        st, _, data = call(w.srv, "GET", path, headers={"Cookie": w.b_cookie})
        page = json.loads(data)
        assert st == 200 and len(page["submissions"]) <= 2, page
        seen += [s["id"] for s in page["submissions"]]
        path = page["next"] and "/api/me/submissions?limit=2&before=" + page["next"]
    assert seen == ids[::-1], (seen, ids)


def t_other_students_id_is_404(w):
    missing = call(w.srv, "GET", "/api/submissions/" + secrets.token_hex(16),
                   headers={"Cookie": w.b_cookie})
    other = call(w.srv, "GET", "/api/submissions/" + w.a_id, headers={"Cookie": w.b_cookie})
    anon = call(w.srv, "GET", "/api/submissions/" + w.a_id)
    # "sequential" neighbours of a real id
    n = int(w.a_id, 16)
    near = [call(w.srv, "GET", "/api/submissions/%032x" % (n + d), headers={"Cookie": w.b_cookie})
            for d in (-1, 1)]
    for st, _, body in [other, anon, *near]:
        assert st == 404 and body == missing[2], (st, body, missing)
    assert missing[0] == 404


def t_random_ids_404(w):
    for _ in range(50):
        st, _, _ = call(w.srv, "GET", "/api/submissions/" + secrets.token_hex(16),
                        headers={"Cookie": w.a_cookie})
        assert st == 404
    for junk in ("1", "0" * 32, "../" + w.a_id, w.a_id.upper(), w.a_id + "0"):
        st, _, _ = call(w.srv, "GET", "/api/submissions/" + junk, headers={"Cookie": w.a_cookie})
        assert st == 404, junk


def t_forged_cookie_signed_out(w):
    name, value = w.a_cookie.split("=", 1)
    forged = []
    # one byte changed in the payload, in the signature; a cookie of another key
    i = len(value) // 3
    forged.append(value[:i] + ("0" if value[i] != "0" else "1") + value[i + 1:])
    forged.append(value[:-1] + ("0" if value[-1] != "0" else "1"))
    payload = json.dumps({"k": "instructor", "e": 4102444800, "i": "", "n": "x"}).encode().hex()
    forged.append(payload + "." + "00" * 32)
    forged.append("garbage")
    for f in forged:
        c = "%s=%s" % (name, f)
        st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": c})
        assert st == 200 and json.loads(data)["kind"] == "none", data
        st, _, _ = call(w.srv, "GET", "/api/submissions/" + w.a_id, headers={"Cookie": c})
        assert st == 404


def t_cross_site_post_refused(w):
    evil = {"Origin": "http://evil.example", "Cookie": w.a_cookie, "Content-Type": "text/plain"}
    st, _, data = call(w.srv, "POST", SUBMIT, sample("correct.glsl"), evil)
    assert st == 403 and json.loads(data)["error"]["code"] == "cross_site", (st, data)
    # the cookie without Origin and without the page's header (an old browser's form)
    st, _, _ = call(w.srv, "POST", SUBMIT, sample("correct.glsl"),
                    {"Cookie": w.a_cookie, "Content-Type": "text/plain"})
    assert st == 403
    st, _, _ = call(w.srv, "POST", "/api/session", '{"name": "x"}',
                    {"Content-Type": "application/json", "Origin": "null"})
    assert st == 403
    # the page's own origin is fine
    host = "127.0.0.1:%d" % w.srv.port
    st, _, _ = call(w.srv, "POST", SUBMIT, sample("correct.glsl"),
                    {"Cookie": w.a_cookie, "Content-Type": "text/plain",
                     "Origin": "http://" + host, "Host": host})
    assert st == 200


def t_referrer_policy_everywhere(w):
    for method, path, hdrs in (("GET", "/", {}), ("GET", "/healthz", {}), ("GET", "/metrics", {}),
                               ("GET", "/nope", {}), ("GET", "/?k=" + "ab" * 16, {}),
                               ("GET", "/class?token=" + w.instructor, {}),
                               ("GET", "/api/me", {}), ("POST", "/healthz", {})):
        st, h, _ = call(w.srv, method, path, headers=hdrs)
        assert h.get("referrer-policy") == "no-referrer", (path, st, h)


def t_instructor_token(w):
    bearer = {"Authorization": "Bearer " + w.instructor}
    st, _, data = call(w.srv, "GET", "/api/submissions/" + w.a_id, headers=bearer)
    assert st == 200 and json.loads(data)["id"] == w.a_id
    st, h, _ = call(w.srv, "GET", "/class?token=" + w.instructor)
    assert st == 303 and h["location"] == "/class", (st, h)
    cookie, _ = cookie_of(h)
    st, h, data = call(w.srv, "GET", "/class", headers={"Cookie": cookie})
    assert st == 200 and h["content-type"].startswith("text/html"), (st, h)
    st, _, data = call(w.srv, "GET", "/api/me/submissions?student=nobody", headers=bearer)
    assert st == 200 and json.loads(data)["submissions"] == []
    st, _, _ = call(w.srv, "GET", "/class")
    assert st == 401
    # a student's cookie is not the instructor's
    st, _, _ = call(w.srv, "GET", "/class", headers={"Cookie": w.a_cookie})
    assert st == 401


def t_wait_false(w):
    st, h, data = submit(w.srv, cookie=w.a_cookie, query="?wait=false")
    body = json.loads(data)
    assert st == 202 and h["location"] == "/api/submissions/" + body["id"], (st, h, body)
    deadline = time.time() + 60
    while time.time() < deadline:
        st, _, data = call(w.srv, "GET", h["location"], headers={"Cookie": w.a_cookie})
        if st == 200:
            break
        assert st == 202 and json.loads(data)["state"] == "pending", (st, data)
        # another student sees nothing, even while it is pending
        assert call(w.srv, "GET", h["location"], headers={"Cookie": w.b_cookie})[0] == 404
        time.sleep(0.05)
    v = json.loads(data)
    assert st == 200 and v["recorded"] is True and v["status"]["id"] == 3, v
    st, _, _ = submit(w.srv, query="?wait=false")
    assert st == 401   # signed out: nobody could read it later


def t_display_names(w):
    hdr = {"Content-Type": "application/json", **PAGE_HEADER}
    # a 10 MB name: refused from its headers, before the body is read
    s = socket.create_connection(("127.0.0.1", w.srv.port), timeout=10)
    s.sendall(b"POST /api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"X-Requested-With: butterfly\r\nContent-Length: %d\r\n\r\n{\"name\": \"aaaa"
              % (10 * 1024 * 1024))
    reply = s.recv(4096)
    s.close()
    assert reply.startswith(b"HTTP/1.1 413"), reply
    # chunked, past the limit: counted as it comes
    big = b'{"name": "' + b"a" * 8192 + b'"}'
    conn = http.client.HTTPConnection("127.0.0.1", w.srv.port, timeout=30)
    conn.request("POST", "/api/session", body=iter([big]), headers=hdr, encode_chunked=True)
    assert conn.getresponse().status == 413
    conn.close()
    for bad in ("\u0007bell", "a\nb", "\u202eevil", " ", "x" * 65):
        st, _, data = call(w.srv, "POST", "/api/session", json.dumps({"name": bad}), hdr)
        assert st == 400, (bad, st, data)
    html = "<script>alert(1)</script>"
    cookie, _, me = guest(w.srv, html)
    assert me["name"] == html   # kept as text; JSON carries it, the page sets textContent
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": cookie})
    assert json.loads(data) == {"kind": "guest", "name": html, "section": "",
                                "records": True}, data


def t_bearer_wrong_is_401(w):
    st, h, _ = call(w.srv, "GET", "/api/me/submissions",
                    headers={"Authorization": "Bearer " + "0" * 64, "X-Forwarded-For": "x"})
    assert st == 401 and h.get("www-authenticate") == "Bearer", (st, h)
    # another scheme is another layer's (nginx's auth_basic before a lab):
    # no credential of ours, so the page and /healthz are served as ever
    st, _, _ = call(w.srv, "GET", "/api/me/submissions", headers={"Authorization": "Basic eA=="})
    assert st == 401
    for path in ("/", "/healthz"):
        st, _, _ = call(w.srv, "GET", path, headers={"Authorization": "Basic eA=="})
        assert st == 200, (path, st)


def t_text_not_utf8_never_drops(w):
    """A store imported before rosters were checked holds a Latin-1 id or
    name (issue 29, item 7): /api/me with such a student's token answers,
    never drops the connection: 401 for an id no JSON can carry, the name
    shown printable; the link asks "Sign in as NAME?" and signs in."""
    import hashlib
    import sqlite3
    if not w.url.startswith("sqlite:"):
        return
    bad_id, bad_name = secrets.token_hex(32), secrets.token_hex(32)
    c = sqlite3.connect(w.db)
    for sid, name, token in ((b"lat\xe91", b"Lea", bad_id), (b"lat2", b"Ren\xe9e", bad_name)):
        # (and a section that is not text either: shown as none)
        c.execute("INSERT INTO students (id, name, section, email, verified, token_sha256, "
                  "created_ms) VALUES (CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), '', 1,"
                  " ?, 0)", (sid, name, b"Sec\xe9", hashlib.sha256(token.encode()).hexdigest()))
    c.commit()
    c.close()
    try:
        st, _, data = call(w.srv, "GET", "/api/me", headers={"Authorization": "Bearer " + bad_name})
        assert st == 200, (st, data)
        assert json.loads(data) == {"kind": "student", "name": "Ren%E9e", "section": "",
                                    "records": True}, data
        st, h, data = call(w.srv, "GET", "/api/me", headers={"Authorization": "Bearer " + bad_id})
        assert st == 401 and json.loads(data)["error"]["code"] == "unauthorized", (st, data)
        st, h, _ = call(w.srv, "GET", "/?k=" + bad_id)
        assert st == 303 and h["location"] == "/?signin=failed", (st, h)
        cookie = link_cookie(w, bad_name)
        st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": cookie})
        assert st == 200 and json.loads(data)["name"] == "Ren%E9e", (st, data)
    finally:
        c = sqlite3.connect(w.db)
        c.execute("DELETE FROM students WHERE id IN (CAST(? AS TEXT), 'lat2')", (b"lat\xe91",))
        c.commit()
        c.close()


def admin(w, *args):
    import subprocess
    r = subprocess.run([ADMIN, "--database", w.url,
                        "--public-url", w.srv.url, *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def t_roster_links_and_bearer(w):
    roster = os.path.join(w.folder, "roster.csv")
    with open(roster, "w") as f:
        f.write("id,name,section\ns1,Sam One,A\ns2,Sue Two,B\n")
    admin(w, "class", "import", roster)
    links = {}
    for line in admin(w, "links").splitlines()[1:]:
        sid, name, link = line.split(",")
        links[sid] = link
    assert set(links) == {"s1", "s2"}, links
    token = {s: l.split("?k=")[1] for s, l in links.items()}
    # the link signs in with a cookie (once the page has asked) and drops
    # the token from the address
    cookie = link_cookie(w, token["s1"])
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": cookie})
    assert json.loads(data)["kind"] == "student" and json.loads(data)["name"] == "Sam One"
    # with the roster's section, which the top of the page shows (issue 31
    # item 1), from the cookie as from the token
    assert json.loads(data)["section"] == "A", data
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Authorization": "Bearer " + token["s2"]})
    assert json.loads(data)["section"] == "B", data
    # a roster: no open-lab names any more
    st, _, data = call(w.srv, "POST", "/api/session", '{"name": "x"}',
                       {"Content-Type": "application/json", **PAGE_HEADER})
    assert st == 409, (st, data)
    # the token as a bearer, for curl: attributed, and only Sam's to read
    st, _, data = submit(w.srv, extra={"Authorization": "Bearer " + token["s1"]})
    rid = json.loads(data)["id"]
    st, _, data = call(w.srv, "GET", "/api/me/submissions",
                       headers={"Authorization": "Bearer " + token["s1"]})
    assert [x["id"] for x in json.loads(data)["submissions"]] == [rid]
    st, _, _ = call(w.srv, "GET", "/api/submissions/" + rid,
                    headers={"Authorization": "Bearer " + token["s2"]})
    assert st == 404
    st, _, _ = call(w.srv, "GET", "/api/submissions/" + rid, headers={"Cookie": cookie})
    assert st == 200
    # a leaked link renewed: the old token stops working at once
    new = admin(w, "links", "--renew", "s1").splitlines()[1].split("?k=")[1]
    st, h, _ = call(w.srv, "GET", "/?k=" + token["s1"])
    assert st == 303 and h["location"] == "/?signin=failed", h
    assert call(w.srv, "GET", "/?k=" + new)[0] == 303
    # a new instructor token ends the old
    out = admin(w, "token")
    fresh = re.search(r"token=([0-9a-f]+)", out).group(1)
    assert call(w.srv, "GET", "/class?token=" + fresh)[0] == 303
    st, _, _ = call(w.srv, "GET", "/api/me", headers={"Authorization": "Bearer " + w.instructor})
    assert st == 401
    w.instructor = fresh


def refresh_s():
    """CREDENTIALS_REFRESH_S, from the one place it is set."""
    path = os.path.join(HERE, "..", "..", "grader", "common", "defaults.h")
    with open(path) as f:
        return int(re.search(r"#define CREDENTIALS_REFRESH_S\s+(\d+)u", f.read()).group(1))


def t_docs_state_the_bound(w):
    r = refresh_s()
    root = os.path.join(HERE, "..", "..", "docs")
    with open(os.path.join(root, "DEPLOY.md")) as f:
        deploy = f.read()
    assert "every %d s (`CREDENTIALS_REFRESH_S`)" % r in deploy
    # the renewals' and forget's bound: the poll of the store's changes
    # (IDENTITY_POLL_MS) and a read, within 2 s; the table's refresh alone
    # (twice it) when the changes cannot be read
    with open(os.path.join(HERE, "..", "..", "grader", "common", "defaults.h")) as f:
        poll_ms = int(re.search(r"#define IDENTITY_POLL_MS\s+(\d+)u", f.read()).group(1))
    assert poll_ms <= 1000
    assert "every %g s (`IDENTITY_POLL_MS`" % (poll_ms / 1000) in deploy
    assert deploy.count("within 2 s") >= 3 and "within %d s" % (2 * r) in deploy
    with open(os.path.join(root, "man", "butterfly-admin.1")) as f:
        man = f.read()
    assert man.count("within 2 seconds") >= 4


def kind_with(w, cookie):
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": cookie})
    assert st == 200, (st, data)
    return json.loads(data)["kind"]


def signed_out_within(w, cookie, bound_s):
    """Seconds until cookie reads as signed out; fails past bound_s."""
    t0 = time.monotonic()
    while kind_with(w, cookie) != "none":
        assert time.monotonic() - t0 < bound_s, "still signed in after %ss" % bound_s
        time.sleep(0.2)
    return time.monotonic() - t0


def link_cookie(w, token):
    """The session a personal link makes on a signed-out page: the link
    asks first (a pending cookie), and the page's "yes" signs it in."""
    st, h, _ = call(w.srv, "GET", "/?k=" + token)
    assert st == 303 and h["location"] == "/?signin=confirm", (st, h)
    assert cookie_of(h)[0] == "", h   # no session before the page asks
    pending = cookie_of(h, "butterfly_pending")[0]
    assert pending, h
    return confirm_pending(w, pending)


def confirm_pending(w, pending, cookie=None):
    """The page's yes to "Sign in as NAME?" for the pending cookie: the
    session cookie it makes."""
    jar = pending + ("; " + cookie if cookie else "")
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": jar})
    asked = json.loads(data)["pending"]
    st, h, data = call(w.srv, "POST", "/api/session", json.dumps({"confirm": True, "id": asked["id"]}),
                       {"Content-Type": "application/json", "Cookie": jar, **PAGE_HEADER})
    assert st == 200, (st, data)
    return cookie_of(h)[0]


def import_roster(w, name, rows):
    """Imports rows ("id,name,section" lines) as a roster file `name`; the
    personal token of every student on the roster, by id."""
    roster = os.path.join(w.folder, name)
    with open(roster, "w") as f:
        f.write("id,name,section\n" + rows)
    admin(w, "class", "import", roster)
    return dict((l.split(",")[0], l.split("?k=")[1])
                for l in admin(w, "links").splitlines()[1:])


def t_sessions_end_with_their_token(w):
    # the bound docs/DEPLOY.md states: a read every CREDENTIALS_REFRESH_S,
    # and a session issued just before a read is judged by the next one
    bound = 2 * refresh_s() + 2
    links = import_roster(w, "roster2.csv", "r1,Rae One,A\nr2,Rob Two,B\n")
    old = link_cookie(w, links["r1"])
    other = link_cookie(w, links["r2"])
    st, h, _ = call(w.srv, "GET", "/class?token=" + w.instructor)
    assert st == 303, st
    teacher = cookie_of(h)[0]
    assert kind_with(w, old) == "student" and kind_with(w, teacher) == "instructor"
    assert kind_with(w, w.a_cookie) == "guest"
    # the cookies are older than the server's next read of the tokens
    time.sleep(refresh_s() + 0.5)
    # a leaked link renewed: the session made with it ends, the new link works
    new = admin(w, "links", "--renew", "r1").splitlines()[1].split("?k=")[1]
    took = signed_out_within(w, old, bound)
    fresh = link_cookie(w, new)
    assert kind_with(w, fresh) == "student"
    # a new instructor token ends the sessions made with the old one
    out = admin(w, "token")
    w.instructor = re.search(r"token=([0-9a-f]+)", out).group(1)
    signed_out_within(w, teacher, bound)
    st, _, _ = call(w.srv, "GET", "/class", headers={"Cookie": teacher})
    assert st == 401, st
    # a forgotten student's session ends
    assert kind_with(w, other) == "student"
    admin(w, "forget", "r2")
    signed_out_within(w, other, bound)
    # what no renewal touched goes on: a guest's session, and the new link's
    # once the server has read the tokens since it was made
    time.sleep(refresh_s() * 2 + 0.5)
    assert kind_with(w, w.a_cookie) == "guest"
    assert kind_with(w, fresh) == "student"
    st, h, _ = call(w.srv, "GET", "/class?token=" + w.instructor)
    assert kind_with(w, cookie_of(h)[0]) == "instructor"
    print("  renewal ended the old session after %.1f s (bound %d s)" % (took, bound))


def t_link_keeps_another_session(w):
    """A personal link never replaces the session of someone else: sent
    by another student (login CSRF), it would sign the victim's page in
    as the sender, and the victim's work would be recorded as theirs."""
    links = import_roster(w, "roster3.csv", "c1,Cy One,A\nc2,Cat Two,B\n")
    cy = link_cookie(w, links["c1"])
    st, h, _ = call(w.srv, "GET", "/class?token=" + w.instructor)
    teacher = cookie_of(h)[0]
    # Cat's link opened on Cy's page, a guest's or the instructor's: the
    # session stays, the page is told why, and whom the link is for waits
    # (a pending cookie) for the page's "sign out first, then Sign in as Cat?"
    for cookie, name in ((cy, "Cy One"), (w.a_cookie, "Ada"), (teacher, "")):
        st, h, _ = call(w.srv, "GET", "/?k=" + links["c2"], headers={"Cookie": cookie})
        assert st == 303 and h["location"] == "/?signin=other", (st, h)
        assert cookie_of(h)[0] == "", "the session changed: %s" % h
        pending = cookie_of(h, "butterfly_pending")[0]
        assert pending, h
        st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": cookie})
        assert json.loads(data)["name"] == name and "pending" not in json.loads(data), data
        jar = {"Cookie": cookie + "; " + pending}
        st, _, data = call(w.srv, "GET", "/api/me", headers=jar)
        me = json.loads(data)
        assert me["name"] == name and me["pending"]["name"] == "Cat Two", me
        # a yes while signed in as the other is refused
        st, _, data = call(w.srv, "POST", "/api/session", '{"confirm": true, "id": "c2"}',
                           {**jar, **PAGE_HEADER, "Content-Type": "application/json"})
        assert st == 409 and json.loads(data)["error"]["code"] == "signed_in_as_other", (st, data)
        # a run while Cat's link waits on this page is not recorded as the
        # page's (whoever is at the keyboard): refused, nothing graded;
        # the same page without the waiting link runs as before
        st, _, data = submit(w.srv, cookie=jar["Cookie"])
        assert st == 409 and json.loads(data)["error"]["code"] == "sign_in_pending", (st, data)
        if name:
            st, _, data = submit(w.srv, cookie=cookie)
            assert st == 200 and json.loads(data)["recorded"] is True, (st, data[:200])
        # sign out keeps the waiting sign-in: the page then asks, and a yes
        # signs in as Cat
        st, h, data = call(w.srv, "DELETE", "/api/session", headers={**jar, **PAGE_HEADER})
        me = json.loads(data)
        assert st == 200 and me["kind"] == "none" and me["pending"]["id"] == "c2", (st, me)
        assert not any("butterfly_pending" in c for c in h["set-cookies"]), h
        assert kind_with(w, confirm_pending(w, pending)) == "student"
    # Cy's own link on Cy's page: signed in again, as before
    st, h, _ = call(w.srv, "GET", "/?k=" + links["c1"], headers={"Cookie": cy})
    assert st == 303 and h["location"] == "/" and cookie_of(h)[0], (st, h)
    # signing out: not from another site; from the page, the cookie goes
    st, _, _ = call(w.srv, "DELETE", "/api/session",
                    headers={"Cookie": cy, "Origin": "https://elsewhere.example"})
    assert st == 403, st
    st, h, data = call(w.srv, "DELETE", "/api/session", headers={"Cookie": cy, **PAGE_HEADER})
    assert st == 200 and json.loads(data) == {"kind": "none", "name": "", "section": "",
                                           "records": True}, data
    cleared, attrs = cookie_of(h)
    assert cleared.endswith("=") and "Max-Age=0" in attrs and "HttpOnly" in attrs, attrs
    # and then Cat's link signs that browser in as Cat
    cat = link_cookie(w, links["c2"])
    assert kind_with(w, cat) == "student"
    st, h, _ = call(w.srv, "PUT", "/api/session", headers=PAGE_HEADER)
    assert st == 405 and h["allow"] == "POST, DELETE", (st, h)


def pending_lifetime_s():
    """PENDING_LIFETIME_S, from the one place it is set."""
    path = os.path.join(HERE, "..", "..", "grader", "common", "defaults.h")
    with open(path) as f:
        return int(re.search(r"#define PENDING_LIFETIME_S\s+(\d+)u", f.read()).group(1))


def t_link_asks_first(w):
    """On a page signed in as nobody, a personal link signs in only once
    the page has asked "Sign in as NAME?" and been told yes: a link a
    classmate sent would otherwise sign you in as them, silently."""
    links = import_roster(w, "roster4.csv", "p1,Pat One,A\n")
    st, h, _ = call(w.srv, "GET", "/?k=" + links["p1"])
    assert st == 303 and h["location"] == "/?signin=confirm", (st, h)
    assert cookie_of(h)[0] == "", "a session before the page asked: %s" % h
    pending, attrs = cookie_of(h, "butterfly_pending")
    life = pending_lifetime_s()
    assert "HttpOnly" in attrs and "SameSite=Lax" in attrs and "Max-Age=%d" % life in attrs, attrs
    # the docs state the same bound
    with open(os.path.join(HERE, "..", "..", "docs", "DEPLOY.md")) as f:
        assert "(`PENDING_COOKIE`, %d minutes)" % (life // 60) in f.read()
    # the page learns whom the link is for, and is signed in as nobody
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": pending})
    me = json.loads(data)
    assert me["kind"] == "none" and me["pending"] == {"kind": "student", "name": "Pat One",
                                                      "id": "p1"}, me
    # a pending value is no session, and a session no pending sign-in
    assert kind_with(w, "butterfly_session=" + pending.split("=", 1)[1]) == "none"
    st, _, data = call(w.srv, "GET", "/api/me", headers={
        "Cookie": "butterfly_pending=" + w.a_cookie.split("=", 1)[1]})
    assert "pending" not in json.loads(data), data
    headers = {"Content-Type": "application/json", "Cookie": pending}
    # no other site can say yes for the page
    st, _, _ = call(w.srv, "POST", "/api/session", '{"confirm": true}',
                    {**headers, "Origin": "https://elsewhere.example"})
    assert st == 403, st
    # "Not me": nothing signed in, the pending sign-in gone
    st, h, data = call(w.srv, "POST", "/api/session", '{"confirm": false}', {**headers, **PAGE_HEADER})
    assert st == 200 and json.loads(data)["kind"] == "none", data
    assert "Max-Age=0" in cookie_of(h, "butterfly_pending")[1], h
    st, _, data = call(w.srv, "POST", "/api/session", '{"confirm": true}', {**PAGE_HEADER,
                       "Content-Type": "application/json"})
    assert st == 409 and json.loads(data)["error"]["code"] == "no_pending_sign_in", (st, data)
    # a forged pending cookie is no pending sign-in
    forged = pending[:-4] + ("0000" if not pending.endswith("0000") else "1111")
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": forged})
    assert "pending" not in json.loads(data), data
    st, _, data = call(w.srv, "POST", "/api/session", '{"confirm": "yes"}', {**headers, **PAGE_HEADER})
    assert st == 400, (st, data)
    # a yes is for whom the page asked about: another sign-in put in its
    # place meanwhile (a classmate's page opening their link) is refused
    st, h, _ = call(w.srv, "GET", "/?k=" + links["p1"])
    pending = cookie_of(h, "butterfly_pending")[0]
    headers["Cookie"] = pending
    for body in ('{"confirm": true}', '{"confirm": true, "id": "s1"}'):
        st, _, data = call(w.srv, "POST", "/api/session", body, {**headers, **PAGE_HEADER})
        assert st == 409 and json.loads(data)["error"]["code"] == "pending_changed", (st, data)
    # on a page signed in as someone else: a yes is refused, and a no
    # leaves that session's cookie alone
    jar = {**headers, "Cookie": pending + "; " + w.a_cookie, **PAGE_HEADER}
    st, _, data = call(w.srv, "POST", "/api/session", '{"confirm": true, "id": "p1"}', jar)
    assert st == 409 and json.loads(data)["error"]["code"] == "signed_in_as_other", (st, data)
    st, h, data = call(w.srv, "POST", "/api/session", '{"confirm": false}', jar)
    assert st == 200 and json.loads(data)["name"] == "Ada", data
    assert cookie_of(h)[0] == "" and cookie_of(h, "butterfly_pending")[0] == "butterfly_pending=", h
    # yes: signed in as the link's student
    cookie = link_cookie(w, links["p1"])
    st, _, data = call(w.srv, "GET", "/api/me", headers={"Cookie": cookie})
    assert json.loads(data)["name"] == "Pat One" and "pending" not in json.loads(data), data


def metric(w, name):
    _, _, data = call(w.srv, "GET", "/metrics")
    for line in data.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError("no metric " + name)


def t_token_guessing_bounded(w):
    before = metric(w, "butterfly_token_failures_total")
    codes = [call(w.srv, "GET", "/?k=" + secrets.token_hex(32))[0] for _ in range(40)]
    assert codes[0] == 303 and 429 in codes, codes
    first_refusal = codes.index(429)
    assert all(c == 429 for c in codes[first_refusal:]), codes
    assert first_refusal <= 25, codes
    after = metric(w, "butterfly_token_failures_total")
    assert after - before >= first_refusal - 1, (before, after)
    assert metric(w, "butterfly_token_refusals_total") >= 40 - first_refusal
    # the real instructor token is refused too from this client now: the bound is per client
    st, _, _ = call(w.srv, "GET", "/class?token=" + w.instructor)
    assert st == 429


def t_sign_ins_bounded(w):
    """Last: it spends this client's budget of new sessions."""
    with open(os.path.join(HERE, "..", "..", "grader", "common", "defaults.h")) as f:
        text = f.read()
    most = int(re.search(r"#define SIGN_INS_PER_WINDOW\s+(\d+)u", text).group(1))
    assert int(re.search(r"#define SIGN_IN_WINDOW_S\s+(\d+)u", text).group(1)) == 60
    # the bound as README.md and docs/openapi.json state it
    for doc in ("README.md", os.path.join("docs", "openapi.json")):
        with open(os.path.join(HERE, "..", "..", doc)) as f:
            assert "%d a minute" % most in " ".join(f.read().split()), doc
    body = json.dumps({"name": "Flood"})
    codes = []
    for _ in range(most + 5):
        st, h, _ = call(w.srv, "POST", "/api/session", body,
                        {"Content-Type": "application/json", **PAGE_HEADER})
        codes.append(st)
        if st == 429:
            break
    # the checks before this one started a few sessions from this client too
    assert codes[-1] == 429 and most - 50 < len(codes) <= most + 1, (len(codes), codes[-3:])
    assert int(h["retry-after"]) >= 1, h
    assert metric(w, "butterfly_sign_in_refusals_total") >= 1


def t_metrics_count_records(w):
    assert metric(w, 'butterfly_records_total{outcome="recorded",reason=""}') >= 5
    assert metric(w, "butterfly_store_up") == 1


def t_no_token_in_access_log(w):
    w.log.flush()
    time.sleep(0.2)
    with open(w.log_path) as f:
        text = f.read()
    assert "/class" in text, text[-500:]
    assert w.instructor not in text, "the instructor's token is in the access log"
    assert "k=" not in text and "token=" not in text


CHECKS = [
    ("answer has id and recorded", t_answer_has_id_and_recorded),
    ("banner and /healthz", t_banner_and_healthz),
    ("cookie attributes", t_cookie_attributes),
    ("own record and list", t_own_record_and_list),
    ("paging newest first", t_paging_newest_first),
    ("another student's id is 404", t_other_students_id_is_404),
    ("random ids are 404", t_random_ids_404),
    ("forged cookie is signed out", t_forged_cookie_signed_out),
    ("cross-site post refused", t_cross_site_post_refused),
    ("Referrer-Policy on every answer", t_referrer_policy_everywhere),
    ("instructor token", t_instructor_token),
    ("?wait=false", t_wait_false),
    ("display names", t_display_names),
    ("wrong bearer is 401", t_bearer_wrong_is_401),
    ("roster, links, bearer, renewal", t_roster_links_and_bearer),
    ("text that is not UTF-8 never drops /api/me", t_text_not_utf8_never_drops),
    ("sessions end with their token", t_sessions_end_with_their_token),
    ("a link keeps another's session; signing out", t_link_keeps_another_session),
    ("a link on a signed-out page asks first", t_link_asks_first),
    ("docs state the sessions' bound", t_docs_state_the_bound),
    ("metrics count records", t_metrics_count_records),
    ("token guessing bounded", t_token_guessing_bounded),
    ("no token in access log", t_no_token_in_access_log),
    ("new sessions bounded per client", t_sign_ins_bounded),
]


def refused_start(args, env=None):
    """Runs the server expecting a refusal at start: its exit status and
    what it wrote to standard error."""
    import subprocess
    full = dict(os.environ, BUTTERFLY_QUIET="1", BUTTERFLY_DATABASE="", BUTTERFLY_STATE_DIR="",
                STATE_DIRECTORY="", BUTTERFLY_STATE_DIR_GROUP_OK="")
    full.update(env or {})
    # a refusal comes before the workers start, in milliseconds: a server
    # still running after 30 s took the folder (and is killed)
    try:
        p = subprocess.run([BINARY, "--port", "0", "--workers", "1", *args], env=full,
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired as e:
        return None, "started and ran: %s" % (e.stdout or b"")[:200]
    return p.returncode, p.stderr


def started(args, env=None):
    """Starts the server on the store the state folder of args names,
    checks the banner says so, stops it; its exit status."""
    full = {"BUTTERFLY_DATABASE": "", "BUTTERFLY_STATE_DIR": "", "STATE_DIRECTORY": "",
            "BUTTERFLY_STATE_DIR_GROUP_OK": ""}
    full.update(env or {})
    srv = Server(BINARY, "--workers", "1", *args, env=full)
    banner = "".join(srv.read_banner())
    rc = srv.stop()
    assert "records: sqlite:" in banner, banner
    return rc


def t_state_folder(folder):
    """Issue 29 item 9: the state folder is the server's. A folder every
    user may write to, one of another user's and one its group may write
    to are refused at start, naming the folder and what is wrong (the
    group allowed by --state-dir-group-ok, never every user); a missing
    one is made 0700, with the records 0600."""
    base = os.path.join(folder, "state-folders")
    os.mkdir(base, 0o700)
    # missing: made, the server's only
    fresh = os.path.join(base, "fresh", "butterfly")
    assert started(["--state-dir", fresh]) == 0
    mode = os.stat(fresh).st_mode & 0o7777
    assert mode == 0o700, oct(mode)
    assert os.stat(os.path.dirname(fresh)).st_mode & 0o077 == 0
    db = os.stat(os.path.join(fresh, "records.sqlite"))
    assert db.st_mode & 0o7777 == 0o600 and db.st_uid == os.geteuid(), oct(db.st_mode)
    # every user may write: refused, from the option or from systemd's variable
    open_ = os.path.join(base, "open")
    os.mkdir(open_)
    os.chmod(open_, 0o777)
    for args, env in ((["--state-dir", open_], None), ([], {"STATE_DIRECTORY": open_}),
                      (["--state-dir", open_, "--state-dir-group-ok"], None)):
        rc, err = refused_start(args, env)
        assert rc not in (0, None) and open_ in err and "writable by every user" in err, (args, env, rc, err)
        assert not os.path.exists(os.path.join(open_, "records.sqlite")), "a store was made"
    # its group may write: refused unless the operator allows the group
    shared = os.path.join(base, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o770)
    rc, err = refused_start(["--state-dir", shared])
    assert rc not in (0, None) and shared in err and "writable by its group" in err, (rc, err)
    assert "--state-dir-group-ok" in err, err
    assert started(["--state-dir", shared, "--state-dir-group-ok"]) == 0
    assert started(["--state-dir", shared], {"BUTTERFLY_STATE_DIR_GROUP_OK": "1"}) == 0
    notes = ["every user's and the group's refused, the group's allowed by the flag"]
    # another user's: refused (making one needs root)
    if os.geteuid() == 0:
        import pwd
        nobody = pwd.getpwnam("nobody").pw_uid
        theirs = os.path.join(base, "theirs")
        os.mkdir(theirs, 0o700)
        os.chown(theirs, nobody, -1)
        rc, err = refused_start(["--state-dir", theirs])
        assert rc not in (0, None) and theirs in err and "belongs to uid %d" % nobody in err, (rc, err)
        assert "not to the server's user" in err, err
        notes.append("nobody's refused")
    else:
        notes.append("nobody's not tried (not root)")
    # a file where the folder should be
    plain = os.path.join(base, "plain")
    open(plain, "w").close()
    rc, err = refused_start(["--state-dir", plain])
    assert rc not in (0, None) and plain in err and "is not a folder" in err, (rc, err)
    return "; ".join(notes) + "; a missing one made 0700"


def run_all(checks, folder, url=None, extra=()):
    """Every check on one server on the store at url (default: SQLite in
    folder); `extra` checks run before the token budget is spent."""
    w = World(folder, url)
    try:
        for name, fn in CHECKS:
            if fn in (t_roster_links_and_bearer, t_sessions_end_with_their_token,
                      t_link_keeps_another_session, t_link_asks_first) and not ADMIN:
                continue
            if fn is t_token_guessing_bounded:
                for xname, xfn in extra:
                    checks.run(xname, xfn, w)
            checks.run(name, fn, w)
    finally:
        w.close()


def main():
    checks = Checks()
    with tempfile.TemporaryDirectory() as d:
        run_all(checks, d)
        checks.run("the state folder is the server's", t_state_folder, d)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

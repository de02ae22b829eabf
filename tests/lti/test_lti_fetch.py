"""LTI's outgoing calls (issue 29, items 1 and 2): no address a token names
is ever fetched, every call goes only to the hosts of its registration, and
one platform whose key set hangs delays no other platform's launch.

Two platforms (tests/lti/platform_lti.py): A, whose key set URL is a
listener that accepts and never answers, and B, a working one. A second
listener counts every connection made to it; it is the address the forged
tokens and line items name, so "zero connections" is what a user checks.

usage: test_lti_fetch.py BUTTERFLY_SERVER SAMPLES   (run with /usr/bin/python3)
"""
import base64
import json
import os
import re
import socket
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import AGS, SCORE_SCOPE, Platform  # noqa: E402
from serverproc import Server  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


class Listener:
    """Accepts every connection, counts it, and never reads or answers:
    a host that hangs, and a witness that nobody called."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.accepted = 0
        self.held = []
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
                self.held.append(c)   # kept open, never answered

    def count(self):
        with self.lock:
            return self.accepted

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def code_of(page):
    m = re.search(r'<code id="check">([^<]*)</code>', page)
    return m.group(1) if m else None


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "openapi.json")) as f:
    HEALTH = json.load(f)["components"]["schemas"]["Health"]


def healthz():
    """/healthz's status and body, the body held to docs/openapi.json."""
    with urllib.request.urlopen(SERVER_URL + "/healthz", timeout=10) as r:
        st, body = r.status, json.load(r)
    try:
        import jsonschema
        jsonschema.validate(body, HEALTH)
    except ImportError:
        pass   # the http suite's openapi test needs it; here it is a bonus
    except Exception as e:   # noqa: BLE001 - any mismatch is the test's failure
        check(False, "/healthz's body is as docs/openapi.json says: %s" % e)
    return st, body


def metric(name):
    with urllib.request.urlopen(SERVER_URL + "/metrics", timeout=10) as r:
        text = r.read().decode()
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else 0


def wait_for(cond, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


hang, witness = Listener(), Listener()
plat_a, plat_b = Platform(client_id="tool-a"), Platform(client_id="tool-b")
plat_b.users.update({"learner-b1", "learner-b2"})
folder = tempfile.mkdtemp(prefix="lti-fetch-")
port = free_port()
SERVER_URL = "http://127.0.0.1:%d" % port
plat_a.tool_jwks_url = plat_b.tool_jwks_url = SERVER_URL + "/lti/jwks.json"
reg_a = dict(plat_a.registration(), name="Hanging platform", key_set_url=hang.url + "/jwks")
reg_b = dict(plat_b.registration(), name="Working platform")
config = os.path.join(folder, "lti.json")
with open(config, "w") as f:
    json.dump({"platforms": [reg_a, reg_b]}, f)
srv = Server(BINARY, "--port", str(port), "--database",
             "sqlite:" + os.path.join(folder, "r.sqlite"), "--public-url", SERVER_URL,
             "--lti-config", config, "--workers", "1")


def launch(plat, **kw):
    return Browser(SERVER_URL).launch(plat, **kw)


try:
    st, h = healthz()
    check(st == 200 and h.get("lti", {}).get("status") == "ok",
          "/healthz says LTI is ok before any launch: %s" % h.get("lti"))
    st, _, _ = launch(plat_b, sub="learner-b1")
    check(st == 303, "a launch from the working platform signs in (%s)" % st)

    # ---- item 2: a platform whose key set hangs stalls no other -------------------
    results = []

    def launch_a(i):
        t0 = time.time()
        st, _, page = launch(plat_a, sub="learner-a%d" % i)
        results.append((st, code_of(page), time.time() - t0))
    threads = [threading.Thread(target=launch_a, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    check(wait_for(lambda: hang.count() >= 1, 20),
          "the hanging platform's launches make the server fetch its key set")
    time.sleep(0.3)   # A's other launches are in by now (their logins are answered at once)
    t0 = time.time()
    st, _, _ = launch(plat_b, sub="learner-b1")
    took = time.time() - t0
    # 2 s: the bound; the launch itself (three requests on
    # loopback, one RSA signature) takes some tens of milliseconds
    check(st == 303 and took < 2.0,
          "meanwhile the working platform's launch is answered in %.2f s (%s)" % (took, st))
    for t in threads:
        t.join(60)
    # each is refused within the fetch's bound (3 s) after the one fetch in
    # flight; 15 s leaves room for a loaded machine
    check(len(results) == 4 and all(r[0] == 502 and r[1] == "key_set" and r[2] < 15
                                    for r in results),
          "the hanging platform's launches are refused (502 key_set) within the fetch's "
          "bound: %s" % [(r[0], r[1], round(r[2], 1)) for r in results])
    check(hang.count() < 4, "its launches share one fetch in flight, not one each (%d "
          "fetches for 4 launches)" % hang.count())
    st, h = healthz()
    lti = h.get("lti", {})
    names = [p.get("name") for p in lti.get("platforms", [])]
    check(st == 200 and lti.get("status") == "degraded" and names == ["Hanging platform"],
          "/healthz stays 200 and says LTI is degraded, naming the platform: %s" % lti)

    # the line item comes in the signed launch: an address outside the
    # registration's hosts gets no score (the witness is another origin)
    before = metric('butterfly_lti_scores_total{outcome="failed"}')
    b = Browser(SERVER_URL)
    st, _, _ = b.launch(plat_b, sub="learner-b2",
                        extra={AGS: {"scope": [SCORE_SCOPE],
                                     "lineitem": witness.url + "/lineitems/7"}})
    with open(os.path.join(SAMPLES, "correct.glsl"), "rb") as f:
        body = f.read()
    st2, _, v = b.go("POST", SERVER_URL + "/api/tasks/butterfly/submissions", body,
                     {"Content-Type": "text/plain", "X-Requested-With": "butterfly"})
    check(st == 303 and st2 == 200 and json.loads(v).get("recorded") is True,
          "a learner whose line item is on another host launches and is graded")
    check(wait_for(lambda: metric('butterfly_lti_scores_total{outcome="failed"}') > before,
                   30) and witness.count() == 0,
          "the score for a line item outside the registration's hosts fails at once, "
          "with no connection made (%d)" % witness.count())


    # ---- item 1: no address from a token is fetched ----------------------------
    def forged(name, header_extra=None, raw_header=None):
        """A launch whose id_token's header carries header_extra (or is
        raw_header exactly), signed by the platform's real key."""
        def hook(c, h):
            if raw_header is None:
                h.update(header_extra)
                return c, h, None
            real = plat_b.sign(c, h).split(".")
            return c, h, b64(raw_header.encode()) + "." + real[1] + "." + real[2]
        plat_b.claims_hook = hook
        try:
            st, _, page = launch(plat_b, sub="learner-b1")
        except OSError as e:   # no answer: the server is waiting on the address
            return 0, "no answer (%s)" % e
        finally:
            plat_b.claims_hook = None
        return st, code_of(page)

    kid = plat_b.keys[0][1]
    witness_jwk = dict(kty="RSA", kid=kid, n="AQAB", e="AQAB", x5u=witness.url + "/x5u")
    cases = [
        ("jku", {"jku": witness.url + "/jwks"}, None),
        ("x5u", {"x5u": witness.url + "/cert.pem"}, None),
        ("jwk", {"jwk": witness_jwk}, None),
        ("x5c", {"x5c": ["MIIB"]}, None),
        ("jku spelled with a JSON escape", None,
         '{"alg":"RS256","kid":"%s","\\u006aku":"%s/jwks"}' % (kid, witness.url)),
        ("jku twice", None,
         '{"alg":"RS256","kid":"%s","jku":"%s/a","jku":"%s/b"}' % (kid, witness.url,
                                                                  witness.url)),
    ]
    for name, extra, raw in cases:
        st, code = forged(name, extra, raw)
        check(400 <= st < 500 and code in ("key_header", "not_a_jwt"),
              "an id_token whose header carries %s is refused (%s %s)" % (name, st, code))
        if not st:
            break   # LTI is stuck behind it: the rest would wait as long
    time.sleep(1)   # a fetch made after the answer would have connected by now
    check(witness.count() == 0,
          "no forged header made the server connect to the address it names "
          "(%d connections)" % witness.count())

finally:
    rc = srv.stop()
    check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    plat_a.stop()
    plat_b.stop()
    hang.close()
    witness.close()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

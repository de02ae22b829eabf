"""An LTI 1.3 platform for the tests (Debian's python3-jwt and python3-cryptography).

It has its own RSA keys and key set, an authorisation endpoint that answers
with the auto-posting form, a token endpoint that checks the tool's client
assertion against the tool's own key set, and a scores endpoint that refuses
what Moodle refuses: missing fields, a timestamp not after the last one for
the user on that line item (the same score again with the same timestamp
is a replay, taken), an unknown user. Every line item
(/lineitems/N) takes scores; `received` says which got what. Each course
has its line items (/contexts/C/lineitems: GET filtered by
resource_link_id and tag, POST makes one; `made` keeps each made, `gets`
counts the reads); a token carries the scopes asked for, if `grant`
(the scopes the registration has) holds them all. Its deep
linking return address (/deep_link_return) verifies a tool's
LtiDeepLinkingResponse as a platform does (`deep_links` keeps each: the
verified claims, or why it was refused). For Dynamic Registration it
serves an openid configuration (/.well-known/openid-configuration, as
`openid()` makes it, `openid_hook` may change it) and a registration
endpoint (/register) that checks the bearer registration token and the
tool's registration as Moodle does, and answers a new client_id and
deployment_id (`registrations` keeps each: the body, or why refused);
`calls` lists every request the platform got, (method, path).
"""
import json
import re
import threading
import time
import urllib.parse
import urllib.request
import uuid
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"


def new_key():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key, uuid.uuid4().hex[:12]


class Platform:
    def __init__(self, client_id="tool-1", deployment="dep-1"):
        self.client_id = client_id
        self.deployment = deployment
        self.keys = [new_key()]            # the first signs; all are published
        self.mode = {}                     # "jwks": "hang"; "token"/"scores": "down"/"slow"/"5xx"
        self.users = set()                 # subs the gradebook knows
        self.scores = []                   # accepted, in order
        self.received = []                 # (the line item's URL, score), accepted, in order
        self.refused = []                  # (reason, body)
        self.tokens_issued = 0
        self.last_ts = {}                  # (line item URL, userId) -> last timestamp
        self.last_given = {}               # (line item URL, userId) -> its scoreGiven
        self.replays = []                  # (line item URL, score) taken again, not kept twice
        self.tool_jwks_url = None
        self.grant = {SCORE_SCOPE, LINEITEM_SCOPE, NRPS_SCOPE}
        self.token_scopes = {}             # token -> its scopes
        self.items = {}                    # context -> [line item], as the platform keeps them
        self.made = []                     # (context, the POSTed line item), in order
        self.gets = 0                      # reads of a course's line items
        self.claims_hook = None            # f(claims, header) -> (claims, header, token or None)
        self.deep_links = []               # (verified claims or None, why refused or None)
        self.dl_nonces = set()             # the nonces of the answers taken
        self.dl_expect = {}                # what the answer must echo: deployment, data
        self.calls = []                    # (method, path) of every request, in order
        self.reg_token = "reg-token-" + uuid.uuid4().hex
        self.openid_hook = None            # f(config dict) -> dict or bytes
        self.registrations = []            # (the tool's registration or None, why refused)
        self.next_client = ("dyn-client-1", "dyn-dep-1")   # what /register answers
        # NRPS: course -> its roster's pages (lists of members); a course's
        # mode in roster_mode: "403", "badjson", "endless" (a next page
        # always), or an address: page 1's next link goes there
        self.rosters = {}
        self.roster_mode = {}
        self.roster_requests = []          # (course, page, Authorization)
        self.scope_requests = []           # the scope of each token asked for
        self.lock = threading.Lock()
        srv = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        srv.daemon_threads = True
        self.httpd = srv
        self.url = "http://127.0.0.1:%d" % srv.server_address[1]
        self.issuer = self.url
        self.lineitem = self.url + "/lineitems/7"
        threading.Thread(target=srv.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()

    def registration(self):
        return {"name": "Test platform", "issuer": self.issuer, "client_id": self.client_id,
                "deployment_ids": [self.deployment], "auth_login_url": self.url + "/auth",
                "auth_token_url": self.url + "/token", "key_set_url": self.url + "/jwks"}

    def openid(self):
        """The platform's openid configuration (Dynamic Registration 1.0)."""
        return {"issuer": self.issuer, "authorization_endpoint": self.url + "/auth",
                "token_endpoint": self.url + "/token", "jwks_uri": self.url + "/jwks",
                "registration_endpoint": self.url + "/register",
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "scopes_supported": ["openid", SCORE_SCOPE],
                "response_types_supported": ["id_token"],
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                    "product_family_code": "test", "version": "1.0",
                    "messages_supported": [{"type": "LtiResourceLinkRequest"},
                                           {"type": "LtiDeepLinkingRequest"}]}}

    def check_registration(self, headers, raw):
        """The tool's client registration checked as a platform checks it;
        raises AssertionError naming what is wrong."""
        assert headers.get("Authorization") == "Bearer " + self.reg_token, "bearer token"
        assert (headers.get("Content-Type") or "").startswith("application/json"), "type"
        r = json.loads(raw)
        tool = self.tool_url
        assert r.get("application_type") == "web", "application_type"
        assert r.get("initiate_login_uri") == tool + "/lti/login", "initiate_login_uri"
        assert tool + "/lti/launch" in r.get("redirect_uris", []), "redirect_uris"
        assert r.get("jwks_uri") == tool + "/lti/jwks.json", "jwks_uri"
        assert r.get("token_endpoint_auth_method") == "private_key_jwt", "auth method"
        assert {"implicit", "client_credentials"} <= set(r.get("grant_types", [])), "grants"
        assert r.get("response_types") == ["id_token"], "response_types"
        scopes = r.get("scope", "").split()
        assert SCORE_SCOPE in scopes and NRPS_SCOPE in scopes, "scope %r" % scopes
        assert r.get("client_name"), "client_name"
        c = r.get("https://purl.imsglobal.org/spec/lti-tool-configuration", {})
        assert c.get("domain") == urllib.parse.urlparse(tool).netloc, "domain %r" % c
        assert c.get("target_link_uri") == tool + "/lti/launch", "target_link_uri"
        assert "sub" in c.get("claims", []) and "iss" in c.get("claims", []), "claims"
        types = [m.get("type") for m in c.get("messages", [])]
        assert "LtiDeepLinkingRequest" in types, "messages %r" % types
        return r

    def jwks(self):
        out = []
        for key, kid in self.keys:
            j = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            j.update(kid=kid, alg="RS256", use="sig")
            out.append(j)
        return {"keys": out}

    def rotate(self, keep_old=True):
        self.keys.insert(0, new_key())
        if not keep_old:
            del self.keys[1:]

    def public_pem(self):
        return self.keys[0][0].public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def deep_linking(self, data="opaque-platform-data", return_url=None,
                     accept_types=("ltiResourceLink",)):
        """The claims that make a launch an LtiDeepLinkingRequest (for
        claims' extra; its remove drops the resource link)."""
        settings = {"deep_link_return_url": return_url or self.url + "/deep_link_return",
                    "accept_types": list(accept_types), "accept_presentation_document_targets":
                    ["iframe", "window"], "accept_multiple": False, "auto_create": True}
        if data is not None:
            settings["data"] = data
        self.dl_expect = {"data": data}
        return {CLAIM + "message_type": "LtiDeepLinkingRequest",
                DL + "deep_linking_settings": settings}

    def verify_deep_link(self, token):
        """A tool's LtiDeepLinkingResponse checked as a platform checks it:
        the signature with the key of its kid in the tool's key set, iss
        the client id, aud this issuer, a fresh nonce, the message type,
        version and deployment, the data echoed. The claims, or raises."""
        header = jwt.get_unverified_header(token)
        kid = header["kid"]
        with urllib.request.urlopen(self.tool_jwks_url, timeout=5) as r:
            keys = json.load(r)["keys"]
        k = [x for x in keys if x["kid"] == kid][0]
        pub = jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(k))
        c = jwt.decode(token, pub, algorithms=["RS256"], audience=self.issuer,
                       options={"require": ["exp", "iat", "nonce", "iss", "aud"]})
        assert c["iss"] == self.client_id, "iss %r" % c["iss"]
        assert c["nonce"] and c["nonce"] not in self.dl_nonces, "nonce not fresh"
        assert c[CLAIM + "message_type"] == "LtiDeepLinkingResponse", "message_type"
        assert c[CLAIM + "version"] == "1.3.0", "version"
        assert c[CLAIM + "deployment_id"] == self.deployment, "deployment_id"
        want = self.dl_expect.get("data")
        assert c.get(DL + "data") == want, "data %r, not %r" % (c.get(DL + "data"), want)
        assert isinstance(c[DL + "content_items"], list), "content_items"
        with self.lock:
            self.dl_nonces.add(c["nonce"])
        return c

    def claims(self, nonce, target, sub="learner-1", roles=(LEARNER,), extra=None, ags=True,
               remove=()):
        now = int(time.time())
        c = {"iss": self.issuer, "aud": self.client_id, "sub": sub, "nonce": nonce,
             "iat": now, "exp": now + 300,
             CLAIM + "version": "1.3.0", CLAIM + "message_type": "LtiResourceLinkRequest",
             CLAIM + "deployment_id": self.deployment, CLAIM + "roles": list(roles),
             CLAIM + "resource_link": {"id": "link-1"}, CLAIM + "target_link_uri": target,
             CLAIM + "context": {"id": "course-1", "title": "FFT course"}}
        if ags:
            c[AGS] = {"scope": [SCORE_SCOPE], "lineitem": self.lineitem}
        c.update(extra or {})
        for k in remove:
            c.pop(k, None)
        return c

    def nrps(self, course):
        """The names and roles claim of a launch into course (for claims' extra)."""
        return {NRPS: {"context_memberships_url": self.url + "/memberships/" + course,
                       "service_versions": ["2.0"]}}

    def roster_page(self, h, course, page):
        """GET /memberships/COURSE?page=N: the membership container, paged with
        Link rel="next" as Canvas and Moodle page it."""
        with self.lock:
            self.roster_requests.append((course, page, h.headers.get("Authorization")))
        if not (h.headers.get("Authorization") or "").startswith("Bearer tok-"):
            return h.send(401, "{}")
        mode = self.roster_mode.get(course)
        if mode == "403":
            return h.send(403, '{"error":"unauthorized_scope"}')
        if mode == "badjson":
            return h.send(200, '{"members": [', "application/json")
        pages = self.rosters.get(course, [[]])
        if mode == "endless":
            members = [{"user_id": "%s-%d" % (course, page), "roles": [LEARNER],
                        "status": "Active", "name": "Endless %d" % page}]
            nxt = "%s/memberships/%s?page=%d" % (self.url, course, page + 1)
        else:
            members = pages[page - 1] if 0 < page <= len(pages) else []
            nxt = ("%s/memberships/%s?page=%d" % (self.url, course, page + 1)
                   if page < len(pages) else None)
            if mode and mode.startswith("http") and page == 1:
                nxt = mode
        body = json.dumps({"id": self.url + "/memberships/" + course,
                           "context": {"id": course, "title": course}, "members": members})
        data = body.encode()
        h.send_response(200)
        h.send_header("Content-Type",
                      "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
        h.send_header("Content-Length", str(len(data)))
        if nxt:
            h.send_header("Link", '<%s?page=1>; rel="first", <%s>; rel="next"'
                          % (self.url + "/memberships/" + course, nxt))
        h.end_headers()
        h.wfile.write(data)

    def sign(self, claims, header=None):
        key, kid = self.keys[0]
        h = {"kid": kid}
        h.update(header or {})
        if h.get("kid") is None:
            del h["kid"]
        return jwt.encode(claims, key, algorithm="RS256", headers=h)

    def _handler(self):
        plat = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def send(self, code, body, ctype="application/json"):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the tool stopped reading (an answer over its bound)

            def body(self):
                n = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(n)

            def fault(self, what):
                m = plat.mode.get(what)
                if m == "hang":
                    time.sleep(30)
                if m == "slow":
                    time.sleep(15)
                if m == "slow1":
                    time.sleep(1)
                if m == "401once":
                    plat.mode.pop(what)   # the platform ended the token: ask again
                    self.send(401, '{"error":"invalid_token"}')
                    return True
                if m == "down" or m == "5xx":
                    self.send(503 if m == "down" else 500, '{"error":"unavailable"}')
                    return True
                return False

            def scopes(self):
                a = self.headers.get("Authorization") or ""
                return plat.token_scopes.get(a[len("Bearer "):], set()) \
                    if a.startswith("Bearer ") else set()

            def do_GET(self):
                u = urllib.parse.urlparse(self.path)
                with plat.lock:
                    plat.calls.append(("GET", u.path))
                if u.path == "/.well-known/openid-configuration":
                    c = plat.openid()
                    if plat.openid_hook:
                        c = plat.openid_hook(c)
                    return self.send(200, c if isinstance(c, bytes) else json.dumps(c))
                if u.path.startswith("/memberships/"):
                    q = dict(urllib.parse.parse_qsl(u.query))
                    return plat.roster_page(self, u.path[len("/memberships/"):],
                                            int(q.get("page", "1")))
                if re.fullmatch(r"/contexts/[^/]+/lineitems", u.path):
                    if self.fault("lineitems"):
                        return
                    if LINEITEM_SCOPE not in self.scopes():
                        return self.send(401, "{}")
                    q = dict(urllib.parse.parse_qsl(u.query))
                    with plat.lock:
                        plat.gets += 1
                        got = [li for li in plat.items.get(u.path.split("/")[2], [])
                               if li.get("resourceLinkId") == q.get("resource_link_id",
                                                                    li.get("resourceLinkId"))
                               and li.get("tag") == q.get("tag", li.get("tag"))]
                    return self.send(200, json.dumps(got),
                                     "application/vnd.ims.lis.v2.lineitemcontainer+json")
                if u.path == "/jwks":
                    if not self.fault("jwks"):
                        self.send(200, json.dumps(plat.jwks()))
                elif u.path == "/auth":
                    q = dict(urllib.parse.parse_qsl(u.query))
                    for k, v in (("scope", "openid"), ("response_type", "id_token"),
                                 ("response_mode", "form_post"), ("prompt", "none"),
                                 ("client_id", plat.client_id)):
                        if q.get(k) != v:
                            return self.send(400, "bad %s" % k, "text/plain")
                    target = q.get("login_hint_target") or plat.pending_target
                    claims = plat.claims(q["nonce"], target, **plat.pending_claims)
                    header = {}
                    token = None
                    if plat.claims_hook:
                        claims, header, token = plat.claims_hook(claims, header)
                    if token is None:
                        token = plat.sign(claims, header)
                    plat.last_auth = q
                    form = ("<form method=post action=\"%s\"><input type=hidden name=id_token "
                            "value=\"%s\"><input type=hidden name=state value=\"%s\"></form>"
                            "<script>document.forms[0].submit()</script>"
                            % (escape(q["redirect_uri"]), escape(token), escape(q["state"])))
                    self.send(200, form, "text/html")
                else:
                    self.send(404, "{}")

            def do_POST(self):
                u = urllib.parse.urlparse(self.path)
                raw = self.body()
                with plat.lock:
                    plat.calls.append(("POST", u.path))
                if u.path == "/register":
                    try:
                        r = plat.check_registration(self.headers, raw)
                    except Exception as e:   # noqa: BLE001 - any failure is a refusal
                        plat.registrations.append((None, repr(e)))
                        return self.send(400, json.dumps({"error": "invalid_client_metadata",
                                                          "error_description": repr(e)}))
                    plat.registrations.append((r, None))
                    client, dep = plat.next_client
                    answer = dict(r, client_id=client)
                    answer["https://purl.imsglobal.org/spec/lti-tool-configuration"] = dict(
                        r["https://purl.imsglobal.org/spec/lti-tool-configuration"],
                        deployment_id=dep)
                    return self.send(200, json.dumps(answer))
                if u.path == "/deep_link_return":
                    f = dict(urllib.parse.parse_qsl(raw.decode()))
                    try:
                        c = plat.verify_deep_link(f["JWT"])
                    except Exception as e:   # noqa: BLE001 - any failure is a refusal
                        plat.deep_links.append((None, repr(e)))
                        return self.send(400, "refused: %s" % escape(repr(e)), "text/html")
                    plat.deep_links.append((c, None))
                    return self.send(200, "<p>placed</p>", "text/html")
                if u.path == "/token":
                    if self.fault("token"):
                        return
                    f = dict(urllib.parse.parse_qsl(raw.decode()))
                    try:
                        assert f["grant_type"] == "client_credentials"
                        assert f["client_assertion_type"] == \
                            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
                        asked = set(f["scope"].split())
                        plat.scope_requests.append(f["scope"])
                        if NRPS_SCOPE in asked and plat.mode.get("nrps_token") == "403":
                            return self.send(403, '{"error":"invalid_scope"}')
                        assert asked and asked <= plat.grant, "scope %s" % f["scope"]
                        a = f["client_assertion"]
                        kid = jwt.get_unverified_header(a)["kid"]
                        with urllib.request.urlopen(plat.tool_jwks_url, timeout=5) as r:
                            keys = json.load(r)["keys"]
                        k = [x for x in keys if x["kid"] == kid][0]
                        pub = jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(k))
                        c = jwt.decode(a, pub, algorithms=["RS256"], audience=self.url_token())
                        assert c["iss"] == c["sub"] == plat.client_id and c["jti"]
                        assert c["exp"] - time.time() <= 3600
                    except Exception as e:   # noqa: BLE001 - any failure is a refusal
                        plat.refused.append(("assertion", repr(e)))
                        return self.send(401, '{"error":"invalid_client"}')
                    with plat.lock:
                        plat.tokens_issued += 1
                        plat.assertion_kids = getattr(plat, "assertion_kids", []) + [kid]
                        tok = "tok-%d" % plat.tokens_issued
                        plat.token_scopes[tok] = asked
                    self.send(200, json.dumps({"access_token": tok,
                                               "token_type": "Bearer", "expires_in": 3600,
                                               "scope": " ".join(sorted(asked))}))
                elif re.fullmatch(r"/contexts/[^/]+/lineitems", u.path):
                    if self.fault("lineitems"):
                        return
                    if LINEITEM_SCOPE not in self.scopes():
                        return self.send(401, "{}")
                    ctx = u.path.split("/")[2]
                    li = json.loads(raw)
                    if not (isinstance(li.get("scoreMaximum"), (int, float)) and
                            li["scoreMaximum"] > 0 and li.get("label")):
                        return self.send(400, '{"error":"scoreMaximum and label"}')
                    with plat.lock:
                        li["id"] = plat.url + "/lineitems/%d" % (100 + len(plat.made))
                        plat.items.setdefault(ctx, []).append(li)
                        plat.made.append((ctx, dict(li)))
                    self.send(201, json.dumps(li), "application/vnd.ims.lis.v2.lineitem+json")
                elif re.fullmatch(r"/lineitems/\d+/scores", u.path):
                    lineitem = plat.url + u.path[:-len("/scores")]
                    if self.fault("scores"):
                        return
                    if SCORE_SCOPE not in self.scopes():
                        return self.send(401, "{}")
                    if self.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
                        return self.send(415, "{}")
                    s = json.loads(raw)
                    need = ("userId", "scoreGiven", "scoreMaximum", "activityProgress",
                            "gradingProgress", "timestamp")
                    why = None
                    if any(k not in s for k in need):
                        why = "missing field"
                    elif s["userId"] not in plat.users:
                        why = "unknown user"
                    elif s["timestamp"] < plat.last_ts.get((lineitem, s["userId"]), "") or (
                            s["timestamp"] == plat.last_ts.get((lineitem, s["userId"])) and
                            s["scoreGiven"] != plat.last_given.get((lineitem, s["userId"]))):
                        why = "timestamp not after the last"
                    elif not (0 <= s["scoreGiven"] <= s["scoreMaximum"]):
                        why = "score out of range"
                    if why:
                        plat.refused.append((why, s))
                        return self.send(400, json.dumps({"error": why}))
                    if s["timestamp"] == plat.last_ts.get((lineitem, s["userId"])):
                        plat.replays.append((lineitem, s))   # the same update again: taken,
                        return self.send(200, "{}")          # nothing changes
                    with plat.lock:
                        plat.last_ts[(lineitem, s["userId"])] = s["timestamp"]
                        plat.last_given[(lineitem, s["userId"])] = s["scoreGiven"]
                        plat.scores.append(s)
                        plat.received.append((lineitem, s))
                    self.send(200, "{}")
                else:
                    self.send(404, "{}")

            def url_token(self):
                return plat.url + "/token"

        return H

    pending_target = None
    pending_claims = {}
    tool_url = None                        # the tool's public URL (Dynamic Registration)

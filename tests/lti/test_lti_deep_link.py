"""Issue 34, items 1 and 4: Deep Linking 2.0 and the Canvas developer key's JSON.

An instructor's LtiDeepLinkingRequest (through the usual login and
/lti/launch) opens a chooser with a form per exercise (no script), each
with the title and points GET /api/tasks says; choosing one answers a page
that posts a signed LtiDeepLinkingResponse (form field JWT) to the
platform's deep_link_return_url, which the test platform verifies as a
platform would (tests/lti/platform_lti.py: the tool's key set and kid,
iss/aud, a fresh nonce, message type, version, deployment, data echoed),
and the test checks the content item. A learner's request, one without
valid deep_linking_settings, a replayed choice, a choice from another
browser and a login's state posted as a choice are refused. The placed
link's launches open the exercise and its scores reach its line item.
GET /lti/canvas.json: every URL under the public URL, the placements as
LtiDeepLinkingRequest, the scopes, the privacy level.

usage: test_lti_deep_link.py BUTTERFLY_SERVER SAMPLES [DATABASE_URL]
(run with /usr/bin/python3: python3-jwt, python3-cryptography; SQLite in a
temporary folder unless a URL is given: the lti_pg suite gives a PostgreSQL
cluster's)
"""
import json
import os
import re
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from html import unescape

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from serverproc import Server  # noqa: E402
from lti_browser import Browser, free_port  # noqa: E402
from platform_lti import (AGS, CLAIM, DL, INSTRUCTOR, LEARNER, LINEITEM_SCOPE,  # noqa: E402
                          NRPS_SCOPE, SCORE_SCOPE, Platform)

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


def get_json(path):
    try:
        with urllib.request.urlopen(SERVER_URL + path, timeout=10) as r:
            return r.status, r.headers, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, e.headers, {}


def forms(page):
    """Each <form> of a page: (action, {field: value})."""
    out = []
    for m in re.finditer(r"<form([^>]*)>(.*?)</form>", page, re.S):
        action = re.search(r'action="([^"]*)"', m.group(1))
        fields = dict((unescape(f.group(1)), unescape(f.group(2))) for f in re.finditer(
            r'<input type="hidden" name="([^"]*)" value="([^"]*)"', m.group(2)))
        out.append((unescape(action.group(1)) if action else None, fields, m.group(2)))
    return out


def check_code(page):
    m = re.search(r'<code id="check">([^<]*)</code>', page)
    return m.group(1) if m else None


def metric(name):
    with urllib.request.urlopen(SERVER_URL + "/metrics", timeout=10) as r:
        text = r.read().decode()
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else 0


def deep_launch(b, roles=(INSTRUCTOR,), sub="teacher-1", **dl):
    """A deep-linking launch from the platform's placement: no resource
    link, the settings claim."""
    return b.launch(plat, sub=sub, roles=roles, extra=plat.deep_linking(**dl),
                    remove=(CLAIM + "resource_link", AGS))


def choose(b, page, exercise=None):
    """Presses the chooser's button for exercise (the first one when None)."""
    for action, fields, _ in forms(page):
        if exercise is None or fields.get("exercise") == exercise:
            return b.go("POST", urllib.parse.urljoin(SERVER_URL + "/", action), fields)
    return 0, {}, ""


folder = tempfile.mkdtemp(prefix="lti-dl-")
plat = Platform()
plat.users.update({"learner-dl"})
port = free_port()
SERVER_URL = "http://127.0.0.1:%d" % port
plat.tool_jwks_url = SERVER_URL + "/lti/jwks.json"
config = os.path.join(folder, "lti.json")
FRAME = "https://lms.example.edu"
with open(config, "w") as f:
    json.dump({"platforms": [dict(plat.registration(), frame_origins=[FRAME])]}, f)
DATABASE = sys.argv[3] if len(sys.argv) > 3 else "sqlite:" + os.path.join(folder, "r.sqlite")
srv = Server(BINARY, "--port", str(port), "--database", DATABASE, "--public-url", SERVER_URL,
             "--lti-config", config, "--workers", "1")
try:
    srv.read_banner()
    _, _, tasks = get_json("/api/tasks")
    butterfly = [t for t in tasks if t["id"] == "butterfly"]
    check(butterfly and isinstance(butterfly[0].get("points"), int) and
          butterfly[0]["points"] > 0, "GET /api/tasks names each exercise's points: %s" % tasks)
    POINTS = butterfly[0].get("points") if butterfly else None
    TITLE = butterfly[0]["title"] if butterfly else None

    # ---- the Canvas developer key's JSON --------------------------------------
    st, h, key = get_json("/lti/canvas.json")

    def urls(node):
        if isinstance(node, dict):
            return [u for v in node.values() for u in urls(v)]
        if isinstance(node, list):
            return [u for v in node for u in urls(v)]
        return [node] if isinstance(node, str) and "://" in node else []
    check(st == 200 and h.get("Content-Type", "").startswith("application/json"),
          "GET /lti/canvas.json answers JSON")
    check(key.get("title") and key.get("description") and
          key.get("oidc_initiation_url") == SERVER_URL + "/lti/login" and
          key.get("target_link_uri") == SERVER_URL + "/lti/launch" and
          key.get("public_jwk_url") == SERVER_URL + "/lti/jwks.json",
          "the key names the tool, its login, launch and key set addresses")
    # the scopes are names (1EdTech's), not addresses
    found = urls({k: v for k, v in key.items() if k != "scopes"})
    check(len(found) >= 5 and all(u.startswith(SERVER_URL + "/") for u in found),
          "every URL of the key is under the public URL: %s" % found)
    check(SCORE_SCOPE in key.get("scopes", []), "its scopes hold the score scope: %s"
          % key.get("scopes"))
    check(NRPS_SCOPE in key.get("scopes", []), "its scopes hold the roster's "
          "(contextmembership.readonly): %s" % key.get("scopes"))
    check(LINEITEM_SCOPE in key.get("scopes", []), "its scopes hold the line items' "
          "(the tool makes a link's own): %s" % key.get("scopes"))
    check(key.get("custom_fields") == {"due_at": "$Canvas.assignment.dueAt.iso8601"},
          "its custom field asks Canvas for each student's due date: %s"
          % key.get("custom_fields"))
    ext = [e for e in key.get("extensions", []) if e.get("platform") == "canvas.instructure.com"]
    places = {p.get("placement"): p for e in ext for p in e.get("settings", {})
              .get("placements", [])}
    check(len(ext) == 1 and ext[0].get("domain") == "127.0.0.1" and
          ext[0].get("privacy_level") in ("public", "name_only", "email_only", "anonymous"),
          "one canvas.instructure.com extension with the host and a privacy level: %s" % ext)
    check(set(places) == {"link_selection", "assignment_selection"} and
          all(p.get("message_type") == "LtiDeepLinkingRequest" and
              p.get("target_link_uri") == SERVER_URL + "/lti/launch" for p in places.values()),
          "placements link_selection and assignment_selection, as LtiDeepLinkingRequest: %s"
          % places)
    try:
        import jsonschema
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                               "openapi.json")) as f:
            doc = json.load(f)
        schema = (doc["paths"].get("/lti/canvas.json", {}).get("get", {}).get("responses", {})
                  .get("200", {}).get("content", {}).get("application/json", {}).get("schema"))
        jsonschema.validate(key, schema or {"not": {}})
        said = None
    except Exception as e:   # noqa: BLE001 - any failure is the check's
        said = repr(e)[:300]
    check(said is None, "the key is as docs/openapi.json describes it (%s)" % said)
    jwk_url = key.get("public_jwk_url", SERVER_URL + "/lti/jwks.json")
    st, _, keys = get_json(jwk_url[len(SERVER_URL):])
    check(st == 200 and keys.get("keys"), "its key set URL serves the tool's keys")

    # ---- an instructor places the exercise -------------------------------------
    teacher = Browser(SERVER_URL)
    st, h, page = deep_launch(teacher)
    chooser = forms(page)
    check(st == 200 and chooser and "<script" not in page,
          "an instructor's deep-linking launch opens the chooser: forms, no script (%s)" % st)
    csp = h.get("Content-Security-Policy", "")
    check("frame-ancestors %s" % FRAME in csp and "form-action 'self'" in csp and
          "script-src" not in csp, "the chooser may be framed by the course only, posts "
          "only to the tool, runs no script: %s" % csp)
    check(all(a == SERVER_URL + "/lti/deep-link" and f.get("choice") and f.get("exercise") for a, f, _ in
              chooser) and {f["exercise"] for _, f, _ in chooser} == {t["id"] for t in tasks},
          "one form per exercise of GET /api/tasks, each posting its choice to /lti/deep-link")
    body = dict((f["exercise"], inner) for _, f, inner in chooser).get("butterfly", "")
    check(TITLE and TITLE in unescape(body) and
          re.search(r'class="points">%s<' % POINTS, body),
          "the butterfly's form shows its title and points (%s, %s)" % (TITLE, POINTS))
    check("butterfly_lti_choice" in teacher.jar and "butterfly_session" not in teacher.jar,
          "the chooser binds its choice to this browser (a cookie) and signs nobody in")

    st, h, answer = choose(teacher, page, "butterfly")
    posted = forms(answer)
    csp = h.get("Content-Security-Policy", "")
    nonce = re.search(r"script-src 'nonce-([^']+)'", csp)
    check(st == 200 and len(posted) == 1 and posted[0][0] == plat.url + "/deep_link_return"
          and set(posted[0][1]) == {"JWT"},
          "the choice answers a form posting JWT to deep_link_return_url (%s)" % st)
    check(nonce and ('<script nonce="%s">' % nonce.group(1)) in answer and
          "form-action %s" % plat.url in csp and "frame-ancestors %s" % FRAME in csp,
          "it posts itself by a script the page's policy allows by nonce, to the platform "
          "only: %s" % csp)
    check("<button" in answer, "and has a button for a browser without scripts")
    token = posted[0][1].get("JWT", "") if posted else ""
    # the browser posts it to the platform, which verifies it
    before = len(plat.deep_links)
    st_p, _, said = teacher.go("POST", posted[0][0], posted[0][1]) if posted else (0, 0, "")
    got, why = plat.deep_links[-1] if len(plat.deep_links) > before else (None, "nothing")
    check(st_p == 200 and got is not None,
          "the platform verifies the answer against the tool's key set (kid, RS256), iss = "
          "client id, aud = its issuer, a fresh nonce, message type, version, deployment "
          "and its data echoed (%s %s)" % (st_p, why))
    with urllib.request.urlopen(SERVER_URL + "/lti/jwks.json", timeout=10) as r:
        kids = [k["kid"] for k in json.load(r)["keys"]]
    import jwt as pyjwt  # noqa: E402 - Debian's python3-jwt, as the platform uses
    check(token and pyjwt.get_unverified_header(token).get("kid") in kids and
          pyjwt.get_unverified_header(token).get("alg") == "RS256",
          "the answer is signed RS256 with a key of /lti/jwks.json, kid set")
    items = (got or {}).get(DL + "content_items", [])
    item = items[0] if len(items) == 1 else {}
    li = item.get("lineItem", {})
    check(len(items) == 1 and item.get("type") == "ltiResourceLink" and
          item.get("url", "").startswith(SERVER_URL + "/") and
          item.get("custom", {}).get("exercise") == "butterfly" and
          li.get("scoreMaximum") == POINTS and li.get("label") == TITLE and item.get("title"),
          "one ltiResourceLink under the public URL, custom naming the exercise, a line item "
          "with scoreMaximum %s and a label: %s" % (POINTS, items))

    # ---- what is refused ----------------------------------------------------------
    st, _, again = choose(teacher, page, "butterfly")
    check(st == 400 and check_code(again) == "choice" and not forms(again),
          "the same choice posted again is refused (used once) (%s)" % st)
    n = len(plat.deep_links)
    # a second chooser, its choice posted from another browser (no cookie)
    st, _, page2 = deep_launch(teacher)
    stranger = Browser(SERVER_URL)
    st2, _, other = choose(stranger, page2, "butterfly")
    check(st == 200 and st2 == 400 and check_code(other) == "choice",
          "a choice posted from a browser that did not open the chooser is refused (%s)" % st2)
    # a login's state (the platform sees it) is no choice
    b = Browser(SERVER_URL)
    _, hl, _ = b.go("GET", SERVER_URL + "/lti/login?" + urllib.parse.urlencode({
        "iss": plat.issuer, "login_hint": "x", "target_link_uri": SERVER_URL + "/lti/launch"}))
    state = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(hl["Location"]).query))["state"]
    b.jar["butterfly_lti_choice"] = state
    st3, _, other = b.go("POST", SERVER_URL + "/lti/deep-link",
                         {"choice": state, "exercise": "butterfly"})
    check(st3 == 400 and check_code(other) == "choice",
          "a login's state posted as a choice is refused (%s)" % st3)
    choice2 = (forms(page2) or [(0, {"choice": ""}, "")])[0][1]["choice"]
    st4, _, other = teacher.go("POST", SERVER_URL + "/lti/deep-link",
                               {"choice": choice2, "exercise": "nope"})
    check(st4 == 400, "a choice naming no exercise is refused (%s)" % st4)
    check(len(plat.deep_links) == n, "none of them answered the platform")

    refused_role = metric('butterfly_lti_launches_refused_total{reason="deep_linking_role"}')
    st, _, p = deep_launch(Browser(SERVER_URL), roles=(LEARNER,), sub="learner-dl")
    check(st == 400 and check_code(p) == "deep_linking_role" and not forms(p),
          "a learner's deep-linking request is refused (%s %s)" % (st, check_code(p)))
    check(metric('butterfly_lti_launches_refused_total{reason="deep_linking_role"}') ==
          refused_role + 1, "and counted under its reason in /metrics")

    def no_settings(c, h):
        c.pop(DL + "deep_linking_settings", None)
        return c, h, None

    def settings_not_object(c, h):
        c[DL + "deep_linking_settings"] = "x"
        return c, h, None
    bad = [("no deep_linking_settings", {}, no_settings),
           ("settings that are no object", {}, settings_not_object),
           ("a return URL at another origin", {"return_url": "https://evil.example/return"},
            None),
           ("a return URL that is no URL", {"return_url": "javascript:alert(1)"}, None),
           ("no ltiResourceLink accepted", {"accept_types": ("file", "html")}, None),
           ("data over its bound", {"data": "x" * 5000}, None)]
    for what, dl, hook in bad:
        plat.claims_hook = hook
        try:
            st, _, p = deep_launch(Browser(SERVER_URL), **dl)
        finally:
            plat.claims_hook = None
        check(st == 400 and check_code(p) == "deep_linking_settings" and not forms(p),
              "a deep-linking request with %s is refused (%s %s)" % (what, st,
                                                                      check_code(p)))
    # a deep-linking request without data: none echoed
    st, _, p = deep_launch(Browser(SERVER_URL), data=None)
    check(st == 200 and forms(p), "a deep-linking request without data opens the chooser")

    # ---- the placed link's launches ----------------------------------------------
    # the platform makes the resource link and the line item from the item
    placed = plat.url + "/lineitems/42"
    learner = Browser(SERVER_URL)
    st, h, _ = learner.launch(plat, target=item.get("url"), sub="learner-dl", extra={
        CLAIM + "resource_link": {"id": "placed-link-1"},
        CLAIM + "custom": item.get("custom", {}),
        AGS: {"scope": [SCORE_SCOPE], "lineitem": placed}})
    check(st == 303 and h.get("Location", "").split("#")[0] == "/" and
          "#launch=" in h.get("Location", ""),
          "a learner's launch of the placed link opens the exercise (%s %s)"
          % (st, h.get("Location")))
    tag = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(h.get("Location", "")).fragment))
    st, _, v = learner.go("POST", SERVER_URL + "/api/tasks/butterfly/submissions",
                          sample("correct.glsl"), {"Content-Type": "text/plain",
                                                   "X-Requested-With": "butterfly",
                                                   "X-Butterfly-Launch": tag.get("launch", "")})
    at = lambda: [s for li_, s in plat.received if li_ == placed]  # noqa: E731
    check(st == 200 and wait_for(lambda: at()) and at()[-1]["scoreGiven"] == POINTS and
          at()[-1]["scoreMaximum"] == li.get("scoreMaximum"),
          "its score reaches the placed line item, out of the line item's scoreMaximum: %s"
          % at()[-1:])
finally:
    rc = srv.stop()
    check(rc == 0, "the server stops cleanly (exit %s)" % rc)
    plat.stop()

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

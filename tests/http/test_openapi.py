#!/usr/bin/env python3
"""The server's real answers against its OpenAPI description.

usage: test_openapi.py SERVER_BINARY SAMPLES_DIR SOURCE_ROOT

docs/openapi.json must be a valid OpenAPI 3.1 document (checked with
@seriousme/openapi-schema-validator, installed by `npm ci` from
tests/http/openapi-lint/package-lock.json), describe exactly the routes of
server/core/request.c, be what /api/openapi.json serves, and hold every answer
the server really gives: the 200s of every route (GET and HEAD), and every
error shape, 400, 404, 405, 411, 413, 415, 429 and 503, each body checked
with python3-jsonschema against the schema the document gives for that
path, method, status and media type, and the headers it says are required.
Prints one line per check and ends with "N passed, M failed".
"""
import copy
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


def need_jsonschema():
    """jsonschema comes from Debian's python3-jsonschema: run again under the
    system's python3 when this one (a pyenv, a venv) lacks it."""
    try:
        import jsonschema  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK):
        os.execv(system, [system] + sys.argv)
    sys.exit("test_openapi.py: jsonschema is missing (BUTTERFLY_TEST_DEPS=1 scripts/install-deps.sh)")


need_jsonschema()
import jsonschema  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from serverproc import Server  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from common import Checks, children  # noqa: E402
# test_http reads SERVER_BINARY and SAMPLES_DIR from the same arguments
from test_http import raw, request, sample, slow_body, status_of  # noqa: E402

BINARY, ROOT = sys.argv[1], sys.argv[3]
SUBMIT = "/api/tasks/butterfly/submissions"
INSTRUCTOR = []   # the token the server printed at start
with open(os.path.join(ROOT, "docs", "openapi.json"), "rb") as f:
    DOC_BYTES = f.read()
DOC = json.loads(DOC_BYTES)


def resolve(node):
    """node with every local $ref replaced by what it points at (the
    document's refs are not recursive)."""
    if isinstance(node, dict):
        if "$ref" in node:
            target = DOC
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return resolve(target)
        return {k: resolve(v) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v) for v in node]
    return node


def template_of(path):
    """The document's path for a concrete one."""
    path = path.split("?")[0]
    if path.startswith("/api/submissions/"):
        return "/api/submissions/{id}"
    if path.startswith("/api/class/students/"):
        return "/api/class/students/{id}"
    if re.match(r"^/api/tasks/[^/]+/submissions$", path):
        return "/api/tasks/{id}/submissions"
    if re.match(r"^/api/tasks/[^/]+$", path):
        return "/api/tasks/{id}"
    if re.match(r"^/tasks/[^/]+$", path):
        return "/tasks/{id}"
    return "/static/{name}" if path.startswith("/static/") else path


def described(path, method, status):
    """The Response Object for an answer: the operation's, else the ones
    any path may give (components.responses), else None."""
    op = DOC["paths"].get(template_of(path), {}).get(method.lower())
    if op and str(status) in op["responses"]:
        return resolve(op["responses"][str(status)])
    generic = {400: "BadRequest", 404: "NotFound", 405: "MethodNotAllowed"}
    if status in generic:
        return resolve(DOC["components"]["responses"][generic[status]])
    return None


def conforms(path, method, status, headers, body):
    """Asserts an answer is one the document describes, body and headers."""
    resp = described(path, method, status)
    assert resp is not None, "%s %s -> %d is not in the document" % (method, path, status)
    for name, h in resp.get("headers", {}).items():
        value = headers.get(name)
        if h.get("required"):
            assert value is not None, "%s %s -> %d lacks %s" % (method, path, status, name)
        if value is not None and h["schema"].get("type") == "integer":
            jsonschema.Draft202012Validator(h["schema"]).validate(int(value))
    if method == "HEAD" or status == 304:
        return
    content = resp.get("content", {})
    if not content:   # a redirect: no body described, none sent
        assert not body, "%s %s -> %d has a body the document does not describe" % (
            method, path, status)
        return
    ctype = (headers.get("Content-Type") or "").split(";")[0].strip()
    media = content.get(ctype) or content.get("*/*")
    assert media, "%s %s -> %d: %r is not among %r" % (method, path, status, ctype, list(content))
    schema = media["schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    value = json.loads(body) if ctype == "application/json" else body.decode()
    jsonschema.Draft202012Validator(schema).validate(value)


def fetch(srv, method, path, body=None, headers=None):
    resp, data = request(srv, method, path, body, headers)
    return resp.status, {k: v for k, v in resp.getheaders()}, data


def check(srv, method, path, want, body=None, headers=None):
    status, hdrs, data = fetch(srv, method, path, body, headers)
    assert status == want, (method, path, status, data[:200])
    conforms(path, method, status, hdrs, data)
    return hdrs, data


def raw_answer(srv, data):
    """Sends raw bytes; the status, headers and body that came back."""
    reply = raw(srv, data, timeout=10)
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
    return status_of(reply), headers, body


# --- checks ----------------------------------------------------------------

def t_document_is_valid_openapi(_srv):
    """The npm validator: the document against OpenAPI 3.1's own schema,
    every $ref resolved."""
    lint = os.path.join(HERE, "openapi-lint")
    npm, node = "npm", "node"
    stamp = os.path.join(lint, "node_modules", ".package-lock.json")
    if (not os.path.exists(stamp) or
            os.path.getmtime(stamp) < os.path.getmtime(os.path.join(lint, "package-lock.json"))):
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=lint, check=True,
                       stdout=subprocess.DEVNULL)
    cli = os.path.join(lint, "node_modules", "@seriousme", "openapi-schema-validator", "bin",
                       "validate-api-cli.js")
    p = subprocess.run([node, cli, os.path.join(ROOT, "docs", "openapi.json")],
                       capture_output=True, text=True)
    assert p.returncode == 0 and '"valid": true' in p.stdout, p.stdout + p.stderr
    assert DOC["openapi"].startswith("3.1.")
    for name, schema in DOC["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(resolve(schema))


def t_served_and_versioned(srv):
    """/api/openapi.json serves the file, and its version is the server's."""
    hdrs, data = check(srv, "GET", "/api/openapi.json", 200)
    assert json.loads(data) == DOC
    _, about = check(srv, "GET", "/api/about", 200)
    assert DOC["info"]["version"] == json.loads(about)["version"]


def t_errors_are_documented(_srv):
    """Every code of the server's error table (server/core/errors.c) is in
    the document's Error enum, with the status the table pairs it with."""
    with open(os.path.join(ROOT, "server", "core", "errors.c")) as f:
        rows = re.findall(r'\[ERROR_\w+\] = \{ (\d+), "([a-z_]+)",', f.read())
    assert rows, "no error table in server/core/errors.c"
    enum = DOC["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]["enum"]
    missing = sorted(code for _, code in rows if code not in enum)
    assert not missing, missing


def t_routes_are_the_servers(_srv):
    """The document's paths are server/routes.c's route table, no more, no less."""
    with open(os.path.join(ROOT, "server", "routes.c")) as f:
        table = re.findall(r'\{ "(/[^"]*)", ROUTE_\w+,', f.read())
    assert table, "no route table in server/routes.c"
    assert set(DOC["paths"]) == set(table), (sorted(DOC["paths"]), table)


# Signed-out answers of the records' routes (t_records_answers has the rest).
SIGNED_OUT = {"/class": 401, "/api/me/submissions": 401, "/api/submissions/{id}": 404,
              "/api/class/events": 401, "/api/class/summary": 401, "/api/class/students": 401,
              "/api/class/students/{id}": 401, "/api/class/gradebook.csv": 401,
              "/api/class/gradebook": 401,
              # LTI is off on this server (the lti suite checks them with it on)
              "/lti/jwks.json": 404, "/lti/login": 404, "/lti/canvas.json": 404,
              "/lti/register": 404}


def t_every_get_route(srv):
    for path in DOC["paths"]:
        if "get" not in DOC["paths"][path]:
            continue
        if path in SIGNED_OUT:
            concrete = path.replace("{id}", "0" * 32)
            for method in ("GET", "HEAD"):
                check(srv, method, concrete, SIGNED_OUT[path])
            continue
        # an exercise's routes: the butterfly's, then an id none has (404)
        concrete = path.replace("{name}", "style.css").replace("{id}", "butterfly")
        for method in ("GET", "HEAD"):
            check(srv, method, concrete, 200)
            if "{id}" in path:
                _, body = check(srv, method, path.replace("{id}", "no_such_exercise"), 404)
                assert method == "HEAD" or json.loads(body)["error"]["code"] == "unknown_exercise"


def t_not_modified(srv):
    hdrs, _ = check(srv, "GET", "/static/app.mjs", 200)
    check(srv, "GET", "/static/app.mjs", 304, headers={"If-None-Match": hdrs["ETag"]})


def t_submissions_200(srv):
    for body, ctype, query, want in [
            (sample("correct.glsl"), "text/plain", "", 3),
            (sample("wrong_twiddle_sign.glsl"), "text/plain; charset=utf-8", "", 4),
            (sample("compile_error_line3.glsl"), "text/plain", "", 6),
            (sample("rejected_version.glsl"), "text/plain", "", 100),
            (json.dumps({"source": sample("correct.glsl").decode()}), "application/json", "", 3)]:
        _, data = check(srv, "POST", SUBMIT + query, 200, body, {"Content-Type": ctype})
        assert json.loads(data)["status"]["id"] == want
    _, data = check(srv, "POST", SUBMIT + "?format=text", 200, sample("correct.glsl"),
                    {"Content-Type": "text/plain"})
    assert data.startswith(b"Verdict: Accepted")


def t_endless_loop_verdict(srv):
    """Time Limit Exceeded from the loop budget: the verdict's `loop`."""
    _, data = check(srv, "POST", SUBMIT, 200, "float x = 0.0;\nwhile (true) { x += 1.0; }\nreturn x;\n",
                    {"Content-Type": "text/plain"})
    v = json.loads(data)
    assert v["status"]["id"] == 5 and v["loop"] and v["loop"]["line"] == 2, v


def t_errors_400_404_405(srv):
    check(srv, "POST", SUBMIT, 400, '{"source": ', {"Content-Type": "application/json"})
    check(srv, "POST", SUBMIT, 400, '{"code": "x"}', {"Content-Type": "application/json"})
    status, hdrs, body = raw_answer(srv, b"GET /static/index.html%00.css HTTP/1.1\r\nHost: x\r\n"
                                         b"Connection: close\r\n\r\n")
    assert status == 400
    conforms("/static/index.html%00.css", "GET", status, hdrs, body)
    check(srv, "GET", "/nope", 404)
    check(srv, "GET", "/static/nope.js", 404)
    for path, methods in DOC["paths"].items():
        concrete = path.replace("{name}", "style.css").replace("{id}", "0" * 32)
        listed = {m.upper() for m in methods}
        for method in ("GET", "POST", "DELETE", "PUT"):
            if method in listed:
                continue
            hdrs, _ = check(srv, method, concrete, 405, b"" if method != "GET" else None,
                            {"Content-Type": "text/plain"} if method != "GET" else None)
            allow = {m.strip() for m in hdrs["Allow"].split(",")}
            assert allow == listed, (path, allow, listed)


def t_records_answers(srv):
    """The records' routes signed in: an open lab's name, a recorded
    verdict, the list, one record, ?wait=false, the instructor."""
    page = {"X-Requested-With": "butterfly"}
    hdrs, data = check(srv, "POST", "/api/session", 200, '{"name": "Ada"}',
                       {"Content-Type": "application/json", **page})
    cookie = {"Cookie": hdrs["Set-Cookie"].split(";")[0], **page}
    check(srv, "POST", "/api/session", 400, '{"name": "\\u0007"}',
          {"Content-Type": "application/json", **page})
    check(srv, "POST", "/api/session", 403, '{"name": "x"}', {"Content-Type": "application/json"})
    check(srv, "POST", "/api/session", 413, "x" * 5000, {"Content-Type": "application/json", **page})
    check(srv, "GET", "/api/me", 200, headers=cookie)
    # two session cookies (one tossed in by another host): both refused
    two = dict(cookie, Cookie=cookie["Cookie"] + "; " + cookie["Cookie"])
    for method, path, body in (("GET", "/api/me", None), ("POST", SUBMIT, sample("correct.glsl")),
                               ("POST", "/api/session", '{"name": "Eve"}')):
        _, data = check(srv, method, path, 401, body,
                        dict(two, **{"Content-Type": "application/json" if "session" in path
                                     else "text/plain"}))
        assert json.loads(data)["error"]["code"] == "two_sessions", data
    check(srv, "DELETE", "/api/session", 200, headers=two)   # signing out still clears both
    _, data = check(srv, "POST", SUBMIT, 200, sample("correct.glsl"),
                    {"Content-Type": "text/plain", **cookie})
    v = json.loads(data)
    assert v["recorded"] is True
    check(srv, "POST", SUBMIT, 403, sample("correct.glsl"),
          {"Content-Type": "text/plain", "Cookie": cookie["Cookie"], "Origin": "http://evil"})
    check(srv, "GET", "/api/me/submissions?limit=1", 200, headers=cookie)
    check(srv, "GET", "/api/me/submissions?limit=0", 400, headers=cookie)
    check(srv, "GET", "/api/submissions/" + v["id"], 200, headers=cookie)
    check(srv, "GET", "/api/submissions/" + "1" * 32, 404, headers=cookie)
    hdrs, data = check(srv, "POST", SUBMIT + "?wait=false", 202, sample("correct.glsl"),
                       {"Content-Type": "text/plain", **cookie})
    loc = hdrs["Location"]
    deadline = time.time() + 60
    while time.time() < deadline:
        status, h, data = fetch(srv, "GET", loc, headers=cookie)
        conforms(loc, "GET", status, h, data)
        if status == 200:
            break
        time.sleep(0.05)
    assert status == 200
    check(srv, "POST", SUBMIT + "?wait=false", 401, sample("correct.glsl"),
          {"Content-Type": "text/plain"})
    bearer = {"Authorization": "Bearer " + INSTRUCTOR[0]}
    check(srv, "GET", "/api/submissions/" + v["id"], 200, headers=bearer)
    check(srv, "GET", "/api/me/submissions?student=x", 200, headers=bearer)
    check(srv, "GET", "/api/me/submissions", 400, headers=bearer)
    hdrs, _ = check(srv, "GET", "/class?token=" + INSTRUCTOR[0], 303)
    check(srv, "GET", "/class", 200, headers={"Cookie": hdrs["Set-Cookie"].split(";")[0]})
    # the class view's routes (the events' stream: tests/http/test_class.py)
    _, data = check(srv, "GET", "/api/class/students", 200, headers=bearer)
    student = json.loads(data)["students"][0]["id"]
    for path in ("/api/class/summary", "/api/class/gradebook.csv",
                 "/api/class/students/" + student):
        for method in ("GET", "HEAD"):
            check(srv, method, path, 200, headers=bearer)
    # an open lab (no roster here): the learning systems' layouts are
    # refused, since their ids would be this server's own (issue 31 item 9)
    for layout, status in (("default", 200), ("canvas", 409), ("moodle", 409)):
        for method in ("GET", "HEAD"):
            check(srv, method, "/api/class/gradebook?layout=" + layout, status, headers=bearer)
    check(srv, "GET", "/api/class/gradebook?layout=blackboard", 400, headers=bearer)
    check(srv, "GET", "/api/class/gradebook", 400, headers=bearer)
    check(srv, "GET", "/api/class/gradebook?layout=moodle&class=nosuch", 404, headers=bearer)
    check(srv, "GET", "/api/class/students/nobody", 404, headers=bearer)
    check(srv, "GET", "/api/class/summary", 403, headers=cookie)
    check(srv, "GET", "/api/me", 401, headers={"Authorization": "Bearer " + "0" * 64})
    # another scheme is another layer's (auth_basic in front): no credential of ours
    check(srv, "GET", "/api/me", 200, headers={"Authorization": "Basic x"})
    # the health names the store
    _, data = check(srv, "GET", "/healthz", 200)
    assert json.loads(data)["store"]["status"] == "ok"


def t_zz_token_failures_429(srv):
    """Last: it spends this client's budget of wrong tokens."""
    for _ in range(25):
        status, h, data = fetch(srv, "GET", "/class?token=" + "ab" * 32)
        conforms("/class", "GET", status, h, data)
        if status == 429:
            return
    raise AssertionError("no 429 after 25 wrong tokens")


def t_errors_411_413_415(srv):
    status, hdrs, body = raw_answer(srv, b"POST " + SUBMIT.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                                         b"Content-Type: text/plain\r\nConnection: close\r\n\r\n")
    assert status == 411
    conforms(SUBMIT, "POST", status, hdrs, body)
    check(srv, "POST", SUBMIT, 413, b"x" * 65537, {"Content-Type": "text/plain"})
    check(srv, "POST", SUBMIT, 413, b"x" * (4 * 65536 + 1), {"Content-Type": "application/json"})
    check(srv, "POST", SUBMIT, 415, "return 0.0;", {"Content-Type": "application/xml"})


def t_errors_429_503(srv):
    """A client past its share gets 429; a full queue, 503 (both with
    Retry-After). One worker, a queue of 2, one waiting job per client."""
    results = {}

    def post(name, client, body):
        results[name] = fetch(srv, "POST", SUBMIT, body,
                              {"Content-Type": "text/plain", "X-Forwarded-For": client})

    def about():
        return json.loads(fetch(srv, "GET", "/api/about")[2])

    def wait_for(cond, what):
        deadline = time.time() + 20
        while time.time() < deadline:
            if cond(about()):
                return
            time.sleep(0.02)
        raise AssertionError("never " + what)

    threads = []

    def start(name, client, cond, what):
        t = threading.Thread(target=post, args=(name, client, slow_body(700) + "// %s\n" % name))
        t.start()
        threads.append(t)
        wait_for(cond, what)
    start("a1", "10.7.0.1", lambda a: a["workers"]["busy"] == 1, "busy")
    start("a2", "10.7.0.1", lambda a: a["queue"]["length"] == 1, "one queued")
    post("a3", "10.7.0.1", "return 0.0;")          # A has its one waiting job
    start("b1", "10.7.0.2", lambda a: a["queue"]["length"] == 2, "two queued")
    post("c1", "10.7.0.3", "return 0.0;")          # the queue is full
    for t in threads:
        t.join(60)
    for name, want in [("a3", 429), ("c1", 503), ("a1", 200), ("a2", 200), ("b1", 200)]:
        status, hdrs, body = results[name]
        assert status == want, (name, status, body[:200])
        conforms(SUBMIT, "POST", status, hdrs, body)


def t_health_503():
    """A server whose worker cannot start does not start: its check on load
    cannot grade the exercises' solutions, and it says so. Nor does one
    whose check grades a solution otherwise than its expect line. A server whose
    workers are gone after its start, with none able to start again, answers
    /healthz with 503 and its body."""
    env = dict(os.environ, BUTTERFLY_QUIET="1", BUTTERFLY_DATABASE="none")
    p = subprocess.run([BINARY, "--port", "0", "--workers", "1", "--worker", "/bin/false"],
                       capture_output=True, timeout=60, env=env)
    assert p.returncode == 1, (p.returncode, p.stdout)
    assert b"listening" not in p.stdout, p.stdout
    assert b"not checked: no worker is ready" in p.stderr, p.stderr
    # a check that grades and gets another verdict than a solution expects
    # (a 1 ms bound: no kernel compiles in it, on any machine) stops the
    # start too, each problem naming its file and what it got
    p = subprocess.run([BINARY, "--port", "0", "--workers", "1", "--deadline-ms", "1"],
                       capture_output=True, timeout=120, env=env)
    assert p.returncode == 1, (p.returncode, p.stdout)
    assert b"listening" not in p.stdout, p.stdout
    err = p.stderr.decode()
    assert re.search(r"exercises/butterfly/solutions/correct\.glsl: expected accepted, got "
                     r"Internal Error: The grader's time limit of 1 ms", err), err[:2000]
    assert "failed its check on load" in err, err[-500:]
    with tempfile.TemporaryDirectory() as d:
        # the real worker once (for the check on load), then a worker that
        # cannot start
        worker = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(BINARY))),
                              "grader", "butterfly-worker")
        mark, script = os.path.join(d, "started"), os.path.join(d, "worker.sh")
        with open(script, "w") as f:
            f.write('#!/bin/sh\n[ -e "%s" ] && exit 1\n: > "%s"\nexec "%s" "$@"\n'
                    % (mark, mark, worker))
        os.chmod(script, 0o755)
        srv = Server(BINARY, "--workers", "1", "--worker", script, wait_healthy=False)
        try:
            workers = children(srv.proc.pid)
            assert workers, "no worker process"
            for pid in workers:
                os.kill(pid, signal.SIGKILL)
            deadline = time.time() + 10
            status = 0
            while time.time() < deadline and status != 503:
                status, hdrs, body = fetch(srv, "GET", "/healthz")
            assert status == 503, status
            conforms("/healthz", "GET", status, hdrs, body)
            assert json.loads(body)["status"] == "unavailable"
        finally:
            srv.stop()


def main():
    checks = Checks()
    run = checks.run

    state = tempfile.TemporaryDirectory()
    srv = Server(BINARY, "--workers", "1", "--queue", "2", "--per-client-queue", "1",
                 "--deadline-ms", "4000", "--trusted-proxy", "127.0.0.1",
                 "--database", "sqlite:" + os.path.join(state.name, "records.sqlite"))
    m = [re.search(r"class\?token=([0-9a-f]+)", l) for l in srv.read_banner()]
    INSTRUCTOR.extend(x.group(1) for x in m if x)
    try:
        for name, fn in sorted((n, f) for n, f in globals().items()
                               if n.startswith("t_") and n != "t_health_503"):
            run(name, fn, srv)
    finally:
        srv.stop()
        state.cleanup()
    run("t_health_503", t_health_503)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

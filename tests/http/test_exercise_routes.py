#!/usr/bin/env python3
"""Every exercise through the server (issue 33 item 7): the list, each
exercise's document, page and submissions, an id no exercise has, and
--exercises.

usage: test_exercise_routes.py SERVER_BINARY SAMPLES_DIR STATIC_DIR GRADE_BINARY
Prints one line per check and ends with "N passed, M failed". Every check
walks the list the server gives, so the exercises added to exercises/LIST
are checked by the same lines as the butterfly.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from serverproc import Server  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from common import Checks  # noqa: E402
from test_http import error_code, raw, request, sample, status_of  # noqa: E402

BINARY, SAMPLES, STATIC, GRADE = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
SEED = "20261129"
PAGE_HEADER = {"X-Requested-With": "butterfly"}
ID = re.compile(r"^[a-z0-9_-]{1,32}$")


def get_json(srv, path, want=200):
    resp, data = request(srv, "GET", path)
    assert resp.status == want, (path, resp.status, data[:200])
    return json.loads(data)


def listed(srv):
    return get_json(srv, "/api/tasks")


def t_list_in_course_order(srv):
    tasks = listed(srv)
    assert any(t["id"] == "butterfly" for t in tasks), tasks
    ids = [t["id"] for t in tasks]
    assert len(set(ids)) == len(ids), ids
    for t in tasks:
        assert ID.match(t["id"]), t
        assert t["url"] == "/api/tasks/" + t["id"] and t["page"] == "/tasks/" + t["id"], t
        assert isinstance(t["title"], str) and t["title"], t
        assert isinstance(t["example"], bool) and isinstance(t["order"], int), t
    # within a course, its order; the butterfly is Task 2 of its course
    for course in {t["course"] for t in tasks}:
        orders = [t["order"] for t in tasks if t["course"] == course]
        assert orders == sorted(orders), (course, orders)
    b = next(t for t in tasks if t["id"] == "butterfly")
    assert b["order"] == 2 and b["course"] == "The FFT on the GPU" and b["example"] is False, b


def t_each_document_from_its_definition(srv):
    for t in listed(srv):
        e = get_json(srv, t["url"])
        assert e["id"] == t["id"] and e["title"] == t["title"], e
        assert e["submit_url"] == "/api/tasks/%s/submissions" % t["id"], e
        n, planes = e["input"]["n"], e["input"]["planes"]
        assert len(e["visible"]) == planes and all(len(p) == n for p in e["visible"]), e
        assert e["parameter"]["values"] and e["halves"] == e["parameter"]["values"], e
        assert e["hidden_per_half"] == e["hidden_per_value"], e
        assert e["starter"] and e["signature"] and e["api"], e
    b = get_json(srv, "/api/tasks/butterfly")
    assert b["parameter"] == {"name": "half", "values": [1, 2, 4]}, b
    assert b["input"] == {"name": "spectrum", "n": 8, "planes": 2}, b
    assert b["output"] == {"n": 8, "planes": 2} and b["function"] == "butterfly", b


def t_unknown_exercise_404(srv):
    for path in ("/api/tasks/nope", "/tasks/nope", "/api/tasks/" + "a" * 200, "/tasks/BUTTERFLY"):
        resp, data = request(srv, "GET", path)
        assert resp.status == 404 and error_code(data) == "unknown_exercise", (path, data)
    resp, data = request(srv, "POST", "/api/tasks/nope/submissions", sample("correct.glsl"),
                         {"Content-Type": "text/plain"})
    assert resp.status == 404 and error_code(data) == "unknown_exercise", data
    # refused from the headers alone: a 10 MB body announced is never read
    reply = raw(srv, b"POST /api/tasks/nope/submissions HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Type: text/plain\r\nContent-Length: 10000000\r\n\r\nreturn",
                read_all=False)
    assert status_of(reply) == 404 and b"unknown_exercise" in reply, reply[:200]
    # a path the table does not have is no exercise: not_found, as before
    resp, data = request(srv, "GET", "/api/tasks/butterfly/more")
    assert resp.status == 404 and error_code(data) == "not_found", data


def t_submissions_for_every_exercise(srv):
    """Each exercise's route grades for that exercise, with the same bounds
    and answers as the butterfly's always had; the butterfly's verdicts are
    its own (correct: Accepted, a named mistake: Wrong Answer)."""
    for t in listed(srv):
        url = "/api/tasks/%s/submissions" % t["id"]
        resp, data = request(srv, "POST", url, b"return 0.0;\n", {"Content-Type": "text/plain"})
        v = json.loads(data)
        assert resp.status in (200, 500) and v["status"]["id"] in range(1, 101), (url, v)
        resp, data = request(srv, "POST", url, b"{", {"Content-Type": "application/json"})
        assert resp.status == 400 and error_code(data) == "bad_request", data
        resp, data = request(srv, "POST", url, b"x", {"Content-Type": "image/png"})
        assert resp.status == 415, data
        body = b"return 0.0;\n" + b" " * (65536 - 12)
        resp, data = request(srv, "POST", url, body + b" ", {"Content-Type": "text/plain"})
        assert resp.status == 413 and error_code(data) == "payload_too_large", data
    for name, want in (("correct.glsl", 3), ("wrong_twiddle_sign.glsl", 4)):
        resp, data = request(srv, "POST", "/api/tasks/butterfly/submissions", sample(name),
                             {"Content-Type": "text/plain"})
        v = json.loads(data)
        assert resp.status == 200 and v["status"]["id"] == want and v["task"] == "butterfly", v
        assert [h["half"] for h in v["halves"]] == [1, 2, 4], v


def t_allow_and_405(srv):
    for method, path, allow in (("GET", "/api/tasks/butterfly/submissions", {"POST"}),
                                ("POST", "/api/tasks/butterfly", {"GET", "HEAD"}),
                                ("DELETE", "/tasks/butterfly", {"GET", "HEAD"}),
                                ("POST", "/tasks", {"GET", "HEAD"})):
        resp, _ = request(srv, method, path, b"" if method != "GET" else None,
                          {"Content-Type": "text/plain"} if method != "GET" else None)
        assert resp.status == 405, (method, path, resp.status)
        assert {m.strip() for m in resp.getheader("Allow").split(",")} == allow, resp.getheader("Allow")


def t_pages(srv):
    """The index and the template page are the static folder's own files,
    the same for every exercise; / is still the butterfly's page."""
    def served(path):
        resp, data = request(srv, "GET", path)
        assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/html"), path
        assert resp.getheader("Content-Security-Policy"), path
        return data
    with open(os.path.join(STATIC, "index.html"), "rb") as f:
        assert served("/") == f.read()
    with open(os.path.join(STATIC, "tasks.html"), "rb") as f:
        assert served("/tasks") == f.read()
    with open(os.path.join(STATIC, "task.html"), "rb") as f:
        template = f.read()
    for t in listed(srv):
        assert served(t["page"]) == template, t


def t_same_verdict_as_the_grader():
    """The butterfly through /api/tasks/butterfly/submissions is the
    butterfly's verdict: at one seed, the server's JSON is butterfly-grade's,
    field for field (the timings aside: they are measured)."""
    srv = Server(BINARY, "--workers", "1", "--seed", SEED)
    try:
        for name in ("correct.glsl", "wrong_twiddle_sign.glsl", "compile_error_line3.glsl",
                     "hardcoded_visible.glsl"):
            resp, data = request(srv, "POST", "/api/tasks/butterfly/submissions", sample(name),
                                 {"Content-Type": "text/plain"})
            served = json.loads(data)
            out = subprocess.run([GRADE, "--json", "--seed", SEED, os.path.join(SAMPLES, name)],
                                 capture_output=True, timeout=120).stdout
            graded = json.loads(out)
            for v in (served, graded):
                v.pop("timings_ms", None)
            assert served == graded, (name, served, graded)
    finally:
        srv.stop()


def refused_start(*args, env=None):
    full = dict(os.environ, BUTTERFLY_DATABASE="none", BUTTERFLY_QUIET="1", **(env or {}))
    p = subprocess.run([BINARY, "--port", "0", "--workers", "1", *args], env=full,
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr


def t_exercises_option():
    """--exercises picks the served ones; an unknown id, or an empty item,
    stops the start with a message naming it."""
    rc, err = refused_start("--exercises", "butterfly,no_such_one")
    assert rc != 0 and '"no_such_one"' in err and "butterfly" in err, (rc, err)
    rc, err = refused_start(env={"BUTTERFLY_EXERCISES": "nope"})
    assert rc != 0 and '"nope"' in err, (rc, err)
    rc, err = refused_start("--exercises", "butterfly,,butterfly")
    assert rc != 0 and "empty item" in err, (rc, err)
    srv = Server(BINARY, "--workers", "1", "--exercises", " butterfly , butterfly")
    try:
        assert [t["id"] for t in listed(srv)] == ["butterfly"]
        get_json(srv, "/api/tasks/butterfly")
    finally:
        assert srv.stop() == 0


def t_record_keeps_the_exercise():
    """A submission's record holds its exercise in task."""
    with tempfile.TemporaryDirectory() as folder:
        srv = Server(BINARY, "--workers", "1", "--database",
                     "sqlite:" + os.path.join(folder, "r.sqlite"))
        try:
            resp, data = request(srv, "POST", "/api/session", json.dumps({"name": "Ada"}),
                                 {"Content-Type": "application/json", **PAGE_HEADER})
            assert resp.status == 200, data
            cookie = resp.getheader("Set-Cookie").split(";")[0]
            for t in listed(srv):
                resp, data = request(srv, "POST", "/api/tasks/%s/submissions" % t["id"],
                                     sample("correct.glsl"),
                                     {"Content-Type": "text/plain", "Cookie": cookie, **PAGE_HEADER})
                v = json.loads(data)
                assert v.get("recorded") is True, v
                resp, data = request(srv, "GET", "/api/submissions/" + v["id"], None,
                                     {"Cookie": cookie})
                assert resp.status == 200 and json.loads(data)["task"] == t["id"], data[:300]
        finally:
            srv.stop()


def main():
    checks = Checks()
    srv = Server(BINARY, "--workers", "2", "--deadline-ms", "3000")
    try:
        for name, fn in sorted((n, f) for n, f in globals().items()
                               if n.startswith("t_") and n not in ("t_exercises_option",
                                                                   "t_record_keeps_the_exercise",
                                                                   "t_same_verdict_as_the_grader")):
            checks.run(name, fn, srv)
    finally:
        rc = srv.stop()
    checks.run("graceful exit", lambda: rc == 0 or (_ for _ in ()).throw(AssertionError(rc)))
    checks.run("t_exercises_option", t_exercises_option)
    checks.run("t_record_keeps_the_exercise", t_record_keeps_the_exercise)
    checks.run("t_same_verdict_as_the_grader", t_same_verdict_as_the_grader)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

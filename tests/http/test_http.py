#!/usr/bin/env python3
"""The HTTP server end to end: the real server on a free loopback port.

usage: test_http.py SERVER_BINARY SAMPLES_DIR
Prints one line per check and ends with "N passed, M failed".
"""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverproc import Server  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from common import Checks, parse_metrics, proc_fds, proc_rss_kib, slow_body  # noqa: E402

BINARY, SAMPLES = sys.argv[1], sys.argv[2]
SUBMIT = "/api/tasks/butterfly/submissions"
SLOW = slow_body(1000)   # a worker stays busy with it for a second


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def request(srv, method, path, body=None, headers=None, timeout=60):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=timeout)
    conn.request(method, path, body=body, headers=headers or {})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp, data


def submit(srv, body, ctype="text/plain", query="", client=None):
    """Posts a body; `client` sets X-Forwarded-For, which the server reads
    only because it trusts 127.0.0.1 as its proxy (a class behind nginx)."""
    if isinstance(body, str):
        body = body.encode()
    headers = {"Content-Type": ctype}
    if client:
        headers["X-Forwarded-For"] = client
    return request(srv, "POST", SUBMIT + query, body, headers)


def raw(srv, data, timeout=10, read_all=True):
    """Sends raw bytes; returns what came back (the status line first)."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
            if not read_all and b"\r\n\r\n" in out:
                break
    except socket.timeout:
        pass
    s.close()
    return out


def status_of(reply):
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0


def error_code(data):
    return json.loads(data)["error"]["code"]


# --- checks -------------------------------------------------------------

def t_correct_text_plain(srv):
    resp, data = submit(srv, sample("correct.glsl"))
    v = json.loads(data)
    assert resp.status == 200, resp.status
    assert v["status"] == {"id": 3, "description": "Accepted", "slug": "accepted"}, v["status"]
    assert [h["half"] for h in v["halves"]] == [1, 2, 4]
    assert all(c["passed"] for h in v["halves"] for c in h["cells"])


def t_correct_json(srv):
    body = json.dumps({"source": sample("correct.glsl").decode()})
    resp, data = submit(srv, body, "application/json; charset=utf-8")
    assert resp.status == 200 and json.loads(data)["status"]["id"] == 3


def t_wrong_per_cell(srv):
    resp, data = submit(srv, sample("wrong_twiddle_sign.glsl"))
    v = json.loads(data)
    assert resp.status == 200 and v["status"]["id"] == 4
    assert [h["passed"] for h in v["halves"]] == [True, False, False]
    bad = [c for c in v["halves"][1]["cells"] if not c["passed"]]
    assert bad and all({"x", "y", "expected", "got"} <= set(c) for c in bad)
    assert v["diagnosis"]["id"] == "twiddle_sign"


def t_compile_error_line(srv):
    resp, data = submit(srv, "int i = this.thread.x;\nfloat f = 1.0;\nfloat g = f +* 2.0;\nreturn g;\n")
    v = json.loads(data)
    assert resp.status == 200 and v["status"]["id"] == 6, (resp.status, v["status"])
    assert v["diagnostics"][0]["line"] == 3, v["diagnostics"]


def t_format_text(srv):
    resp, data = submit(srv, sample("wrong_twiddle_sign.glsl"), query="?format=text")
    assert resp.status == 200
    assert resp.getheader("Content-Type").startswith("text/plain")
    text = data.decode()
    assert text.startswith("Verdict: Wrong Answer") and "half = 2: FAILED" in text, text[:200]


def t_malformed_json(srv):
    resp, data = submit(srv, '{"source": "return 0.0;"', "application/json")
    assert resp.status == 400 and error_code(data) == "bad_request"


def t_missing_source(srv):
    resp, data = submit(srv, '{"code": "return 0.0;"}', "application/json")
    assert resp.status == 400 and "source" in json.loads(data)["error"]["message"]


def t_not_found(srv):
    resp, data = request(srv, "GET", "/nope")
    assert resp.status == 404 and error_code(data) == "not_found"


def t_method_not_allowed(srv):
    resp, _ = request(srv, "GET", SUBMIT)
    assert resp.status == 405 and resp.getheader("Allow") == "POST"
    resp, _ = request(srv, "DELETE", "/api/tasks")
    assert resp.status == 405 and "GET" in resp.getheader("Allow")


def t_length_required(srv):
    reply = raw(srv, b"POST " + SUBMIT.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: text/plain\r\nConnection: close\r\n\r\n")
    assert status_of(reply) == 411, reply[:100]


def t_unsupported_media_type(srv):
    resp, data = submit(srv, "return 0.0;", "application/x-www-form-urlencoded")
    assert resp.status == 415 and error_code(data) == "unsupported_media_type"


def t_413_from_headers(srv):
    # 10 MB announced, nothing sent: the answer must come without the body
    t0 = time.time()
    reply = raw(srv, b"POST " + SUBMIT.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: text/plain\r\nContent-Length: 10485760\r\n\r\n",
                timeout=5, read_all=False)
    assert status_of(reply) == 413, reply[:100]
    assert time.time() - t0 < 2


def t_413_chunked(srv):
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"POST " + SUBMIT.encode() + b" HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * 16384
    reply = b""
    try:
        for _ in range(8):   # 128 KiB in all, twice the limit
            s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        s.sendall(b"0\r\n\r\n")
    except OSError:
        pass   # the server may close as soon as it has answered
    try:
        while b"\r\n\r\n" not in reply:
            got = s.recv(4096)
            if not got:
                break
            reply += got
    except OSError:
        pass
    s.close()
    assert status_of(reply) == 413, reply[:100]


def t_exactly_64k_ok_and_one_more_refused(srv):
    body = b"return 0.0;\n" + b" " * (65536 - 12)
    resp, data = submit(srv, body)
    assert resp.status == 200 and json.loads(data)["status"]["id"] == 4
    resp, data = submit(srv, body + b" ")
    assert resp.status == 413 and error_code(data) == "payload_too_large"


def t_static_and_traversal(srv):
    resp, data = request(srv, "GET", "/")
    assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/html")
    assert resp.getheader("ETag") and "no-cache" in resp.getheader("Cache-Control")
    assert "default-src 'self'" in resp.getheader("Content-Security-Policy")
    # no frame may embed the page unless --lti-config names one
    assert "frame-ancestors 'none'" in resp.getheader("Content-Security-Policy")
    etag = resp.getheader("ETag")
    resp, _ = request(srv, "GET", "/", headers={"If-None-Match": etag})
    assert resp.status == 304
    for path in [b"/static/../README.md", b"/static/%2e%2e/README.md",
                 b"/static/..%2fREADME.md", b"/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                 b"/static/index.html%00.css", b"/static/./index.html",
                 b"/static//etc/passwd", b"/static/", b"/../../etc/passwd"]:
        reply = raw(srv, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert status_of(reply) in (400, 404), (path, reply[:60])
        assert b"root:" not in reply


def t_task_and_about(srv):
    resp, data = request(srv, "GET", "/api/tasks")
    assert resp.status == 200 and json.loads(data)[0]["id"] == "butterfly"
    resp, data = request(srv, "GET", "/api/tasks/butterfly")
    t = json.loads(data)
    assert t["halves"] == [1, 2, 4] and len(t["visible"]) == 2 and len(t["visible"][0]) == 8
    assert t["starter"] and {"atol", "rtol"} <= set(t["tolerance"])
    assert any(a["name"] == "this.thread.x" for a in t["api"])
    resp, data = request(srv, "GET", "/api/about")
    a = json.loads(data)
    assert a["version"] and a["device"]["type"] and a["workers"]["configured"] == 2


def t_metrics_count(srv):
    def accepted():
        _, data = request(srv, "GET", "/metrics")
        for line in data.decode().splitlines():
            if line.startswith('butterfly_submissions_total{verdict="accepted"'):
                return int(line.split()[-1])
        raise AssertionError("no accepted counter")
    before = accepted()
    submit(srv, sample("correct.glsl"))
    submit(srv, sample("correct_vec2.glsl"))
    assert accepted() == before + 2
    _, data = request(srv, "GET", "/metrics")
    text = data.decode()
    for name in ["butterfly_submission_duration_seconds_bucket", "butterfly_queue_depth",
                 "butterfly_worker_restarts_total", "butterfly_workers_ready"]:
        assert name in text, name


def t_metrics_standard(srv):
    """promtool accepts /metrics; build_info names the version and the
    device /api/about names; the process metrics are this server's own."""
    _, data = request(srv, "GET", "/metrics")
    p = subprocess.run(["promtool", "check", "metrics"], input=data, capture_output=True)
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
    m = parse_metrics(data.decode())
    _, about = request(srv, "GET", "/api/about")
    about = json.loads(about)
    info = 'butterfly_build_info{version="%s",device="%s"}' % (about["version"],
                                                               about["device"]["name"])
    assert m.get(info) == 1, (info, [k for k in m if "build_info" in k])
    pid = srv.proc.pid
    fds = proc_fds(pid)
    assert abs(m["process_open_fds"] - fds) <= 3, (m["process_open_fds"], fds)
    with open("/proc/%d/limits" % pid) as f:
        soft = [l.split()[3] for l in f if l.startswith("Max open files")][0]
    assert m["process_max_fds"] == float(soft), (m["process_max_fds"], soft)
    rss = proc_rss_kib(pid) * 1024
    assert 0.5 * rss < m["process_resident_memory_bytes"] < 2 * rss, (m, rss)
    assert abs(m["process_start_time_seconds"] - srv.started) < 5, (
        m["process_start_time_seconds"], srv.started)
    assert 0 <= m["process_cpu_seconds_total"] < time.time() - srv.started + 1


def t_worker_recycles_are_not_restarts():
    """A worker replaced by plan after its --recycle-after jobs is a recycle,
    not a restart: butterfly_worker_restarts_total counts faults only, as
    its help says, and promtool accepts both counters."""
    srv = Server(BINARY, "--workers", "1", "--recycle-after", "2")
    try:
        # the check on load grades every exercise's solutions on the workers
        # before the server listens: those jobs count too, so from here on
        _, data = request(srv, "GET", "/metrics")
        before = parse_metrics(data.decode())["butterfly_worker_recycles_total"]
        for k in range(6):
            resp, data = submit(srv, sample("correct.glsl") + b"// %d\n" % k)
            assert resp.status == 200 and json.loads(data)["status"]["id"] == 3, resp.status
        _, data = request(srv, "GET", "/metrics")
        p = subprocess.run(["promtool", "check", "metrics"], input=data, capture_output=True)
        assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
        m = parse_metrics(data.decode())
        # one every second job (counted with the verdict, before its answer)
        assert m["butterfly_worker_recycles_total"] - before == 3, (
            m["butterfly_worker_recycles_total"], before)
        assert m["butterfly_worker_restarts_total"] == 0, m["butterfly_worker_restarts_total"]
        help_of = {l.split()[2]: l for l in data.decode().splitlines() if l.startswith("# HELP")}
        assert "fault" in help_of["butterfly_worker_restarts_total"], help_of
        assert "--recycle-after" in help_of["butterfly_worker_recycles_total"], help_of
    finally:
        srv.stop()


def t_20_concurrent(srv):
    bodies = [sample("correct.glsl"), sample("wrong_twiddle_sign.glsl"),
              sample("compile_error_line3.glsl"), sample("rejected_version.glsl")]
    want = [3, 4, 6, 100]
    results = [None] * 20

    def one(k):
        try:
            resp, data = submit(srv, bodies[k % 4] + b"// %d\n" % k, client="10.1.0.%d" % k)
            results[k] = (resp.status, json.loads(data)["status"]["id"])
        except Exception as e:  # noqa: BLE001 - reported below
            results[k] = repr(e)
    threads = [threading.Thread(target=one, args=(k,)) for k in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for k in range(20):
        assert results[k] == (200, want[k % 4]), (k, results[k])


def t_busy_server(busy):
    """healthz answers fast while every worker is busy; a full queue gets 503."""
    answers = []

    def slow():
        answers.append(submit(busy, SLOW)[0].status)
    threads = [threading.Thread(target=slow) for _ in range(2)]   # 1 running + 1 queued
    for t in threads:
        t.start()
    deadline = time.time() + 10   # until one runs and one waits
    health = {}
    while time.time() < deadline:
        _, data = request(busy, "GET", "/healthz")
        health = json.loads(data)
        if health["queued"] == 1:
            break
        time.sleep(0.05)
    assert health.get("queued") == 1, ("the queue never filled", health, answers)
    worst = 0
    for _ in range(20):
        t0 = time.time()
        resp, _ = request(busy, "GET", "/healthz")
        worst = max(worst, time.time() - t0)
        assert resp.status == 200
    assert worst < 0.1, worst
    resp, _ = request(busy, "GET", "/")
    assert resp.status == 200
    _, before = request(busy, "GET", "/healthz")
    resp, data = submit(busy, "return 0.0;")
    assert resp.status == 503, (resp.status, json.loads(before), data[:200])
    assert int(resp.getheader("Retry-After")) >= 1
    assert error_code(data) == "queue_full"
    for t in threads:
        t.join(60)
    assert answers == [200, 200], answers


def t_sigterm_answers_the_job_in_flight():
    # the job is still running at the SIGTERM and finishes inside its
    # deadline: the stopping server answers it with its verdict
    srv = Server(BINARY, "--workers", "1", "--deadline-ms", "5000")
    result = {}

    def slow():
        try:
            resp, data = submit(srv, slow_body(1500))
            result["status"] = (resp.status, json.loads(data)["status"]["id"])
        except Exception as e:  # noqa: BLE001
            result["status"] = repr(e)
    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.7)
    srv.proc.send_signal(signal.SIGTERM)
    t.join(30)
    rc = srv.stop()
    assert result.get("status") == (200, 3), result
    assert rc == 0, rc


def main():
    checks = Checks()
    check = checks.run

    srv = Server(BINARY, "--workers", "2", "--deadline-ms", "3000",
                 "--trusted-proxy", "127.0.0.1")
    busy = Server(BINARY, "--workers", "1", "--queue", "1", "--deadline-ms", "5000")
    try:
        for name, fn in sorted((n, f) for n, f in globals().items()
                               if n.startswith("t_") and n not in ("t_busy_server",
                                                                   "t_sigterm_answers_the_job_in_flight",
                                                                   "t_worker_recycles_are_not_restarts")):
            check(name, fn, srv)
        check("t_busy_server", t_busy_server, busy)
    finally:
        rc1, rc2 = srv.stop(), busy.stop()
    check("graceful exit codes", lambda: (rc1, rc2) == (0, 0) or (_ for _ in ()).throw(
        AssertionError((rc1, rc2))))
    check("t_sigterm_answers_the_job_in_flight", t_sigterm_answers_the_job_in_flight)
    check("t_worker_recycles_are_not_restarts", t_worker_recycles_are_not_restarts)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

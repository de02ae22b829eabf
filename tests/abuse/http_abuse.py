#!/usr/bin/env python3
"""HTTP abuse against the real server, over raw sockets.

usage: http_abuse.py SERVER_BINARY

Oversized and endless bodies, slow and partial headers, huge headers,
malformed JSON, wrong content types, unknown methods, huge paths, clients
that vanish while their job runs. Each answer is asserted exactly, with a
time bound; afterwards the server must still be up, healthy, and hold no
more file descriptors than before. Prints one line per check and ends with
"N passed, M failed".
"""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from common import (  # noqa: E402
                    SUBMIT, Checks, Server, body_of, metrics, raw, read_response, request,
                    sample, sanitized, settled_fds, slow_body, status_of, strict_json, submit,
                    wait_idle)

SERVER_ARGS = ["--workers", "2", "--deadline-ms", "2000", "--timeout-s", "3"]
IDLE_TIMEOUT_S = 3
SUB = SUBMIT.encode()


def head(method, path, headers=b"", close=True):
    return (method + b" " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
            + (b"Connection: close\r\n" if close else b"") + b"\r\n")


def error_code(reply):
    return strict_json(body_of(reply))["error"]["code"]


def timed(fn, *args, **kw):
    t0 = time.time()
    out = fn(*args, **kw)
    return out, time.time() - t0


def correct_answer_in(port, seconds):
    """A well-behaved client submits the correct kernel: Accepted, in time."""
    (status, _, data), secs = timed(submit, port, sample("correct.glsl"), timeout=seconds + 5)
    v = strict_json(data)
    assert status == 200 and v["status"]["id"] == 3, (status, v["status"])
    assert secs < seconds, "the normal client waited %.2f s" % secs
    return secs


# --- bodies ---------------------------------------------------------------------

def t_10MB_content_length(port):
    """Refused from the headers: nothing of the body is read."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    t0 = time.time()
    s.sendall(head(b"POST", SUB, b"Content-Type: text/plain\r\nContent-Length: 10485760\r\n",
                   close=False))
    status, headers, body = read_response(s)
    secs = time.time() - t0
    # the server hangs up rather than wait for 10 MB it will not read
    rest = s.recv(100)
    s.close()
    assert status == 413, status
    assert json.loads(body)["error"]["code"] == "payload_too_large"
    assert headers.get("connection", "").lower() == "close", headers
    assert rest == b"", rest
    assert secs < 1, secs
    return "413 in %.3f s, then closed" % secs


def t_10MB_with_expect_continue(port):
    """curl sends Expect: 100-continue for big bodies: no 100, a 413."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(head(b"POST", SUB, b"Content-Type: application/json\r\nContent-Length: 10485760\r\n"
                   b"Expect: 100-continue\r\n", close=False))
    status, _, body = read_response(s)
    s.close()
    assert status == 413, status
    assert json.loads(body)["error"]["message"] == "The request is over the limit of 256 KiB."


CLIENT_SNDBUF = 64 * 1024


def chunked_post(port, ctype, total, chunk=16384):
    """Sends a chunked body of `total` bytes; returns (reply, seconds, sent)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, CLIENT_SNDBUF)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    t0 = time.time()
    s.sendall(head(b"POST", SUB, b"Content-Type: " + ctype + b"\r\nTransfer-Encoding: chunked\r\n"))
    sent = 0
    try:
        while sent < total:
            s.sendall(b"%x\r\n" % chunk + b"x" * chunk + b"\r\n")
            sent += chunk
        s.sendall(b"0\r\n\r\n")
    except OSError:
        pass   # the server closed: past the limit and the drain
    reply = b""
    try:
        while True:
            got = s.recv(65536)
            if not got:
                break
            reply += got
    except OSError:
        pass
    s.close()
    return reply, time.time() - t0, sent


def t_chunked_over_limit(port):
    reply, secs, _ = chunked_post(port, b"text/plain", 128 * 1024)
    assert status_of(reply) == 413 and error_code(reply) == "payload_too_large", reply[:200]
    assert b"over the limit of 64 KiB" in reply
    assert secs < 2, secs
    return "128 KiB chunked: 413 in %.2f s" % secs


def t_chunked_json_over_limit(port):
    reply, secs, _ = chunked_post(port, b"application/json", 512 * 1024)
    assert status_of(reply) == 413, reply[:200]
    assert b"The request is over the limit of 256 KiB." in reply, reply[-200:]
    assert secs < 2, secs


def in_flight_max(server_reads):
    """The most a loopback TCP connection can hold besides what the server
    read: the client's send buffer (fixed small by chunked_post; Linux
    doubles SO_SNDBUF) and the server's receive buffer, which autotuning
    sizes from what the application reads per round trip, at most twice
    that, and never past tcp_rmem's maximum."""
    with open("/proc/sys/net/ipv4/tcp_rmem") as f:
        rmem_max = int(f.read().split()[2])
    return 2 * CLIENT_SNDBUF + min(2 * server_reads, rmem_max)


def t_chunked_endless(port):
    """Past the limit plus 1 MiB of draining, the connection is dropped: a
    client cannot make the server read forever. What the client managed to
    send is what the server read plus what the kernel buffered on the way
    (in_flight_max); before the client's send buffer was fixed it autotuned
    to 4 MiB, and the check failed on a good server now and then."""
    before = metrics(port)
    reply, secs, sent = chunked_post(port, b"text/plain", 64 * 1024 * 1024, chunk=65536)
    after = metrics(port)
    server_reads = 64 * 1024 + 1024 * 1024 + 64 * 1024   # the limit, the drain, one chunk
    bound = server_reads + in_flight_max(server_reads)
    assert sent < bound, "the client sent %d bytes before the server closed (bound %d)" \
        % (sent, bound)
    assert status_of(reply) in (0, 413), reply[:100]
    assert secs < 5, secs
    submitted = sum(v for k, v in after.items() if k.startswith("butterfly_submissions_total")) \
        - sum(v for k, v in before.items() if k.startswith("butterfly_submissions_total"))
    assert submitted == 0, submitted
    return "dropped after %d KiB of 64 MiB (bound %d KiB), %.2f s" % (sent // 1024, bound // 1024,
                                                                     secs)


def t_chunk_size_overflow(port):
    reply = raw(port, head(b"POST", SUB, b"Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n")
                + b"ffffffffffffffffff\r\nabc", timeout=5)
    assert status_of(reply) == 413, reply[:100]


def t_bad_content_length(port):
    # libmicrohttpd answers these itself (0.9.75 writes its status line and
    # headers twice here; a client still reads the status)
    for value, want in ((b"-1", 400), (b"abc", 400), (b"1e9", 400),
                        (b"99999999999999999999999", 413)):
        reply = raw(port, head(b"POST", SUB, b"Content-Type: text/plain\r\nContent-Length: "
                               + value + b"\r\n"), timeout=5)
        assert status_of(reply) == want, (value, reply[:100])


def t_length_required(port):
    reply = raw(port, head(b"POST", SUB, b"Content-Type: text/plain\r\n"), timeout=5)
    assert status_of(reply) == 411 and error_code(reply) == "length_required", reply[:200]


def t_get_with_big_body(port):
    """A body on a GET is read and dropped up to 64 KiB; past that, closed."""
    reply = raw(port, head(b"GET", b"/healthz", b"Content-Length: 1000\r\n") + b"x" * 1000)
    assert status_of(reply) == 200, reply[:100]
    reply = raw(port, head(b"GET", b"/healthz", b"Content-Length: 1048576\r\n") + b"x" * 1048576)
    assert status_of(reply) in (0, 200), reply[:100]


# --- headers --------------------------------------------------------------------

def t_1000_headers(port):
    (reply, secs) = timed(raw, port, head(b"GET", b"/healthz",
                                          b"".join(b"X-Header-%d: value\r\n" % i for i in range(1000))))
    assert status_of(reply) == 431, reply[:100]
    assert secs < 1, secs
    return "431 in %.3f s" % secs


def t_one_1MB_header(port):
    (reply, secs) = timed(raw, port, head(b"GET", b"/healthz", b"X-Big: " + b"a" * (1 << 20) + b"\r\n"))
    assert status_of(reply) == 431, reply[:100]
    assert secs < 2, secs
    return "431 in %.3f s" % secs


def t_30_slow_partial_headers(port):
    """30 connections trickle a header byte by byte; a normal client still
    gets Accepted in time, and the server closes them: at the header
    deadline (HEADER_DEADLINE_S, 5 s), or once they stop, after its idle
    timeout, whichever comes first."""
    socks = []
    for _ in range(30):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"POST " + SUB + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        socks.append(s)
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            for s in socks:
                try:
                    s.send(b"a")
                except OSError:
                    pass
            stop.wait(0.5)
    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    try:
        time.sleep(1)
        worst = max(correct_answer_in(port, 3) for _ in range(3))
        (status, _, _), hsecs = timed(request, port, "GET", "/healthz")
        assert status == 200 and hsecs < 0.5, (status, hsecs)
    finally:
        stop.set()
        t.join()
    # now idle: each must be closed by the server within its idle timeout
    t0 = time.time()
    closed = 0
    for s in socks:
        s.settimeout(IDLE_TIMEOUT_S + 3 - (time.time() - t0) + 0.1)
        try:
            while s.recv(4096):
                pass
            closed += 1
        except ConnectionResetError:
            closed += 1   # closed at the deadline while it still trickled
        except OSError:
            pass
        s.close()
    secs = time.time() - t0
    assert closed == 30, "%d of 30 closed by the server" % closed
    return "normal client Accepted in <= %.2f s; all closed %.1f s after they stopped" % (
        worst, secs)


def t_per_ip_connection_limit(port):
    """One address cannot take every connection: past its limit (64) its
    connections are refused, while another address is still served."""
    socks = []
    for _ in range(70):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.setblocking(False)
        socks.append(s)
    closed = set()

    def poll_closed():
        for k, s in enumerate(socks):
            if k in closed:
                continue
            try:
                if s.recv(1) == b"":
                    closed.add(k)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(k)
    # the server takes them from its backlog one poll at a time
    deadline = time.time() + 5
    while len(closed) < 70 - 64 and time.time() < deadline:
        poll_closed()
        time.sleep(0.05)
    time.sleep(0.3)   # and no more than that
    poll_closed()
    refused = len(closed)
    try:
        reply = raw(port, head(b"GET", b"/healthz"), src="127.0.0.2", timeout=5)
        assert status_of(reply) == 200, reply[:100]
    finally:
        for s in socks:
            s.close()
    # the server notices the closed ones at its next poll
    deadline = time.time() + 5
    while status_of(raw(port, head(b"GET", b"/healthz"), timeout=2)) != 200:
        assert time.time() < deadline, "127.0.0.1 still refused"
        time.sleep(0.05)
    assert refused == 70 - 64, "%d of 70 refused" % refused
    return "6 of 70 refused; 127.0.0.2 served"


# --- methods, paths, framing ------------------------------------------------------

def t_unknown_methods(port):
    for m in (b"FOO", b"PATCH", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PROPFIND", b"M" * 5000):
        reply = raw(port, head(m, b"/api/tasks"))
        assert status_of(reply) == 405, (m[:20], reply[:100])
        assert b"\r\nAllow: GET, HEAD\r\n" in reply
        reply = raw(port, head(m, SUB))
        assert status_of(reply) == 405 and b"\r\nAllow: POST\r\n" in reply, (m[:20], reply[:100])
    reply = raw(port, head(b"CONNECT", b"127.0.0.1:22"))
    assert status_of(reply) in (400, 404), reply[:100]


def t_10000_char_path(port):
    for path, want in ((b"/" + b"a" * 10000, 404), (b"/static/" + b"a" * 10000, 404),
                       (b"/static/" + b"%2e%2e%2f" * 1100, 404),
                       (SUB + b"?" + b"format=text&" * 800, 405),
                       (b"/" + b"a" * 100000, 414)):
        (reply, secs) = timed(raw, port, head(b"GET", path))
        assert status_of(reply) == want, (len(path), reply[:100])
        assert secs < 1, secs


def t_odd_paths(port):
    for path, want in ((b"/healthz%00", 400), (b"/heal\x00thz", 404), (b"/\xff\xfe", 404),
                       (b"*", 404), (b"http://evil.example/healthz", 404), (b"//healthz", 404)):
        reply = raw(port, head(b"GET", path))
        assert status_of(reply) == want, (path, reply[:100])


def t_malformed_requests(port):
    for data, want in ((b"GET /healthz\r\n\r\n", 400), (bytes(range(256)) * 4 + b"\r\n\r\n", 400),
                       (b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", 505),
                       (b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400)):
        reply = raw(port, data, timeout=5)
        assert status_of(reply) == want, (data[:30], reply[:100])
    # blank lines before a request line are allowed: this one waits for a
    # request until the idle timeout, then is closed without an answer
    (reply, secs) = timed(raw, port, b"\r\n\r\n\r\n", timeout=IDLE_TIMEOUT_S + 3)
    assert reply == b"" and secs < IDLE_TIMEOUT_S + 2, (reply[:100], secs)


def t_http10_and_pipelining(port):
    reply = raw(port, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert status_of(reply) == 200, reply[:100]
    two = head(b"GET", b"/healthz", close=False) + head(b"GET", b"/api/tasks")
    reply = raw(port, two)
    assert reply.count(b"HTTP/1.1 200 OK") == 2, reply[:300]


# --- content types and JSON -----------------------------------------------------------

def t_wrong_content_types(port):
    for ctype in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                  "application/octet-stream", "text/html", "", "application/xml"):
        headers = {"Content-Type": ctype} if ctype else {}
        status, _, data = request(port, "POST", SUBMIT, b"return 0.0;", headers)
        assert status == 415, (ctype, status)
        assert strict_json(data)["error"]["code"] == "unsupported_media_type"


def t_malformed_json(port):
    cases = [b'{"source": "return 0.0;"', b"", b"null", b"[]", b'"return 0.0;"',
             b'{"source": 1}', b'{"source": null}', b'{"code": "return 0.0;"}',
             b'{"source": "a", "source": "b"}', b'{"source": "a"} trailing',
             b"[" * 100000, b'{"source": "' + b"\\" * 3 + b'"}', b'{"source": "\\x41"}',
             b'{"source": "\xc3\x28"}', b"\xef\xbb\xbf{\"source\": \"return 0.0;\"}",
             b'{"source": "return 0.0;", "x": 1e99999}']
    for body in cases:
        status, _, data = request(port, "POST", SUBMIT, body, {"Content-Type": "application/json"})
        err = strict_json(data)["error"]
        assert status == 400 and err["code"] == "bad_request", (body[:40], status, err)
    return "%d malformed bodies: 400 each" % len(cases)


def t_json_with_extras_is_graded(port):
    body = json.dumps({"source": sample("correct.glsl").decode(), "extra": [1, {"a": None}]})
    status, _, data = request(port, "POST", SUBMIT, body.encode(),
                              {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200 and strict_json(data)["status"]["id"] == 3, (status, data[:200])


# --- clients that go away -------------------------------------------------------------

def t_client_vanishes_while_graded(port):
    """Clients hang up while their jobs wait or run: a queued job leaves the
    queue, a running one has its worker stopped unless it is about to end,
    /metrics accounts for every one of them, and the server carries on."""
    # within the loop budget, but about 1.5 s of lavapipe per job
    slow = slow_body(1000).encode()
    before = metrics(port)
    for k in range(3):
        body = slow + b"// vanishing %d\n" % k
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(head(b"POST", SUB, b"Content-Type: text/plain\r\nContent-Length: %d\r\n"
                       % len(body), close=False) + body)
        time.sleep(0.1)
        s.close()
    time.sleep(0.3)
    correct_answer_in(port, 8)
    assert wait_idle(port, 30)
    after = metrics(port)

    def delta(prefix):
        return sum(v - before.get(k, 0) for k, v in after.items() if k.startswith(prefix))
    queued = delta('butterfly_jobs_cancelled_total{where="queued"')
    running = delta('butterfly_jobs_cancelled_total{where="running"')
    graded = delta("butterfly_submissions_total") - 1   # the correct answer above
    assert queued + running + graded == 3, (queued, running, graded)
    return "3 abandoned jobs: %d left the queue, %d had their worker stopped, %d ended anyway" % (
        queued, running, graded)


def t_client_vanishes_mid_body(port):
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(head(b"POST", SUB, b"Content-Type: text/plain\r\nContent-Length: 60000\r\n",
                       close=False) + b"x" * 30000)
        s.close()
    correct_answer_in(port, 3)


# --- answers the body would make too large --------------------------------------

# Bodies made for glslang to echo back. Before issue 24 the first made a
# verdict past the worker's frame limit: two worker restarts and an
# Internal Error. Control characters are now refused before the compiler
# (Rejected); printable text is echoed, each message cut (Compilation Error).
ECHO_BODIES = [
    (b"#error " + b"\x1b" * 20000 + b"\n" + (b"\x1b" * 60 + b"\n") * 600 + b"return 0.0;\n",
     100, b"Rejected"),
    ((b"#error " + b'"\\' * 500 + b"\n") * 64 + b"return 0.0;\n", 6, b"Compilation Error"),
]
MAX_ANSWER_BYTES = 256 * 1024   # grader/common/defaults.h


def echo_flood(binary, seconds=5.0, clients=5):
    """Five clients send bodies that glslang would echo, for several seconds,
    while a bystander submits the correct kernel: every one is Rejected or
    a Compilation Error within the answer's bound, as JSON and as a text
    report, and no worker restarts (faults: a planned recycle is counted
    apart). The bystander's latency is logged against idle; a ratio on a
    shared machine is a measurement, not a test: bench/bench_flood.py
    measures it, against an ordinary flood too, in docs/PERFORMANCE.md."""
    # every client its own address, as behind a proxy, so that the fair
    # queue treats the bystander as a student of its own; the default
    # recycling stays: butterfly_worker_restarts_total counts faults alone
    srv = Server(binary, "--workers", "2", "--trusted-proxy", "127.0.0.1")
    correct = sample("correct.glsl")
    sent = [0]

    def post(body, client, query=""):
        return request(srv.port, "POST", SUBMIT + query, body,
                       {"Content-Type": "text/plain", "X-Forwarded-For": client}, 60)
    try:
        def bystander_ms():
            # a new text every time: compiled, not taken from the kernel cache
            sent[0] += 1
            t0 = time.time()
            status, _, data = post(correct + b"// bystander %d\n" % sent[0], "192.0.2.200")
            assert status == 200 and strict_json(data)["status"]["id"] == 3, status
            return (time.time() - t0) * 1000
        idle = sorted(bystander_ms() for _ in range(10))
        before = metrics(srv.port)
        stop = time.time() + seconds
        answers, problems, busy = [], [], []

        def flood(k):
            n = 0
            while time.time() < stop:
                text = n % 4 == 3
                base, want, words = ECHO_BODIES[n % 2]
                body = base + b"// %d %d\n" % (k, n)
                status, _, data = post(body, "192.0.2.%d" % (k + 1),
                                       "?format=text" if text else "")
                n += 1
                answers.append(len(data))
                if status != 200 or len(data) > MAX_ANSWER_BYTES:
                    problems.append((status, len(data), data[:200]))
                elif not text and strict_json(data)["status"]["id"] != want:
                    problems.append((status, strict_json(data)["status"]))
                elif text and b"Verdict: " + words not in data:
                    problems.append((status, data[:200]))
        threads = [threading.Thread(target=flood, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        while time.time() < stop:
            busy.append(bystander_ms())
            time.sleep(0.2)
        for t in threads:
            t.join(120)
        after = metrics(srv.port)
        restarts = after.get("butterfly_worker_restarts_total", 0) - \
            before.get("butterfly_worker_restarts_total", 0)
        assert not problems, problems[:3]
        assert restarts == 0, "%d worker restarts" % restarts
        assert len(answers) >= clients, len(answers)
        p50_idle, p50_busy = idle[len(idle) // 2], sorted(busy)[len(busy) // 2]
        return ("%d echo bodies in %.0f s, each its verdict, largest answer %d bytes, "
                "0 worker restarts; bystander median %.0f ms idle, %.0f ms during (%.1fx)"
                % (len(answers), seconds, max(answers), p50_idle, p50_busy,
                   p50_busy / p50_idle))
    finally:
        srv.stop()


def main():
    binary = sys.argv[1]
    checks = Checks()
    srv = Server(binary, *SERVER_ARGS)
    pid = srv.proc.pid
    print("# server %s%s" % (" ".join(SERVER_ARGS),
                             ", sanitized build" if sanitized(binary) else ""), flush=True)
    try:
        for _ in range(3):
            submit(srv.port, sample("correct.glsl"))
        fds0 = settled_fds(pid, seconds=1)
        for name, fn in [(n, f) for n, f in globals().items() if n.startswith("t_")]:
            checks.run(name[2:], fn, srv.port)

        def survived():
            assert srv.proc.poll() is None, srv.proc.returncode
            assert wait_idle(srv.port, 30)
            correct_answer_in(srv.port, 3)
            fds1 = settled_fds(pid, at_most=fds0, seconds=IDLE_TIMEOUT_S + 3)
            assert fds1 <= fds0, "%d fds, %d before" % (fds1, fds0)
            return "up, healthy, fds %d -> %d" % (fds0, fds1)
        checks.run("server up, healthy, no fd left behind", survived)
    finally:
        rc = srv.stop()
    checks.run("graceful exit", lambda: (rc == 0) or (_ for _ in ()).throw(AssertionError(rc)))
    checks.run("echo flood", echo_flood, binary)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

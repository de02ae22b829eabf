"""Helpers shared by the hostile-input, abuse, overload and soak runners.

The server under test is the real butterfly-server, started on a free
loopback port by tests/http/serverproc.py.
"""
import http.client
import json
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
from serverproc import Server  # noqa: E402,F401 - re-exported

SUBMIT = "/api/tasks/butterfly/submissions"
SAMPLES = os.path.join(HERE, "..", "samples")


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def percentile(xs, p):
    """The p-th percentile of xs by nearest rank; NaN for no values."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def slow_body(ms, tag=None):
    """A correct kernel body that keeps its worker busy for `ms` ms before
    it runs, on every machine: the test builds' hook (grader/worker/
    test_fault.h, BUTTERFLY_TEST_SLOW_BODIES, which serverproc.Server sets)
    sleeps that long, then grades it (Accepted). A real kernel slow on
    lavapipe would be refused by its cost (issue 29), and was fast on a
    GPU. `tag` (a comment) makes it distinct."""
    return (open(os.path.join(HERE, "..", "samples", "correct.glsl")).read() +
            "\n// butterfly-test-sleep-ms %d\n" % ms +
            ("// %s\n" % tag if tag is not None else ""))


def sanitized(binary):
    """True for a build with AddressSanitizer (CI runs every suite twice).

    Under it a stack overflow is an ASan report and abort() (SIGABRT, not
    SIGSEGV), workers have no address-space cap, and everything is slower.
    """
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def strict_json(data):
    """Parses JSON the way a strict client would: no NaN or Infinity."""
    def bad_constant(name):
        raise ValueError("non-standard JSON constant " + name)
    return json.loads(data.decode("utf-8"), parse_constant=bad_constant)


def request(port, method, path, body=None, headers=None, timeout=60):
    """One request on a fresh connection: (status, headers dict, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    finally:
        conn.close()


def submit(port, body, ctype="text/plain", query="", timeout=60):
    if isinstance(body, str):
        body = body.encode()
    return request(port, "POST", SUBMIT + query, body, {"Content-Type": ctype}, timeout)


def read_response(sock):
    """Reads one HTTP response with a Content-Length: (status, headers, body)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a response: %r" % buf[:100])
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    if status == 100:   # 100 Continue: the real answer follows
        return status, headers, rest
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:n]


def post_expect(port, path, ctype, payload, timeout=60):
    """POSTs with Expect: 100-continue, as curl does for big bodies: the body
    goes only after the server's 100 Continue, so a refusal from the
    headers (413) is read cleanly instead of lost to a reset connection."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\n"
                   "Content-Length: %d\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
                   % (path, ctype, len(payload))).encode())
        status, headers, rest = read_response(s)
        if status != 100:
            return status, headers, rest
        s.sendall(payload)
        return read_response(s)
    finally:
        s.close()


def raw(port, data, timeout=10, until_headers=False, src=None):
    """Sends raw bytes on a new connection; returns everything read back
    (or only up to the end of the headers)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if src:
        s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    out = b""
    try:
        try:
            s.sendall(data)
        except OSError:
            pass   # the server may answer and close before it read everything
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
            if until_headers and b"\r\n\r\n" in out:
                break
    except OSError:
        pass
    finally:
        s.close()
    return out


def status_of(reply):
    if not reply.startswith(b"HTTP/1."):
        return 0
    return int(reply.split(b" ", 2)[1])


def body_of(reply):
    return reply.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in reply else b""


def parse_metrics(text):
    """{name or name{labels}: value} of a Prometheus exposition text."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def metrics(port):
    """The /metrics counters as {name-with-labels: value}."""
    _, _, data = request(port, "GET", "/metrics", timeout=10)
    return parse_metrics(data.decode())


def about(port):
    return json.loads(request(port, "GET", "/api/about", timeout=10)[2])


def wait_idle(port, timeout=60):
    """Until no job is queued or running and every worker is warm."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        a = about(port)
        if (a["queue"]["length"] == 0 and a["workers"]["busy"] == 0
                and a["workers"]["ready"] == a["workers"]["configured"]):
            return True
        time.sleep(0.1)
    return False


def proc_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def children(pid):
    """The processes pid started, from any of its threads (the pool's
    supervisor thread starts the workers)."""
    out = []
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                out += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            pass   # a thread that ended meanwhile
    return out


def proc_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def settled_fds(pid, at_most=None, seconds=5.0):
    """The fewest open fds seen while sampling for up to `seconds` (sooner
    once at or below `at_most`): a connection that is closing, or a worker
    socket being reaped, holds an fd for a moment; a leak holds it forever."""
    best = proc_fds(pid)
    end = time.time() + seconds
    while time.time() < end and (at_most is None or best > at_most):
        time.sleep(0.05)
        best = min(best, proc_fds(pid))
    return best


def proc_threads(pid):
    return len(os.listdir("/proc/%d/task" % pid))


class Checks:
    """Counts checks, prints one line each, ends with 'N passed, M failed'."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, fn, *args):
        import traceback
        t0 = time.time()
        try:
            note = fn(*args)
            self.passed += 1
            print("ok   %-44s %6.2fs %s" % (name, time.time() - t0, note or ""), flush=True)
            return True
        except Exception:  # noqa: BLE001 - every failure is reported
            self.failed += 1
            print("FAIL %-44s %6.2fs" % (name, time.time() - t0), flush=True)
            traceback.print_exc()
            sys.stdout.flush()
            return False

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed), flush=True)
        return 1 if self.failed else 0

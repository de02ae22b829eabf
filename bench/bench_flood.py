#!/usr/bin/env python3
"""bench_flood: a bystander's latency during an echo flood (issue 24).

usage: bench_flood.py SERVER_BINARY [--rounds 3] [--seconds 4] [--clients 5]
                      [--flood-nice N] [--workers N]

Starts the real server with its default workers (or --workers), trusting
127.0.0.1 as a proxy so that every client is its own student through
X-Forwarded-For. Then, in interleaved phases (idle, echo flood, ordinary
flood, idle, ...), a bystander posts the correct kernel every 50 ms,
alternately with a new comment (its kernel comes from the worker's cache:
the short job that interference shows most) and with a new constant (a
new kernel, compiled by lavapipe: a student's usual submission).

- the echo flood: --clients processes post, each as fast as it is
  answered, the bodies made for glslang to echo: #error with 20,000 ESC
  bytes and 600 lines of them, and 64 lines of #error with 1,000 quotes
  and backslashes; a quarter as text reports. Every answer must be 200,
  Rejected or Compilation Error, and at most MAX_ANSWER_BYTES.
- the ordinary flood, the reference: as many clients posting distinct
  correct kernels the same way (a class at its deadline).

Prints, per kind of bystander submission, p50 and p90 idle and during each
flood (phases pooled) and the ratios of the medians (target for the echo
flood: at most 2), and the worker restarts (butterfly_worker_restarts_total,
faults; target 0) and recycles the floods cost.

--flood-nice N runs the flooding processes at nice N. On one 2-core
machine the load generator's own CPU is taken from the server; a flood's
clients are elsewhere in a deployment.
"""
import argparse
import http.client
import json
import multiprocessing as mp
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "http"))
from serverproc import Server  # noqa: E402

SUBMIT = "/api/tasks/butterfly/submissions"
MAX_ANSWER_BYTES = 256 * 1024   # grader/common/defaults.h
ESC_BODY = (b"#error " + b"\x1b" * 20000 + b"\n" + (b"\x1b" * 60 + b"\n") * 600
            + b"return 0.0;\n")
QUOTES_BODY = (b"#error " + b'"\\' * 500 + b"\n") * 64 + b"return 0.0;\n"
REJECTED, COMPILATION_ERROR, ACCEPTED = 100, 6, 3
PERIOD_S = 0.05
PHASES = ("idle", "echo", "ordinary")
CORRECT = os.path.join(HERE, "..", "tests", "samples", "correct.glsl")
with open(CORRECT, "rb") as _f:
    CORRECT_BODY = _f.read()


def post(conn, body, client, query=""):
    conn.request("POST", SUBMIT + query, body,
                 {"Content-Type": "text/plain", "X-Forwarded-For": client})
    r = conn.getresponse()
    return r.status, r.read()


def flooder(port, k, nice, stop_at, kind, out):
    """One flooding client: keep-alive, each request built once, answers
    checked by their status bytes, so that the load generator's own CPU,
    taken from the server on one machine, stays small."""
    if nice:
        os.nice(nice)
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    rd = sock.makefile("rb")
    sent, problems = 0, 0
    while time.time() < stop_at:
        if kind == "echo":
            body, want = ((ESC_BODY, REJECTED) if sent % 2 == 0
                          else (QUOTES_BODY, COMPILATION_ERROR))
            body += b"// %d %d\n" % (k, sent)
        else:
            body = b"float unused = %d.0;\n" % (k * 1000000 + sent) + CORRECT_BODY
            want = ACCEPTED
        text = kind == "echo" and sent % 4 == 3
        sock.sendall(b"POST %s%s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                     b"X-Forwarded-For: 192.0.2.%d\r\nContent-Length: %d\r\n\r\n%s" % (
                         SUBMIT.encode(), b"?format=text" if text else b"", k + 1, len(body),
                         body))
        status = int(rd.readline().split()[1])
        length = 0
        while True:
            line = rd.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        data = rd.read(length)
        sent += 1
        if status != 200 or len(data) > MAX_ANSWER_BYTES:
            problems += 1
        elif text:
            problems += b"Verdict: " not in data
        else:
            problems += b'"status":{"id":%d,' % want not in data[:120]
    sock.close()
    out.put((sent, problems))


class Bystander:
    """Posts the correct kernel, alternately from the cache and new."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.body = CORRECT_BODY
        self.n = 0

    def once(self):
        self.n += 1
        new = self.n % 2 == 0
        # a constant the kernel computes and never uses still makes it a new
        # kernel; a comment does not (glslang drops it)
        tail = (b"float unused_%d = %d.0;\n" % (self.n, self.n)) if new else (b"// %d\n" % self.n)
        body = tail + self.body
        t0 = time.perf_counter()
        status, data = post(self.conn, body, "192.0.2.200")
        ms = (time.perf_counter() - t0) * 1000
        assert status == 200 and json.loads(data)["status"]["id"] == ACCEPTED, (status, data[:300])
        return ("new" if new else "cached"), ms

    def phase(self, seconds, into):
        end = time.time() + seconds
        while time.time() < end:
            kind, ms = self.once()
            into[kind].append(ms)
            time.sleep(PERIOD_S)


def metrics(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/metrics")
    out = {}
    for line in conn.getresponse().read().decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--clients", type=int, default=5)
    ap.add_argument("--flood-nice", type=int, default=0)
    ap.add_argument("--workers", type=int)
    a = ap.parse_args()
    args = ["--trusted-proxy", "127.0.0.1"] + (["--workers", str(a.workers)] if a.workers else [])
    srv = Server(a.server, *args)
    try:
        by = Bystander(srv.port)
        for _ in range(10):
            by.once()   # warm: both kinds compiled once, the cache filled
        lat = {phase: {"cached": [], "new": []} for phase in PHASES}
        sent = {"echo": 0, "ordinary": 0}
        problems = 0
        secs = {"echo": 0.0, "ordinary": 0.0}
        m0 = metrics(srv.port)
        for _ in range(a.rounds):
            by.phase(a.seconds * 0.75, lat["idle"])
            for kind in ("echo", "ordinary"):
                stop_at = time.time() + a.seconds
                q = mp.Queue()
                procs = [mp.Process(target=flooder,
                                    args=(srv.port, k, a.flood_nice, stop_at, kind, q))
                         for k in range(a.clients)]
                t0 = time.time()
                for p in procs:
                    p.start()
                time.sleep(0.3)   # every flooder sending
                by.phase(stop_at - time.time(), lat[kind])
                for _ in procs:
                    n, bad = q.get(timeout=120)
                    sent[kind] += n
                    problems += bad
                for p in procs:
                    p.join(60)
                secs[kind] += time.time() - t0
            by.phase(0.5, lat["idle"])   # the ordinary flood's last jobs end
        m1 = metrics(srv.port)
    finally:
        srv.stop()

    def delta(name):
        return int(m1.get(name, 0) - m0.get(name, 0))
    workers = a.workers or "default"
    print("bench_flood: %d rounds of %.1f s idle, %.1f s of echo flood, %.1f s of ordinary "
          "flood; %d clients (nice %d), workers %s" % (
              a.rounds, a.seconds * 0.75, a.seconds, a.seconds, a.clients, a.flood_nice, workers))
    print("echo flood: %d bodies (%.0f/s); ordinary flood: %d kernels (%.0f/s); %d wrong answers"
          % (sent["echo"], sent["echo"] / secs["echo"], sent["ordinary"],
             sent["ordinary"] / secs["ordinary"], problems))
    print("worker restarts (faults): %d, recycles %d (all phases)" % (
        delta("butterfly_worker_restarts_total"), delta("butterfly_worker_recycles_total")))
    print("%-9s %-9s %9s %9s %8s" % ("bystander", "phase", "p50", "p90", "/ idle"))
    ratios = {}
    for kind in ("cached", "new"):
        idle50 = pct(lat["idle"][kind], 0.5)
        for phase in PHASES:
            xs = lat[phase][kind]
            ratios[(kind, phase)] = pct(xs, 0.5) / idle50
            print("%-9s %-9s %6.1f ms %6.1f ms %7.2fx  (n=%d)" % (
                kind, phase, pct(xs, 0.5), pct(xs, 0.9), ratios[(kind, phase)], len(xs)))
    met = all(ratios[(kind, "echo")] <= 2.0 for kind in ("cached", "new"))
    faults = delta("butterfly_worker_restarts_total")
    print("target: bystander median during the echo flood at most 2x idle: %s; "
          "0 worker restarts: %s" % ("met" if met else "NOT met",
                                     "met" if faults == 0 else "NOT met"))
    return 0 if problems == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

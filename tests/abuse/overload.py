#!/usr/bin/env python3
"""Overload: 200 concurrent submissions into a queue of 32.

usage: overload.py SERVER_BINARY [--rounds N]

All 200 connections are opened first and their requests sent at once.
Every answer must be either the right verdict for its body (200) or a 503
"queue_full" with a Retry-After of at least a second; nothing else, and no
connection may fail. The counters must agree with the clients (/metrics:
refusals = 503s, graded = 200s). The refused clients then retry after
their Retry-After until every one of the 200 is graded. Afterwards the
server's resident memory, open fds and threads (from /proc/PID) must be
back at their baseline: fds and threads exactly, memory within
RSS_TOLERANCE_KIB, and a second round must not grow it further.
Prints one line per check and ends with "N passed, M failed".
"""
import argparse
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
from common import (  # noqa: E402
                    SUBMIT, Checks, Server, metrics, proc_rss_kib, proc_threads, read_response,
                    sample, sanitized, settled_fds, strict_json, submit, wait_idle)

CLIENTS = 200
QUEUE = 32
WORKERS = 2
SERVER_ARGS = ["--workers", str(WORKERS), "--queue", str(QUEUE), "--deadline-ms", "2000",
               "--per-client-queue", "0", "--max-wait-ms", "0",
               "--per-ip-connections", "400", "--max-connections", "512"]
# glibc keeps some freed memory in its arenas after a burst of 200
# connections; a leak would grow with every round instead
RSS_TOLERANCE_KIB = 8 * 1024
RSS_ROUND_GROWTH_KIB = 2 * 1024

# A correct kernel that also burns a little device time (5,000 sin() per
# thread), so that the queue fills while the 200 requests arrive.
SLOW_CORRECT = sample("correct.glsl").replace(
    b"int i = this.thread.x;",
    b"float burn = 0.0;\nfor (int k = 0; k < 5000; k++) burn += sin(float(k)) * 1e-30;\n"
    b"int i = this.thread.x + int(burn * 0.0);", 1)
BODIES = [(SLOW_CORRECT, 3), (sample("correct.glsl"), 3), (sample("wrong_twiddle_sign.glsl"), 4),
          (sample("compile_error_line3.glsl"), 6), (sample("rejected_version.glsl"), 100)]


def one_client(port, k, barrier, out):
    body, want = BODIES[k % len(BODIES)]
    body = body + b"// client %d\n" % k
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=120)
        req = (b"POST " + SUBMIT.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               b"Content-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
               % len(body)) + body
        barrier.wait(30)
        t0 = time.time()
        s.sendall(req)
        status, headers, data = read_response(s)
        s.close()
        out[k] = {"status": status, "retry_after": headers.get("retry-after"),
                  "seconds": time.time() - t0, "want": want, "body": body,
                  "json": strict_json(data)}
    except Exception as ex:  # noqa: BLE001 - a failed client is a failure
        out[k] = {"error": repr(ex)}


def burst(port):
    out = [None] * CLIENTS
    barrier = threading.Barrier(CLIENTS)
    threads = [threading.Thread(target=one_client, args=(port, k, barrier, out))
               for k in range(CLIENTS)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    return out, time.time() - t0


def check_burst(port, out, m0):
    errors = [o for o in out if o is None or "error" in o]
    assert not errors, "%d clients failed: %r" % (len(errors), errors[:3])
    graded = [o for o in out if o["status"] == 200]
    refused = [o for o in out if o["status"] == 503]
    other = [o for o in out if o["status"] not in (200, 503)]
    assert not other, [(o["status"], o["json"]) for o in other[:3]]
    for o in graded:
        assert o["json"]["status"]["id"] == o["want"], (o["json"]["status"], o["want"])
    for o in refused:
        assert o["json"]["error"]["code"] == "queue_full", o["json"]
        assert o["retry_after"] and int(o["retry_after"]) >= 1, o["retry_after"]
    assert len(graded) >= WORKERS + QUEUE, "only %d graded" % len(graded)
    assert refused, "nothing was refused: the queue never filled"
    m1 = metrics(port)
    d_ref = m1["butterfly_queue_refusals_total"] - m0["butterfly_queue_refusals_total"]
    d_sub = sum(v for k, v in m1.items() if k.startswith("butterfly_submissions_total")) \
        - sum(v for k, v in m0.items() if k.startswith("butterfly_submissions_total"))
    assert d_ref == len(refused), "metrics: %d refusals, clients saw %d" % (d_ref, len(refused))
    assert d_sub == len(graded), "metrics: %d graded, clients saw %d" % (d_sub, len(graded))
    retry = sorted(int(o["retry_after"]) for o in refused)
    return graded, refused, retry


def retry_refused(port, refused):
    """Each refused client waits its Retry-After and tries again, until graded."""
    results = []

    def client(o):
        body, want = o["body"], o["want"]
        wait = int(o["retry_after"])
        for _ in range(60):
            time.sleep(wait)
            status, headers, data = submit(port, body, timeout=120)
            if status == 503:
                wait = int(headers["retry-after"])
                continue
            results.append((status, strict_json(data)["status"]["id"], want))
            return
        results.append(("gave up", None, want))
    threads = [threading.Thread(target=client, args=(o,)) for o in refused]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    checks = Checks()
    srv = Server(args.server, *SERVER_ARGS)
    pid = srv.proc.pid
    is_asan = sanitized(args.server)
    print("# server %s%s" % (" ".join(SERVER_ARGS), ", sanitized build" if is_asan else ""),
          flush=True)
    rss_rounds = []
    try:
        # warm: the baseline is a server that has already graded
        for k in range(20):
            submit(srv.port, BODIES[k % len(BODIES)][0])
        wait_idle(srv.port)
        time.sleep(0.5)
        base = {"rss": proc_rss_kib(pid), "fds": settled_fds(pid, seconds=1),
                "threads": proc_threads(pid)}
        print("# baseline: RSS %d KiB, %d fds, %d threads" % (base["rss"], base["fds"],
                                                              base["threads"]), flush=True)
        for rnd in range(1, args.rounds + 1):
            m0 = metrics(srv.port)
            state = {}

            def do_burst():
                out, secs = burst(srv.port)
                graded, refused, retry = check_burst(srv.port, out, m0)
                state["refused"] = refused
                slowest = max(o["seconds"] for o in graded)
                return ("%d graded, %d refused (Retry-After %d..%d s), slowest verdict %.2f s, "
                        "all in %.1f s" % (len(graded), len(refused), retry[0], retry[-1],
                                           slowest, secs))
            if not checks.run("round %d: %d at once into a queue of %d" % (rnd, CLIENTS, QUEUE),
                              do_burst):
                break

            def do_retry():
                t0 = time.time()
                res = retry_refused(srv.port, state["refused"])
                bad = [r for r in res if r[0] != 200 or r[1] != r[2]]
                assert len(res) == len(state["refused"]) and not bad, bad[:5]
                return "%d refused clients graded on retry in %.1f s" % (len(res), time.time() - t0)
            checks.run("round %d: refused ones retry until graded" % rnd, do_retry)

            def back_to_baseline():
                assert srv.proc.poll() is None, "the server exited"
                assert wait_idle(srv.port, 60)
                fds = settled_fds(pid, at_most=base["fds"], seconds=10)
                time.sleep(0.5)
                rss, threads = proc_rss_kib(pid), proc_threads(pid)
                rss_rounds.append(rss)
                assert fds <= base["fds"], "%d fds, baseline %d" % (fds, base["fds"])
                assert threads == base["threads"], "%d threads, baseline %d" % (threads,
                                                                                base["threads"])
                if is_asan:
                    # AddressSanitizer keeps freed memory in quarantine (up
                    # to 256 MiB): resident memory says nothing there
                    return "RSS %d KiB (baseline %d; not checked under ASan), %d fds, " \
                        "%d threads" % (rss, base["rss"], fds, threads)
                assert rss <= base["rss"] + RSS_TOLERANCE_KIB, \
                    "RSS %d KiB, baseline %d + %d" % (rss, base["rss"], RSS_TOLERANCE_KIB)
                if len(rss_rounds) > 1:
                    assert rss <= rss_rounds[0] + RSS_ROUND_GROWTH_KIB, \
                        "RSS grew from %d to %d KiB over rounds" % (rss_rounds[0], rss)
                return "RSS %d KiB (baseline %d, +%d), %d fds, %d threads" % (
                    rss, base["rss"], rss - base["rss"], fds, threads)
            checks.run("round %d: RSS, fds, threads back at baseline" % rnd, back_to_baseline)
    finally:
        rc = srv.stop()
    checks.run("graceful exit", lambda: (rc == 0) or (_ for _ in ()).throw(AssertionError(rc)))
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

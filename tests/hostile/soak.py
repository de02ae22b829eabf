#!/usr/bin/env python3
"""Soak: thousands of submissions, good and bad mixed, through one server.

usage: soak.py SERVER_BINARY [--submissions 5000] [--clients 8] [--workers 2]
               [--deadline-ms 2000] [--recycle-after 100] [--seed 1] [--json FILE]

Not run in CI (it takes minutes); docs/RELIABILITY.md has the latest figures.

Every distinct body is graded once first (the calibration); then the
clients send the mix in a seeded random order, each answer checked against
its body's calibrated answer. A 503 (queue full) is retried after its
Retry-After. At the end: zero lost (every submission answered, and
answered right), zero server crashes (the same process throughout),
worker restarts counted from /metrics and checked against the crashes and
time limits the answers report, and the server's memory and fds.
"""
import argparse
import glob
import json
import os
import random
import sys
import threading
import time

from common import (HERE, SAMPLES, SUBMIT, Server, metrics, post_expect, proc_rss_kib,
                    sanitized, settled_fds, strict_json, submit, wait_idle)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def the_mix():
    """(name, body, how, weight, unique): how is text, json, json_raw or
    report (?format=text); a unique body gets a comment of its own each time,
    so that no two submissions are the same text."""
    mix = []
    for f in sorted(glob.glob(os.path.join(SAMPLES, "*.glsl"))):
        name = os.path.basename(f)[:-5]
        weight = 12 if name.startswith("correct") else 4
        mix.append((name, read(f), "text", weight, True))
    for f in sorted(glob.glob(os.path.join(SAMPLES, "mistakes", "*.glsl"))):
        mix.append(("mistake/" + os.path.basename(f)[:-5], read(f), "text", 2, True))
    mix.append(("correct as JSON", read(os.path.join(SAMPLES, "correct.glsl")), "json", 8, True))
    mix.append(("wrong, text report", read(os.path.join(SAMPLES, "wrong_twiddle_sign.glsl")),
                "report", 4, True))
    hostile = os.path.join(HERE, "bodies")
    for name, weight in (("close_shared_array", 2), ("include_hostname", 2),
                         ("cr_before_extension", 2), ("error_html", 2),
                         ("invalid_utf8_latin1", 2), ("nul_byte", 1), ("unterminated_if", 1),
                         ("local_array_2g", 1), ("endless_loop_plain", 1),
                         ("close_recursion", 1), ("unrolled_10000", 1)):
        mix.append((name, read(os.path.join(hostile, name + ".glsl")), "text", weight, False))
    # the ones that cost a worker: a compiler crash, runaway kernels
    expr = ("float a = spectrum[0][this.thread.x];\nreturn " + "+".join(["a"] * 12000)
            + ";\n").encode()
    mix.append(("expression_12000_terms (compiler crash)", expr, "text", 1, False))
    mix.append(("endless_loop_heavy (time limit)",
                read(os.path.join(hostile, "endless_loop_heavy.glsl")), "text", 1, False))
    mix.append(("64 KiB + 1 (413)", b"return 0.0;\n" + b" " * 65525, "text", 1, False))
    mix.append(("empty", b"", "text", 1, False))
    mix.append(("malformed JSON", b'{"source": ', "json_raw", 1, False))
    return mix


def send(port, body, how):
    """One submission: (status, answer) where answer is the verdict id, the
    report's first line, or the error code."""
    if how == "json":
        status, headers, data = submit(port, json.dumps({"source": body.decode()}),
                                       "application/json", timeout=120)
    elif how == "json_raw":
        status, headers, data = submit(port, body, "application/json", timeout=120)
    elif how == "report":
        status, headers, data = submit(port, body, query="?format=text", timeout=120)
    elif len(body) > 65536:
        status, headers, data = post_expect(port, SUBMIT, "text/plain", body, 120)
    else:
        status, headers, data = submit(port, body, timeout=120)
    if status == 503:
        return status, int(headers["retry-after"]), None
    if how == "report" and status == 200:
        return status, data.decode().split("\n", 1)[0], None
    j = strict_json(data)
    if "error" in j:
        return status, j["error"]["code"], None
    return status, j["status"]["id"], j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--submissions", type=int, default=5000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--deadline-ms", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--recycle-after", type=int, default=100,
                    help="jobs per worker before it is replaced (the server's default is 1000; "
                         "lower, so that recycling happens during the soak too)")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()

    mix = the_mix()
    server_args = ["--workers", str(args.workers), "--deadline-ms", str(args.deadline_ms),
                   "--queue", "32", "--recycle-after", str(args.recycle_after)]
    srv = Server(args.server, *server_args)
    pid = srv.proc.pid
    lost, wrong, crashed = [], [], False
    latencies, retries_503 = [], [0]
    try:
        # calibration: every distinct body once, alone
        expected = {}
        for name, body, how, _, _ in mix:
            status, answer, _ = send(srv.port, body, how)
            expected[name] = (status, answer)
            print("# calibrated %-42s HTTP %d %s" % (name, status, answer), flush=True)
        wait_idle(srv.port)
        m0 = metrics(srv.port)
        rss0, fds0 = proc_rss_kib(pid), settled_fds(pid, seconds=1)

        rnd = random.Random(args.seed)
        names = [m[0] for m in mix]
        weights = [m[3] for m in mix]
        by_name = {m[0]: m for m in mix}
        plan = rnd.choices(names, weights=weights, k=args.submissions)
        lock = threading.Lock()
        next_job = [0]
        done = [0]
        tally = {}

        def client():
            while True:
                with lock:
                    k = next_job[0]
                    if k >= len(plan):
                        return
                    next_job[0] += 1
                name = plan[k]
                _, body, how, _, unique = by_name[name]
                if unique:
                    body = body + b"// soak %d\n" % k
                t0 = time.time()
                try:
                    for _ in range(100):
                        status, answer, _ = send(srv.port, body, how)
                        if status != 503:
                            break
                        with lock:
                            retries_503[0] += 1
                        time.sleep(answer)
                    got = (status, answer)
                    with lock:
                        latencies.append(time.time() - t0)
                        tally[got] = tally.get(got, 0) + 1
                        if got != expected[name]:
                            wrong.append((k, name, got, expected[name]))
                        done[0] += 1
                except Exception as ex:  # noqa: BLE001 - a lost submission
                    with lock:
                        lost.append((k, name, repr(ex)))

        t_start = time.time()
        threads = [threading.Thread(target=client) for _ in range(args.clients)]
        for t in threads:
            t.start()
        last = 0
        while any(t.is_alive() for t in threads):
            time.sleep(1)
            if srv.proc.poll() is not None:
                crashed = True
                break
            if time.time() - last > 15:
                last = time.time()
                print("# %5d/%d answered, %d lost, %d wrong, %.0f s" % (
                    done[0], args.submissions, len(lost), len(wrong), time.time() - t_start),
                    flush=True)
        for t in threads:
            t.join()
        secs = time.time() - t_start
        crashed = crashed or srv.proc.poll() is not None
        wait_idle(srv.port)
        m1 = metrics(srv.port)
        rss1, fds1 = proc_rss_kib(pid), settled_fds(pid, at_most=fds0, seconds=10)
        restarts = m1["butterfly_worker_restarts_total"] - m0["butterfly_worker_restarts_total"]
        recycles = m1["butterfly_worker_recycles_total"] - m0["butterfly_worker_recycles_total"]
        killing = sum(n for (st, ans), n in tally.items() if st == 200 and ans in
                      (5, 7, 8, 9, 10, 11, 12))
        latencies.sort()
        pct = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))]  # noqa: E731
        fig = {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "server": " ".join(server_args), "sanitized": sanitized(args.server),
            "submissions": args.submissions, "clients": args.clients,
            "answered": done[0], "lost": len(lost), "wrong": len(wrong),
            "server_crashes": int(crashed), "seconds": round(secs, 1),
            "per_second": round(done[0] / secs, 1),
            "latency_s": {"p50": round(pct(0.5), 3), "p99": round(pct(0.99), 3),
                          "max": round(latencies[-1], 3)},
            "worker_restarts": int(restarts), "jobs_that_cost_a_worker": killing,
            "worker_recycles": int(recycles), "queue_full_retries": retries_503[0],
            "server_rss_kib": [rss0, rss1], "server_fds": [fds0, fds1],
            "answers": {"%s %s" % k: v for k, v in sorted(tally.items(), key=str)},
        }
    finally:
        rc = srv.stop()
    fig["exit_status"] = rc
    print(json.dumps(fig, indent=1))
    for w in wrong[:10]:
        print("WRONG", w)
    for x in lost[:10]:
        print("LOST", x)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(fig, f, indent=1)
    ok = (not lost and not wrong and not crashed and rc == 0 and done[0] == args.submissions
          and restarts == killing and fds1 <= fds0)
    print("soak %s: %d submissions, %d answered, %d lost, %d wrong, %d server crashes, "
          "%d worker restarts (%d jobs that cost a worker), %d recycles, %.0f s" % (
              "PASSED" if ok else "FAILED", args.submissions, done[0], len(lost), len(wrong),
              int(crashed), restarts, killing, recycles, secs))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

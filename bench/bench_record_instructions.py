#!/usr/bin/env python3
"""bench_record_instructions: the instructions the server runs per record
over HTTP, counted by valgrind's callgrind (issue 30's records check).

usage: bench_record_instructions.py SERVER_BINARY [--before OLD_BINARY]
                                    [--clients N] [--requests N] [--functions K]

A rate or a CPU time on a shared machine moves by more than the 2% a
change must be held to; the count of instructions the server's own
threads run does not depend on the neighbours. Each server runs under
callgrind (its workers, started by exec, run natively and are not
counted), with a SQLite store of its own, and answers identical kernels
(the verdict cache hits: what is left is the record's insert and the HTTP
path, where the store's share is largest) from N clients (default 1: one
record a transaction; 32: the writer's batches, as bench_records.py).
Two runs per server, of 300 and 300 + N requests (default 1,000): the
difference over N is the cost of one request, the start and the stop
left out. The user-space count only: the kernel's share (the writes, the
sockets) is not in it. With --before, an older build's server the same
way, and the ratio. With --functions, where the instructions went: each
function's inclusive count per request (callgrind_annotate, the same two
runs' difference), the K that moved most against --before (or the K
largest without it): what a ratio is made of.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "http"))
from serverproc import Server, no_guest_budget  # noqa: E402
sys.path.insert(0, HERE)
import bench_records  # noqa: E402  (the same request and body as bench_records)

BASE = 300


def instructions(binary, nreq, clients, folder):
    """Instructions (callgrind's Ir) the server ran, started, warmed,
    answering nreq identical submissions from clients at once, stopped;
    the profile stays in folder/callgrind.out."""
    out = os.path.join(folder, "callgrind.out")
    db = os.path.join(folder, "store.sqlite")
    srv = Server(binary, "--workers", "2", "--trusted-proxy", "127.0.0.1",
                 "--max-wait-ms", "0", "--queue", "2048", "--max-connections", "1024",
                 "--per-ip-connections", "0", "--database", "sqlite:" + db,
                 *no_guest_budget(binary),
                 wrapper=("valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=" + out))
    try:
        for k in (250, 251):   # both workers compile once, outside the count's difference
            bench_records.post(srv.port, bench_records.body(False), "10.0.0.%d" % k)
        left = [nreq]
        lock = threading.Lock()
        bad = []

        def student(k):
            while True:
                with lock:
                    if left[0] <= 0:
                        return
                    left[0] -= 1
                st, _ = bench_records.post(srv.port, bench_records.body(False), "10.0.0.%d" % k)
                if st != 200:
                    bad.append(st)

        threads = [threading.Thread(target=student, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not bad, "answers not 200: %s" % bad[:5]
    finally:
        srv.stop()
    with open(out) as f:
        for line in f:
            m = re.match(r"(?:summary|totals): (\d+)", line)
            if m:
                return int(m.group(1))
    raise RuntimeError("no total in " + out)


def inclusive(profile):
    """{function: inclusive Ir} of a callgrind profile. A function that
    callgrind found called inside itself is listed again as NAME'2 (and
    on), and one can be listed under more than one file (the lines it
    took from a header, or the binary named by a relative path): each
    such entry's cost is within the largest one's, so the largest is
    taken and nothing is counted twice."""
    out = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100",
                          "--inclusive=yes", profile],
                         capture_output=True, text=True, check=True).stdout
    funcs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?\S*?:(\S+)", line)
        if m:
            name = re.sub(r"'\d+$", "", m.group(2))
            funcs[name] = max(funcs.get(name, 0), int(m.group(1).replace(",", "")))
    return funcs


def per_request(binary, clients, requests, functions=False):
    """Instructions per request, and with functions each function's."""
    counts, profiles = [], []
    for n in (BASE, BASE + requests):
        with tempfile.TemporaryDirectory() as d:
            counts.append(instructions(binary, n, clients, d))
            if functions:
                profiles.append(inclusive(os.path.join(d, "callgrind.out")))
    each = {}
    if functions:
        a, b = profiles
        each = {k: (b.get(k, 0) - a.get(k, 0)) / requests for k in set(a) | set(b)}
    return (counts[1] - counts[0]) / requests, each


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    binary = args.pop(0)
    before, clients, requests, functions = None, 1, 1000, 0
    while args:
        a = args.pop(0)
        if a == "--before":
            before = args.pop(0)
        elif a == "--clients":
            clients = int(args.pop(0))
        elif a == "--requests":
            requests = int(args.pop(0))
        elif a == "--functions":
            functions = int(args.pop(0))
        else:
            sys.exit("unknown option " + a)
    if not shutil.which("valgrind"):
        print("valgrind is not installed")
        sys.exit(77)
    now, now_f = per_request(binary, clients, requests, functions > 0)
    print("instructions per record over HTTP (SQLite, identical kernels, %d client%s): %.0f" % (
        clients, "" if clients == 1 else "s", now))
    then_f = {}
    if before:
        then, then_f = per_request(before, clients, requests, functions > 0)
        print("  before: %.0f; ratio %.3f" % (then, now / then))
    if functions:
        names = sorted(set(now_f) | set(then_f),
                       key=lambda k: -abs(now_f.get(k, 0) - then_f.get(k, 0)) if before
                       else -now_f.get(k, 0))
        print("%10s %10s %8s  function (inclusive, per request)" % ("now", "before", "change"))
        for k in names[:functions]:
            print("%10.0f %10.0f %+8.0f  %s" % (now_f.get(k, 0), then_f.get(k, 0),
                                                 now_f.get(k, 0) - then_f.get(k, 0), k))


if __name__ == "__main__":
    main()

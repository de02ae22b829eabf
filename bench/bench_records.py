#!/usr/bin/env python3
"""bench_records: what keeping records costs over HTTP (issue 20, item 10).

usage: bench_records.py SERVER_BINARY [--pg URL] [--seconds S] [--rounds N]
                        [--before OLD_BINARY] [--distinct-only] [--no-burst]

Each figure against the stateless server (--database none) measured in the
same run, the modes interleaved round by round so that a noisy neighbour
hits both alike:
- throughput: 32 students (told apart by X-Forwarded-For from a trusted
  127.0.0.1, as behind nginx) posting back to back on 2 workers, for S
  seconds a round, enough to keep both workers busy (throughput, not one
  student's latency: a commit adds about 1 ms to each answer); distinct kernels (each compiled: the class at work) and
  identical ones (the compile skipped: the server's own cost, where a
  store's share is largest). Median requests per second of N rounds;
  targets: SQLite at least 97% of stateless, PostgreSQL (--pg) 95%;
- the deadline burst: 500 distinct submissions from 500 students at once:
  every one answered, every one recorded (counted in the store itself);
- the store's size per 10,000 submissions (SQLite: the file's pages);
- with --before, every mode again with an older build's server, in the
  same interleaved rounds (its ratios against its own stateless server):
  a change's before and after in one run;
- the CPU per request of the server's own threads, of its workers and of
  PostgreSQL's processes (/proc): on 2 cores every millisecond the store
  takes per record is taken from grading, so this says what a ratio
  below target is made of even when the neighbours make the rates noisy.

Fair to both modes: the same 32 students and server options, both workers
warmed before the clock starts, every answer read as JSON, the rounds
interleaved ABBA.
"""
import http.client
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "http"))
from serverproc import Server, no_guest_budget  # noqa: E402
sys.path.insert(0, HERE)
from bench_class import CORRECT  # noqa: E402  (a correct body with a salt line)

SUBMIT = "/api/tasks/butterfly/submissions"
salt = [1000]
salt_lock = threading.Lock()


def body(distinct):
    if not distinct:
        return (CORRECT % 99).encode()
    with salt_lock:
        salt[0] += 1
        return (CORRECT % salt[0]).encode()


def post(port, data, student, timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", SUBMIT, data, {"Content-Type": "text/plain",
                                             "X-Forwarded-For": student})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def start(database, binary=None):
    binary = binary or BINARY
    return Server(binary, "--workers", "2", "--trusted-proxy", "127.0.0.1",
                  "--max-wait-ms", "0", "--queue", "2048", "--max-connections", "1024",
                  "--per-ip-connections", "0", "--database", database,
                  *no_guest_budget(binary))


HZ = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """CPU seconds (user and system) of every thread of process pid."""
    total = 0.0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return 0.0
    for t in tids:
        try:
            st = open("/proc/%d/task/%s/stat" % (pid, t)).read()
        except OSError:
            continue
        f = st[st.rindex(")") + 2:].split()
        total += (int(f[11]) + int(f[12])) / HZ
    return total


def processes():
    """(pid, parent pid, name) of every process."""
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                st = open("/proc/%s/stat" % p).read()
            except OSError:
                continue
            out.append((int(p), int(st[st.rindex(")") + 2:].split()[1]),
                        st[st.index("(") + 1:st.rindex(")")]))
    return out


def cpu_split(server_pid):
    """CPU seconds so far of the server's own threads, of its workers (its
    children), and of PostgreSQL's processes (every process named postgres)."""
    procs = processes()
    workers = sum(cpu_s(p) for p, pp, _ in procs if pp == server_pid)
    pg = sum(cpu_s(p) for p, _, name in procs if name in ("postgres", "postmaster"))
    return cpu_s(server_pid), workers, pg


def throughput(database, distinct, seconds, clients=32, binary=None):
    """Requests per second, and the CPU each took (ms: server, workers, PostgreSQL)."""
    srv = start(database, binary)
    done = [0]
    bad = [0]
    lock = threading.Lock()
    stop = time.time() + seconds

    def answered(st, data):
        # the same work for every mode: every answer read as JSON
        v = json.loads(data) if st == 200 else {}
        return st == 200 and "status" in v and (database == "none" or v.get("recorded") is True)

    def student(k):
        while time.time() < stop:
            ok = answered(*post(srv.port, body(distinct), "10.0.0.%d" % k))
            with lock:
                if ok:
                    done[0] += 1
                else:
                    bad[0] += 1

    # warm both workers at once: each one's first dispatch compiles in the
    # driver, and neither should do it in the measured time
    warm = [threading.Thread(target=post, args=(srv.port, body(distinct), "10.0.0.%d" % k))
            for k in (250, 251)]
    for t in warm:
        t.start()
    for t in warm:
        t.join()
    cpu0 = cpu_split(srv.proc.pid)
    t0 = time.time()
    threads = [threading.Thread(target=student, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - t0
    cpu1 = cpu_split(srv.proc.pid)
    srv.stop()
    n = max(done[0], 1)
    return done[0] / elapsed, bad[0], [1000 * (b - a) / n for a, b in zip(cpu0, cpu1)]


def burst(database, n=500):
    srv = start(database)
    post(srv.port, body(True), "10.1.0.250")
    answers = []
    lock = threading.Lock()
    go = threading.Event()

    def student(k):
        data = body(True)
        go.wait()
        t0 = time.time()
        try:
            st, out = post(srv.port, data, "10.1.%d.%d" % (k // 250, k % 250))
            v = json.loads(out)
        except (OSError, ValueError, http.client.HTTPException) as e:
            st, v = 0, {"error": str(e)}
        with lock:
            answers.append((st, v, time.time() - t0))

    threads = [threading.Thread(target=student, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    t0 = time.time()
    go.set()
    for t in threads:
        t.join()
    wall = time.time() - t0
    srv.stop()
    ok = [a for a in answers if a[0] == 200]
    recorded = [a for a in ok if a[1].get("recorded") is True]
    ids = {a[1]["id"] for a in recorded}
    lat = sorted(a[2] for a in ok)
    return {"answered": len(ok), "recorded": len(recorded), "ids": ids, "wall": wall,
            "p50": lat[len(lat) // 2] if lat else 0, "p99": lat[int(len(lat) * 0.99) - 1] if lat else 0}


def main():
    global BINARY
    args = sys.argv[1:]
    BINARY = args.pop(0)
    pg = before = None
    seconds, rounds = 8.0, 3
    kernels, bursts = (True, False), True
    while args:
        a = args.pop(0)
        if a == "--pg":
            pg = args.pop(0)
        elif a == "--seconds":
            seconds = float(args.pop(0))
        elif a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--before":
            before = args.pop(0)
        elif a == "--distinct-only":
            kernels = (True,)
        elif a == "--no-burst":
            bursts = False
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "bench.sqlite")
        # (name, server binary, --database, the stateless mode it is compared with)
        modes = [("stateless", BINARY, "none", "stateless"),
                 ("sqlite", BINARY, "sqlite:" + db, "stateless")]
        if pg:
            modes.append(("postgresql", BINARY, pg, "stateless"))
        if before:
            base = "stateless, before"
            modes += [(base, before, "none", base),
                      ("sqlite, before", before, "sqlite:" + db + ".before", base)]
            if pg:
                modes.append(("postgresql, before", before, pg, base))
        print("throughput, %d rounds of %.0f s, 32 students, 2 workers (median req/s):" % (
            rounds, seconds))
        for distinct in kernels:
            rates = {m[0]: [] for m in modes}
            cpus = {m[0]: [] for m in modes}
            for rnd in range(rounds):
                # ABBA: a drifting neighbour's load falls on both alike
                for name, binary, url, _ in (modes if rnd % 2 == 0 else modes[::-1]):
                    rate, bad, cpu = throughput(url, distinct, seconds, binary=binary)
                    assert bad == 0, "%s: %d answers not 200/recorded" % (name, bad)
                    rates[name].append(rate)
                    cpus[name].append(cpu)
            kind = "distinct kernels" if distinct else "identical kernels"
            for name, _, _, against in modes:
                med = statistics.median(rates[name])
                print("  %-17s %-18s %7.1f req/s  %5.1f%% of %s  (rounds: %s)" % (
                    kind, name, med, 100 * med / statistics.median(rates[against]), against,
                    ", ".join("%.1f" % r for r in rates[name])))
            # CPU per request (medians): what the store costs in CPU whatever the neighbours
            for name, _, url, _ in modes:
                srv_ms, wk_ms, pg_ms = (statistics.median(c[i] for c in cpus[name])
                                        for i in range(3))
                print("      CPU per request, %-18s server %.3f ms, workers %.2f ms%s" % (
                    name, srv_ms, wk_ms, ", PostgreSQL %.2f ms" % pg_ms if url == pg else ""))
        if not bursts:
            return
        for name, _, url, _ in modes[1:3 if pg else 2]:
            b = burst(url)
            print("burst of 500, %s: %d answered, %d recorded (%.1f s; p50 %.1f s, p99 %.1f s)" % (
                name, b["answered"], b["recorded"], b["wall"], b["p50"], b["p99"]))
            if name == "sqlite":
                con = sqlite3.connect(db)
                rows = con.execute("SELECT count(*) FROM records").fetchone()[0]
                found = sum(1 for i in b["ids"]
                            if con.execute("SELECT 1 FROM records WHERE id = ?", (i,)).fetchone())
                pages = con.execute("PRAGMA page_count").fetchone()[0]
                psize = con.execute("PRAGMA page_size").fetchone()[0]
                avg = con.execute("SELECT avg(length(source)), avg(length(verdict)) "
                                  "FROM records").fetchone()
                con.close()
                print("  in the store: %d of its %d ids; %d rows in all" % (found, len(b["ids"]),
                                                                         rows))
                print("store size: %.1f MB per 10,000 submissions (%d rows, %d pages of %d B; "
                      "a row holds %.0f B of source and %.0f B of verdict on average)" % (
                          pages * psize / rows * 10000 / 1e6, rows, pages, psize, avg[0], avg[1]))


if __name__ == "__main__":
    main()

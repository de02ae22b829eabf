#!/usr/bin/env python3
"""Allocation failure injection over the server's start and each route
(issue 30, item 6: every allocation checked).

The real butterfly-server runs under tests/support/allocfail.c (LD_PRELOAD):

- start: the Nth allocation of the server process fails, for N swept over
  the start in steps (a clean run counts the start's allocations first).
  The server must either start (the allocation was one it could do
  without) or exit non-zero with a message; never die by a signal, never
  hang.
- routes: once started clean, SIGUSR2 arms failures at random (a seeded
  rate); every route of server/routes.c's table is asked a few times. Each
  request must get an answer (any status) or a closed connection; the
  server must not die. Disarmed, it must be healthy and answer as before.

usage: test_allocfail.py SERVER_BINARY SHIM_LIBRARY B_SANITIZE
Exits 77 (skipped) under a sanitizer. Ends with "N passed, M failed".
"""
import concurrent.futures
import http.client
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BINARY, SHIM, SANITIZE = sys.argv[1], sys.argv[2], sys.argv[3]

START_RUNS = 400         # the start's sweep: about this many runs
DENSE_TAIL = 600         # and every one of the last this many
ROUTE_TRIES = 4          # each route, this many times per rate
RATES = (3, 20, 200)     # failures per thousand allocations, once armed
EVENTS_TRIES = 200       # GET /api/class/events, armed, at EVENTS_RATE
EVENTS_RATE = 20
# Every answer of this server carries these (response_queue adds them): an
# answer without them is one whose headers were lost to a failed
# allocation. A class stream without its type reads, to a client, as a
# body that never ends (it waited for ever, heartbeat after heartbeat).
ALWAYS = ("Content-Type", "Cache-Control", "X-Content-Type-Options", "Referrer-Policy")


def routes():
    """(method, path) for each row of the route table, ids filled in."""
    with open(os.path.join(ROOT, "server", "routes.c")) as f:
        text = f.read()
    out = []
    for path, methods in re.findall(r'\{ "(/[^"]*)", ROUTE_\w+, ([^,]+),', text):
        path = path.replace("{name}", "app.js").replace("{id}", "1")
        if "GET_HEAD" in methods:
            out += [("GET", path), ("HEAD", path)]
        if "METHOD_POST" in methods:
            out.append(("POST", path))
        if "METHOD_DELETE" in methods:
            out.append(("DELETE", path))
    assert len(out) > 20, out
    return out


def start(state_dir, extra_env, report, args=()):
    env = dict(os.environ, BUTTERFLY_QUIET="1", BUTTERFLY_TEST_SLOW_BODIES="1",
               LD_PRELOAD=SHIM, ALLOCFAIL_PROG=os.path.basename(BINARY),
               ALLOCFAIL_REPORT=report)
    env.pop("BUTTERFLY_DATABASE", None)
    env.update(extra_env)
    err = tempfile.TemporaryFile()
    # one exercise served: its check on load runs at every start, and the
    # sweep starts the server about a thousand times
    proc = subprocess.Popen([BINARY, "--port", "0", "--workers", "1", "--state-dir", state_dir,
                             "--exercises", "butterfly", *args],
                            stdout=subprocess.PIPE, stderr=err, env=env, bufsize=0)
    return proc, err


def read_banner(proc, timeout=30):
    """The lines up to "page:" (or the end of the output); None on a hang."""
    lines, buf, deadline = [], b"", time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0, deadline - time.time()))
        if not ready:
            return None
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            return lines
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            lines.append(line.decode(errors="replace"))
            if lines[-1].startswith(("page:", "records: none")):
                return lines
    return None


def stop(proc, timeout=30):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return "hung on SIGTERM"
    proc.stdout.close()
    return proc.returncode


def stderr_of(err):
    err.seek(0)
    return err.read().decode(errors="replace")


def ask(port, method, path, headers=None, body=None, timeout=20):
    """The status, or "closed" when the server closed the connection, or
    "lost NAME" when the answer lacks a header every answer has."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        lost = [h for h in ALWAYS if resp.getheader(h) is None]
        if lost:
            return "lost " + ", ".join(lost)   # its body is not read: it may never end
        if resp.getheader("Content-Type", "").startswith("text/event-stream"):
            return resp.status   # a stream that never ends: its head is the answer
        resp.read()
        return resp.status
    except (http.client.RemoteDisconnected, http.client.IncompleteRead,
            ConnectionResetError, BrokenPipeError):
        return "closed"
    finally:
        conn.close()


def wait_healthy(port, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if ask(port, "GET", "/healthz", timeout=5) == 200:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def t_start_sweep(tmp):
    report = os.path.join(tmp, "clean")
    proc, err = start(os.path.join(tmp, "clean-state"), {}, report)
    banner = read_banner(proc)
    proc.send_signal(signal.SIGUSR2)   # marks the start's end (nothing armed)
    time.sleep(0.5)
    rc = stop(proc)
    assert banner and any("listening on" in l for l in banner), (banner, stderr_of(err)[-500:])
    assert rc == 0, rc
    total = int(open(report).read().split()[2])
    # coarse over the whole start (mostly SQLite's and GnuTLS's own), every
    # one over the tail, where the server's own start and stop allocate
    step = max(1, total // START_RUNS)
    sweep = sorted(set(range(1, total + 1, step)) | set(range(max(1, total - DENSE_TAIL), total + 1)))
    def one(n):
        """(failure or None, listening) of the start whose Nth allocation fails."""
        proc, err = start(os.path.join(tmp, "s%d" % n), {"ALLOCFAIL_NTH": str(n)},
                          os.path.join(tmp, "r%d" % n))
        banner = read_banner(proc)
        if banner is None:
            proc.kill()
            proc.wait()
            return (n, "hung at start"), False
        listening = any("listening on" in l for l in banner)
        if listening:
            rc = stop(proc)
        else:
            try:
                rc = proc.wait(30)
            except subprocess.TimeoutExpired:
                rc = stop(proc)
        text = stderr_of(err)
        if not isinstance(rc, int) or rc < 0:
            return (n, rc, text[-300:]), listening
        if not listening and (rc == 0 or not text.strip()):
            return (n, "exited %s without a message" % rc, text[-300:]), listening
        return None, listening

    # two starts at a time: each waits mostly on its worker and its check
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, sweep))
    failures = [f for f, _ in results if f]
    started = sum(1 for _, listening in results if listening)
    exited = len(results) - started
    assert not failures, (len(failures), failures[:8])
    return "%d start allocations, %d runs: %d exited with a message, %d started" % (
        total, exited + started, exited, started)


def t_routes_under_failures(tmp):
    table = routes()
    results = {}
    for rate in RATES:
        proc, err = start(os.path.join(tmp, "routes%d" % rate),
                          {"ALLOCFAIL_PERMILLE": str(rate), "ALLOCFAIL_SEED": str(rate)},
                          os.path.join(tmp, "routes%d.report" % rate))
        banner = read_banner(proc)
        assert banner and any("listening on" in l for l in banner), stderr_of(err)[-500:]
        port = int(re.search(r"listening on \S+:(\d+)", "\n".join(banner)).group(1))
        token = re.search(r"/class\?token=([0-9a-f]+)", "\n".join(banner))
        assert token, banner
        auth = {"Authorization": "Bearer " + token.group(1)}
        origin = {"Origin": "http://127.0.0.1:%d" % port}
        assert wait_healthy(port), stderr_of(err)[-500:]
        body = open(os.path.join(HERE, "..", "samples", "correct.glsl"), "rb").read()
        proc.send_signal(signal.SIGUSR2)   # armed
        try:
            for method, path in table:
                for i in range(ROUTE_TRIES):
                    headers = dict(auth if i % 2 else {}, **origin)
                    data = None
                    if method == "POST":
                        data = body if "submissions" in path else b'{"name":"Ada"}'
                        headers["Content-Type"] = ("text/plain" if "submissions" in path
                                                   else "application/json")
                    try:
                        st = ask(port, method, path, headers, data)
                    except OSError as e:   # a refused connect: the server is gone
                        st = "error %s" % e
                    results.setdefault((method, path), set()).add(st)
                    assert proc.poll() is None, (
                        "died by %s on %s %s" % (proc.returncode, method, path),
                        stderr_of(err)[-800:])
                    assert isinstance(st, int) or st == "closed", (method, path, st)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGUSR2)   # disarmed
        assert wait_healthy(port), ("not healthy after failures stop", stderr_of(err)[-500:])
        assert ask(port, "GET", "/api/tasks") == 200
        assert ask(port, "GET", "/api/class/summary", auth) == 200
        assert ask(port, "GET", "/api/class/events", auth) == 200
        rc = stop(proc)
        counted, failed, _ = map(int, open(os.path.join(tmp, "routes%d.report" % rate)).read().split())
        assert rc == 0, (rc, stderr_of(err)[-500:])
        assert failed > 0, "no failure was injected"
    if os.environ.get("ALLOCFAIL_VERBOSE"):
        for k, v in results.items():
            print(k, sorted(map(str, v)))
    answered = sum(1 for s in results.values() if any(isinstance(x, int) for x in s))
    return "%d routes x %d tries at %s/1000: each answered or closed (%d answered at least once)" % (
        len(table), ROUTE_TRIES, "/".join(map(str, RATES)), answered)


def t_events_under_failures(tmp):
    """The class stream asked again and again under failures: each is a
    whole answer (a 200 with its event-stream type, or an error with its
    headers) or a closed connection, never a head that lost its headers."""
    rate = EVENTS_RATE
    proc, err = start(os.path.join(tmp, "events"),
                      {"ALLOCFAIL_PERMILLE": str(rate), "ALLOCFAIL_SEED": "7"},
                      os.path.join(tmp, "events.report"),
                      # a stream's client that left is seen at its next
                      # heartbeat: soon, so that the streams left open
                      # free their connections before the health check
                      ("--heartbeat-s", "2"))
    banner = read_banner(proc)
    assert banner and any("listening on" in l for l in banner), stderr_of(err)[-500:]
    text = "\n".join(banner)
    port = int(re.search(r"listening on \S+:(\d+)", text).group(1))
    auth = {"Authorization": "Bearer " + re.search(r"/class\?token=([0-9a-f]+)", text).group(1)}
    assert wait_healthy(port), stderr_of(err)[-500:]
    seen, bad = {}, []
    proc.send_signal(signal.SIGUSR2)   # armed
    try:
        for i in range(EVENTS_TRIES):
            try:
                st = ask(port, "GET", "/api/class/events", auth)
            except OSError as e:   # a refused connect, or no head in 20 s
                st = "error %s" % e
            seen[st] = seen.get(st, 0) + 1
            if not (isinstance(st, int) or st == "closed"):
                bad.append((i, st))
            assert proc.poll() is None, ("died by %s" % proc.returncode, stderr_of(err)[-800:])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGUSR2)   # disarmed
    assert not bad, (len(bad), bad[:5], seen)
    assert wait_healthy(port), ("not healthy after failures stop", stderr_of(err)[-500:])
    # the streams left open under failures free their slots at their next
    # heartbeat (2 s, later on a busy machine): a new one is served by then
    got = []
    deadline = time.time() + 20
    while not got or (got[-1] != 200 and time.time() < deadline):
        got.append(ask(port, "GET", "/api/class/events", auth))
        if got[-1] != 200:
            time.sleep(0.5)
    assert got[-1] == 200, ("the stream after failures stop", got[-5:], stderr_of(err)[-500:])
    rc = stop(proc)
    assert rc == 0, (rc, stderr_of(err)[-500:])
    return "%d GET /api/class/events at %d/1000: %s" % (
        EVENTS_TRIES, rate, ", ".join("%s x%d" % kv for kv in sorted(seen.items(), key=str)))


def main():
    if SANITIZE not in ("", "none"):
        print("SKIP: b_sanitize=%s: the sanitizer's malloc and the shim's would fight" % SANITIZE)
        return 77
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn in [("start_sweep", t_start_sweep), ("routes_under_failures", t_routes_under_failures),
                         ("events_under_failures", t_events_under_failures)]:
            if os.environ.get("ALLOCFAIL_ONLY", name) != name:
                continue   # one test alone, while working on it
            t0 = time.time()
            try:
                note = fn(tmp)
                print("ok   %s (%.1f s): %s" % (name, time.time() - t0, note), flush=True)
                passed += 1
            except AssertionError as e:
                print("FAIL %s (%.1f s): %s" % (name, time.time() - t0, e), flush=True)
                failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

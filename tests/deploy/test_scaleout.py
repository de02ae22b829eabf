#!/usr/bin/env python3
"""Two instances behind a real nginx (deploy/nginx.conf); one killed under load.

usage: test_scaleout.py SERVER_BINARY SAMPLES_DIR SOURCE_ROOT [--submissions N] [--json FILE]

Starts two butterfly-servers (one worker each, trusting nginx at
127.0.0.1, no per-address connection bound) and nginx on loopback with the
repository's deploy/nginx.conf (ports changed). Eight students, each from
an address of its own (127.0.0.10 to .17), send N distinct submissions
(default 160) through nginx; one of them also writes a false
X-Forwarded-For. A third of the way through, the first instance gets
SIGKILL. Checks:

- every submission is answered 200 with its right verdict: none fails;
- the ones the dead instance held were retried on the other (nginx's
  log shows both upstreams for them), and /healthz through nginx stayed
  200 throughout;
- the dead instance's workers died with it;
- the instances saw each student's own address, never nginx's nor the
  false one;
- restarted on its port, the instance rejoins: nginx sends it
  submissions again;
- nginx's body limit is the server's, and its own errors (413, and 503
  when no instance is left) come in the server's JSON shape.

Prints the figures (answered, retried, failed; latency before, during and
after the failover) and ends with "N passed, M failed".
"""
import http.client
import json
import os
import re
import signal
import statistics
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, HERE)
from nginxproc import Nginx, free_port  # noqa: E402
from serverproc import Server  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import children, percentile  # noqa: E402

BINARY, SAMPLES, ROOT = sys.argv[1:4]
OPTS = sys.argv[4:]
N = int(OPTS[OPTS.index("--submissions") + 1]) if "--submissions" in OPTS else 160
JSON_OUT = OPTS[OPTS.index("--json") + 1] if "--json" in OPTS else None
SUBMIT = "/api/tasks/butterfly/submissions"
CLIENTS = 8
SPOOFED = "10.66.6.6"
LOG_LINE = re.compile(r'^(\S+) \[[^]]*\] "(\S+) (\S+) [^"]*" (\d+) \d+ (\S+) '
                      r'upstream=(.*) upstream_status=(.*) upstream_time=(.*)$')


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def call(port, method, path, body=None, headers=None, source=None, timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()



def alive(pid):
    """Running, as opposed to gone or a zombie waiting for a reaper."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Load:
    """N submissions from CLIENTS students through nginx; the results."""

    def __init__(self, port, n):
        self.port, self.n = port, n
        self.results = [None] * n      # (start, end, status, verdict id or error)
        self.done = 0
        self.lock = threading.Condition()
        self.bodies = [sample("correct.glsl"), sample("wrong_twiddle_sign.glsl")]

    def one(self, i, client):
        # distinct: x never reaches the salt, but no compiler can know it,
        # so no worker's kernel cache can serve one submission from another
        body = b"if (this.thread.x == %d) return 12345.0;\n" % (100 + i) + self.bodies[i % 2]
        headers = {"Content-Type": "text/plain"}
        if client == 0:
            headers["X-Forwarded-For"] = SPOOFED     # nginx must overwrite it
        t0 = time.time()
        try:
            status, data = call(self.port, "POST", SUBMIT, body, headers,
                                source="127.0.0.%d" % (10 + client))
            got = json.loads(data)["status"]["id"] if status == 200 else data[:120]
        except Exception as e:  # noqa: BLE001 - a failure is a result
            status, got = 0, repr(e)
        with self.lock:
            self.results[i] = (t0, time.time(), status, got)
            self.done += 1
            self.lock.notify_all()

    def run(self):
        def student(c):
            for i in range(c, self.n, CLIENTS):
                self.one(i, c)
        threads = [threading.Thread(target=student, args=(c,)) for c in range(CLIENTS)]
        for t in threads:
            t.start()
        return threads

    def wait_done(self, count, timeout):
        with self.lock:
            return self.lock.wait_for(lambda: self.done >= count, timeout)


class Health:
    """Polls /healthz through nginx every 0.1 s until stopped."""

    def __init__(self, port):
        self.port, self.statuses, self.stopping = port, [], False
        self.thread = threading.Thread(target=self.poll)
        self.thread.start()

    def poll(self):
        while not self.stopping:
            try:
                self.statuses.append(call(self.port, "GET", "/healthz", timeout=10)[0])
            except Exception:  # noqa: BLE001
                self.statuses.append(0)
            time.sleep(0.1)

    def stop(self):
        self.stopping = True
        self.thread.join(20)


def upstreams(ngx, method="POST"):
    """(upstream addresses, status) of each request in nginx's log."""
    out = []
    for line in ngx.log_lines():
        m = LOG_LINE.match(line)
        if m and m.group(2) == method and m.group(3).startswith(SUBMIT):
            out.append(([a.strip() for a in m.group(6).split(",")], int(m.group(4))))
    return out


def instance_clients(log_path):
    """The client address of every submission in an instance's access log."""
    with open(log_path, errors="replace") as f:
        return [m.group(1) for m in re.finditer(r" (\S+) POST (\S+) \d{3} ", f.read())]


def main():
    checks = {"passed": 0, "failed": 0}

    def check(name, ok, detail=""):
        checks["passed" if ok else "failed"] += 1
        print("%s %-52s %s" % ("ok  " if ok else "FAIL", name, detail if not ok else ""),
              flush=True)

    tmp = tempfile.mkdtemp(prefix="butterfly-scaleout-")
    ports = [free_port(), free_port()]
    logs = [open(os.path.join(tmp, "instance-%d.log" % k), "w") for k in range(2)]
    common = ["--workers", "1", "--trusted-proxy", "127.0.0.1", "--per-ip-connections", "0"]
    quiet = {"BUTTERFLY_QUIET": "0"}   # the access log, into its file
    servers = [Server(BINARY, "--port", str(p), *common, env=quiet, log=logs[k])
               for k, p in enumerate(ports)]
    ngx = None
    figures = {}
    try:
        ngx = Nginx(ROOT, tmp, ports)
        a_addr = "127.0.0.1:%d" % ports[0]
        status, _ = call(ngx.port, "GET", "/healthz")
        check("nginx answers /healthz", status == 200, status)

        # the body limit is the server's: at it the server answers, past it nginx
        limit = 4 * 65536
        status, data = call(ngx.port, "POST", SUBMIT, b"x" * limit,
                            {"Content-Type": "application/json"}, source="127.0.0.10")
        check("a body at the limit reaches the server", status == 400 and
              json.loads(data)["error"]["code"] == "bad_request", (status, data[:100]))
        status, data = call(ngx.port, "POST", SUBMIT, b"x" * (limit + 1),
                            {"Content-Type": "application/json"}, source="127.0.0.10")
        check("one byte more: nginx's 413, in the server's shape", status == 413 and
              json.loads(data)["error"]["code"] == "payload_too_large", (status, data[:100]))

        workers_a = children(servers[0].proc.pid)
        health = Health(ngx.port)
        load = Load(ngx.port, N)
        t_start = time.time()
        threads = load.run()
        load.wait_done(N // 3, 120)
        t_kill = time.time()
        servers[0].proc.send_signal(signal.SIGKILL)
        servers[0].proc.wait()
        for t in threads:
            t.join(300)
        t_end = time.time()
        health.stop()

        res = load.results
        bad = [(i, r) for i, r in enumerate(res)
               if r is None or r[2] != 200 or r[3] != (3 if i % 2 == 0 else 4)]
        check("every submission answered with its verdict", not bad, bad[:5])
        deadline = time.time() + 5
        while time.time() < deadline and any(alive(w) for w in workers_a):
            time.sleep(0.1)
        check("the killed instance's workers died with it",
              workers_a and not any(alive(w) for w in workers_a), workers_a)
        check("/healthz through nginx stayed 200",
              health.statuses and all(s == 200 for s in health.statuses),
              [s for s in health.statuses if s != 200][:5])

        posts = upstreams(ngx)
        retried = [u for u, _ in posts if len(u) > 1]
        check("nginx retried the dead instance's submissions on the other",
              retried and all(u[0] == a_addr and u[-1] != a_addr for u in retried), retried[:3])
        served_a = sum(1 for u, _ in posts if u[-1] == a_addr)
        check("both instances took submissions before the kill", 0 < served_a < N, served_a)

        def summary(lat):
            return {"requests": len(lat), "median": round(1000 * statistics.median(lat)),
                    "p95": round(1000 * percentile(lat, 95)),
                    "max": round(1000 * max(lat))} if lat else None
        figures = {
            "submissions": N, "answered": sum(1 for r in res if r and r[2] == 200),
            "failed": len(bad), "retried": len(retried),
            "served_by_killed_before_kill": served_a,
            "healthz_polls": len(health.statuses),
            "healthz_not_200": sum(1 for s in health.statuses if s != 200),
            "seconds": round(t_end - t_start, 2), "kill_at_s": round(t_kill - t_start, 2),
            # client-side latency in ms: done before the kill, in flight
            # across it (these include the retried ones), started after it
            "latency_ms": {
                "before_kill": summary([r[1] - r[0] for r in res if r and r[1] < t_kill]),
                "across_kill": summary([r[1] - r[0] for r in res if r and r[0] <= t_kill <= r[1]]),
                "after_kill": summary([r[1] - r[0] for r in res if r and r[0] > t_kill]),
            },
        }

        # who the instances think the students are
        for log in logs:
            log.flush()
        seen = set()
        for k in range(2):
            seen |= set(instance_clients(os.path.join(tmp, "instance-%d.log" % k)))
        students = {"127.0.0.%d" % (10 + c) for c in range(CLIENTS)}
        check("the instances saw each student's own address", seen == students, sorted(seen))

        # the killed instance comes back on its port and gets work again
        servers[0] = Server(BINARY, "--port", str(ports[0]), *common, env=quiet, log=logs[0])
        t_back = time.time()
        rejoined = None
        body = sample("correct.glsl")
        for i in range(200):
            status, _ = call(ngx.port, "POST", SUBMIT,
                             b"if (this.thread.x == %d) return 1.0;\n" % (10000 + i) + body,
                             {"Content-Type": "text/plain"}, source="127.0.0.20")
            if upstreams(ngx)[-1][0][-1] == a_addr and status == 200:
                rejoined = time.time() - t_back
                break
            if time.time() - t_back > 30:
                break
            time.sleep(0.2)
        check("the restarted instance rejoins within 30 s", rejoined is not None)
        figures["rejoined_after_s"] = round(rejoined, 2) if rejoined is not None else None

        # with no instance left, nginx answers 503 in the server's shape
        for srv in servers:
            srv.stop()
        status, data = call(ngx.port, "POST", SUBMIT, body, {"Content-Type": "text/plain"})
        check("no instance: 503 with a JSON error", status == 503 and
              json.loads(data)["error"]["message"], (status, data[:100]))
        print(json.dumps(figures, indent=2))
        if JSON_OUT:
            with open(JSON_OUT, "w") as f:
                json.dump(figures, f, indent=2)
    except Exception:  # noqa: BLE001 - reported as a failure
        traceback.print_exc()
        check("the scale-out run", False)
    finally:
        if ngx:
            ngx.stop()
        for s in servers:
            s.stop()
        for log in logs:
            log.close()
    print("%d passed, %d failed" % (checks["passed"], checks["failed"]))
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

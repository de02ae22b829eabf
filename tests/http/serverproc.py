"""Start and stop a real butterfly-server on a free loopback port (for tests)."""
import os
import select
import signal
import subprocess
import time
import urllib.request


class Server:
    """A butterfly-server child process; `url` once it listens."""

    def __init__(self, binary, *args, env=None, wait_healthy=True, log=None, wrapper=()):
        """`log`: a file (opened for writing) for the server's standard
        error, its access log included; else a pipe nobody reads, so keep
        BUTTERFLY_QUIET=1 then. `wrapper`: a command that execs the server
        (its arguments follow), as a sandbox does."""
        # no records unless a test asks (--database, --state-dir): the
        # suites before issue 20 test the stateless server, and no test
        # writes into the home folder
        full_env = dict(os.environ, BUTTERFLY_QUIET="1", BUTTERFLY_DATABASE="none",
                        BUTTERFLY_TEST_SLOW_BODIES="1")   # slow_body(), tests/hostile/common.py
        full_env.update(env or {})
        self.started = time.time()
        self.proc = subprocess.Popen(
            [*wrapper, binary, "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=log or subprocess.PIPE, env=full_env,
            bufsize=0)   # unbuffered: select() sees every line not yet read
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        if not ready:
            self.proc.kill()
            raise RuntimeError("server did not start in 30 s")
        line = self.proc.stdout.readline().decode()
        if "listening on " not in line:
            self.proc.kill()
            raise RuntimeError("server failed: " + line +
                               (self.proc.stderr.read().decode() if self.proc.stderr else ""))
        self.banner = [line]
        self.url = line.split("listening on ")[1].strip().rstrip("/")
        self.port = int(self.url.rsplit(":", 1)[1])
        if wait_healthy:
            self.wait_healthy()

    def read_banner(self, timeout=10):
        """The lines the server prints after "listening on" (records:,
        instructor:, page:), read until the last of them; the list of all."""
        deadline = time.time() + timeout
        while not any(l.startswith(("page:", "records: none")) for l in self.banner):
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0, deadline - time.time()))
            if not ready:
                break
            self.banner.append(self.proc.stdout.readline().decode())
        return self.banner

    def wait_healthy(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("no worker got ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        if self.proc.stderr:
            self.proc.stderr.close()
        return self.proc.returncode


def no_guest_budget(binary):
    """The options that lift the budget of records a signed-out client or
    guest may have kept (issue 29), for a bench whose load comes from a
    few such clients; none for a build from before the budget, which
    would refuse them."""
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    return ["--guest-records", "0", "--guest-mb", "0"] if "--guest-records" in out else []

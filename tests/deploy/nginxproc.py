"""deploy/nginx.conf in a real nginx on loopback, as any user (for tests).

The site file is the repository's own, with only its ports and its log's
path changed, inside a top-level configuration that keeps every file nginx
writes (pid, logs, request bodies) in a temporary folder and runs one
process in the foreground (no master: no user switch, no root needed).
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import time

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def substitute(text, pattern, repl):
    """text with the one match of pattern replaced; an error if it is not
    exactly one, so a change to the deploy file is noticed here."""
    out, n = re.subn(pattern, repl, text, flags=re.M)
    if n != 1:
        raise AssertionError("deploy/nginx.conf: %d matches of %r, not 1" % (n, pattern))
    return out


def site_config(root, listen_port, upstream_ports, access_log):
    """deploy/nginx.conf listening on 127.0.0.1:listen_port, proxying to
    the given ports on 127.0.0.1 (as many as the file has servers)."""
    with open(os.path.join(root, "deploy", "nginx.conf")) as f:
        text = f.read()
    servers = re.findall(r"^\s*server 127\.0\.0\.1:(\d+)", text, re.M)
    if len(servers) != len(upstream_ports):
        raise AssertionError("deploy/nginx.conf has %d upstream servers" % len(servers))
    for old, new in zip(servers, upstream_ports):
        text = substitute(text, r"(^\s*server 127\.0\.0\.1:)%s\b" % old, r"\g<1>%d" % new)
    text = substitute(text, r"^(\s*)listen 80;", r"\1listen 127.0.0.1:%d;" % listen_port)
    return substitute(text, r"^(\s*access_log )\S+( butterfly;)", r"\g<1>%s\2" % access_log)


def top_config(tmp, site_path):
    return """daemon off;
master_process off;
worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {t}/body;
    proxy_temp_path {t}/proxy;
    fastcgi_temp_path {t}/fastcgi;
    uwsgi_temp_path {t}/uwsgi;
    scgi_temp_path {t}/scgi;
    include {site};
}}
""".format(t=tmp, site=site_path)


class Nginx:
    """nginx running deploy/nginx.conf; `port` is where it listens."""

    def __init__(self, root, tmp, upstream_ports):
        self.tmp = tmp
        self.port = free_port()
        self.access_log = os.path.join(tmp, "access.log")
        site = os.path.join(tmp, "site.conf")
        with open(site, "w") as f:
            f.write(site_config(root, self.port, upstream_ports, self.access_log))
        self.conf = os.path.join(tmp, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(top_config(tmp, site))
        base = [NGINX, "-p", tmp, "-e", os.path.join(tmp, "error.log"), "-c", self.conf]
        check = subprocess.run(base + ["-t"], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError("nginx -t: " + check.stderr)
        self.proc = subprocess.Popen(base, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("nginx exited: " + self.proc.stderr.read().decode())
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("nginx did not listen in 10 s")

    def log_lines(self):
        with open(self.access_log) as f:
            return f.read().splitlines()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)   # graceful: finish what is in flight
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stderr.close()

#!/usr/bin/env python3
"""The files of deploy/ against the code and their own tools.

usage: test_deploy_files.py SOURCE_ROOT SERVER GRADE BATCH WORKER

- deploy/nginx.conf passes `nginx -t` (in a top-level configuration on
  loopback) and agrees with the server's limits in the C headers: its body
  limit is the server's largest request, its timeouts outlast the longest
  wait plus the deadline, its idle upstream connections close before the
  server's; it overwrites X-Forwarded-For (the one forwarding header it
  sends, and the server's default --proxy-header) and retries POSTs but
  not 429s;
- deploy/Containerfile (no container engine runs here): its instructions
  and stages are well formed, its shell steps parse (`sh -n`), the runtime
  stage installs a Debian package for every library the programs link,
  and lavapipe; it runs as a user other than root, exposes and binds the
  port it serves, starts the installed server, and its health check
  passes against a real server and fails without one;
- deploy/butterfly-grader.service has the hardening the deployment
  promises, and limits that fit the server's defaults.

Prints one line per failure and ends with "N passed, M failed".
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, HERE)
from nginxproc import NGINX, site_config, top_config  # noqa: E402
from serverproc import Server  # noqa: E402

ROOT = sys.argv[1]
PROGRAMS = sys.argv[2:6]
# In every debian:bookworm-slim image (essential, or needed by apt).
BASE_IMAGE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def c_value(header, name):
    """The value of `#define name expr` in a header, evaluated (names of
    other defines in it resolved)."""
    m = re.search(r"^#define\s+%s\s+(.+?)\s*(/\*.*)?$" % name, read(header), re.M)
    assert m, (header, name)
    expr = re.sub(r"(\d+)u\b", r"\1", m.group(1))
    for other in set(re.findall(r"\b[A-Z_]{3,}\b", expr)):
        expr = expr.replace(other, str(c_value("grader/common/task.h", other)))
    return int(eval(expr, {"__builtins__": {}}))


def size_value(text):
    """An nginx size or time: 256k, 60s, 10s."""
    m = re.fullmatch(r"(\d+)([kmKMs]?)", text)
    return int(m.group(1)) * {"": 1, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20, "s": 1}[m.group(2)]


def directives(text):
    """{name: [value, ...]} of an nginx file (comments out)."""
    out = {}
    for m in re.finditer(r"^\s*([a-z_]+)\s+([^;{]*);", re.sub(r"#.*", "", text), re.M):
        out.setdefault(m.group(1), []).append(m.group(2).strip())
    return out


def instructions(text):
    """[(INSTRUCTION, arguments)] of a Containerfile, continuations joined."""
    lines, out, cur = text.splitlines(), [], ""
    for line in lines:
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\") and not line.lstrip().startswith("#"):
            cur += line.rstrip()[:-1] + " "
            continue
        if line.lstrip().startswith("#"):
            continue     # a comment inside a continued instruction
        cur += line
        word, _, rest = cur.strip().partition(" ")
        out.append((word, rest.strip()))
        cur = ""
    return out


def linked_packages(program):
    """The Debian packages of the libraries a program names as NEEDED."""
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]",
                        subprocess.run(["readelf", "-d", program], capture_output=True,
                                       text=True).stdout)
    paths = dict(re.findall(r"^\s*(\S+) => (\S+)", subprocess.run(
        ["ldd", program], capture_output=True, text=True).stdout, re.M))
    pkgs = set()
    # the sanitizer build's own runtimes (CI's second run): not the image's
    needed = [lib for lib in needed if not re.match(r"lib(a|ub|l|t)san\.", lib)]
    for lib in needed:
        path = os.path.realpath(paths[lib])
        for candidate in (path, path.replace("/usr/lib/", "/lib/", 1)):
            p = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
            if p.returncode == 0:
                pkgs.add(p.stdout.split(":")[0])
                break
        else:
            raise AssertionError("no Debian package holds %s (%s)" % (lib, path))
    return pkgs


def main():
    failures, checked = [], [0]

    def check(ok, what):
        checked[0] += 1
        if not ok:
            failures.append(what)

    # --- nginx ------------------------------------------------------------
    conf = read("deploy/nginx.conf")
    d = directives(conf)
    with tempfile.TemporaryDirectory() as tmp:
        site = os.path.join(tmp, "site.conf")
        with open(site, "w") as f:
            f.write(site_config(ROOT, 18080, [18081, 18082], os.path.join(tmp, "access.log")))
        with open(os.path.join(tmp, "nginx.conf"), "w") as f:
            f.write(top_config(tmp, site))
        p = subprocess.run([NGINX, "-t", "-p", tmp, "-e", os.path.join(tmp, "error.log"),
                            "-c", os.path.join(tmp, "nginx.conf")], capture_output=True, text=True)
        check(p.returncode == 0, "nginx -t: " + p.stderr)
    largest = c_value("server/core/request.h", "REQUEST_MAX_JSON")
    check(size_value(d["client_max_body_size"][0]) == largest,
          "client_max_body_size %s is not the server's %d bytes" % (d["client_max_body_size"], largest))
    check(size_value(d["client_body_buffer_size"][0]) >= largest,
          "client_body_buffer_size keeps less than a whole body (a retry resends it)")
    longest = (c_value("grader/common/defaults.h", "DEFAULT_MAX_WAIT_MS") +
               c_value("grader/common/defaults.h", "DEFAULT_DEADLINE_MS")) / 1000
    for name in ("proxy_read_timeout", "proxy_send_timeout"):
        check(size_value(d[name][0]) > longest, "%s is not past %g s" % (name, longest))
    check(size_value(d["keepalive_timeout"][0]) < c_value("grader/common/defaults.h",
                                                          "DEFAULT_IDLE_TIMEOUT_S"),
          "nginx keeps idle upstream connections longer than the server does")
    # overwritten with the peer, not appended to: a client's own header must
    # not reach the server as if nginx had vouched for it
    check("X-Forwarded-For $remote_addr" in d.get("proxy_set_header", []),
          "X-Forwarded-For is not overwritten with $remote_addr")
    # ... and it is the header the server reads by default (--proxy-header)
    m = re.search(r'^#define\s+DEFAULT_PROXY_HEADER\s+"([^"]+)"', read("grader/common/defaults.h"),
                  re.M)
    # one forwarding header, the same in every location (the class view's
    # events have a location of their own)
    sent = sorted({h.split()[0] for h in d.get("proxy_set_header", [])
                   if h.split()[0].lower() in ("x-forwarded-for", "forwarded")})
    check(m and sent == [m.group(1)],
          "nginx sends %r, the server reads %r by default" % (sent, m and m.group(1)))
    retry = d.get("proxy_next_upstream", [""])[0].split()
    check({"error", "timeout", "non_idempotent"} <= set(retry) and "http_429" not in retry,
          "proxy_next_upstream %r" % retry)
    tries = int(d.get("proxy_next_upstream_tries", ["0"])[0])
    servers = len(re.findall(r"^\s*server 127\.0\.0\.1:\d+", conf, re.M))
    check(tries == servers, "proxy_next_upstream_tries %d for %d instances" % (tries, servers))
    for body in re.findall(r"return \d+ '(.*)';", conf):
        check(set(json.loads(body)) == {"error"}, "nginx's own error is not the server's shape")

    # --- Containerfile ------------------------------------------------------
    steps = instructions(read("deploy/Containerfile"))
    known = {"FROM", "RUN", "COPY", "ENV", "USER", "EXPOSE", "STOPSIGNAL", "HEALTHCHECK",
             "ENTRYPOINT", "CMD", "WORKDIR", "ARG", "LABEL", "VOLUME"}
    check(all(w in known for w, _ in steps), "unknown instructions: %r" %
          [w for w, _ in steps if w not in known])
    stages = [rest for w, rest in steps if w == "FROM"]
    check(len(stages) == 2 and all(s.split()[0] == "debian:bookworm-slim" for s in stages),
          "stages: %r" % stages)
    names = [s.split()[2] for s in stages if " AS " in s]
    runtime = steps[[i for i, (w, _) in enumerate(steps) if w == "FROM"][-1]:]
    for w, rest in steps:
        if w == "RUN":
            p = subprocess.run(["sh", "-n", "-c", rest], capture_output=True, text=True)
            check(p.returncode == 0, "RUN does not parse: %s %s" % (rest[:60], p.stderr))
            for script in re.findall(r"\b(scripts/\S+\.sh)", rest):
                check(os.access(os.path.join(ROOT, script), os.X_OK), "no %s" % script)
        if w == "COPY":
            src = rest.split()[-2]
            m = re.match(r"--from=(\S+)", rest)
            check(m.group(1) in names if m else os.path.exists(os.path.join(ROOT, src)),
                  "COPY %s" % rest)
    installed = set()
    for w, rest in runtime:
        m = re.search(r"apt-get install (.*?)(&&|$)", rest) if w == "RUN" else None
        if m:
            installed |= {a for a in m.group(1).split() if not a.startswith("-")}
    need = set()
    for prog in PROGRAMS:
        need |= linked_packages(prog)
    check(need - BASE_IMAGE_PACKAGES <= installed,
          "the runtime stage lacks %r" % sorted(need - BASE_IMAGE_PACKAGES - installed))
    check("mesa-vulkan-drivers" in installed, "no lavapipe (mesa-vulkan-drivers)")
    for pkg in sorted(installed):
        p = subprocess.run(["dpkg-query", "-W", pkg], capture_output=True)
        check(p.returncode == 0, "%s is not a Debian package installed here" % pkg)
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(r for w, r in runtime if w == "ENV")))
    expose = [r for w, r in runtime if w == "EXPOSE"]
    check(expose == [env.get("BUTTERFLY_PORT")], "EXPOSE %r, BUTTERFLY_PORT %r" %
          (expose, env.get("BUTTERFLY_PORT")))
    check(env.get("BUTTERFLY_BIND") in ("0.0.0.0", "::"), "the server would listen on loopback only")
    user = [r for w, r in runtime if w == "USER"]
    check(user and user[-1].split(":")[0] not in ("0", "root"), "runs as root")
    # the records: the state folder is a volume the server's user owns
    state = env.get("BUTTERFLY_STATE_DIR")
    volumes = [r for w, r in runtime if w == "VOLUME"]
    check(state and volumes == [state], "BUTTERFLY_STATE_DIR %r, VOLUME %r" % (state, volumes))
    uid = user[-1].split(":")[0] if user else "?"
    check(any(re.search(r"install -d -m 0700 -o %s\b.* %s\b" % (uid, re.escape(state or "-")), r)
              for w, r in runtime if w == "RUN"),
          "the state folder is not made 0700 for user %s" % uid)
    entry = json.loads([r for w, r in runtime if w == "ENTRYPOINT"][0])
    check(entry == ["/usr/local/bin/butterfly-server"], "ENTRYPOINT %r" % entry)
    ignore = read(".dockerignore").split()
    check({"build", "**/node_modules"} <= set(ignore), ".dockerignore lets build output in")
    health = [r for w, r in runtime if w == "HEALTHCHECK"][0]
    cmd = json.loads(health[health.index("CMD") + 3:].strip())
    port = env.get("BUTTERFLY_PORT", "8080")
    srv = Server(PROGRAMS[0], "--workers", "1")
    try:
        up = subprocess.run([c.replace(port, str(srv.port)) for c in cmd], timeout=10).returncode
    finally:
        srv.stop()
    down = subprocess.run([c.replace(port, str(srv.port)) for c in cmd], timeout=10,
                          stderr=subprocess.DEVNULL).returncode
    check(up == 0 and down != 0, "HEALTHCHECK: %d with a server, %d without" % (up, down))

    # --- the systemd unit ---------------------------------------------------
    unit = dict(re.findall(r"^(\w+)=(.*)$", read("deploy/butterfly-grader.service"), re.M))
    for key, want in [("DynamicUser", "yes"), ("ProtectSystem", "strict"), ("PrivateTmp", "yes"),
                      ("NoNewPrivileges", "yes"), ("SystemCallArchitectures", "native")]:
        check(unit.get(key) == want, "%s=%s, not %s" % (key, unit.get(key), want))
    for key in ("MemoryMax", "TasksMax", "RestrictAddressFamilies", "SystemCallFilter"):
        check(unit.get(key), "no %s" % key)
    # the server refuses a state folder its group or every user may write
    # to (issue 29): the folder systemd makes must pass
    check(unit.get("StateDirectory") and int(unit.get("StateDirectoryMode", "0755"), 8) & 0o022 == 0,
          "StateDirectory=%s, StateDirectoryMode=%s: the server would refuse the folder" %
          (unit.get("StateDirectory"), unit.get("StateDirectoryMode")))
    check(unit.get("MemoryDenyWriteExecute", "no") == "no",
          "MemoryDenyWriteExecute: lavapipe's LLVM writes the code it runs")
    drain = (c_value("grader/common/defaults.h", "DEFAULT_DEADLINE_MS") + 2000) / 1000
    check(size_value(unit.get("TimeoutStopSec", "0")) > drain,
          "TimeoutStopSec is shorter than the server's drain (%g s)" % drain)
    check(int(unit.get("LimitNOFILE", "0")) > c_value("grader/common/defaults.h",
                                                      "DEFAULT_MAX_CONNECTIONS"),
          "LimitNOFILE is below --max-connections")
    check(set(unit.get("RestrictAddressFamilies", "").split()) >= {"AF_UNIX", "AF_INET", "AF_INET6"},
          "the workers' socket pairs or the clients' sockets are not allowed")

    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (checked[0] - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

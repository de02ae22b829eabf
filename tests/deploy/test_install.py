#!/usr/bin/env python3
"""`meson install` into a temporary prefix, run from anywhere.

usage: test_install.py SOURCE_ROOT SAMPLES_DIR [--security FILE]

Copies the sources as a fresh clone would have them (git's tracked files
and untracked ones it does not ignore: no build output, no node_modules),
builds what `meson install` installs, installs it into a temporary prefix,
and deletes the copy and its build. Then, from another folder and with no
BUTTERFLY_* variable set:

- the installed server serves the page and grades kernels; it finds its
  worker and its page under the prefix (its --help says where);
- butterfly-grade grades; every program answers --version; the manual
  pages are installed;
- the installed systemd unit names the installed server, passes
  `systemd-analyze verify` (its man: link resolves to the installed page)
  and `systemd-analyze security --offline` at 2.0 or below (the report
  goes to FILE with --security);
- the server grades under the unit's system call filter and address
  families (unit_sandbox.py), workers included, and replaces a worker
  killed at the deadline there too;
- the prefix moved elsewhere as a whole still works.

Prints one line per check and ends with "N passed, M failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
from serverproc import Server  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import Checks, children, slow_body  # noqa: E402

ROOT, SAMPLES = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
OPTS = sys.argv[3:]
SECURITY_OUT = OPTS[OPTS.index("--security") + 1] if "--security" in OPTS else None
PROGRAMS = ["bin/butterfly-server", "bin/butterfly-grade", "bin/butterfly-batch",
            "bin/butterfly-admin", "libexec/butterfly-worker"]
UNIT = "lib/systemd/system/butterfly-grader.service"
SUBMIT = "/api/tasks/butterfly/submissions"


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def sh(*args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout[-3000:],
                                                 p.stderr[-3000:]))
    return p


def fresh_copy(dst):
    """The files a clone of this working tree would have, into dst."""
    files = sh("git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
               "--exclude-standard").stdout.split("\0")
    for name in filter(None, files):
        src = os.path.join(ROOT, name)
        if not os.path.lexists(src) or os.path.isdir(src):
            continue    # deleted in the working tree; a submodule
        os.makedirs(os.path.dirname(os.path.join(dst, name)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, name), follow_symlinks=False)


def install(tmp):
    src, prefix = os.path.join(tmp, "src"), os.path.join(tmp, "prefix")
    fresh_copy(src)
    build = os.path.join(src, "build")
    sh("meson", "setup", build, src, "--prefix=" + prefix)
    # what the install needs, not the tests and benchmarks
    sh("ninja", "-C", build, "grader/butterfly-worker", "grader/butterfly-grade",
       "grader/butterfly-batch", "grader/butterfly-admin", "server/butterfly-server")
    sh("meson", "install", "-C", build, "--no-rebuild", "--quiet")
    shutil.rmtree(src)
    return prefix


def get(url, body=None, ctype=None):
    """(status, headers, body) of the answer, an error status's too."""
    req = urllib.request.Request(url, data=body, headers={"Content-Type": ctype} if ctype else {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def grades(srv):
    """The page and two verdicts from a running server."""
    status, headers, page = get(srv.url + "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html"), status
    assert b"<html" in page.lower(), page[:100]
    assert get(srv.url + "/static/app.mjs")[0] == 200
    for name, want in [("correct.glsl", 3), ("wrong_twiddle_sign.glsl", 4)]:
        status, _, data = get(srv.url + SUBMIT, sample(name), "text/plain")
        got = json.loads(data)["status"]["id"]
        assert status == 200 and got == want, (name, status, got)


def seccomp_mode(pid):
    with open("/proc/%d/status" % pid) as f:
        fields = dict(l.split(":", 1) for l in f if ":" in l)
    return fields["Seccomp"].strip(), fields["NoNewPrivs"].strip()


def main():
    for k in [k for k in os.environ if k.startswith("BUTTERFLY_")]:
        del os.environ[k]
    checks = Checks()
    check = checks.run

    tmp = tempfile.mkdtemp(prefix="butterfly-install-")
    elsewhere = os.path.join(tmp, "elsewhere")
    os.makedirs(elsewhere)
    state = {}
    try:
        if not check("install a fresh copy, then delete it",
                     lambda: state.update(prefix=install(tmp))):
            return 1
        prefix = state["prefix"]
        os.chdir(elsewhere)   # nothing relative to the sources or the build

        def installed_files():
            for rel in PROGRAMS:
                assert os.access(os.path.join(prefix, rel), os.X_OK), rel
            for rel in ["share/butterfly-grader/static/index.html",
                        "share/butterfly-grader/static/course.json", UNIT] + [
                        "share/man/man1/butterfly-%s.1" % p for p in ("server", "grade", "batch",
                                                                       "admin")]:
                assert os.path.isfile(os.path.join(prefix, rel)), rel
            assert not os.path.exists(os.path.join(tmp, "src"))
        check("programs, page, manual pages and unit installed", installed_files)

        def server_serves_and_grades(pfx):
            server = os.path.join(pfx, "bin", "butterfly-server")
            helptext = sh(server, "--help").stdout
            assert "[%s/share/butterfly-grader/static]" % pfx in helptext, helptext
            assert "[%s/libexec/butterfly-worker]" % pfx in helptext, helptext
            srv = Server(server, "--workers", "1")
            try:
                grades(srv)
            finally:
                assert srv.stop() == 0
        check("the installed server serves the page and grades", server_serves_and_grades, prefix)

        def cli_and_versions(pfx):
            p = subprocess.run([os.path.join(pfx, "bin", "butterfly-grade"),
                                os.path.join(SAMPLES, "correct.glsl")], capture_output=True,
                               text=True)
            assert p.returncode == 0 and p.stdout.startswith("Verdict: Accepted"), p
            for rel in PROGRAMS:
                out = sh(os.path.join(pfx, rel), "--version").stdout
                assert re.fullmatch(r"%s \d+\.\d+\.\d+\n" % os.path.basename(rel), out), out
        check("butterfly-grade grades; every program has --version", cli_and_versions, prefix)

        unit = os.path.join(prefix, UNIT)

        def unit_verifies():
            with open(unit) as f:
                text = f.read()
            assert "ExecStart=%s/bin/butterfly-server\n" % prefix in text
            env = dict(os.environ, MANPATH=os.path.join(prefix, "share", "man"))
            p = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True,
                               text=True, env=env)
            assert p.returncode == 0 and not p.stderr.strip() and not p.stdout.strip(), (
                p.returncode, p.stdout, p.stderr)
        check("systemd-analyze verify accepts the installed unit", unit_verifies)

        def gpu_drop_in():
            """deploy/gpu.conf merged into the unit (systemd reads a drop-in's
            lines after the unit's): still valid, still under 5.0."""
            merged = os.path.join(tmp, "butterfly-grader.service")
            with open(unit) as f, open(os.path.join(ROOT, "deploy", "gpu.conf")) as g:
                drop = g.read().replace("[Service]\n", "")
                text = f.read().replace("\n[Install]", "\n" + drop + "\n[Install]")
            with open(merged, "w") as f:
                f.write(text)
            env = dict(os.environ, MANPATH=os.path.join(prefix, "share", "man"))
            p = subprocess.run(["systemd-analyze", "verify", merged], capture_output=True,
                               text=True, env=env)
            assert p.returncode == 0 and not p.stderr.strip(), p.stderr
            p = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager",
                                merged], capture_output=True, text=True)
            m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", p.stdout)
            assert m and float(m.group(1)) <= 5.0, p.stdout[-300:]
            print("     with deploy/gpu.conf: " + m.group(0))
        check("the GPU drop-in verifies too", gpu_drop_in)

        def unit_security():
            p = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager",
                                unit], capture_output=True, text=True)
            m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", p.stdout)
            assert m, p.stdout[-500:] + p.stderr
            if SECURITY_OUT:
                with open(SECURITY_OUT, "w") as f:
                    f.write(p.stdout)
            assert float(m.group(1)) <= 2.0, m.group(0)
            print("     " + m.group(0))
        check("systemd-analyze security: exposure 2.0 or below", unit_security)

        def under_the_filter():
            sandbox = [sys.executable, os.path.join(HERE, "unit_sandbox.py"), unit]
            srv = Server(os.path.join(prefix, "bin", "butterfly-server"), "--workers", "1",
                         "--deadline-ms", "1500", wrapper=sandbox)
            try:
                assert seccomp_mode(srv.proc.pid) == ("2", "1"), seccomp_mode(srv.proc.pid)
                grades(srv)
                # past the deadline the worker is killed and another started,
                # all under the filter; the deadline is the grader's limit
                # (an Internal Error after its retry, both attempts slow)
                status, _, data = get(srv.url + SUBMIT, slow_body(5000).encode(), "text/plain")
                assert status == 500 and json.loads(data)["status"]["id"] == 13, data[:300]
                assert "grader's time limit" in json.loads(data)["message"], data[:300]
                srv.wait_healthy()
                grades(srv)
                workers = children(srv.proc.pid)
                assert workers and all(seccomp_mode(w)[0] == "2" for w in workers), workers
            finally:
                assert srv.stop() == 0
        check("the server grades under the unit's system call filter", under_the_filter)

        def moved_prefix():
            moved = os.path.join(tmp, "moved", "elsewhere")
            os.makedirs(os.path.dirname(moved))
            shutil.move(prefix, moved)
            cli_and_versions(moved)
            server_serves_and_grades(moved)
        check("the prefix moved whole still works", moved_prefix)
    finally:
        os.chdir("/")
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

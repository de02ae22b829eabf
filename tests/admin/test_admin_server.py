#!/usr/bin/env python3
"""butterfly-admin beside a running server, and the manual pages'
examples run against one (issue 31, items 7, 9 and 10).

usage: test_admin_server.py SERVER_BINARY ADMIN_BINARY SAMPLES_DIR SOURCE_ROOT BATCH_BINARY
                            GRADE_BINARY

What an instructor checks:
- `links` and `token` without --public-url print the running server's
  address (started on a free port, so not the default 8080), and say on
  stderr which address they used; with --public-url, that one;
- the links' CSV has LF line ends, and a token cut from a line that kept
  a CR (a CRLF file, Windows' clipboard) still signs in;
- an announced address no student can open (0.0.0.0) is refused, naming
  --public-url;
- in an open lab two people who give the same name are two names in the
  class view and the gradebook ("Zoë", "Zoë (2)"), and the answer says
  which name was kept;
- an open lab's Canvas and Moodle downloads are refused (409 open_lab)
  with the reason, and the class view says so beside the buttons;
- every example of docs/man/butterfly-server.1 and butterfly-admin.1 runs
  (the server's start with its options, curl against the server, the
  personal link's sign-in confirmed with its id, the admin's commands),
  and so does every example of butterfly-batch.1 and butterfly-grade.1
  (on the build's worker, lavapipe will do);
- the README's and docs/DEPLOY.md's install lists name every program the
  build installs.

Prints one line per check and ends with "N passed, M failed".
"""
import csv
import http.client
import io
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))     # serverproc
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))  # common.Checks
sys.path.insert(0, os.path.join(HERE, "..", "support"))  # manpage
from common import Checks  # noqa: E402
from manpage import section_raw  # noqa: E402
from serverproc import Server  # noqa: E402

SERVER, ADMIN, SAMPLES, ROOT, BATCH, GRADE = (os.path.abspath(a) for a in sys.argv[1:7])
PAGE = {"X-Requested-With": "butterfly"}
TOKEN_RE = re.compile(r"[0-9a-f]{64}")


def call(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    hdrs = {}
    for k, v in r.getheaders():
        hdrs.setdefault(k.lower(), []).append(v)
    conn.close()
    return r.status, {k: v[0] for k, v in hdrs.items()} | {"set-cookies": hdrs.get("set-cookie", [])}, data


def cookie(hdrs, name):
    for sc in hdrs["set-cookies"]:
        if sc.startswith(name + "="):
            return sc.split(";")[0]
    return ""


def clean_env(**extra):
    e = dict(os.environ)
    for k in ("BUTTERFLY_DATABASE", "BUTTERFLY_STATE_DIR", "STATE_DIRECTORY",
              "BUTTERFLY_PUBLIC_URL", "XDG_STATE_HOME"):
        e.pop(k, None)
    e.update(extra)
    return e


def admin(db, *args, code=0):
    p = subprocess.run([ADMIN, "--database", "sqlite:" + db, *args], capture_output=True,
                       text=True, env=clean_env(), timeout=60)
    assert p.returncode == code, (args, p.returncode, p.stdout, p.stderr)
    return p


def instructor_token(srv):
    for line in srv.read_banner():
        m = re.search(r"class\?token=([0-9a-f]{64})", line)
        if m:
            return m.group(1)
    raise AssertionError("no instructor's address in %r" % srv.banner)


class Lab:
    """A server on a free port with a roster, no --public-url."""

    def __init__(self, folder):
        self.folder = folder
        self.db = os.path.join(folder, "records.sqlite")
        self.srv = Server(SERVER, "--workers", "1", "--database", "sqlite:" + self.db)
        self.token = instructor_token(self.srv)
        self.base = "http://127.0.0.1:%d" % self.srv.port
        roster = os.path.join(folder, "roster.csv")
        with open(roster, "w") as f:
            f.write("id,name,section\ns042,Zo\u00eb Quinn,A\ns043,Ada Byron,B\n")
        admin(self.db, "class", "import", roster)


# ---- item 7: links point at the running server ---------------------------------------

def t_links_use_the_running_server(lab):
    assert lab.srv.port != 8080
    p = admin(lab.db, "links")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert [r["id"] for r in rows] == ["s042", "s043"], p.stdout
    for r in rows:
        assert re.fullmatch(re.escape(lab.base) + r"/\?k=[0-9a-f]{64}", r["link"]), r
    assert "announced" in p.stderr and lab.base in p.stderr, p.stderr
    assert lab.base not in p.stdout.splitlines()[0], "the header is the CSV's own"
    p = admin(lab.db, "token")
    assert lab.base + "/class?token=" in p.stdout, p.stdout
    assert "announced" in p.stderr, p.stderr
    lab.token = TOKEN_RE.search(p.stdout).group(0)
    # and the Dynamic Registration address (an address with no host was
    # printed before: the platform could not open it)
    p = admin(lab.db, "lti", "registration-url")
    assert re.fullmatch(re.escape(lab.base) + r"/lti/register\?token=[0-9a-f]{64}\n", p.stdout), \
        p.stdout
    assert "announced" in p.stderr, p.stderr
    # --public-url wins, and is said
    p = admin(lab.db, "links", "--renew", "s043", "--public-url", "https://lab.example.org/")
    assert "https://lab.example.org/?k=" in p.stdout and "--public-url" in p.stderr, p.stderr
    return "links at %s" % lab.base


def t_links_csv_has_no_cr(lab):
    p = subprocess.run([ADMIN, "--database", "sqlite:" + lab.db, "links", "--all"],
                       capture_output=True, env=clean_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    assert b"\r" not in p.stdout and p.stdout.count(b"\n") == 3, p.stdout


def t_token_with_trailing_cr_signs_in(lab):
    # the token as `cut -d= -f2` leaves it from a CRLF line: with its CR
    p = admin(lab.db, "links", "--renew", "s042")
    token = TOKEN_RE.search(p.stdout.splitlines()[-1]).group(0)
    st, h, _ = call(lab.srv.port, "GET", "/?k=" + token + "%0D")
    assert st == 303 and h["location"] == "/?signin=confirm", (st, h.get("location"))
    pending = cookie(h, "butterfly_pending")
    assert pending
    st, _, data = call(lab.srv.port, "GET", "/api/me", headers={"Cookie": pending})
    assert json.loads(data)["pending"]["id"] == "s042", data
    st, h, data = call(lab.srv.port, "POST", "/api/session",
                       json.dumps({"confirm": True, "id": "s042"}),
                       {"Content-Type": "application/json", "Cookie": pending, **PAGE})
    me = json.loads(data)
    assert st == 200 and me["kind"] == "student" and me["name"] == "Zo\u00eb Quinn", (st, data)
    # the CR is all that is forgiven: another character is a wrong token
    st, h, _ = call(lab.srv.port, "GET", "/?k=" + token + "x")
    assert st == 303 and h["location"] == "/?signin=failed", (st, h.get("location"))


def t_wildcard_address_refused(tmp):
    """A server bound to 0.0.0.0 with no --public-url announces an address
    no student can open: links refuses it (the row is written here as
    such a server writes it, so no test listens on every address)."""
    db = os.path.join(tmp, "wild.sqlite")
    admin(db, "token")   # makes the store
    c = sqlite3.connect(db)
    c.execute("INSERT INTO secrets (name, value, created_ms) VALUES ('announced_url', ?, 0)",
              (b"http://0.0.0.0:8080",))
    c.commit()
    c.close()
    p = admin(db, "links", code=1)
    assert "0.0.0.0" in p.stderr and "--public-url" in p.stderr and not p.stdout, p.stderr
    admin(db, "links", "--public-url", "http://lab-pc:8080")


def t_no_server_yet_says_default(tmp):
    db = os.path.join(tmp, "fresh.sqlite")
    p = admin(db, "token")
    assert "http://127.0.0.1:8080/class?token=" in p.stdout, p.stdout
    assert "no server has announced" in p.stderr and "--public-url" in p.stderr, p.stderr


# ---- item 9: open labs -----------------------------------------------------------------

def t_open_lab_names_told_apart(tmp):
    db = os.path.join(tmp, "open.sqlite")
    srv = Server(SERVER, "--workers", "1", "--database", "sqlite:" + db)
    try:
        bearer = {"Authorization": "Bearer " + instructor_token(srv)}
        names, cookies = [], []
        for _ in range(3):
            st, h, data = call(srv.port, "POST", "/api/session", json.dumps({"name": "Zo\u00eb"}),
                               {"Content-Type": "application/json", **PAGE})
            assert st == 200, (st, data)
            names.append(json.loads(data)["name"])
            cookies.append(cookie(h, "butterfly_session"))
        assert names == ["Zo\u00eb", "Zo\u00eb (2)", "Zo\u00eb (3)"], names
        # each is signed in under the name kept
        st, _, data = call(srv.port, "GET", "/api/me", headers={"Cookie": cookies[1]})
        assert json.loads(data)["name"] == "Zo\u00eb (2)", data
        with open(os.path.join(SAMPLES, "correct.glsl"), "rb") as f:
            body = f.read()
        for c in cookies[:2]:
            st, _, data = call(srv.port, "POST", "/api/tasks/butterfly/submissions", body,
                               {"Content-Type": "text/plain", "Cookie": c, **PAGE})
            assert st == 200 and json.loads(data)["recorded"] is True, data
        # the class view: two tiles, two names (read until both arrived)
        seen = []
        for _ in range(100):
            st, _, data = call(srv.port, "GET", "/api/class/students", headers=bearer)
            if st == 200:
                seen = sorted(t["name"] for t in json.loads(data)["students"])
                if len(seen) >= 2:
                    break
            time.sleep(0.1)
        assert seen[:2] == ["Zo\u00eb", "Zo\u00eb (2)"], seen
        st, _, data = call(srv.port, "GET", "/api/class/gradebook?layout=default", headers=bearer)
        text = data.decode()
        assert st == 200 and "Zo\u00eb (2) (unverified name)" in text, text
        # the learning systems' files: refused, with why
        # (a column per exercise too: refused alike)
        for layout, system, task in (("canvas", "Canvas", ""), ("moodle", "Moodle", ""),
                                     ("canvas", "Canvas", "&task=all"),
                                     ("moodle", "Moodle", "&task=all")):
            st, _, data = call(srv.port, "GET", "/api/class/gradebook?layout=" + layout + task,
                               headers=bearer)
            err = json.loads(data)["error"]
            assert st == 409 and err["code"] == "open_lab", (layout, task, st, data)
            assert "open lab" in err["message"] and system in err["message"] \
                and "layout=default" in err["message"], err
    finally:
        srv.stop()
    with open(os.path.join(ROOT, "static", "class.html")) as f:
        page = f.read()
    for layout in ("canvas", "moodle"):
        item = re.search(r'data-layout="%s".*?</li>' % layout, page, re.S).group(0)
        assert "open lab" in item and "refused" in item, item


def t_a_roster_lab_keeps_the_lms_files(lab):
    bearer = {"Authorization": "Bearer " + lab.token}
    for layout in ("canvas", "moodle"):
        st, _, data = call(lab.srv.port, "GET", "/api/class/gradebook?layout=" + layout,
                           headers=bearer)
        assert st == 200, (layout, st, data[:200])


# ---- item 10: the manual pages' examples -------------------------------------------------

def examples(page):
    """The commands of a manual page's EXAMPLES, continuation lines joined,
    roff's escapes undone."""
    with open(os.path.join(ROOT, "docs", "man", page)) as f:
        raw = section_raw(f.read(), "EXAMPLES")
    cmds = []
    for block in re.findall(r"^\.nf\n(.*?)^\.fi\n", raw, re.S | re.M):
        text = block.replace("\\-", "-").replace("\\e", "\\")
        cmds += [c.strip() for c in re.sub(r"\\\n\s*", "", text).splitlines() if c.strip()]
    return cmds


def run_examples(cmds, cwd, env, swap):
    """Runs cmds in order in one bash (a variable set by one is seen by the
    next), each with its own output; [(cmd, rc, stdout, stderr)]."""
    script = ["cd %s" % cwd]
    for i, c in enumerate(cmds):
        for a, b in swap:
            c = c.replace(a, b)
        script.append("{ %s\n} > out.%d 2> err.%d; echo $? > rc.%d" % (c, i, i, i))
    p = subprocess.run(["bash", "-c", "\n".join(script)], env=env, timeout=300,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    got = []
    for i, c in enumerate(cmds):
        def read(name):
            with open(os.path.join(cwd, "%s.%d" % (name, i)), errors="replace") as f:
                return f.read()
        got.append((c, int(read("rc")), read("out"), read("err")))
    return got


def t_server_man_examples(lab):
    cmds = examples("butterfly-server.1")
    assert any("\"confirm\": true, \"id\"" in c for c in cmds), cmds
    work = os.path.join(lab.folder, "server-examples")
    os.makedirs(work)
    shutil.copy(os.path.join(SAMPLES, "correct.glsl"), os.path.join(work, "my_kernel.glsl"))
    bindir = os.path.join(lab.folder, "bin")
    os.makedirs(bindir, exist_ok=True)
    wrapper = os.path.join(bindir, "butterfly-admin")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec "%s" --database "sqlite:%s" "$@"\n' % (ADMIN, lab.db))
    os.chmod(wrapper, stat.S_IRWXU)
    # the server's own start: its options as written, on loopback and a free port
    starts = [c for c in cmds if c.startswith("butterfly-server ")]
    assert starts, cmds
    for c in starts:
        args = c.split()[1:]
        args = ["127.0.0.1" if a == "0.0.0.0" else a for a in args]
        srv = Server(SERVER, "--workers", "1", *args, env={
            "BUTTERFLY_DATABASE": "sqlite:" + os.path.join(lab.folder, "example.sqlite")})
        banner = "".join(srv.read_banner())
        srv.stop()
        if "--public-url" in args:
            url = args[args.index("--public-url") + 1]
            assert "page: %s/" % url in banner, banner
    env = clean_env(PATH=bindir + os.pathsep + os.environ["PATH"], TOKEN=lab.token)
    got = run_examples([c for c in cmds if not c.startswith("butterfly-server ")], work, env,
                       [("http://127.0.0.1:8080", lab.base)])
    for c, rc, out, err in got:
        assert rc == 0, (c, rc, out, err)
    verdict = json.loads(got[0][2])
    assert verdict["status"]["description"] == "Accepted", got[0]
    me = [out for c, _, out, _ in got if c.endswith("/api/me")][0]
    assert json.loads(me)["pending"]["id"] == "s042", me
    signed = json.loads(got[-1][2])
    assert signed["kind"] == "student" and signed["name"] == "Zo\u00eb Quinn", got[-1]
    with open(os.path.join(work, "gradebook.csv")) as f:
        assert f.readline().startswith("id,verdict,score"), "the gradebook example's file"
    return "%d commands (and %d starts)" % (len(got), len(starts))


def t_admin_man_examples(lab):
    cmds = examples("butterfly-admin.1")
    assert len(cmds) >= 5, cmds
    work = os.path.join(lab.folder, "admin-examples")
    os.makedirs(os.path.join(work, "backups"))
    # the roster again, with a student who joined since: the one link printed
    with open(os.path.join(work, "roster.csv"), "w") as f:
        f.write("id,name,section\ns042,Zo\u00eb Quinn,A\ns043,Ada Byron,B\ns044,Lin Wu,B\n")
    env = clean_env(PATH=os.path.join(lab.folder, "bin") + os.pathsep + os.environ["PATH"])
    got = run_examples(cmds, work, env, [("/var/backups/", "backups/")])
    for c, rc, out, err in got:
        assert rc == 0, (c, rc, out, err)
    with open(os.path.join(work, "s042.json")) as f:
        assert json.load(f)["student"]["id"] == "s042"
    with open(os.path.join(work, "links.csv"), "rb") as f:
        assert b"https://lab.example.org/?k=" in f.read()
    assert len(os.listdir(os.path.join(work, "backups"))) == 1
    return "%d commands" % len(got)


def program_dir(tmp, name, binary):
    """A folder whose only program is `name`, exec'ing binary: the page's
    commands run as written."""
    bindir = os.path.join(tmp, "bin-" + name)
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec "%s" "$@"\n' % binary)
    os.chmod(path, stat.S_IRWXU)
    return bindir


def class_inputs(work):
    """Two students as each example's input: a folder, a CSV export, its
    zip, and Canvas's gradebook export as the roster."""
    os.makedirs(os.path.join(work, "submissions"))
    bodies = {"s042": "correct.glsl", "s043": "wrong_twiddle_sign.glsl"}
    rows = [("id", "source")]
    for sid, name in bodies.items():
        shutil.copy(os.path.join(SAMPLES, name), os.path.join(work, "submissions", sid + ".glsl"))
        with open(os.path.join(SAMPLES, name)) as f:
            rows.append((sid, f.read()))
    with open(os.path.join(work, "export.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    with zipfile.ZipFile(os.path.join(work, "export.zip"), "w") as z:
        z.write(os.path.join(work, "export.csv"), "export.csv")
    with open(os.path.join(work, "canvas.csv"), "w") as f:
        f.write("Student,ID,SIS User ID,SIS Login ID,Section,Butterfly (1)\n"
                "    Points Possible,,,,,9\nZoe Quinn,s042,,,A,\nAda Byron,s043,,,A,\n")
    shutil.copy(os.path.join(SAMPLES, "correct.glsl"), os.path.join(work, "my_kernel.glsl"))


def t_batch_man_examples(lab):
    cmds = examples("butterfly-batch.1")
    work = os.path.join(lab.folder, "batch-examples")
    class_inputs(work)
    env = clean_env(PATH=program_dir(lab.folder, "butterfly-batch", BATCH) + os.pathsep
                    + os.environ["PATH"])
    got = run_examples(cmds, work, env, [])
    for c, rc, out, err in got:
        assert rc == 0, (c, rc, out, err[-600:])
    for f in ("results/gradebook.csv", "results/gradebook-canvas.csv",
              "results/gradebook-moodle.csv", "regrade/summary.json"):
        assert os.path.exists(os.path.join(work, f)), f
    with open(os.path.join(work, "regrade", "summary.json")) as f:
        assert "4817" in f.read(), "--seed 4817 is not the regrade's seed"
    return "%d commands" % len(got)


def t_grade_man_examples(lab):
    cmds = examples("butterfly-grade.1")
    work = os.path.join(lab.folder, "grade-examples")
    os.makedirs(work)
    shutil.copy(os.path.join(SAMPLES, "correct.glsl"), os.path.join(work, "my_kernel.glsl"))
    # --check-exercise's example reads a source tree's exercises/ folder
    shutil.copytree(os.path.join(ROOT, "exercises"), os.path.join(work, "exercises"))
    env = clean_env(PATH=program_dir(lab.folder, "butterfly-grade", GRADE) + os.pathsep
                    + os.environ["PATH"])
    got = run_examples(cmds, work, env, [])
    for c, rc, out, err in got:
        said = "solutions as expected" if "--check-exercise" in c else "Accepted"
        assert rc == 0 and said in out, (c, rc, out[-300:], err[-300:])
    assert json.loads([o for c, _, o, _ in got if "--json" in c][0])["status"]["id"] == 3
    return "%d commands" % len(got)


def t_readme_runbook(_lab):
    """The README's instructor's runbook: ten steps, each part the issue
    names, every command shown with what it printed."""
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    book = re.search(r"^### A lab in ten steps\n(.*?)(?=^### )", readme, re.S | re.M).group(1)
    steps = re.findall(r"^\*\*(\d+)\. ", book, re.M)
    assert steps == [str(i) for i in range(1, 11)], steps
    for part in ("build/grader/butterfly-admin class import", "butterfly-admin links",
                 "--bind 0.0.0.0", "--public-url", "NAT", "--per-client-queue",
                 "class view", "gradebook", "butterfly-admin export", "butterfly-admin forget",
                 "butterfly-admin backup", "build/server/butterfly-server"):
        assert part in book, part
    commands = re.findall(r"^    \$ (.*)\n(?!    \$|\n)", book, re.M)
    assert len(commands) >= 10, commands


def t_install_lists_name_every_program(_lab):
    programs = []
    for mb in ("grader/meson.build", "server/meson.build"):
        with open(os.path.join(ROOT, mb)) as f:
            text = f.read()
        for name, body in re.findall(r"executable\('([\w-]+)',(.*?)\)\n", text, re.S):
            if "install : true" in body and "libexecdir" not in body:
                programs.append(name)
    assert len(programs) >= 4, programs
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    para = re.search(r"^installs `bin/.*?\n\n", readme, re.S | re.M).group(0)
    with open(os.path.join(ROOT, "docs", "DEPLOY.md")) as f:
        table = re.search(r"^\| installed \|.*?\n\n", f.read(), re.S | re.M).group(0)
    for p in programs:
        assert "bin/" + p in para, (p, "README's install list")
        assert "`%s`" % p in table and "`%s(1)`" % p in table, (p, "DEPLOY.md's table")
    return ", ".join(programs)


def main():
    checks = Checks()
    tmp = tempfile.mkdtemp(prefix="test_admin_server.")
    lab = None
    try:
        lab = Lab(tmp)
        checks.run("links and token use the running server", t_links_use_the_running_server, lab)
        checks.run("links' CSV has LF line ends only", t_links_csv_has_no_cr, lab)
        checks.run("a token with a trailing CR signs in", t_token_with_trailing_cr_signs_in, lab)
        checks.run("a wildcard address is refused", t_wildcard_address_refused, tmp)
        checks.run("no server yet: the default, said", t_no_server_yet_says_default, tmp)
        checks.run("open lab: one name twice is two names", t_open_lab_names_told_apart, tmp)
        checks.run("a roster lab keeps Canvas and Moodle", t_a_roster_lab_keeps_the_lms_files, lab)
        checks.run("butterfly-server.1's examples run", t_server_man_examples, lab)
        checks.run("butterfly-admin.1's examples run", t_admin_man_examples, lab)
        checks.run("butterfly-batch.1's examples run", t_batch_man_examples, lab)
        checks.run("butterfly-grade.1's examples run", t_grade_man_examples, lab)
        checks.run("the README's runbook: ten steps", t_readme_runbook, lab)
        checks.run("the install lists name every program", t_install_lists_name_every_program,
                   lab)
    finally:
        if lab:
            lab.srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

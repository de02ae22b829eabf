#!/usr/bin/env python3
"""test_admin.py - butterfly-admin on a SQLite store in a temporary folder,
and its manual page against --help.

usage: test_admin.py BUTTERFLY_ADMIN SOURCE_ROOT

What an instructor checks: the roster's students are there with their
emails; every link is PUBLIC_URL/?k=TOKEN with 256 random bits, only the
token's SHA-256 is stored, and a renewed link ends the old one; a new
instructor token ends the old one; the backup is a store with the rows;
an export holds every record of the student and nobody else's; forget
and purge delete what they say and nothing more; the store is found
where --database, --state-dir and the environment say.
"""
import csv
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from manpage import section  # noqa: E402

ADMIN = sys.argv[1]
ROOT = sys.argv[2]
MAN = os.path.join(ROOT, "docs", "man", "butterfly-admin.1")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def run(*args, env=None, code=0):
    e = dict(os.environ)
    for k in ("BUTTERFLY_DATABASE", "BUTTERFLY_STATE_DIR", "STATE_DIRECTORY",
              "BUTTERFLY_PUBLIC_URL", "XDG_STATE_HOME"):
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run([ADMIN] + list(args), capture_output=True, text=True, env=e,
                       errors="backslashreplace")
    check(p.returncode == code, "%s: exit %d, not %d: %s" % (" ".join(args), p.returncode, code,
                                                             p.stderr))
    return p


def sha(s):
    return hashlib.sha256(s.encode()).hexdigest()


def add_record(db, rid, student, received_ms):
    """A record as the server writes it (schema version 1's columns; later ones keep their defaults)."""
    c = sqlite3.connect(db)
    verdict = json.dumps({"status": {"id": 3, "description": "Accepted"}}).encode()
    c.execute("INSERT INTO records (id, task, student, received_ms, graded_ms, source, "
              "sha256, status, points, max_points, verdict, seed, device, grader_version) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
              (rid, "butterfly", student, received_ms, received_ms + 20, b"void main(){}",
               "0" * 64, 3, 9, 9, verdict, 7, "llvmpipe", "0.1.0"))
    c.commit()
    c.close()


def functional(tmp):
    state = os.path.join(tmp, "state")
    db_url = "sqlite:" + os.path.join(state, "records.sqlite")
    db = db_url[7:]
    D = ["--database", db_url]
    roster = os.path.join(tmp, "roster.csv")
    with open(roster, "w") as f:
        f.write("id;name;section;email\n"
                "s1;Ada Lovelace;A;ada@example.org\n"
                "s2;=HYPERLINK(\"http://x\");B;\n"
                ";No Id;C;\n")
    p = run(*D, "class", "import", roster)
    check("2 students added" in p.stdout and "1 rows without an id" in p.stdout, p.stdout)
    c = sqlite3.connect(db)
    rows = c.execute("SELECT id, name, section, email, verified FROM students ORDER BY id").fetchall()
    c.close()
    check(rows == [("s1", "Ada Lovelace", "A", "ada@example.org", 1),
                   ("s2", '=HYPERLINK("http://x")', "B", "", 1)], rows)

    # an id longer than a session can carry is refused, naming the line;
    # the bounds are written once (defaults.h) and the man page states them
    with open(os.path.join(ROOT, "grader", "common", "defaults.h")) as f:
        text = f.read()
    most = int(re.search(r"#define ROSTER_ID_MAX\s+(\d+)\b", text).group(1))
    name_most = int(re.search(r"#define ROSTER_NAME_MAX\s+(\d+)\b", text).group(1))
    long_roster = os.path.join(tmp, "long.csv")
    with open(long_roster, "w") as f:
        f.write("id,name\nok1,Fine\n" + "x" * (most + 1) + ",Too Long\n")
    p = run(*D, "class", "import", long_roster, code=1)
    check("long.csv:3:" in p.stderr and "at most %d bytes" % most in p.stderr, p.stderr)
    with open(long_roster, "w") as f:
        f.write("id,name\n" + "x" * most + "," + "n" * (name_most + 1) + "\n")
    p = run(*D, "class", "import", long_roster, code=1)
    check("long.csv:2:" in p.stderr and "at most %d bytes" % name_most in p.stderr, p.stderr)
    with open(os.path.join(ROOT, "docs", "man", "butterfly-admin.1")) as f:
        man = f.read()
    check("An id is at most %d" % most in man, "the man page states the id's bound")
    check("name at most %d bytes" % name_most in man, "the man page states the name's bound")
    rosters_refused(tmp, D, db)

    # links: one per student, 256 random bits, only the hash kept
    p = run(*D, "links", "--public-url", "https://lab.example.org/")
    links = list(csv.DictReader(io.StringIO(p.stdout)))
    check([r["id"] for r in links] == ["s1", "s2"], p.stdout)
    check(links[1]["name"].startswith("'="), "a name that is a formula is guarded: %r" % links)
    tokens = {}
    for r in links:
        m = re.fullmatch(r"https://lab\.example\.org/\?k=([0-9a-f]{64})", r["link"])
        check(m, "link %r" % r["link"])
        if m:
            tokens[r["id"]] = m.group(1)
    check(len(set(tokens.values())) == 2, "two different tokens")
    raw = open(db, "rb").read() + (open(db + "-wal", "rb").read()
                                   if os.path.exists(db + "-wal") else b"")
    for t in tokens.values():
        check(t.encode() not in raw, "a token is stored as it is")
    c = sqlite3.connect(db)
    stored = dict(c.execute("SELECT id, token_sha256 FROM students").fetchall())
    c.close()
    check(stored == {k: sha(v) for k, v in tokens.items()}, "the stored hashes")

    # again: nobody is given a second link unasked
    p = run(*D, "links")
    check(p.stdout.strip() == "id,name,link" and "2 students have a link" in p.stderr,
          p.stdout + p.stderr)
    # a re-imported roster keeps the links
    run(*D, "class", "import", roster)
    p = run(*D, "links", "--renew", "s1")
    renewed = list(csv.DictReader(io.StringIO(p.stdout)))
    check(len(renewed) == 1 and renewed[0]["id"] == "s1", p.stdout)
    new = renewed[0]["link"].rsplit("=", 1)[1] if renewed else ""
    check(new and new != tokens.get("s1"), "--renew makes a new token")
    c = sqlite3.connect(db)
    stored = dict(c.execute("SELECT id, token_sha256 FROM students").fetchall())
    c.close()
    check(stored["s1"] == sha(new) and stored["s2"] == sha(tokens["s2"]),
          "--renew replaces one student's token alone")
    run(*D, "links", "--renew", "nobody", code=1)
    p = run(*D, "links", "--all")
    check(len(list(csv.DictReader(io.StringIO(p.stdout)))) == 2, "--all renews all")

    # the instructor's token
    p = run(*D, "token", "--public-url", "http://h:1")
    t1 = re.search(r"class\?token=([0-9a-f]{64})", p.stdout)
    check(t1 and "http://h:1/class?token=" in p.stdout, p.stdout)
    p = run(*D, "token")
    t2 = re.search(r"class\?token=([0-9a-f]{64})", p.stdout)
    c = sqlite3.connect(db)
    inst = c.execute("SELECT token_sha256 FROM instructor").fetchall()
    c.close()
    check(t1 and t2 and inst == [(sha(t2.group(1)),)], "one instructor token, the newest")

    # records: export, forget, purge
    now = int(time.time() * 1000)
    day = 86400000
    add_record(db, "a" * 32, "s1", now - 1000)
    add_record(db, "b" * 32, "s1", now - 10 * day)
    add_record(db, "c" * 32, "s2", now - 1000)
    add_record(db, "d" * 32, None, now - 10 * day)
    p = run(*D, "export", "s1")
    j = json.loads(p.stdout)
    check(j["student"]["email"] == "ada@example.org", j.get("student"))
    check([r["id"] for r in j["records"]] == ["b" * 32, "a" * 32], "export: s1's, oldest first")
    check(j["records"][0]["verdict"]["status"]["id"] == 3
          and j["records"][0]["source"] == "void main(){}", j["records"][0])
    run(*D, "export", "nobody", code=1)

    backup = os.path.join(tmp, "backup.sqlite")
    run(*D, "backup", backup)
    c = sqlite3.connect(backup)
    check(c.execute("SELECT count(*) FROM records").fetchone()[0] == 4, "the backup's records")
    c.close()
    check(os.stat(backup).st_mode & 0o077 == 0, "the backup is the owner's only")
    run(*D, "backup", backup, code=1)   # never over a file

    p = run(*D, "purge", "--retention-days", "7")
    check("2 records older than 7 days" in p.stdout, p.stdout)
    p = run(*D, "forget", "s1")
    check("1 records deleted" in p.stdout, p.stdout)
    c = sqlite3.connect(db)
    left = c.execute("SELECT id, student FROM records").fetchall()
    students = [r[0] for r in c.execute("SELECT id FROM students")]
    c.close()
    check(left == [("c" * 32, "s2")] and students == ["s2"], (left, students))
    run(*D, "forget", "s1", code=1)
    escaped_output(tmp, D, db)

    # where the store is: --database, --state-dir, the environment
    for args, env, where in [
        (["--state-dir", os.path.join(tmp, "opt")], {}, "opt"),
        ([], {"BUTTERFLY_STATE_DIR": os.path.join(tmp, "env")}, "env"),
        ([], {"STATE_DIRECTORY": os.path.join(tmp, "sd") + ":/elsewhere"}, "sd"),
        ([], {"XDG_STATE_HOME": os.path.join(tmp, "xdg")}, "xdg/butterfly-grader"),
        ([], {"HOME": os.path.join(tmp, "home")}, "home/.local/state/butterfly-grader"),
        ([], {"BUTTERFLY_DATABASE": "sqlite:" + os.path.join(tmp, "db", "x.sqlite")}, None),
    ]:
        run(*args, "token", env=env)
        path = os.path.join(tmp, "db", "x.sqlite") if where is None else \
            os.path.join(tmp, where, "records.sqlite")
        check(os.path.exists(path), "the store at %s" % path)
        if where:
            check(os.stat(os.path.dirname(path)).st_mode & 0o077 == 0, "state folder mode")

    # bad command lines
    for args in (["nothing"], ["class", "import"], ["links", "--renew", "a", "--all"],
                 ["purge"], ["purge", "--retention-days", "0"], ["token", "--all"],
                 ["--public-url", "ftp://x", "token"], []):
        run(*D, *args, code=64)
    run("--database", "none", "token", code=64)
    run("--database", "mysql://x", "token", code=1)


def students(db):
    c = sqlite3.connect(db)
    c.text_factory = bytes
    rows = c.execute("SELECT id, name FROM students ORDER BY id").fetchall()
    c.close()
    return rows


def rosters_refused(tmp, D, db):
    """What a roster must be (issue 29, item 7): each bad one is refused
    whole, naming its line and the reason; the class stays as it was."""
    before = students(db)
    cases = [
        ("latin1", b"id,name\nl1,Lea\nl2,Ren\xe9e\n", ["latin1.csv:3:", "not UTF-8"]),
        ("utf16", "id,name\nu1,Zo\u00eb\nu2,Al\n".encode("utf-16"), ["UTF-16"]),
        ("duplicate", b"id,name\nd1,First\nd2,Other\nd1,Second\n",
         ["duplicate.csv:4:", '"d1" is on line 2 too']),
        ("escape", b"id,name\ne1,\x1b[31mRED\x1b]0;owned\x07\n",
         ["escape.csv:2:", "control character", "%1B[31mRED"]),
        ("tab", b"id;name\nt1;A\tB\n", ["tab.csv:2:", "control character"]),
        ("hyperlink", b'id,name\nh0,Fine\n"=HYPERLINK(""http://x"")",F\n',
         ["hyperlink.csv:3:", "spreadsheet would run"]),
        ("sum", b"id,name\n-3+4,G\n", ["sum.csv:2:", '"-3+4"', "spreadsheet would run"]),
        ("at", b"id,name\n@cmd,G\n", ["at.csv:2:", "spreadsheet would run"]),
    ]
    for name, data, words in cases:
        path = os.path.join(tmp, name + ".csv")
        with open(path, "wb") as f:
            f.write(data)
        p = run(*D, "class", "import", path, code=1)
        for w in words:
            check(w in p.stderr, "%s: %r not in %r" % (name, w, p.stderr))
        check("nothing was imported" in p.stderr and "\x1b" not in p.stderr + p.stdout,
              "%s: %r" % (name, p.stderr))
        check(students(db) == before, "%s: the class changed: %r" % (name, students(db)))
    # a number is no formula, and a UTF-8 byte-order mark is read past
    path = os.path.join(tmp, "fine.csv")
    with open(path, "wb") as f:
        f.write(b"\xef\xbb\xbfid,name\n-5,Minus Five\nb\xc3\xa9,Zo\xc3\xab\n")
    p = run(*D, "class", "import", path)
    check("2 students added" in p.stdout and "ID column" in p.stdout, p.stdout + p.stderr)
    check(set(students(db)) - set(before) == {(b"-5", b"Minus Five"),
                                              ("b\u00e9".encode(), "Zo\u00eb".encode())},
          students(db))
    run(*D, "forget", "--", "-5")
    run(*D, "forget", "b\u00e9")

    # one transaction: a row the store refuses (here a trigger stands in
    # for any failure) leaves none of the rows before it
    c = sqlite3.connect(db)
    c.execute("CREATE TRIGGER refuse_bad BEFORE INSERT ON students WHEN NEW.id = 'bad' "
              "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    c.commit()
    c.close()
    path = os.path.join(tmp, "half.csv")
    with open(path, "w") as f:
        f.write("id,name\nh1,One\nh2,Two\nbad,Three\nh4,Four\n")
    p = run(*D, "class", "import", path, code=1)
    check("half.csv:4" in p.stderr and "refused by the test" in p.stderr
          and "nothing was imported" in p.stderr, p.stderr)
    check(students(db) == before, "half imported: %r" % students(db))
    c = sqlite3.connect(db)
    c.execute("DROP TRIGGER refuse_bad")
    c.commit()
    c.close()


def escaped_output(tmp, D, db):
    """A store written before rosters were checked (or by hand) holds a
    name with escape codes: links, forget and export show them escaped."""
    c = sqlite3.connect(db)
    c.execute("INSERT INTO students (id, name, section, email, verified, created_ms) "
              "VALUES (?, ?, '', '', 1, 0)", ("x\x1b[2J", "\x1b]0;owned\x07\x1b[31mRed"))
    c.commit()
    c.close()
    p = run(*D, "links", "--renew", "x\x1b[2J")
    check("\x1b" not in p.stdout and "\x07" not in p.stdout, repr(p.stdout))
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    check(len(rows) == 1 and rows[0]["id"] == "x%1B[2J"
          and rows[0]["name"] == "%1B]0;owned%07%1B[31mRed", rows)
    p = run(*D, "export", "x\x1b[2J")
    check("\x1b" not in p.stdout and "\\u001b" in p.stdout.lower(), repr(p.stdout))
    p = run(*D, "forget", "x\x1b[2J")
    check("\x1b" not in p.stdout and "x%1B[2J" in p.stdout, repr(p.stdout))
    p = run(*D, "forget", "x\x1b[2J", code=1)
    check("\x1b" not in p.stderr, repr(p.stderr))


def docs():
    help_text = run("--help").stdout
    with open(MAN) as f:
        src = f.read()
    options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b", help_text)))
    check(len(options) >= 8, "too few options in --help: %r" % options)
    opts = section(src, "OPTIONS")
    for o in options:
        check(re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", opts),
              "the manual page's OPTIONS lack %s" % o)
    commands = section(src, "COMMANDS")
    for cmd in re.findall(r"^  ([a-z]+(?: import)?)\b", help_text, re.M):
        check(re.search(r"(?m)^\"?" + re.escape(cmd) + r"\b", commands),
              "the manual page's COMMANDS lack %s" % cmd)
    # and each of lti's commands (lti rotate-key, lti registration-url)
    for sub in re.findall(r"^  lti ([a-z-]+)", help_text, re.M):
        check("lti " + sub in commands,
              "the manual page's COMMANDS lack lti %s" % sub)
    for n in re.findall(r"\(1 to (\d+)\)", help_text):
        check(n in src, "the manual page does not state %s" % n)
    for var in re.findall(r"env ([A-Z_]+)", help_text):
        check(var in section(src, "ENVIRONMENT"), "ENVIRONMENT lacks %s" % var)
    status = section(src, "EXIT STATUS")
    for code in re.findall(r"\b(\d+) (?:done|failed|usage)", help_text):
        check(re.search(r"(?m)^" + code + r"\b", status), "exit status %s" % code)
    v = run("--version").stdout
    check(re.fullmatch(r"butterfly-admin \d+\.\d+\.\d+\n", v), v)
    groff = shutil.which("groff")
    if groff:
        p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", MAN], capture_output=True,
                           text=True)
        check(p.returncode == 0 and not p.stderr.strip(), "groff: " + p.stderr)


def main():
    tmp = tempfile.mkdtemp(prefix="test_admin.")
    try:
        functional(tmp)
        docs()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

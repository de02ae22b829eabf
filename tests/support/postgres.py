"""A PostgreSQL cluster of a test's own: initdb in a temporary folder,
listening on a free loopback port only, stopped and removed at the end.

PostgreSQL refuses to run as root, and CI runs as root: then the cluster
belongs to `nobody` and every server command runs through runuser. The
cluster is for tests: fsync is off unless asked for, authentication is `trust` (the URL
carries a password that is never checked, so that tests can see it is
hidden in what the programs print).

    with Cluster() as pg:
        pg.url          # postgresql://butterfly:secret@127.0.0.1:PORT/butterfly
        pg.stop(); pg.start()

Run as a program: `postgres.py [--fsync] -- CMD ARGS...` runs CMD with every @URL@
in ARGS replaced by the URL (--fsync: a durable cluster, for benchmarks),
and STORE_TEST_PG_STOP / STORE_TEST_PG_START
set to shell commands that stop and start the cluster. Exits 77 (skipped)
when PostgreSQL's server programs are not installed.
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile

SKIP = 77


def server_bindir():
    """The newest installed PostgreSQL's server programs, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, db="butterfly", fsync=False):
        self.fsync = fsync
        self.bindir = server_bindir()
        if not self.bindir:
            raise FileNotFoundError("no PostgreSQL server (Debian: postgresql)")
        self.db = db
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="butterfly-pg.")
        self.data = os.path.join(self.dir, "data")
        self.as_user = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
            self.as_user = ["runuser", "-u", "nobody", "--"]
        self.url = "postgresql://butterfly:secret@127.0.0.1:%d/%s" % (self.port, db)

    def cmd(self, prog, *args):
        return self.as_user + [os.path.join(self.bindir, prog)] + list(args)

    def _pg_ctl(self, action):
        return self.cmd("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"),
                        "-w", "-t", "60", "-m", "fast",
                        "-o", "-p %d -k %s -c listen_addresses=127.0.0.1 %s"
                        % (self.port, self.dir,
                           "" if self.fsync else "-c fsync=off -c full_page_writes=off"),
                        action)

    # Every server command runs in the cluster's folder: PostgreSQL's
    # programs refuse to start in a working folder their user cannot read
    # (a checkout under /root, as nobody).
    def start(self):
        subprocess.run(self._pg_ctl("start"), check=True, stdout=subprocess.DEVNULL, cwd=self.dir)

    def stop(self):
        subprocess.run(self._pg_ctl("stop"), check=True, stdout=subprocess.DEVNULL, cwd=self.dir)

    def __enter__(self):
        subprocess.run(self.cmd("initdb", "-D", self.data, "-A", "trust", "-U", "butterfly",
                                "--no-sync", "-E", "UTF8"),
                       check=True, stdout=subprocess.DEVNULL, cwd=self.dir)
        self.start()
        subprocess.run(self.cmd("createdb", "-h", "127.0.0.1", "-p", str(self.port),
                                "-U", "butterfly", self.db), check=True, cwd=self.dir)
        return self

    def __exit__(self, *exc):
        try:
            subprocess.run(self._pg_ctl("stop"), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, cwd=self.dir)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def main(argv):
    if "--" not in argv:
        print("usage: postgres.py -- CMD ARGS... (@URL@ is the cluster's URL)", file=sys.stderr)
        return 64
    cmd = argv[argv.index("--") + 1:]
    try:
        cluster = Cluster(fsync="--fsync" in argv[:argv.index("--")])
    except FileNotFoundError as e:
        print("skipped: %s" % e)
        return SKIP
    with cluster as pg:
        cd = "cd '%s' && " % pg.dir
        env = dict(os.environ,
                   STORE_TEST_PG_STOP=cd + " ".join("'%s'" % a for a in pg._pg_ctl("stop")),
                   STORE_TEST_PG_START=cd + " ".join("'%s'" % a for a in pg._pg_ctl("start")))
        return subprocess.run([a.replace("@URL@", pg.url) for a in cmd], env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))

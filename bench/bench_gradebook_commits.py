#!/usr/bin/env python3
"""bench_gradebook_commits: how long a submission's answer waits behind a
gradebook download (issue 30, defect 1).

usage: bench_gradebook_commits.py SERVER_BINARY [--before OLD_BINARY]
                                  [--records N] [--submissions N]

A class of 1,000 students with N records (20,000) written straight into
a fresh SQLite store, real verdicts copied from real gradings. Then, on
2 workers, the same kernel is submitted one after another while an
instructor downloads /api/class/gradebook again and again (until 5
downloads are done, at least S submissions: 40), then as many times
again with nothing else going on. An answer waits for its record's
commit, so the difference is what the download costs a student: printed
as the answers' p50, p99 and max in each phase and the extra wait (with
download minus without) at each, with the downloads' own times. Target:
the extra wait at the max under 50 ms. --before runs an older build the
same way first, each on a store of its own, so that both figures come
from the same machine in the same run.
"""
import http.client
import json
import os
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "http"))
sys.path.insert(0, HERE)
from serverproc import Server, no_guest_budget  # noqa: E402
from bench_class_view import body, call, make_class, pct, token_of, SUBMIT  # noqa: E402


def answers(port, n, src):
    """n submissions one after another: each answer's seconds."""
    out = []
    for _ in range(n):
        t = time.perf_counter()
        st, _, data = call(port, "POST", SUBMIT, src, {"Content-Type": "text/plain"})
        out.append(time.perf_counter() - t)
        assert st == 200, (st, data[:200])
        assert json.loads(data).get("recorded") is True, data[:200]
    return out


def run(binary, folder, n_records, n_subs):
    db = os.path.join(folder, "class-%d.sqlite" % len(os.listdir(folder)))
    make_class(binary, db, 1000, n_records)
    srv = Server(binary, "--workers", "2", "--database", "sqlite:" + db,
                 *no_guest_budget(binary))
    token = token_of(srv)
    bearer = {"Authorization": "Bearer " + token}
    while call(srv.port, "GET", "/api/class/summary", headers=bearer)[0] == 503:
        time.sleep(0.05)
    src = body(False)
    answers(srv.port, 5, src)                     # the kernel compiled, the pool warm
    stop = threading.Event()
    downloads = []

    def download():
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
        while not stop.is_set():
            t = time.perf_counter()
            conn.request("GET", "/api/class/gradebook?layout=default", headers=bearer)
            r = conn.getresponse()
            r.read()
            assert r.status == 200, r.status
            downloads.append(time.perf_counter() - t)
        conn.close()

    th = threading.Thread(target=download)
    th.start()
    time.sleep(0.2)                                # the first download under way
    # submissions go on until 5 downloads are done (at least n_subs of
    # them), so that every answer in this phase had a download beside it
    busy = []
    deadline = time.time() + 300
    while (len(downloads) < 5 or len(busy) < n_subs) and time.time() < deadline:
        busy += answers(srv.port, 1, src)
    stop.set()
    th.join()
    # as many again with no download, so that both maxima are of as many
    quiet = answers(srv.port, len(busy), src)
    srv.stop()
    return quiet, busy, downloads


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    n_records = int(argv[argv.index("--records") + 1]) if "--records" in argv else 20000
    n_subs = int(argv[argv.index("--submissions") + 1]) if "--submissions" in argv else 40
    builds = [("this build", argv[1])]
    if "--before" in argv:
        builds.insert(0, ("build before", argv[argv.index("--before") + 1]))
    print("a submission's answer, alone and during gradebook downloads: 1,000 students, "
          "%d records (SQLite), at least %d submissions during downloads and as many "
          "without, 2 workers" % (n_records, n_subs))
    with tempfile.TemporaryDirectory() as folder:
        for name, binary in builds:
            quiet, busy, dl = run(binary, folder, n_records, n_subs)
            q = [pct(quiet, p) * 1000 for p in (50, 99, 100)]
            b = [pct(busy, p) * 1000 for p in (50, 99, 100)]
            extra = b[2] - q[2]
            print("  %-12s: answer alone p50 %.0f ms, p99 %.0f ms, max %.0f ms; during "
                  "downloads (%d answers) p50 %.0f ms, p99 %.0f ms, max %.0f ms" % (
                      name, *q, len(busy), *b))
            print("  %-12s  extra wait p50 %+.0f ms, p99 %+.0f ms, max %+.0f ms "
                  "[target max < 50 ms: %s]; %d downloads, median %.0f ms" % (
                      "", b[0] - q[0], b[1] - q[1], extra,
                      "met" if extra < 50 else "NOT met", len(dl), pct(dl, 50) * 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

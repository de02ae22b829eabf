#!/usr/bin/env python3
"""The server's start: seconds from its spawn to its "listening" line, with
every exercise checked on load (issue 33), and what the check itself took
(the server's own "N exercises checked on load in M ms" line on standard
error), so the start without the check reads as the difference. With
--before OLD_BINARY, a build from before the check starts in the same
rounds, alternately: the start without any check, measured.

usage: bench_start.py SERVER_BINARY [--before OLD_BINARY] [--rounds N] [--workers N]
   e.g. /usr/bin/python3 bench/bench_start.py build/server/butterfly-server
"""
import argparse
import os
import re
import select
import signal
import statistics
import subprocess
import time

CHECKED = re.compile(rb"(\d+) exercises? checked on load in (\d+) ms")
START_BOUND_S = 60      # a start slower than this is a failure, not a figure


def start_once(binary, workers):
    """(seconds to the listening line, the check's ms or None)."""
    env = dict(os.environ, BUTTERFLY_QUIET="1", BUTTERFLY_DATABASE="none")
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "--port", "0", "--workers", str(workers)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, bufsize=0)
    try:
        ready, _, _ = select.select([p.stdout], [], [], START_BOUND_S)
        if not ready:
            raise RuntimeError("%s did not start in %d s" % (binary, START_BOUND_S))
        line = p.stdout.readline()
        took = time.monotonic() - t0
        if b"listening on " not in line:
            raise RuntimeError("%s failed: %r %r" % (binary, line, p.stderr.read()))
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
    m = CHECKED.search(err or b"")
    return took, (int(m.group(2)) if m else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--before", help="a server built before the check on load")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    starts, checks, before = [], [], []
    for _ in range(a.rounds):
        took, check_ms = start_once(a.binary, a.workers)
        starts.append(took)
        if check_ms is not None:
            checks.append(check_ms / 1000.0)
        if a.before:
            before.append(start_once(a.before, a.workers)[0])
    print("rounds %d, workers %d" % (a.rounds, a.workers))
    print("start to listening, checks on load: median %.3f s (min %.3f, max %.3f)"
          % (statistics.median(starts), min(starts), max(starts)))
    if checks:
        print("the check on load itself:          median %.3f s" % statistics.median(checks))
        print("start less its check:              median %.3f s"
              % statistics.median(s - c for s, c in zip(starts, checks)))
    if before:
        print("start to listening, no check (--before): median %.3f s (min %.3f, max %.3f)"
              % (statistics.median(before), min(before), max(before)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Edges of the server that only a real process shows (issue 12):

- a FIFO (or any file that is not regular) in the static folder is skipped
  with a warning, instead of hanging start-up forever;
- libmicrohttpd's own answers (431 for huge headers) are logged and
  counted with their status, not as 0;
- the access log escapes what a client could use to steer the operator's
  terminal: escape sequences, CR, BS, C1 and bidi controls.

usage: test_server_edges.py SERVER_BINARY
Prints one line per check and ends with "N passed, M failed".
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import Checks, Server, metrics, request  # noqa: E402

BINARY = sys.argv[1]
STATIC = os.path.join(HERE, "..", "..", "static")


def raw(port, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def stop_and_read_log(srv):
    """Stops the server and returns what it wrote to stderr."""
    srv.proc.send_signal(15)
    _, err = srv.proc.communicate(timeout=30)
    return err


def t_fifo_in_static_folder_is_skipped():
    d = tempfile.mkdtemp()
    try:
        for name in os.listdir(STATIC):
            src = os.path.join(STATIC, name)
            if os.path.isfile(src):
                shutil.copy(src, d)
        os.mkfifo(os.path.join(d, "trap.json"))
        t0 = time.time()
        srv = Server(BINARY, "--workers", "1", "--static-dir", d, env={"BUTTERFLY_QUIET": "1"})
        started = time.time() - t0
        try:
            assert request(srv.port, "GET", "/")[0] == 200
            assert request(srv.port, "GET", "/static/trap.json")[0] == 404
        finally:
            err = stop_and_read_log(srv).decode(errors="replace")
        assert "skipping trap.json" in err, err[-500:]
        return "started in %.1f s past a FIFO; it is not served" % started
    finally:
        shutil.rmtree(d)


def t_own_4xx_logged_and_counted():
    srv = Server(BINARY, "--workers", "1", env={"BUTTERFLY_QUIET": "0"})
    try:
        before = metrics(srv.port).get('butterfly_http_responses_total{code="431"}', 0)
        answer = raw(srv.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 +
                     b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 431"), answer[:80]
        time.sleep(0.2)
        after = metrics(srv.port).get('butterfly_http_responses_total{code="431"}', 0)
        assert after == before + 1, (before, after)
    finally:
        err = stop_and_read_log(srv).decode(errors="replace")
    # the access log's line: a UTC time, then the fields
    lines = [ln for ln in err.splitlines() if re.match(r"\d{4}-\d\d-\d\dT\S+Z .* 431 ", ln)]
    assert lines, err[-500:]
    assert not [ln for ln in err.splitlines() if " GET / 0 " in ln], err[-500:]
    return lines[0]


def t_access_log_escapes_terminal_controls():
    srv = Server(BINARY, "--workers", "1", env={"BUTTERFLY_QUIET": "0"})
    try:
        # raw UTF-8 of U+202E (right-to-left override) and U+0085 (a C1
        # control) in the path, and an escape sequence in the query's place
        raw(srv.port, b"GET /\xe2\x80\xae/\xc2\x85\x1b[2J HTTP/1.1\r\nHost: x\r\n\r\n")
        raw(srv.port, b"GET /x\rEVIL HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.2)
    finally:
        err = stop_and_read_log(srv)
    for bad in (b"\x1b", b"\xe2\x80\xae", b"\xc2\x85", b"\r", b"\x08"):
        assert bad not in err, (bad, err[-500:])
    assert b"\\xe2\\x80\\xae" in err, err[-500:]
    return "controls written as \\xHH"


def main():
    checks = Checks()
    for name, fn in [(n, f) for n, f in globals().items() if n.startswith("t_")]:
        checks.run(name, fn)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

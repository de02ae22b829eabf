#!/usr/bin/env python3
"""Two instances, one class: two butterfly-servers on one PostgreSQL
store (a cluster of the test's own, tests/support/postgres.py) behind
deploy/nginx.conf in a real nginx. A class view connects through nginx
and lands on one instance; a submission graded by the other reaches it
(LISTEN/NOTIFY), and the events pass through nginx unbuffered.

usage: test_class_scaleout.py SERVER_BINARY SAMPLES_DIR SOURCE_ROOT

Exits 77 (skipped) without PostgreSQL's server programs or nginx.
"""
import http.client
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
sys.path.insert(0, os.path.join(HERE, "..", "deploy"))  # nginxproc
from common import Checks  # noqa: E402
from nginxproc import NGINX, Nginx  # noqa: E402
from postgres import SKIP, Cluster, server_bindir  # noqa: E402
from serverproc import Server  # noqa: E402
from sse import Stream  # noqa: E402

BINARY, SAMPLES, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
SUBMIT = "/api/tasks/butterfly/submissions"
PAGE = {"X-Requested-With": "butterfly"}


def call(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    conn.close()
    return r.status, hdrs, data


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f:
        return f.read()


def main():
    if not server_bindir() or not os.access(NGINX, os.X_OK):
        print("skipped: needs PostgreSQL's server programs and nginx")
        return SKIP
    checks = Checks()
    with tempfile.TemporaryDirectory() as tmp, Cluster() as pg:
        first = Server(BINARY, "--workers", "1", "--database", pg.url,
                       "--trusted-proxy", "127.0.0.1", "--per-ip-connections", "0",
                       "--heartbeat-s", "2")
        second = Server(BINARY, "--workers", "1", "--database", pg.url,
                        "--trusted-proxy", "127.0.0.1", "--per-ip-connections", "0",
                        "--heartbeat-s", "2")
        token = [m.group(1) for l in first.read_banner()
                 for m in [re.search(r"/class\?token=([0-9a-f]+)", l)] if m]
        second.read_banner()
        nginx_tmp = os.path.join(tmp, "nginx")
        os.mkdir(nginx_tmp)
        nginx = Nginx(ROOT, nginx_tmp, [first.port, second.port])
        bearer = {"Authorization": "Bearer " + token[0]}
        for srv in (first, second):   # the class is read after the start
            deadline = time.time() + 60
            while call(srv.port, "GET", "/api/class/summary", headers=bearer)[0] == 503 and \
                    time.time() < deadline:
                time.sleep(0.05)

        def streams(srv):
            _, _, data = call(srv.port, "GET", "/api/class/summary", headers=bearer)
            return json.loads(data)["streams"]

        def t_event_through_nginx_from_the_other_instance():
            assert token, "the first instance printed no instructor token"
            view = Stream(nginx.port, token[0])
            try:
                assert view.status == 200, view.status
                assert view.wait_for(lambda b: b"butterfly class events" in b, 5) is not None, \
                    "the stream's first bytes were held by nginx"
                deadline = time.time() + 5
                while time.time() < deadline and streams(first) + streams(second) == 0:
                    time.sleep(0.05)
                on_first = streams(first) > 0
                other = second if on_first else first
                st, h, _ = call(other.port, "POST", "/api/session",
                                json.dumps({"name": "Ada"}),
                                {"Content-Type": "application/json", **PAGE})
                assert st == 200
                cookie = h["set-cookie"].split(";")[0]
                st, _, data = call(other.port, "POST", SUBMIT, sample("wrong_twiddle_sign.glsl"),
                                   {"Content-Type": "text/plain", "Cookie": cookie, **PAGE})
                v = json.loads(data)
                assert st == 200 and v["recorded"] is True, data
                took = view.wait_for(lambda b: v["id"].encode() in b, 10)
                assert took is not None, view.body[-400:]
                ev = [e for e in view.events() if e[1] == v["id"]][0][2]
                assert ev["tile"]["name"] == "Ada", ev
                # the heartbeat passes too (nothing buffered in between)
                assert view.wait_for(lambda b: b": heartbeat" in b, 6) is not None
                return ("view on the %s instance; the event came %.0f ms after the other's "
                        "answer (0: before it was read)" % ("first" if on_first else "second",
                                                           took * 1000))
            finally:
                view.close()

        def t_replay_on_any_instance():
            """A view that reconnects lands on either instance and gets what
            it missed from the shared store."""
            _, _, data = call(first.port, "GET", "/api/class/students", headers=bearer)
            last = json.loads(data)["last_event_id"]
            st, h, _ = call(first.port, "POST", "/api/session", json.dumps({"name": "Bo"}),
                            {"Content-Type": "application/json", **PAGE})
            cookie = h["set-cookie"].split(";")[0]
            _, _, data = call(first.port, "POST", SUBMIT, sample("correct.glsl"),
                              {"Content-Type": "text/plain", "Cookie": cookie, **PAGE})
            missed = json.loads(data)["id"]
            time.sleep(0.5)   # the other instance hears of it
            for srv in (first, second):
                s = Stream(srv.port, token[0], last_id=last)
                try:
                    assert s.wait_for(lambda b: missed.encode() in b, 5) is not None, (
                        srv.port, s.body[-300:])
                finally:
                    s.close()

        def t_a_new_instance_reads_the_class():
            """A third instance reads the class from PostgreSQL at its start
            (the backend's JSON functions pick out the facts)."""
            third = Server(BINARY, "--workers", "1", "--database", pg.url)
            try:
                deadline = time.time() + 60
                while time.time() < deadline:
                    st, _, data = call(third.port, "GET", "/api/class/students", headers=bearer)
                    if st == 200:
                        break
                    time.sleep(0.1)
                tiles = {t["name"]: t for t in json.loads(data)["students"]}
                assert tiles["Ada"]["mistake_key"] == "mistake:twiddle_sign", tiles["Ada"]
                assert tiles["Bo"]["accepted"] is True, tiles["Bo"]
                _, _, data = call(third.port, "GET", "/api/class/summary", headers=bearer)
                s = json.loads(data)
                assert s["records"] >= 2 and s["halves"][0]["run"] >= 2, s
            finally:
                third.stop()

        try:
            checks.run("event through nginx from the other instance",
                       t_event_through_nginx_from_the_other_instance)
            checks.run("replay on any instance", t_replay_on_any_instance)
            checks.run("a new instance reads the class", t_a_new_instance_reads_the_class)
        finally:
            nginx.stop()
            first.stop()
            second.stop()
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The hostile corpus against the real server.

usage: run_corpus.py SERVER_BINARY [--jobs N] [--only NAME,...] [--results FILE]

Every case in cases.json is a body (stored under bodies/ or generated
here: the big ones would only bloat the repository) with the answer it
must get -- a verdict id and message, or an HTTP refusal -- and a bound on
its wall time. While the corpus runs, a bystander keeps submitting the
correct kernel and must get Accepted every time: a hostile body may cost
its own job, never anyone else's. Afterwards the server must still be up
and healthy, its worker restarts (/metrics) must be exactly one per case
whose verdict says its worker died or was killed, and its open file
descriptors must be back where they started.

Prints one line per check and ends with "N passed, M failed".
"""
import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from common import (HERE, SUBMIT, Checks, Server, about, metrics, post_expect, settled_fds,
                    proc_rss_kib, request, sample, sanitized, strict_json, submit, wait_idle)

DESCRIPTIONS = {3: "Accepted", 4: "Wrong Answer", 5: "Time Limit Exceeded",
                6: "Compilation Error", 7: "Runtime Error (SIGSEGV)",
                10: "Runtime Error (SIGABRT)", 100: "Rejected"}


# --- bodies -----------------------------------------------------------------

def generate(g):
    """The generated bodies, byte for byte the same on every run."""
    kind = g["kind"]
    if kind == "expression_terms":
        return ("float a = spectrum[0][this.thread.x];\nreturn "
                + "+".join(["a"] * g["n"]) + ";\n").encode()
    if kind == "nested_calls":
        n = g["n"]
        return ("return 0.0;\n}\nfloat f(float x) { return x; }\nfloat g(float a) {\nreturn "
                + "f(" * n + "a" + ")" * n + ";\n").encode()
    if kind == "nested_builtin":
        n = g["n"]
        return ("float a = spectrum[0][this.thread.x];\nreturn "
                + "sin(" * n + "a" + ")" * n + ";\n").encode()
    if kind == "nested_parens":
        n = g["n"]
        return ("float a = spectrum[0][this.thread.x];\nreturn "
                + "(" * n + "a" + ")" * n + ";\n").encode()
    if kind == "nested_blocks":
        n = g["n"]
        return ("float a = spectrum[0][this.thread.x];\n" + "{" * n + "a += 1.0;"
                + "}" * n + "\nreturn a;\n").encode()
    if kind == "if_nesting":
        n = g["n"]
        return ("#if 1\n" * n + "return 0.0;\n" + "#endif\n" * n).encode()
    if kind == "helper_calls":
        # a helper with a 15.6 KiB array, called from n places
        return ("float helper(int k);\nfloat s = 0.0;\n"
                + "".join("s += helper(%d);\n" % c for c in range(g["n"]))
                + "return s;\n}\nfloat helper(int k) {\nfloat arr[4000];\narr[k] = 1.0;\n"
                "return arr[3];\n").encode()
    if kind == "before_correct":
        # lines before the correct body, which must then still be graded
        return g["before"].encode() + sample("correct.glsl")
    if kind == "echo_error":
        # #error lines that glslang echoes: each line `line` bytes of
        # `text` repeated, to `bytes` in all (quotes are doubled in JSON)
        line = "#error " + g["text"] * ((g["line"] - 8) // len(g["text"])) + "\n"
        return (line * ((g["bytes"] - 12) // len(line)) + "return 0.0;\n").encode()
    if kind == "control_bytes":
        return ("#error " + "\x1b" * g["n"] + "\nreturn 0.0;\n").encode()
    if kind == "long_identifier":
        return ("float " + "a" * g["n"] + " = 1.0;\nreturn 0.0;\n").encode()
    if kind == "failing_lines":
        # every line an undeclared identifier: glslang reports each one
        # and goes on, so the log and the diagnostics are as long as can be
        out = ["float v = 0.0;\n"]
        size, i = len(out[0]), 0
        while True:
            line = "v += u%d;\n" % i
            if size + len(line) > g["bytes"]:
                break
            out.append(line)
            size += len(line)
            i += 1
        return ("".join(out) + " " * (g["bytes"] - size)).encode()
    if kind == "padded_correct":
        body = sample("correct.glsl") + b"// padding\n"
        return body + b" " * (g["bytes"] - len(body))
    if kind == "garbage":
        rnd = random.Random(g["seed"])
        return bytes(rnd.randrange(256) for _ in range(g["bytes"]))
    if kind == "garbage_utf8":
        rnd = random.Random(g["seed"])
        return bytes(rnd.randrange(128) for _ in range(g["bytes"]))
    if kind == "literal":
        if "bytes_hex" in g:
            return bytes.fromhex(g["bytes_hex"])
        return g["text"].encode()
    raise ValueError("unknown generator " + kind)


def body_of(case):
    if "body" in case:
        with open(os.path.join(HERE, case["body"]), "rb") as f:
            return f.read()
    return generate(case["generate"])


def envelope(case, body):
    """(content type, request body) for the case's way of sending."""
    send = case.get("send", "text")
    if send == "json":
        return "application/json", json.dumps({"source": body.decode()}).encode()
    if send == "json_raw":
        return "application/json", body
    return "text/plain", body


# --- one case ----------------------------------------------------------------

def expectation(case, ctx):
    e = dict(case["expect"])
    if ctx["sanitized"] and "sanitized" in case:
        e.update(case["sanitized"])
    if ctx["device_type"] != "cpu" and "gpu" in case:
        e.update(case["gpu"])
    return e


def costs_a_worker(e):
    """A verdict that means the worker died (a Runtime Error). No case may
    reach the deadline: what is too costly is refused by a bound counted on
    the code, and a deadline hit would be the grader's Internal Error."""
    v = e.get("verdict", 0)
    return 7 <= v <= 12


def run_case(case, ctx):
    e = expectation(case, ctx)
    body = body_of(case)
    ctype, payload = envelope(case, body)
    query = case.get("query", "")
    t0 = time.time()
    if len(payload) > 256 * 1024:
        status, headers, data = post_expect(ctx["port"], SUBMIT + query, ctype, payload, 120)
    else:
        status, headers, data = submit(ctx["port"], payload, ctype, query, timeout=120)
    secs = time.time() - t0
    res = {"name": case["name"], "what": case["what"], "bytes": len(body),
           "http": status, "seconds": round(secs, 3), "verdict": None,
           "restart": costs_a_worker(e)}
    problems = []

    def want(cond, what):
        if not cond:
            problems.append(what)

    want(status == e.get("http", 200), "HTTP %d, wanted %d" % (status, e.get("http", 200)))
    absent = e.get("absent")
    if absent == "@HOSTNAME@":
        absent = ctx["hostname"] if len(ctx["hostname"]) >= 4 else None
    if absent:
        want(absent.encode() not in data, "the answer holds %r" % absent)
    if e.get("http", 200) != 200:
        err = strict_json(data)["error"]
        res["error"] = err["code"]
        want(err["code"] == e["error"], "error %s, wanted %s" % (err["code"], e["error"]))
    elif query == "?format=text":
        want(headers.get("content-type", "").startswith("text/plain"), "not text/plain")
        text = data.decode("utf-8")
        first = text.split("\n", 1)[0]
        verdict = next((k for k, v in DESCRIPTIONS.items() if first == "Verdict: " + v), None)
        res["verdict"] = verdict
        want(verdict == e["verdict"], "report says %r" % first)
        # the body's text must not be able to forge a line of the report
        starts = [ln for ln in text.split("\n") if ln.startswith("Verdict:")]
        want(len(starts) == 1, "%d lines start with 'Verdict:'" % len(starts))
        want(e["text_has"] in text, "report lacks %r" % e["text_has"])
        if "text_max_bytes" in e:
            want(len(data) <= e["text_max_bytes"], "report of %d bytes" % len(data))
    else:
        want(headers.get("content-type") == "application/json", "not application/json")
        v = strict_json(data)
        got = v["status"]["id"]
        res["verdict"] = got
        res["message"] = v["message"]
        tm = v.get("timings_ms") or {}
        res["server_ms"] = tm.get("total")
        res["compile_ms"] = tm.get("compile")
        res["loop"] = v.get("loop") is not None
        want(got == e["verdict"], "verdict %d %r, wanted %d" % (got, v["message"], e["verdict"]))
        want(v["passed"] == (got == 3), "passed is %r" % v["passed"])
        want(isinstance(v["status"]["description"], str), "no description")
        if "message" in e:
            want(e["message"] in (v["message"] or ""), "message %r lacks %r" % (v["message"], e["message"]))
        diags = v["diagnostics"]
        if "diagnostics" in e:
            want(len(diags) == e["diagnostics"], "%d diagnostics" % len(diags))
        if "diagnostic_line" in e:
            want(diags and diags[0]["line"] == e["diagnostic_line"],
                 "first diagnostic %r" % (diags[:1],))
        log = v["compile_log"] or ""
        if "log" in e:
            want(e["log"] in log, "log lacks %r" % e["log"])
        if "log_bytes" in e:
            want(len(log.encode()) == e["log_bytes"], "log of %d bytes" % len(log.encode()))
        if "log_truncated" in e:
            want(v["compile_log_truncated"] == e["log_truncated"], "log_truncated")
        if "halves" in e:
            want(len(v["halves"]) == e["halves"], "%d halves" % len(v["halves"]))
        if "answer_max_bytes" in e:
            want(len(data) <= e["answer_max_bytes"], "answer of %d bytes" % len(data))
            want(all(len(d["message"].encode()) <= 512 for d in diags), "a message over 512 bytes")
    bound = case["max_s"] * ctx["time_factor"]
    want(secs <= bound, "took %.2f s, bound %.1f s" % (secs, bound))
    res["bound_s"] = bound
    res["problems"] = problems
    return res


# --- the bystander -------------------------------------------------------------

class Bystander(threading.Thread):
    """Submits the correct kernel again and again; every answer must be
    Accepted with every cell right."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.stop = threading.Event()
        self.answers = []
        self.wrong = []
        self.body = sample("correct.glsl")

    def run(self):
        k = 0
        while not self.stop.is_set():
            k += 1
            t0 = time.time()
            try:
                status, _, data = submit(self.port, self.body + b"// bystander %d\n" % k,
                                         timeout=60)
                v = strict_json(data)
                ok = (status == 200 and v["status"]["id"] == 3
                      and all(c["passed"] for h in v["halves"] for c in h["cells"]))
                if not ok:
                    self.wrong.append((status, v["status"], v.get("message")))
            except Exception as ex:  # noqa: BLE001 - recorded as a failure
                self.wrong.append(repr(ex))
            self.answers.append(time.time() - t0)
            self.stop.wait(0.2)


# --- main ----------------------------------------------------------------------

class Target:
    """One server of the manifest, its baseline and its bystander."""

    def __init__(self, name, binary, args, factor, hostname):
        self.name = name
        is_asan = sanitized(binary)
        env = None
        if is_asan:
            # a stack overflow must end in abort() (SIGABRT), as the
            # manifest expects, whatever ASAN_OPTIONS the caller has
            opts = os.environ.get("ASAN_OPTIONS", "detect_leaks=0")
            env = {"ASAN_OPTIONS": opts + ":abort_on_error=1"}
        self.srv = Server(binary, *args, env=env)
        self.pid = self.srv.proc.pid
        a = about(self.srv.port)
        self.device = "%s (%s)" % (a["device"]["name"], a["device"]["type"])
        self.ctx = {"port": self.srv.port, "sanitized": is_asan,
                    "device_type": a["device"]["type"],
                    "time_factor": factor if is_asan else 1, "hostname": hostname}

    def baseline(self):
        # a few jobs first, so that the baseline is a warm server's
        for _ in range(3):
            submit(self.srv.port, sample("correct.glsl"))
        wait_idle(self.srv.port)
        self.m0 = metrics(self.srv.port)
        self.fds0, self.rss0 = settled_fds(self.pid, seconds=1), proc_rss_kib(self.pid)
        self.bystander = Bystander(self.srv.port)
        self.bystander.start()

    def after_checks(self, checks, results, corpus_s):
        srv, pid, b = self.srv, self.pid, self.bystander
        b.stop.set()
        b.join(120)

        def bystander_ok():
            assert b.answers, "the bystander got no answer"
            assert not b.wrong, b.wrong[:5]
            return "%d submissions, all Accepted, slowest %.2f s" % (len(b.answers),
                                                                     max(b.answers))
        checks.run("%s: bystander always Accepted" % self.name, bystander_ok)

        def server_survived():
            assert srv.proc.poll() is None, "the server exited: %r" % srv.proc.returncode
            assert wait_idle(srv.port), "the pool did not get back to idle"
            status, _, _ = request(srv.port, "GET", "/healthz")
            assert status == 200, status
            return "pid %d up after %.1f s of corpus" % (pid, corpus_s)
        checks.run("%s: server up and healthy" % self.name, server_survived)

        def restarts_match():
            m1 = metrics(srv.port)
            got = m1["butterfly_worker_restarts_total"] - self.m0["butterfly_worker_restarts_total"]
            want = sum(1 for r in results if r["restart"] and r["server"] == self.name)
            assert got == want, "%d worker restarts, wanted %d" % (got, want)
            return "%d restarts, one per killed or crashed job" % got
        checks.run("%s: worker restarts = killed jobs" % self.name, restarts_match)

        def fds_back():
            fds1, rss1 = settled_fds(pid, at_most=self.fds0), proc_rss_kib(pid)
            assert fds1 <= self.fds0, "%d open fds, %d before" % (fds1, self.fds0)
            return "fds %d -> %d, RSS %d -> %d KiB" % (self.fds0, fds1, self.rss0, rss1)
        checks.run("%s: server fds back to baseline" % self.name, fds_back)


def default_deadline_ms(server):
    """The server's default deadline, as its --help states it."""
    out = subprocess.run([server, "--help"], capture_output=True, text=True, timeout=30).stdout
    return int(re.search(r"--deadline-ms N .*\[(\d+)\]", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--jobs", type=int, default=2,
                    help="cases in flight at once on the main server (the others take one at a time)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--results", help="write the results as JSON here")
    ap.add_argument("--markdown", help="write the results as a table (docs/RELIABILITY.md)")
    ap.add_argument("--deadline-divisor", type=int, default=1,
                    help="run every server with its deadline divided by this (as on a machine "
                         "that many times slower): every verdict must stay the same")
    args = ap.parse_args()

    with open(os.path.join(HERE, "cases.json")) as f:
        manifest = json.load(f)
    cases = manifest["cases"]
    if args.only:
        names = set(args.only.split(","))
        cases = [c for c in cases if c["name"] in names]
    try:
        with open("/etc/hostname") as f:
            hostname = f.read().strip()
    except OSError:
        hostname = socket.gethostname()

    checks = Checks()
    needed = sorted({c.get("server", "main") for c in cases})
    targets = {}
    results = []
    try:
        for name in needed:
            server_args = list(manifest["servers"][name])
            if args.deadline_divisor > 1:
                if "--deadline-ms" not in server_args:
                    server_args += ["--deadline-ms", str(default_deadline_ms(args.server))]
                k = server_args.index("--deadline-ms") + 1
                server_args[k] = str(max(1, int(server_args[k]) // args.deadline_divisor))
                manifest["servers"][name] = server_args
            targets[name] = Target(name, args.server, server_args,
                                   manifest["sanitized_time_factor"], hostname)
        for name, t in targets.items():
            print("# %s: %s, device %s%s" % (name, " ".join(manifest["servers"][name]), t.device,
                  ", sanitized build: time bounds x%d" % t.ctx["time_factor"]
                  if t.ctx["sanitized"] else ""), flush=True)
            t.baseline()
        t_all = time.time()
        executors = {n: ThreadPoolExecutor(max_workers=args.jobs if n == "main" else 1)
                     for n in targets}
        futures = []
        for c in cases:
            n = c.get("server", "main")
            futures.append((c, n, executors[n].submit(run_case, c, targets[n].ctx)))
        for c, n, fut in futures:
            def check(fut=fut, n=n):
                r = fut.result()
                r["server"] = n
                results.append(r)
                if r["problems"]:
                    raise AssertionError("; ".join(r["problems"]))
                what = ("verdict %s" % r["verdict"]) if r["verdict"] is not None \
                    else "HTTP %d %s" % (r["http"], r.get("error", ""))
                return "%-18s %6.2fs (bound %.0f s)" % (what, r["seconds"], r["bound_s"])
            checks.run(c["name"], check)
        for ex in executors.values():
            ex.shutdown()
        corpus_s = time.time() - t_all
        by_name = {r["name"]: r for r in results}
        for c in cases:
            if "same_as" not in c or c["same_as"] not in by_name:
                continue
            def same(c=c):
                # the same body under another deadline: the same verdict and
                # message, so no verdict depends on the time it was given
                a, b = by_name[c["name"]], by_name[c["same_as"]]
                assert (a["verdict"], a.get("message")) == (b["verdict"], b.get("message")), \
                    "%s: %s %r; %s: %s %r" % (a["name"], a["verdict"], a.get("message"),
                                              b["name"], b["verdict"], b.get("message"))
                return "verdict %s under both deadlines" % a["verdict"]
            checks.run("%s: same verdict as %s" % (c["name"], c["same_as"]), same)
        for t in targets.values():
            t.after_checks(checks, results, corpus_s)
    finally:
        codes = {n: t.srv.stop() for n, t in targets.items()}
    for n, rc in codes.items():
        checks.run("%s: graceful exit" % n,
                   lambda rc=rc: (rc == 0) or (_ for _ in ()).throw(AssertionError(rc)))
    if args.results:
        some = next(iter(targets.values()))
        with open(args.results, "w") as f:
            json.dump({"sanitized": some.ctx["sanitized"], "device": some.device,
                       "jobs": args.jobs, "seconds": round(corpus_s, 1), "results": results},
                      f, indent=1)
    if args.markdown:
        write_markdown(args.markdown, cases, results)
    return checks.finish()


def cost_of(r):
    """What a case cost the server, from how it was answered."""
    if r["http"] != 200:
        return "nothing: refused by the HTTP layer, no job"
    v = r["verdict"]
    msg = r.get("message") or ""
    if v == 5 and r.get("loop"):
        return "one compile and one run, stopped by the loop budget"
    if v == 5:
        return "its worker: killed at the deadline, replaced"
    if 7 <= v <= 12:
        return "its worker: died, replaced"
    if v == 100 and r.get("compile_ms") is None:
        return "the body checks only (no compile)"
    if v in (6, 100):
        return "one compile"
    return "one compile and one run"


def write_markdown(path, cases, results):
    by_name = {r["name"]: r for r in results}
    names = {1: "", 3: "Accepted", 4: "Wrong Answer", 5: "Time Limit Exceeded",
             6: "Compilation Error", 7: "Runtime Error (SIGSEGV)", 10: "Runtime Error (SIGABRT)",
             100: "Rejected"}
    lines = ["| input | what the grader answered | time | cost to the server |",
             "| --- | --- | --- | --- |"]
    for c in cases:
        r = by_name.get(c["name"])
        if not r:
            continue
        if r["http"] != 200:
            answer = "HTTP %d `%s`" % (r["http"], r.get("error", ""))
        else:
            answer = "%d %s" % (r["verdict"], names.get(r["verdict"], ""))
            if r.get("message"):
                m = r["message"]
                answer += ": " + (m if len(m) <= 90 else m[:87] + "...")
        what = c["what"].replace("|", "\\|")
        answer = answer.replace("|", "\\|").replace("\n", " ")
        secs = r["seconds"]
        took = "%.1f s" % secs if secs >= 1 else "%d ms" % max(1, round(secs * 1000))
        lines.append("| `%s`: %s | %s | %s | %s |" % (c["name"], what, answer, took,
                                                      cost_of(r)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Grading integrity (issue 11), through the real server and the batch:
Accepted only for a kernel that computes the butterfly, and the same
verdict on every device.

usage: test_integrity.py SERVER_BINARY BATCH_BINARY

- an answer table built from every seed and input a verdict shows is
  Wrong Answer on the next grading (hidden spectra are drawn fresh), though
  the same table is Accepted by a grader pinned to that seed; so is
  bit_reversal's visible answers as a table (every exercise's hidden
  inputs are drawn fresh);
- a run sees only its own input: the buffer's name, indices past the end
  and negative ones, the workgroup ids and counts, declarations after `}`;
- the grader bounds loops: endless and data-dependent loops are Time Limit
  Exceeded within a second, naming the loop's line; a correct kernel with
  loops within the budget is Accepted, one past it is not;
- loops are counted exactly (iterations, all loops together, N + 1 stops);
- a helper's memory counts once per call, as inlined;
- the built-ins read the real dispatch (gl_WorkGroupSize is 8 x 2 x 1);
- the body checks agree with glslang: a string holding a comment opener
  hides no directive;
- plain words for double precision, on its line;
- the grader's own failures (its worker killed or stopped from outside)
  are retried, never blamed on the code;
- the batch draws a fresh seed per run unless --seed is given.
Prints one line per check and ends with "N passed, M failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from common import (Checks, Server, children, metrics, request, sample, sanitized,  # noqa: E402
                    strict_json, submit)
import butterfly_model as model  # noqa: E402
from run_corpus import generate  # noqa: E402

SERVER, BATCH = sys.argv[1], sys.argv[2]
SLOW = 3 if sanitized(SERVER) else 1


def verdict(port, body):
    status, _, data = submit(port, body, timeout=120)
    v = strict_json(data)
    assert status in (200, 500), (status, data[:300])
    return v


def visible_got(v, half):
    """The visible cells of one half as out[plane][i]."""
    h = next(x for x in v["halves"] if x["half"] == half)
    out = [[None] * 8, [None] * 8]
    for c in h["cells"]:
        out[c["y"]][c["x"]] = c["got"]
    return out


def t_answer_table_needs_the_work(srv):
    first = verdict(srv.port, sample("correct.glsl"))
    seed = first["seed"]
    table = model.answer_table(seed).encode()
    # the table is right: a grader pinned to that seed accepts it
    pinned = Server(SERVER, "--workers", "1", "--seed", str(seed))
    try:
        v = verdict(pinned.port, table)
        assert v["status"]["id"] == 3, ("the table is wrong even for its seed", v["message"])
    finally:
        pinned.stop()
    # but the server grades every submission on fresh hidden spectra
    seeds = set()
    for _ in range(3):
        v = verdict(srv.port, table)
        assert v["status"]["id"] == 4, v["status"]
        # the visible spectrum is public: its cells may well be right
        assert all(h["passed"] is False for h in v["halves"]), v["halves"]
        seeds.add(v["seed"])
    assert seed not in seeds and len(seeds) == 3, (seed, seeds)
    return "table for seed %d: Accepted when pinned, Wrong Answer on fresh seeds %s" % (
        seed, sorted(seeds))


def t_other_exercise_needs_the_work_too(srv):
    """bit_reversal's visible answers written out as a table, per value of
    bits: right on the visible input the page shows, so its visible cells
    pass, and Wrong Answer for every value on the hidden inputs, drawn
    fresh for each grading (issue 33: the integrity checks follow every
    exercise)."""
    root = os.path.join(HERE, "..", "..", "exercises", "bit_reversal")
    ex = json.load(open(os.path.join(root, "exercise.json")))
    points = ex["visible"][0]
    n = ex["input"]["n"]

    def reversed_in_block(i, bits):
        base, k = i & ~((1 << bits) - 1), i & ((1 << bits) - 1)
        return base | int(format(k, "0%db" % bits)[::-1], 2)

    lines = ["int i = this.thread.x;"]
    for bits in ex["parameter"]["values"]:
        row = ", ".join("%.1f" % points[reversed_in_block(i, bits)] for i in range(n))
        lines.append("float t%d[%d] = float[%d](%s);" % (bits, n, n, row))
        lines.append("if (bits == %d) return t%d[i];" % (bits, bits))
    lines.append("return 0.0;")
    status, _, data = request(srv.port, "POST", "/api/tasks/bit_reversal/submissions",
                              "\n".join(lines).encode(), {"Content-Type": "text/plain"}, 120)
    v = strict_json(data)
    assert status == 200 and v["status"]["id"] == 4, (status, v.get("status"), v.get("message"))
    halves = v["halves"]
    assert [h["half"] for h in halves] == ex["parameter"]["values"], halves
    # the visible input is public: every visible cell right; the hidden ones wrong
    assert all(c["passed"] for h in halves for c in h["cells"]), "a visible cell is wrong"
    assert all(h["passed"] is False and h["hidden"]["passed"] < h["hidden"]["total"]
               for h in halves), [h["hidden"] for h in halves]
    return "the visible table: every visible cell right, Wrong Answer on hidden inputs"


PROBES = [
    # (what, body, expected visible got[plane][i] for every half)
    ("the workgroup id", "return float(gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z);",
     lambda half: [[0.0] * 8, [0.0] * 8]),
    ("the workgroup count", "return float(gl_NumWorkGroups.x * 100u + gl_NumWorkGroups.y * 10u "
     "+ gl_NumWorkGroups.z);", lambda half: [[111.0] * 8, [111.0] * 8]),
    ("the global invocation id", "return float(gl_GlobalInvocationID.z * 1000u + "
     "gl_GlobalInvocationID.y * 8u + gl_GlobalInvocationID.x);",
     lambda half: [[float(i) for i in range(8)], [float(8 + i) for i in range(8)]]),
    ("an index past the end", "return spectrum[this.thread.y][this.thread.x + 8 + 16 * half];",
     lambda half: [[model.VISIBLE[0][7]] * 8, [model.VISIBLE[1][7]] * 8]),
    ("a negative index", "return spectrum[this.thread.y][-1 - this.thread.x];",
     lambda half: [[model.VISIBLE[0][0]] * 8, [model.VISIBLE[1][0]] * 8]),
    ("the buffer by its name, past its planes",
     "return bf_in.spec[this.thread.y + 2][this.thread.x];",
     lambda half: [list(model.VISIBLE[1]), list(model.VISIBLE[1])]),
    ("the buffer's half", "return float(bf_in.half_size);",
     lambda half: [[float(half)] * 8, [float(half)] * 8]),
]


def t_a_run_sees_only_its_own_input(srv):
    notes = []
    for what, body, want in PROBES:
        v = verdict(srv.port, body + "\n")
        assert v["status"]["id"] in (3, 4), (what, v["status"], v["message"])
        for half in model.HALVES:
            got = visible_got(v, half)
            assert got == want(half), (what, half, got, want(half))
        notes.append(what)
    # a second declaration of the input, after closing the function, reads
    # nothing: the module is refused before it runs
    for body in ("return 0.0;\n}\nlayout(std430, set = 0, binding = 0) readonly buffer Spy "
                 "{ float all[]; } spy;\nfloat peek() { return spy.all[100];\n",
                 "return 0.0;\n}\nlayout(std430, set = 0, binding = 3) readonly buffer Spy "
                 "{ float all[]; } spy;\nfloat peek() { return spy.all[100];\n"):
        v = verdict(srv.port, body)
        assert v["status"]["id"] == 100, (v["status"], v["message"])
    return "own run only: " + ", ".join(notes) + "; second buffers refused"


def t_loops_are_bounded_by_the_grader(srv):
    notes = []
    for body, line in [("float x = 0.0;\nwhile (true) { x += 1.0; }\nreturn x;\n", 2),
                       ("float x = spectrum[0][this.thread.x];\nint n = 0;\n"
                        "while (x == x) { n++; x = x + 1.0; if (n < 0) break; }\nreturn x;\n", 3),
                       ("float s = 0.0;\nfor (int a = 0; a < 60000; a++)\n"
                        "    for (int b = 0; b < 60000; b++) s += 1.0;\nreturn s;\n", 3)]:
        t0 = time.time()
        v = verdict(srv.port, body)
        took = time.time() - t0
        assert v["status"]["id"] == 5, (v["status"], v["message"])
        assert v["loop"] and v["loop"]["line"] == line, v["loop"]
        assert "line %d" % line in v["message"], v["message"]
        assert any(d["line"] == line for d in v["diagnostics"]), v["diagnostics"]
        assert took < 1.0 * SLOW, took
        notes.append("%.2f s" % took)
    # a correct kernel whose loop stays within the budget is Accepted ...
    correct = sample("correct.glsl").decode()
    within = "int spin = 0;\nwhile (spin < 5000) spin++;\n" + correct
    assert verdict(srv.port, within)["status"]["id"] == 3
    # ... and one that loops 70,000 times before the right answer is not,
    # on lavapipe (which would cut the loop at 65,535) as on any GPU
    past = "int spin = 0;\nwhile (spin < 70000) spin++;\n" + correct
    v = verdict(srv.port, past)
    assert v["status"]["id"] == 5 and v["loop"]["line"] == 2, (v["status"], v["loop"])
    return "endless loops stopped in %s; within the budget Accepted, past it TLE" % (
        ", ".join(notes))


# The loop budget counts iterations (back edges taken), all loops and calls
# of a thread together; "more than N" starts at N + 1. Each case: the lines
# before the correct body, those after it (a helper, after closing the
# body), and None for Accepted or the line of the loop that must take the
# N + 1-th iteration (Time Limit Exceeded naming it).
N = 10000
SPIN_LOOP = "for (int k = 0; k < m; k++) s++;"
SPIN = "}\nint spin(int m) {\nint s = 0;\n" + SPIN_LOOP + "\nreturn s;\n"
INNER = "    for (int b = 0; b < 100; b++) n++;"
LOOP_CASES = [
    ("exactly N", "int n = 0;\nfor (int k = 0; k < %d; k++) n++;\n" % N, "", None),
    ("N + 1", "int n = 0;\nfor (int k = 0; k < %d; k++) n++;\n" % (N + 1), "",
     "for (int k = 0; k < %d; k++) n++;" % (N + 1)),
    ("nested 100 x 99, + 100 of the outer loop", "int n = 0;\nfor (int a = 0; a < 100; a++)\n"
     "    for (int b = 0; b < 99; b++) n++;\n", "", None),
    ("nested 100 x 100, + 100: the inner loop takes N + 1", "int n = 0;\n"
     "for (int a = 0; a < 100; a++)\n" + INNER + "\n", "", INNER),
    ("5,000 loops that never iterate", "int n = 0;\nfor (int a = 0; a < 5000; a++)\n"
     "    for (int b = a; b < a; b++) n++;\n", "", None),
    ("a helper's loop called 100 times, 100 + 100 x 99", "int spin(int m);\nint n = 0;\n"
     "for (int c = 0; c < 100; c++) n += spin(99);\n", SPIN, None),
    ("a helper's loop called 100 times, 100 + 100 x 100",
     "int spin(int m);\nint n = 0;\nfor (int c = 0; c < 100; c++) n += spin(100);\n", SPIN,
     SPIN_LOOP),
    ("continue on every other pass, N in all", "int n = 0;\n"
     "for (int k = 0; k < %d; k++) { if (k %% 2 == 0) continue; n++; }\n" % N, "", None),
    ("continue on every other pass, N + 1", "int n = 0;\n"
     "for (int k = 0; k < %d; k++) { if (k %% 2 == 0) continue; n++; }\n" % (N + 1), "",
     "for (int k = 0; k < %d; k++) { if (k %% 2 == 0) continue; n++; }" % (N + 1)),
    ("do-while, N + 1 passes (N back edges)", "int k = 0;\ndo { k++; } while (k < %d);\n"
     % (N + 1), "", None),
    ("do-while, N + 2 passes", "int k = 0;\ndo { k++; } while (k < %d);\n" % (N + 2), "",
     "do { k++; } while (k < %d);" % (N + 2)),
    ("a later loop, after the budget ran out, leaves the first one named", "int n = 0;\n"
     "for (int k = 0; k < 20000; k++) n++;\nfor (int j = 0; j < 5; j++) n++;\n", "",
     "for (int k = 0; k < 20000; k++) n++;"),
]


def t_loops_are_counted_exactly(srv):
    correct = sample("correct.glsl").decode()
    for what, before, after, loop_line in LOOP_CASES:
        body = before + correct + after
        v = verdict(srv.port, body)
        if loop_line is None:
            assert v["status"]["id"] == 3, (what, v["status"], v["message"])
            continue
        line = body.split("\n").index(loop_line) + 1
        assert v["status"]["id"] == 5, (what, v["status"], v["message"])
        assert v["loop"]["line"] == line and v["loop"]["limit"] == N, (what, v["loop"], line)
    return "%d cases: N iterations Accepted, N + 1 Time Limit Exceeded on the loop that took it" % (
        len(LOOP_CASES))


def helper_calls(calls):
    """A body calling a helper with a 15.6 KiB array from `calls` places
    (the corpus's generator)."""
    return generate({"kind": "helper_calls", "n": calls}).decode()


def t_costs_counted_after_inlining(srv):
    """A helper's array counts once per call, as the driver inlines it:
    before issue 24, 64 calls reached lavapipe (1 MiB a thread, about 5 s)
    and 256 took a worker past 1.5 GB."""
    notes = []
    for calls in (64, 256):
        t0 = time.time()
        v = verdict(srv.port, helper_calls(calls))
        took = time.time() - t0
        assert v["status"]["id"] == 100, (calls, v["status"], v["message"])
        assert "'helper'" in v["message"] and "runs %d times" % calls in v["message"], v["message"]
        assert took < 1.0 * SLOW, took
        notes.append("%d calls Rejected in %.2f s" % (calls, took))
    assert verdict(srv.port, helper_calls(1))["status"]["id"] == 4
    return "; ".join(notes) + "; one call graded"


# What each built-in a body can name reads (docs/VERDICT.md): the harness's
# real local size, one workgroup, the cell's own invocation.
BUILTINS = [
    ("gl_WorkGroupSize", "return float(gl_WorkGroupSize.x * 100u + gl_WorkGroupSize.y * 10u"
     " + gl_WorkGroupSize.z);", lambda i, p: 821.0),
    ("gl_NumWorkGroups", "return float(gl_NumWorkGroups.x * 100u + gl_NumWorkGroups.y * 10u"
     " + gl_NumWorkGroups.z);", lambda i, p: 111.0),
    ("gl_WorkGroupID", "return float(gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z);",
     lambda i, p: 0.0),
    ("gl_LocalInvocationID", "return float(gl_LocalInvocationID.x * 10u + gl_LocalInvocationID.y"
     " + gl_LocalInvocationID.z * 100u);", lambda i, p: 10.0 * i + p),
    ("gl_GlobalInvocationID", "return float(gl_GlobalInvocationID.x * 10u + "
     "gl_GlobalInvocationID.y + gl_GlobalInvocationID.z * 100u);", lambda i, p: 10.0 * i + p),
    ("gl_LocalInvocationIndex", "return float(gl_LocalInvocationIndex);",
     lambda i, p: 8.0 * p + i),
]


def t_builtins_read_the_real_dispatch(srv):
    for name, body, want in BUILTINS:
        v = verdict(srv.port, body + "\n")
        assert v["status"]["id"] in (3, 4), (name, v["status"], v["message"])
        for h in v["halves"]:
            for c in h["cells"]:
                assert c["got"] == want(c["x"], c["y"]), (name, h["half"], c)
    # a correct kernel that takes its index and plane from the workgroup's
    # size (the corpus's body)
    with open(os.path.join(HERE, "..", "hostile", "bodies", "workgroup_size_kernel.glsl")) as f:
        uses = f.read()
    v = verdict(srv.port, uses)
    assert v["status"]["id"] == 3, (v["status"], v["message"])
    # subgroup built-ins need an extension a body cannot enable: a plain
    # Compilation Error naming the built-in, on its line
    for name in ("gl_SubgroupSize", "gl_SubgroupInvocationID", "gl_NumSubgroups",
                 "gl_SubgroupID"):
        v = verdict(srv.port, "float x = 1.0;\nreturn float(%s);\n" % name)
        assert v["status"]["id"] == 6, (name, v["status"])
        assert name in v["message"] and v["diagnostics"][0]["line"] == 2, v["message"]
        assert "extension" in v["message"], v["message"]
    return "%d built-ins read as documented; a correct kernel using gl_WorkGroupSize Accepted" % (
        len(BUILTINS))


def t_body_checks_agree_with_glslang(srv):
    cases = [
        ('#define S "/*"\n#extension GL_EXT_spirv_intrinsics : enable\nreturn 0.0;\n', 2),
        ('#define S "/*"\n#line 40\nreturn 0.0;\n', 2),
        ('#define S "/*"\n#extension GL_EXT_control_flow_attributes : enable\n'
         'float s = 0.0;\n[[unroll]] for (int k = 0; k < 8; k++) s += 1.0;\nreturn s;\n', 2),
        ('#define S "' + "A" * 1030 + '"/*"\n#pragma debug(on)\nreturn 0.0;\n', 2),
    ]
    for body, line in cases:
        v = verdict(srv.port, body)
        assert v["status"]["id"] == 100, (v["status"], v["message"])
        assert v["diagnostics"] and v["diagnostics"][0]["line"] == line, v["diagnostics"]
    return "%d directives hidden behind strings refused on their lines" % len(cases)


def t_double_in_plain_words(srv):
    v = verdict(srv.port, "int i = this.thread.x;\nfloat f = spectrum[0][i];\n"
                          "double d = double(f) * 2.0lf;\nreturn float(d);\n")
    assert v["status"]["id"] == 100, v["status"]
    assert "double precision is not available in this exercise; use float" in v["message"]
    assert v["diagnostics"][0]["line"] == 3, v["diagnostics"]
    return v["message"]


def t_the_grader_is_not_blamed_for_itself():
    """A worker killed or stopped from outside while it runs the kernel:
    the job is graded again on a fresh worker, and its verdict is the
    kernel's own. The fault is the worker's test hook (grader/worker/
    test_fault.h, in any build but a release one), so this holds on every
    device, not only where a kernel is slow enough to be caught running."""
    with tempfile.TemporaryDirectory() as d:
        notes = []
        for how in ("KILL", "STOP"):
            token = os.path.join(d, how)
            srv = Server(SERVER, "--workers", "1", "--deadline-ms", "20000",
                         env={"BUTTERFLY_TEST_WORKER_FAULT": "%s:%s" % (how, token)})
            try:
                before = children(srv.proc.pid)   # the server starts only workers
                assert len(before) == 1, before
                open(token, "w").close()
                v = verdict(srv.port, sample("wrong_twiddle_sign.glsl"))
                assert not os.path.exists(token), \
                    "no worker took the fault: is this a release build (no test hooks)?"
                assert v["status"]["id"] == 4, (how, v["status"], v["message"])
                m = metrics(srv.port)
                assert m.get("butterfly_job_retries_total") == 1, \
                    (how, m.get("butterfly_job_retries_total"))
                assert m.get("butterfly_worker_restarts_total") == 1, m
                after = children(srv.proc.pid)
                assert before[0] not in after, (before, after)
                notes.append("SIG%s: retried, %s" % (how, v["status"]["description"]))
            finally:
                srv.stop()
        return "; ".join(notes)


def t_batch_draws_a_fresh_seed_per_run():
    with tempfile.TemporaryDirectory() as d:
        subs = os.path.join(d, "subs")
        os.mkdir(subs)
        with open(os.path.join(subs, "alice.glsl"), "wb") as f:
            f.write(sample("correct.glsl"))
        seeds = []
        for k in range(2):
            out = os.path.join(d, "out%d" % k)
            subprocess.run([BATCH, "--quiet", "-j", "1", "-o", out, subs], check=True,
                           capture_output=True, timeout=300)
            with open(os.path.join(out, "summary.json")) as f:
                seeds.append(json.load(f)["seed"])
        assert seeds[0] != seeds[1], seeds
        # the table for the first run's seed fails on any other seed
        with open(os.path.join(subs, "bob.glsl"), "w") as f:
            f.write(model.answer_table(seeds[0]))
        rows = {}
        for pinned in (True, False):
            out = os.path.join(d, "table-%s" % pinned)
            cmd = [BATCH, "--quiet", "-j", "1", "-o", out, subs]
            if pinned:
                cmd[1:1] = ["--seed", str(seeds[0])]
            subprocess.run(cmd, capture_output=True, timeout=300)
            with open(os.path.join(out, "gradebook.csv")) as f:
                import csv
                rows[pinned] = {r["id"]: r["verdict"] for r in csv.DictReader(f)}
        assert rows[True]["bob"] == "Accepted", rows
        assert rows[False]["bob"] == "Wrong Answer", rows
        return "seeds %s; the table Accepted only when pinned to its seed" % seeds


def main():
    checks = Checks()
    srv = Server(SERVER, "--workers", "2")
    try:
        for name in ("t_answer_table_needs_the_work", "t_a_run_sees_only_its_own_input",
                     "t_loops_are_bounded_by_the_grader", "t_loops_are_counted_exactly",
                     "t_costs_counted_after_inlining", "t_builtins_read_the_real_dispatch",
                     "t_body_checks_agree_with_glslang",
                     "t_double_in_plain_words", "t_other_exercise_needs_the_work_too"):
            checks.run(name, globals()[name], srv)
    finally:
        srv.stop()
    checks.run("t_the_grader_is_not_blamed_for_itself", t_the_grader_is_not_blamed_for_itself)
    checks.run("t_batch_draws_a_fresh_seed_per_run", t_batch_draws_a_fresh_seed_per_run)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())

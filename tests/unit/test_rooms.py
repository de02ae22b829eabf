#!/usr/bin/env python3
"""The rooms the build enforces (docs/ARCHITECTURE.md, "Rooms").

usage: test_rooms.py SOURCE_ROOT BUILD_ROOT

1. Every compile command of the build (compile_commands.json), with its own
   -I folders, gets the system's <limits.h> and the other standard headers
   listed below, never a project file; and no -I folder holds a header of
   its own, so none can ever shadow a system one.
2. Every project include names its room: a grader header from grader/
   ("common/verdict.h"), any other from the repository root
   ("server/core/request.h"); never a bare name, never "grader/...".
3. The layer rule: common <- engine <- worker; common <- pool <- server,
   batch, cli. A server, batch or CLI file that includes an engine or
   worker header fails here (tests/unit/test_link.sh fails when they link
   the GPU stack).
4. Suite names match folders: every test's program (its script, or the
   source of its executable) is in tests/SUITE/.
5. The server's own rooms: conn, observe <- core <- identity <- features
   (grade, records, class, lti), with main.c, server.c and routes.c on top (they may
   include any room). A core file includes only core; identity, core and
   identity; a feature, core, identity and its own room, never another
   feature's header. At most three files on top.
6. The include graph between the server's rooms has no circle (the call
   graph between its files is tests/unit/test_call_graph.py's).

Each check is first run on a made-up tree that breaks it, so a check that
cannot fail fails the test.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

GRADER_ROOMS = ("common", "engine", "worker", "pool", "store", "gradebook", "batch", "admin",
                "cli")
OTHER_ROOMS = ("server", "tests", "bench", "fuzz")
# What a file in each room may include, by room.
ALLOWED = {
    "common": {"common"},
    "engine": {"common", "engine"},
    "worker": {"common", "engine", "worker"},
    "pool": {"common", "pool"},
    "store": {"common", "store"},
    "gradebook": {"common", "gradebook"},
    "batch": {"common", "pool", "store", "gradebook", "batch"},
    "admin": {"common", "store", "gradebook", "batch", "admin"},
    "cli": {"common", "pool"},
    "server": {"common", "pool", "store", "gradebook", "server"},
    "tests": None,  # anything
    "bench": None,
    "fuzz": None,
}
# The server's rooms (server/ROOM/file) and what each may include; the
# files on top (server/main.c ...) may include every room.
SERVER_ROOMS = {
    # two leaves below the core: the connections (who the client is, its
    # bounds, the watch of a suspended socket) and what is observed (the
    # access log, the counters, the process's figures)
    "conn": {"conn"},
    "observe": {"observe"},
    "core": {"conn", "observe", "core"},
    "identity": {"conn", "observe", "core", "identity"},
    "grade": {"conn", "observe", "core", "identity", "grade"},
    "records": {"conn", "observe", "core", "identity", "records"},
    "class": {"conn", "observe", "core", "identity", "class"},
    "lti": {"conn", "observe", "core", "identity", "lti"},
}
SERVER_TOP = {"main.c", "server.c", "routes.c", "meson.build", "README.md"}
# Made by the build, not in the sources: include name -> producer.
GENERATED = {"common/config.h", "engine/harness_template.h", "server/openapi_doc.h"}
# The system headers a project header could shadow and the code uses.
SYSTEM_HEADERS = ("limits.h", "assert.h", "errno.h", "math.h", "signal.h", "stdio.h",
                  "stdlib.h", "string.h", "time.h", "poll.h", "fcntl.h", "unistd.h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_EXT = (".c", ".h", ".cc")


def room_of(rel):
    """The room of a repository-relative path, or None outside the rooms."""
    parts = rel.split("/")
    if parts[0] == "grader" and len(parts) > 2 and parts[1] in GRADER_ROOMS:
        return parts[1]
    if parts[0] in OTHER_ROOMS:
        return parts[0]
    return None


def resolve(root, name):
    """The repository-relative file an include name means, or None."""
    first = name.split("/")[0]
    if first in GRADER_ROOMS:
        return "grader/" + name
    if first in OTHER_ROOMS:
        return name
    return None


def include_problems(root, rels):
    """Bare, unresolvable and layer-breaking includes in the files rels."""
    problems = []
    for rel in rels:
        here = room_of(rel)
        if here is None:
            continue
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        for name in INCLUDE.findall(text):
            where = f"{rel}: #include \"{name}\""
            if "/" not in name:
                problems.append(f"{where}: bare; name its room (\"common/{name}\" ...)")
                continue
            target = resolve(root, name)
            if target is None:
                problems.append(f"{where}: not a room (write grader headers from grader/)")
                continue
            if name not in GENERATED and not os.path.isfile(os.path.join(root, target)):
                problems.append(f"{where}: no such project header")
                continue
            allowed = ALLOWED[here]
            there = room_of(target)
            if allowed is not None and there not in allowed:
                problems.append(f"{where}: {here}/ may include only "
                                f"{', '.join(sorted(allowed))}")
    return problems


def server_room(rel):
    """The server room of a repository-relative path: "top" for a file
    beside main.c, None outside server/ (or a generated header)."""
    parts = rel.split("/")
    if parts[0] != "server" or rel in GENERATED:
        return None
    return "top" if len(parts) == 2 else parts[1]


def server_room_problems(root, rels):
    """Includes that break the server's room rule, unknown rooms, too many
    files on top, and circles in the include graph between its rooms."""
    problems = []
    graph = {}
    for rel in rels:
        here = server_room(rel)
        if here is None:
            continue
        if here == "top":
            if os.path.basename(rel) not in SERVER_TOP:
                problems.append(f"{rel}: on top of server/ beside main.c; put it in a room "
                                f"({', '.join(sorted(SERVER_ROOMS))})")
        elif here not in SERVER_ROOMS:
            problems.append(f"{rel}: server/{here}/ is no room of the server")
            continue
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        for name in INCLUDE.findall(text):
            there = server_room(name)
            if there is None:
                continue
            if there == "top":
                problems.append(f"{rel}: #include \"{name}\": the top of server/ is "
                                "included by no room")
                continue
            graph.setdefault(here, set()).add(there)
            if here != "top" and there not in SERVER_ROOMS.get(here, set()):
                problems.append(f"{rel}: #include \"{name}\": server/{here}/ may include "
                                f"only {', '.join(sorted(SERVER_ROOMS[here]))}")
    for cycle in circles(graph):
        problems.append(f"the server's rooms include each other in a circle: "
                        f"{' -> '.join(cycle)}")
    return problems


def circles(graph):
    """The circles of a directed graph {node: {nodes}} (self-loops aside),
    each once, as a path back to its first node."""
    found, state, path = [], {}, []

    def visit(n):
        state[n] = 1
        path.append(n)
        for m in sorted(graph.get(n, ())):
            if m == n:
                continue
            if state.get(m) == 1:
                found.append(path[path.index(m):] + [m])
            elif m not in state:
                visit(m)
        path.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    return found


def compile_units(build):
    """(compiler argv prefix, language, -I/-isystem args) per distinct unit."""
    seen = {}
    for e in json.load(open(os.path.join(build, "compile_commands.json"))):
        argv = shlex.split(e["command"])
        lang = "c++" if e["file"].endswith((".cc", ".cpp")) else "c"
        incs = []
        for i, a in enumerate(argv):
            if a in ("-I", "-isystem", "-iquote"):
                incs += [a, argv[i + 1]]
            elif a.startswith(("-I", "-isystem", "-iquote")):
                incs.append(a)
        key = (argv[0], lang, tuple(incs))
        seen.setdefault(key, (e["directory"], e["file"]))
    return seen


def include_dirs(directory, incs):
    dirs = []
    it = iter(incs)
    for a in it:
        for flag in ("-isystem", "-iquote", "-I"):
            if a.startswith(flag):
                d = a[len(flag):] or next(it)
                dirs.append(os.path.normpath(os.path.join(directory, d)))
                break
    return dirs


def shadow_problems(units, trees):
    """System headers resolved inside a project tree, and -I folders that
    hold headers of their own."""
    problems = []
    snippet = "".join(f"#include <{h}>\n" for h in SYSTEM_HEADERS)
    for (cc, lang, incs), (directory, example) in units.items():
        r = subprocess.run([cc, *incs, "-x", lang, "-M", "-"], input=snippet, text=True,
                           cwd=directory, capture_output=True)
        if r.returncode != 0:
            problems.append(f"{example}'s flags: <limits.h> does not compile: "
                            f"{r.stderr.strip()[:300]}")
            continue
        for dep in r.stdout.replace("\\\n", " ").split()[1:]:
            dep = os.path.normpath(os.path.join(directory, dep))
            if any(dep.startswith(t + os.sep) for t in trees):
                problems.append(f"{example}'s flags: a system header is {dep}")
        for d in include_dirs(directory, incs):
            if not os.path.isdir(d) or not any(d.startswith(t) for t in trees):
                continue
            if d.endswith(".p"):  # meson's private folder of the target
                continue
            own = [f for f in os.listdir(d) if f.endswith((".h", ".hh", ".hpp"))]
            if own:
                problems.append(f"{example}'s flags: -I{d} holds {', '.join(sorted(own))}")
    return problems


def test_program(test, root, sources_of):
    """The repository path of what a meson test runs: its script, or the
    source under tests/ of its executable; None when neither is known."""
    cmd = test["cmd"]
    # a built program: its source; else the first file of the command
    # under tests/ (the interpreter's script, or the script itself)
    # under tests/ (the interpreter's script, or the script itself). A
    # runner in tests/support/ (it starts a service, then runs the test it
    # is given) names no suite: the test it runs does.
    support = os.path.join(root, "tests", "support") + os.sep
    for a in sources_of.get(cmd[0], cmd[:1]) + [s for c in cmd[1:] for s in sources_of.get(c, [c])]:
        if a.startswith(os.path.join(root, "tests") + os.sep) and not a.startswith(support):
            return os.path.relpath(a, root)
    return None


def suite_problems(tests, root, sources_of):
    """Tests whose program is not in tests/SUITE/."""
    problems = []
    for t in tests:
        prog = test_program(t, root, sources_of)
        suites = [s.split(":")[-1] for s in t["suite"]]
        if prog is None:
            problems.append(f"test {t['name']}: its program is not under tests/")
        # a suite is its folder's name, or a variant of it (store_pg)
        elif not any(s == prog.split("/")[1] or s.startswith(prog.split("/")[1] + "_")
                     for s in suites):
            problems.append(f"test {t['name']}: suite {', '.join(suites)} but {prog}")
    return problems


def meson_tests(build):
    info = os.path.join(build, "meson-info")
    tests = json.load(open(os.path.join(info, "intro-tests.json")))
    sources_of = {}
    for t in json.load(open(os.path.join(info, "intro-targets.json"))):
        srcs = [s for ts in t.get("target_sources", []) for s in ts.get("sources", [])]
        for f in t.get("filename", []):
            sources_of[f] = srcs
    return tests, sources_of


def tracked_sources(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, text=True)
    if out.returncode == 0:
        files = out.stdout.split()
    else:  # a copy of the sources without git
        files = [os.path.relpath(os.path.join(d, f), root)
                 for d, _, fs in os.walk(root) for f in fs]
    return sorted(f for f in files if f.endswith(SOURCE_EXT) and "node_modules" not in f)


def git_files(root, under):
    """Every file git knows under a folder (the top of server/ holds no
    more than main.c, server.c, routes.c and its build file)."""
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                          "--exclude-standard", under], capture_output=True, text=True)
    if out.returncode == 0:
        return out.stdout.split()
    return [os.path.relpath(os.path.join(d, f), root)
            for d, _, fs in os.walk(os.path.join(root, under)) for f in fs]


def self_test():
    """Each check on a tree that breaks it: it must complain."""
    with tempfile.TemporaryDirectory() as t:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(t, rel)), exist_ok=True)
            open(os.path.join(t, rel), "w").write(text)
        write("grader/common/verdict.h", "")
        write("grader/engine/gpu.h", "")
        write("grader/worker/limits.h", "#include \"engine/gpu.h\"\n")
        write("server/a.c", "#include \"engine/gpu.h\"\n")
        write("grader/batch/b.c", "#include \"worker/limits.h\"\n")
        write("grader/cli/cli.c", "#include \"verdict.h\"\n")
        write("grader/pool/p.c", "#include \"grader/common/verdict.h\"\n")
        write("grader/common/c.c", "#include \"common/verdict.h\"\n")
        got = include_problems(t, ["server/a.c", "grader/batch/b.c", "grader/cli/cli.c",
                                   "grader/pool/p.c", "grader/common/c.c",
                                   "grader/worker/limits.h"])
        expect = ["server/a.c", "grader/batch/b.c", "grader/cli/cli.c", "grader/pool/p.c"]
        flagged = sorted({p.split(":")[0] for p in got})
        if flagged != sorted(expect):
            return [f"self-test: include check flagged {flagged}, expected {sorted(expect)}"]
        write("shadow/limits.h", "/* a project header named like a system one */\n")
        cc = os.environ.get("CC", "cc")
        units = {(cc, "c", ("-I" + os.path.join(t, "shadow"),)): (t, "made-up.c")}
        got = shadow_problems(units, [t])
        if not any("a system header is" in p for p in got) or \
           not any("holds limits.h" in p for p in got):
            return [f"self-test: a project limits.h on -I was not caught: {got}"]
        fake = [{"name": "abuse_in_hostile", "suite": ["p:abuse"],
                 "cmd": ["python3", os.path.join(t, "tests/hostile/a.py")]},
                {"name": "ok", "suite": ["p:unit"], "cmd": [os.path.join(t, "b/test_x")]}]
        got = suite_problems(fake, t, {os.path.join(t, "b/test_x"):
                                       [os.path.join(t, "tests/unit/test_x.c")]})
        if len(got) != 1 or "abuse_in_hostile" not in got[0]:
            return [f"self-test: the suite check gave {got}"]
        # the server's rooms: core including identity, a feature including
        # another's header, a stray file on top, a room of no name, and a
        # circle (core -> identity -> core) must all be flagged; a feature
        # including core and identity, and the top including a feature, not
        write("server/core/req.h", "")
        write("server/core/resp.c", "#include \"server/identity/who.h\"\n")
        write("server/identity/who.h", "#include \"server/core/req.h\"\n")
        write("server/grade/sub.c", "#include \"server/records/rec.h\"\n")
        write("server/records/rec.h", "#include \"server/core/req.h\"\n"
                                      "#include \"server/identity/who.h\"\n")
        write("server/extra.c", "")
        write("server/misc/x.c", "")
        write("server/routes.c", "#include \"server/grade/sub.h\"\n")
        write("server/grade/sub.h", "")
        rels = ["server/core/req.h", "server/core/resp.c", "server/identity/who.h",
                "server/grade/sub.c", "server/records/rec.h", "server/extra.c",
                "server/misc/x.c", "server/routes.c", "server/grade/sub.h"]
        got = server_room_problems(t, rels)
        want = {"server/core/resp.c: #include", "server/grade/sub.c: #include",
                "server/extra.c: on top", "server/misc/x.c: server/misc/", "in a circle"}
        missing = [w for w in want if not any(w in p for p in got)]
        wrong = [p for p in got if "rec.h:" in p or "routes.c:" in p or "sub.h:" in p]
        if missing or wrong or len(got) != len(want):
            return [f"self-test: the server room check gave {got}"]
    return []


def main():
    root, build = (os.path.realpath(a) for a in sys.argv[1:3])
    problems = self_test()
    problems += include_problems(root, tracked_sources(root))
    problems += server_room_problems(root, [f for f in tracked_sources(root)
                                            if f.startswith("server/")] +
                                     [f for f in git_files(root, "server")
                                      if not f.endswith(SOURCE_EXT)])
    units = compile_units(build)
    if not units:
        problems.append("no compile commands in the build")
    problems += shadow_problems(units, [root, build])
    tests, sources_of = meson_tests(build)
    problems += suite_problems(tests, root, sources_of)
    for p in problems:
        print(p)
    print(f"{len(units)} sets of compile flags, {len(tracked_sources(root))} sources, "
          f"{len(tests)} tests: "
          f"{'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

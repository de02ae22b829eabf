#!/usr/bin/env python3
"""The server's call graph, read from its objects (docs/ARCHITECTURE.md, "Rooms").

usage: test_call_graph.py SOURCE_ROOT LIBSERVER_A

From `nm` of each object of the server's library: the functions and data
each file defines, and the ones it uses that another file defines. Then:

1. No circle between files: if a.c calls b.c, nothing b.c calls (however
   far) calls a.c. A circle is one knot, not two files.
2. Calls follow the rooms (tests/unit/test_rooms.py's SERVER_ROOMS): a
   core file calls only core; identity, core and identity; a feature,
   core, identity and its own room; the top (main.c, server.c, routes.c)
   anything. A pointer set on top (struct server's class_has) is the one
   way a feature reaches another, and it is no symbol.
3. Names tell the room: every symbol a file exports starts with its
   file's stem and "_" (or is the stem), but for the aliases below.

Each check is first run on made-up objects that break it (compiled here
with the C compiler), so a check that cannot fail fails the test. The
same command answers anyone who asks: run it on build/server/libserver.a.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rooms import SERVER_ROOMS, circles  # noqa: E402

# Exported names that do not start with their file's stem, and why.
ALIASES = {}


def members(lib):
    """{member: (defined, undefined)} from nm of an archive."""
    out = subprocess.run(["nm", "-P", "-A", lib], capture_output=True, text=True, check=True)
    table = {}
    for line in out.stdout.splitlines():
        # "lib.a[member.o]: symbol TYPE value size"
        head, _, rest = line.partition(": ")
        fields = rest.split()
        if "[" not in head or len(fields) < 2:
            continue
        # a thin archive (meson's) names its members by path
        member = os.path.basename(head[head.index("[") + 1:head.rindex("]")])
        d, u = table.setdefault(member, (set(), set()))
        # what a sanitizer adds to every object (__odr_asan.NAME,
        # __asan_*, __ubsan_*) is the build's, not the file's
        if fields[0].startswith(("__odr_asan", "__asan", "__ubsan", "__sanitizer", "__tsan")):
            continue
        if fields[1] in "TDBRCV":
            d.add(fields[0])
        elif fields[1] == "U":
            u.add(fields[0])
    return table


def sources_of(root, names):
    """Each archive member's source under server/ (meson names an object
    by its path, with '/' made '_')."""
    found = {}
    for d, _, fs in os.walk(os.path.join(root, "server")):
        for f in fs:
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(d, f), root)
                found[rel[len("server/"):].replace("/", "_") + ".o"] = rel
    return {m: found.get(m) for m in names}


def room(rel):
    parts = rel.split("/")
    return "top" if len(parts) == 2 else parts[1]


def problems_of(root, lib):
    table = members(lib)
    src = sources_of(root, table)
    problems = [f"{m}: no source under server/ for this object" for m, s in src.items()
                if s is None]
    owner = {sym: src[m] for m, (d, _) in table.items() if src[m] for sym in d}
    graph = {}
    for m, (d, u) in table.items():
        here = src[m]
        if not here:
            continue
        graph[here] = {owner[s] for s in u if s in owner and owner[s] != here}
        r = room(here)
        for there in sorted(graph[here]):
            if r != "top" and room(there) not in SERVER_ROOMS.get(r, set()):
                used = sorted(s for s in u if owner.get(s) == there)
                problems.append(f"{here} calls {there} ({', '.join(used[:3])}): "
                                f"server/{r}/ may call only "
                                f"{', '.join(sorted(SERVER_ROOMS.get(r, ())))}")
        stem = os.path.splitext(os.path.basename(here))[0]
        allowed = (stem + "_",) + ALIASES.get(here, ())
        for sym in sorted(d):
            if sym != stem and not sym.startswith(allowed):
                problems.append(f"{here} exports {sym}: name it {stem}_...")
    for c in circles(graph):
        problems.append(f"files call each other in a circle: {' -> '.join(c)}")
    return problems, len(table)


def self_test():
    """Made-up objects: a core file calling identity, identity calling it
    back (a circle), and a name that is not its file's."""
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as t:
        files = {
            "server/core/req.c": "void who_am(void);\nvoid req_go(void) { who_am(); }\n",
            "server/identity/who.c": "void req_go(void);\n"
                                     "void who_am(void) { req_go(); }\n"
                                     "void stray_name(void) {}\n",
            "server/routes.c": "void req_go(void);\nvoid routes_start(void) { req_go(); }\n",
        }
        objs = []
        for rel, text in files.items():
            path = os.path.join(t, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(text)
            obj = os.path.join(t, rel[len("server/"):].replace("/", "_") + ".o")
            subprocess.run([cc, "-c", path, "-o", obj], check=True)
            objs.append(obj)
        lib = os.path.join(t, "libserver.a")
        subprocess.run(["ar", "rcs", lib, *objs], check=True)
        got, _ = problems_of(t, lib)
    want = ("server/core/req.c calls server/identity/who.c", "exports stray_name",
            "in a circle")
    missing = [w for w in want if not any(w in p for p in got)]
    if missing or len(got) != len(want):
        return [f"self-test: the call-graph checks gave {got}"]
    return []


def main():
    root, lib = (os.path.realpath(a) for a in sys.argv[1:3])
    problems = self_test()
    found, n = problems_of(root, lib)
    problems += found
    for p in problems:
        print(p)
    print(f"{n} objects of the server: {'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

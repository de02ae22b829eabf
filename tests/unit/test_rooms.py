#!/usr/bin/env python3
"""The rooms the build enforces (docs/ARCHITECTURE.md, "Rooms").

usage: test_rooms.py SOURCE_ROOT BUILD_ROOT

1. Every compile command of the build (compile_commands.json), with its own
   -I folders, gets the system's <limits.h> and the other standard headers
   listed below, never a project file; and no -I folder holds a header of
   its own, so none can ever shadow a system one.
2. Every project include names its room: a grader header from grader/
   ("common/verdict.h"), any other from the repository root
   ("server/request.h"); never a bare name, never "grader/...".
3. The layer rule: common <- engine <- worker; common <- pool <- server,
   batch, cli. A server, batch or CLI file that includes an engine or
   worker header fails here (tests/unit/test_link.sh fails when they link
   the GPU stack).

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

GRADER_ROOMS = ("common", "engine", "worker", "pool", "store", "batch", "admin", "cli")
OTHER_ROOMS = ("server", "tests", "bench", "fuzz")
# What a file in each room may include, by room.
ALLOWED = {
    "common": {"common"},
    "engine": {"common", "engine"},
    "worker": {"common", "engine", "worker"},
    "pool": {"common", "pool"},
    "store": {"common", "store"},
    "batch": {"common", "pool", "store", "batch"},
    "admin": {"common", "store", "batch", "admin"},
    "cli": {"common", "pool"},
    "server": {"common", "pool", "store", "server"},
    "tests": None,  # anything
    "bench": None,
    "fuzz": None,
}
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


def tracked_sources(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, text=True)
    if out.returncode == 0:
        files = out.stdout.split()
    else:  # a copy of the sources without git
        files = [os.path.relpath(os.path.join(d, f), root)
                 for d, _, fs in os.walk(root) for f in fs]
    return sorted(f for f in files if f.endswith(SOURCE_EXT) and "node_modules" not in f)


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
    return []


def main():
    root, build = (os.path.realpath(a) for a in sys.argv[1:3])
    problems = self_test()
    problems += include_problems(root, tracked_sources(root))
    units = compile_units(build)
    if not units:
        problems.append("no compile commands in the build")
    problems += shadow_problems(units, [root, build])
    for p in problems:
        print(p)
    print(f"{len(units)} sets of compile flags, {len(tracked_sources(root))} sources: "
          f"{'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""docs/ARCHITECTURE.md against the tree, read at test time.

usage: test_architecture.py SOURCE_ROOT

1. Every folder the page names (a path that ends in "/") and every file it
   names with its folder (`grader/store/pg_wait.c`, `common/io/frame.h`)
   exists: as written from the repository root, or as the tail of a path
   in the tree (the stages table writes `checks/spirv_loops.c` for
   grader/engine/checks/spirv_loops.c, includes write `common/...` from
   grader/). A file named alone in backticks (`routes.c`) exists somewhere
   in the tree.
2. Every room is named: each folder under server/ and grader/ that holds
   C files (.c, .cc) appears with its whole path from the root
   (`grader/engine/checks/`, `server/`), so a room added or moved fails
   here until the page says where it is.
3. The page has its sections "Rooms" and "The walk of a request".

The checks are first run on a made-up tree that breaks each of them, so
a check that cannot fail fails the test. Prints one line per problem and
ends with "N passed, M failed".
"""
import os
import re
import sys
import tempfile

# A path as the page writes it: folders ending in "/", or a file with one
# of the tree's extensions after at least one folder. Not after a word
# character, "/" or ":" (so no URL and no route such as /api/me).
PATH = re.compile(
    r"(?<![\w./:@-])((?:[A-Za-z_][\w+-]*(?:\.[\w+-]+)*/)+"
    r"(?:[\w+-]+(?:\.[\w+-]+)*\.(?:c|cc|h|py|sh|md|json|comp|mjs|lua|csv|html|css|build|1))?)"
    r"(?![\w/])")
# A file named alone, in backticks: `conn_limit.c`.
BARE = re.compile(r"`([\w+-]+(?:\.[\w+-]+)*\.(?:c|cc|h|py|sh|comp|mjs))`")
SKIP = {".git", "node_modules", "subprojects", "__pycache__"}
C_EXT = (".c", ".cc")
SECTIONS = ("Rooms", "The walk of a request")


def is_build_dir(path):
    return os.path.isdir(os.path.join(path, "meson-private"))


def tree(root):
    """(folders, files) of the tree, repository-relative, without build
    folders, hidden folders and installed node modules."""
    dirs, files = set(), set()
    for here, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in SKIP and not d.startswith(".")
                      and not is_build_dir(os.path.join(here, d))]
        rel = os.path.relpath(here, root)
        if rel != ".":
            dirs.add(rel.replace(os.sep, "/"))
        for n in names:
            files.add(os.path.normpath(os.path.join(rel, n)).replace(os.sep, "/"))
    return dirs, files


def tails(paths):
    """Every tail of every path: "a/b/c" gives "a/b/c", "b/c", "c"."""
    out = set()
    for p in paths:
        parts = p.split("/")
        for i in range(len(parts)):
            out.add("/".join(parts[i:]))
    return out


def rooms(dirs, files):
    """The folders under server/ and grader/ (themselves included) that
    hold C files directly."""
    out = set()
    for f in files:
        d = os.path.dirname(f)
        if f.endswith(C_EXT) and (d in ("server", "grader") or d.startswith(("server/", "grader/"))):
            out.add(d)
    return out


def problems(root):
    """What is untrue in root's docs/ARCHITECTURE.md, one line each."""
    doc_path = os.path.join(root, "docs", "ARCHITECTURE.md")
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    dirs, files = tree(root)
    dir_tails, file_tails = tails(dirs), tails(files)
    named = set(PATH.findall(doc))
    out = []
    for p in sorted(named):
        if p.endswith("/"):
            if p.rstrip("/") not in dir_tails:
                out.append("ARCHITECTURE.md names the folder %s, which the tree does not have" % p)
        elif p not in file_tails:
            out.append("ARCHITECTURE.md names the file %s, which the tree does not have" % p)
    basenames = {f.rsplit("/", 1)[-1] for f in files}
    for b in sorted(set(BARE.findall(doc))):
        if b not in basenames:
            out.append("ARCHITECTURE.md names the file `%s`, which is nowhere in the tree" % b)
    for r in sorted(rooms(dirs, files)):
        if r + "/" not in named:
            out.append("the room %s/ (a folder of C files) is not named in ARCHITECTURE.md "
                       "(write it with its whole path, e.g. in the Rooms table)" % r)
    headings = set(re.findall(r"^#+\s+(.+?)\s*$", doc, re.M))
    for s in SECTIONS:
        if s not in headings:
            out.append('ARCHITECTURE.md has no section "%s"' % s)
    return out


def write(root, rel, text=""):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_check():
    """The checks on made-up trees: one true page, then one of each lie."""
    results = []
    with tempfile.TemporaryDirectory() as t:
        write(t, "server/main.c")
        write(t, "server/core/http.c")
        write(t, "grader/common/verdict.c")
        write(t, "grader/common/io/frame.h")
        write(t, "grader/engine/shaders/harness.comp")   # not C: not a room
        good = ("# A\n## Rooms\n`server/`, `server/core/` (`http.c`), `grader/common/`,\n"
                "`common/io/frame.h`, see /api/me and https://example.org/x/y.c\n"
                "## The walk of a request\n")
        write(t, "docs/ARCHITECTURE.md", good)
        results.append(("a true page passes", problems(t) == []))
        write(t, "docs/ARCHITECTURE.md", good + "`server/gone/`\n")
        results.append(("a folder that is not there fails",
                        any("server/gone/" in p for p in problems(t))))
        write(t, "docs/ARCHITECTURE.md", good + "grader/common/missing.c\n")
        results.append(("a file that is not there fails",
                        any("missing.c" in p for p in problems(t))))
        write(t, "docs/ARCHITECTURE.md", good + "the walk: `http.c`, then `gone.c`\n")
        results.append(("a file named alone that is nowhere fails",
                        any("`gone.c`" in p for p in problems(t))
                        and not any("`http.c`" in p for p in problems(t))))
        write(t, "server/lti/lti.c")
        write(t, "docs/ARCHITECTURE.md", good)
        results.append(("a room not named fails",
                        any("server/lti/" in p for p in problems(t))))
        write(t, "docs/ARCHITECTURE.md", good.replace("## The walk of a request", "## Walk")
              + "`server/lti/`\n")
        results.append(("a missing section fails",
                        any("The walk of a request" in p for p in problems(t))))
    return results


def main():
    root = sys.argv[1]
    passed = failed = 0
    for name, ok in self_check():
        print("%s: self-check: %s" % ("ok" if ok else "FAIL", name))
        passed, failed = passed + ok, failed + (not ok)
    found = problems(root)
    for p in found:
        print("FAIL: " + p)
    if found:
        failed += 1
    else:
        print("ok: docs/ARCHITECTURE.md names every room, and every folder and file it names exists")
        passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

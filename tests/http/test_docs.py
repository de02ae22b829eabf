#!/usr/bin/env python3
"""The server's and butterfly-grade's documents say what the programs do.

usage: test_docs.py SOURCE_ROOT SERVER GRADE BATCH WORKER

Every option that `butterfly-server --help` lists must be in its manual
page (docs/man/butterfly-server.1), with its variable and its default, and
in the README's table of server options with the same; every option of
`butterfly-grade --help` in its manual page and in the README's table; the
pages render without warnings; every program, the worker too, answers
--version with the project's version. So the documents cannot drift from
the code. Prints one line per failure and ends with "N passed, M failed".
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from manpage import deroff, section, section_raw  # noqa: E402

ROOT, SERVER, GRADE, BATCH, WORKER = sys.argv[1:6]
# Defaults that depend on the machine or the prefix: the documents give
# them in words ("the cores", "beside the program").
WORDED = {"workers", "static-dir", "worker", "device", "trusted-proxy", "seed", "quiet",
          "database", "state-dir"}


def man_options(src):
    """{"--opt": its paragraph} of a page's OPTIONS section."""
    out = {}
    for para in re.split(r"^\.TP\n", section_raw(src, "OPTIONS"), flags=re.M)[1:]:
        text = deroff(para)
        for opt in re.findall(r"--[a-z][a-z0-9-]*", text.splitlines()[0]):
            out[opt] = text
    return out


def readme_rows(readme, first_cell):
    """{"--opt": the row} of the README's tables whose rows start with `--opt."""
    rows = {}
    for line in readme.splitlines():
        m = re.match(r"\| `(--[a-z][a-z0-9-]*)[^`]*`" + first_cell, line)
        if m:
            rows[m.group(1)] = line
    return rows


def run(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUTTERFLY_")}
    return subprocess.run(args, capture_output=True, text=True, env=env)


def main():
    failures, checked = [], 0

    def check(ok, what):
        nonlocal checked
        checked += 1
        if not ok:
            failures.append(what)

    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    with open(os.path.join(ROOT, "meson.build")) as f:
        version = re.search(r"version : '([^']+)'", f.read()).group(1)

    # --- butterfly-server: "  --name ARG   (VARIABLE) help [value]"
    with open(os.path.join(ROOT, "docs", "man", "butterfly-server.1")) as f:
        src = f.read()
    help_text = run(SERVER, "--help").stdout
    opts = re.findall(r"^  --([a-z0-9-]+)(?: \S+)?\s+\((BUTTERFLY_\w+)\) .*\[(.*)\]$", help_text, re.M)
    check(len(opts) >= 17, "too few server options in --help: %r" % opts)
    man = man_options(src)
    env_section = section(src, "ENVIRONMENT")
    rows = readme_rows(readme, r" \| `BUTTERFLY_")
    for name, var, value in opts:
        opt = "--" + name
        check(opt in man, "butterfly-server.1's OPTIONS lack %s" % opt)
        check(var in man.get(opt, ""), "butterfly-server.1 does not give %s's variable %s" % (opt, var))
        check(re.search(r"^%s\s+%s$" % (var, re.escape(opt)), env_section, re.M),
              "butterfly-server.1's ENVIRONMENT lacks %s for %s" % (var, opt))
        row = rows.get(opt, "")
        check(row, "the README's server table lacks %s" % opt)
        check("`%s`" % var in row, "the README's row for %s lacks %s" % (opt, var))
        if name not in WORDED:
            check(re.search(r"default %s\b" % re.escape(value), man.get(opt, "")),
                  "butterfly-server.1 does not give %s's default %s" % (opt, value))
            check("| %s |" % value in row, "the README's row for %s lacks the default %s" % (opt, value))
    check(set(rows) == {"--" + n for n, _, _ in opts},
          "the README's server table has other options: %r" % sorted(set(rows)))

    # --- butterfly-grade
    with open(os.path.join(ROOT, "docs", "man", "butterfly-grade.1")) as f:
        src = f.read()
    help_text = run(GRADE, "--help").stdout
    opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", help_text)))
    check(len(opts) >= 8, "too few butterfly-grade options: %r" % opts)
    man = man_options(src)
    grade_table = readme[readme.index("## Grading a kernel"):readme.index("## Writing a kernel")]
    for opt in opts:
        check(opt in man, "butterfly-grade.1's OPTIONS lack %s" % opt)
        if opt not in ("--version", "--help"):
            check(re.search(r"^\| `%s\b" % re.escape(opt), grade_table, re.M),
                  "the README's butterfly-grade table lacks %s" % opt)
    for n in re.findall(r"\(default (\d+)\)", help_text):
        check(n in section(src, "OPTIONS") and n in grade_table, "butterfly-grade's default %s" % n)
    for var in re.findall(r"env (BUTTERFLY_\w+)", help_text):
        check(var in section(src, "ENVIRONMENT"), "butterfly-grade.1's ENVIRONMENT lacks %s" % var)

    # --- every program answers --version
    for prog in (SERVER, GRADE, BATCH, WORKER):
        p = run(prog, "--version")
        want = "%s %s" % (os.path.basename(prog), version)
        check(p.returncode == 0 and p.stdout.strip() == want,
              "%s --version: %r, not %r" % (prog, p.stdout.strip(), want))

    # --- the pages render without a warning
    groff = shutil.which("groff")
    for page in ("butterfly-server.1", "butterfly-grade.1"):
        if not groff:
            print("note: groff is not installed; %s's rendering is not checked" % page)
            break
        p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z",
                            os.path.join(ROOT, "docs", "man", page)], capture_output=True, text=True)
        check(p.returncode == 0 and not p.stderr.strip(), "groff %s: %s" % (page, p.stderr))

    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (checked - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

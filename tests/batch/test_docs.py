#!/usr/bin/env python3
"""test_docs.py - the batch's documents say what the program does.

usage: test_docs.py BUTTERFLY_BATCH SOURCE_ROOT

Every option `butterfly-batch --help` lists must appear in the manual page
(docs/man/butterfly-batch.1) and in docs/BATCH.md, with the defaults and
limits --help prints; the limits written in the C headers must be the
ones the documents state; the manual page must render without warnings.
So the documents cannot drift from the code.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from manpage import deroff, section  # noqa: E402

BATCH = sys.argv[1]
ROOT = sys.argv[2]
MAN = os.path.join(ROOT, "docs", "man", "butterfly-batch.1")
DOC = os.path.join(ROOT, "docs", "BATCH.md")


def c_define(header, name):
    """The value of `#define name expr` in a header, evaluated."""
    with open(os.path.join(ROOT, header)) as f:
        m = re.search(r"^#define\s+" + name + r"\s+(.+?)\s*(/\*.*)?$", f.read(), re.M)
    assert m, (header, name)
    expr = re.sub(r"(\d+)(?:ull|ul|u|l)\b", r"\1", m.group(1), flags=re.I)
    return int(eval(expr, {"__builtins__": {}}))


def main():
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    help_text = subprocess.run([BATCH, "--help"], capture_output=True, text=True,
                               check=True).stdout
    with open(MAN) as f:
        man_src = f.read()
    man = deroff(man_src)
    with open(DOC) as f:
        doc = f.read()

    # every option, in both documents
    options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b", help_text)))
    check(len(options) >= 18, "too few options found in --help: %r" % options)
    man_options = section(man_src, "OPTIONS")
    for opt in options:
        check(re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", man_options),
              "the manual page's OPTIONS lack %s" % opt)
        check(re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", doc),
              "docs/BATCH.md lacks %s" % opt)

    # the values --help prints: defaults, limits, file names, variables
    numbers = set(re.findall(r"(?:default|at most|to) (\d+)", help_text))
    check({"5000", "600000", "64"} <= numbers, "--help's numbers: %r" % numbers)
    for n in numbers:
        check(n in man_options, "the manual page does not state %s" % n)
        check(n in doc, "docs/BATCH.md does not state %s" % n)
    for name in re.findall(r"OUT/([\w.-]+\.(?:csv|json|html))", help_text):
        check(name in man, "the manual page does not name %s" % name)
        check(name in doc, "docs/BATCH.md does not name %s" % name)
    env = section(man_src, "ENVIRONMENT")
    for var in ("BUTTERFLY_DEVICE", "NO_COLOR", "TERM"):
        check(var in help_text and var in env and var in doc, "the variable %s" % var)
    status = section(man_src, "EXIT STATUS")
    for code in re.findall(r"\b(\d+) (?:every|so it|no gradebook|usage)", help_text) + ["128"]:
        check(re.search(r"(?m)^" + code + r"\b", status), "exit status %s" % code)

    # the limits in the C headers, as the documents state them
    limits = section(man_src, "LIMITS")
    mib = lambda n: "%d MiB" % (n >> 20)
    for header, name, shown in [
        ("grader/batch/input/batch_input.h", "BATCH_MAX_INPUTS", str),
        ("grader/batch/input/batch_input.h", "BATCH_MAX_TABLE_SOURCES", mib),
        ("grader/batch/input/batch_input.h", "BATCH_MAX_JSONL_LINE", mib),
        ("grader/gradebook/student_id.h", "GRADEBOOK_ID_MAX", lambda n: "%d bytes" % n),
        ("grader/gradebook/roster.h", "GRADEBOOK_ROSTER_MAX_ROWS", str),
        ("grader/batch/reports/batch_roster.h", "BATCH_ROSTER_MAX_FIELD", lambda n: "%d bytes" % n),
        ("grader/common/defaults.h", "ROSTER_ID_MAX", lambda n: "%d bytes" % n),
        ("grader/common/defaults.h", "ROSTER_NAME_MAX", lambda n: "%d bytes" % n),
    ]:
        text = shown(c_define(header, name))
        check(text in limits, "the manual page's LIMITS lack %s (%s)" % (text, name))
        grouped = re.sub(r"(\d)(?=(\d{3})+\b)", r"\1,", text)     # 100000 as 100,000
        check(text in doc or grouped in doc, "docs/BATCH.md lacks %s (%s)" % (text, name))
    stdin_max = c_define("grader/batch/input/batch_input.h", "BATCH_MAX_STDIN")
    check("%d GiB" % (stdin_max >> 30) in man and "%d GiB" % (stdin_max >> 30) in doc,
          "standard input's limit")

    # the Gradescope autograder repeats two of the batch's bounds (it is Python)
    with open(os.path.join(ROOT, "gradescope", "run_autograder")) as f:
        script = f.read()
    id_max = int(re.search(r"^ID_MAX = (\d+)", script, re.M).group(1))
    check(id_max == c_define("grader/gradebook/student_id.h", "GRADEBOOK_ID_MAX"),
          "run_autograder's ID_MAX is not BATCH_ID_MAX")
    keep = eval(re.search(r"^KEEP_BYTES = ([\d *+]+)", script, re.M).group(1),
                {"__builtins__": {}})
    check(keep > c_define("grader/common/task.h", "TASK_MAX_SOURCE"),
          "run_autograder keeps less of a file than the batch needs to see it is too long")

    # it renders, without a warning
    groff = shutil.which("groff")
    if groff:
        p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", MAN], capture_output=True,
                           text=True)
        check(p.returncode == 0 and not p.stderr.strip(), "groff: " + p.stderr)
    else:
        print("note: groff is not installed; the page's rendering is not checked")

    for f in failures:
        print("FAIL:", f)
    print("%d options checked; %d failures" % (len(options), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""test_summary_html.py - the class report, looked at in a browser.

usage: test_summary_html.py BUTTERFLY_BATCH SAMPLES_DIR ARTIFACTS_DIR

Grades a small class (right and wrong answers, known mistakes, compile
errors, refusals, ids with markup, quotes and '%') and hands its output
folder to html/check_summary.mjs, which opens summary.html in Debian's
headless Chromium through playwright-core (installed from
html/package-lock.json, never a browser download), takes screenshots into
ARTIFACTS_DIR and checks the page's figures against summary.json.
Skipped (status 77, with the reason) only when Chromium or node is not
installed; CI installs both (scripts/install-deps.sh with
BUTTERFLY_TEST_DEPS=1).
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

BATCH = os.path.abspath(sys.argv[1])
SAMPLES = os.path.abspath(sys.argv[2])
ARTIFACTS = os.path.abspath(sys.argv[3])
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "html")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def sample(name):
    with open(os.path.join(SAMPLES, name + ".glsl")) as f:
        return f.read()


def make_export(path):
    rows = [
        ("alice", sample("correct")), ("Bob", sample("correct_branches")),
        ("carol", sample("wrong_twiddle_sign")), ("dave", sample("mistakes/twiddle_sign")),
        ("erin", sample("mistakes/no_twiddle")), ("frank", "float x = nope;\nreturn x;\n"),
        ("grace", "float a = nope1;\nfloat b = nope2;\nreturn a + b;\n"),
        ("<b>bold</b>&co", sample("correct")), ("%41", sample("hardcoded_visible")),
        ("x\"y'z", "int i = this.thread.x\nreturn spectrum[0][i];\n"),
        ("", sample("correct")), ("dup", sample("correct")), ("dup", sample("starter")),
        ("empty", ""),
    ]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "source"])
        w.writerows(rows)


def main():
    node, npm = shutil.which("node"), shutil.which("npm")
    if not os.access(CHROMIUM, os.X_OK) or not node or not npm:
        print("SKIP: the class report needs Chromium (%s), node and npm: apt-get install "
              "chromium nodejs npm, or scripts/install-deps.sh with BUTTERFLY_TEST_DEPS=1"
              % CHROMIUM)
        return 77
    if not os.path.isdir(os.path.join(HERE, "node_modules", "playwright-core")):
        # playwright-core ships no browser and downloads none at install
        env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=HERE,
                       env=env, check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="butterfly-summary-html-") as tmp:
        export, out = os.path.join(tmp, "class.csv"), os.path.join(tmp, "out")
        make_export(export)
        p = subprocess.run([BATCH, "-j", "2", "-q", "-o", out, export], capture_output=True,
                           text=True, timeout=240)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            return 1
        return subprocess.call([node, os.path.join(HERE, "check_summary.mjs"), out, ARTIFACTS],
                               timeout=300)


if __name__ == "__main__":
    sys.exit(main())

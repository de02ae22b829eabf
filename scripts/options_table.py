#!/usr/bin/env python3
"""Prints the README's option table of butterfly-server from its --help, so
the table cannot drift from the program (tests/unit/test_readme_options.py
checks that the README holds exactly this table).

usage: options_table.py SERVER_BINARY
"""
import re
import subprocess
import sys

# Defaults that depend on the machine or the install: said in words.
IN_WORDS = {"--workers": "the number of cores", "--device": "the best device",
            "--static-dir": "beside the program", "--worker": "beside the program"}


def rows(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s+(--[a-z0-9-]+)(?: (\S+))?\s+\((BUTTERFLY_[A-Z0-9_]+)\) (.*) \[(.*)\]$", line)
        if m:
            opt, arg, env, meaning, default = m.groups()
            yield opt, arg, env, meaning, IN_WORDS.get(opt, default)


def table(binary):
    lines = ["| option | variable | meaning | default |", "| --- | --- | --- | --- |"]
    for opt, arg, env, meaning, default in rows(binary):
        flag = "`%s %s`" % (opt, arg) if arg else "`%s`" % opt
        lines.append("| %s | `%s` | %s | %s |" % (flag, env, meaning.replace("|", "\\|"), default))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(sys.argv[1]))

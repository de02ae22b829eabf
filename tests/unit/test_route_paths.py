#!/usr/bin/env python3
"""Each route's path is written in the route table only (issue 30, item 2).

usage: test_route_paths.py SOURCE_ROOT

Every C string literal in server/ that starts with one of the table's
first path segments ("/api/...", "/lti/...", "/tasks", "/class", ...) is
a route's path written a second time: outside server/routes.c the
features build their links and redirects with route_link. Comments are
left out. The scan is first run on a file made to break it, so a scan
that cannot fail fails the test.
"""
import os
import re
import sys

ROW = re.compile(r'^\s*\{ "(/[^"]*)", ROUTE_', re.M)
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def first_segments(table_source):
    """The table's first path segments ("/api", "/lti", "/tasks", ...)."""
    segs = set()
    for path in ROW.findall(table_source):
        seg = '/' + path[1:].split('/')[0]
        if seg != '/' and '{' not in seg:
            segs.add(seg)
    return segs


def written_again(text, segs):
    """The literals in C text (comments removed) that start with a route's segment."""
    code = COMMENT.sub(' ', text)
    out = []
    for lit in LITERAL.findall(code):
        if any(lit == s or lit.startswith(s + '/') or lit.startswith(s + '?') for s in segs):
            out.append(lit)
    return out


def main():
    root = sys.argv[1]
    server = os.path.join(root, 'server')
    table = os.path.join(server, 'routes.c')
    segs = first_segments(open(table).read())
    problems = []
    if not {'/api', '/lti', '/tasks', '/class'} <= segs:
        problems.append(f'the table was not read: {sorted(segs)}')
    made = 'x = route("/api/tasks/%s", id); /* "/lti/launch" in a comment */ f("/proc/self");'
    if written_again(made, segs) != ['/api/tasks/%s']:
        problems.append(f'the scan misses a path written again: {written_again(made, segs)}')
    for folder, _, files in os.walk(server):
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not name.endswith('.c') or path == table:
                continue
            for lit in written_again(open(path, encoding='utf-8').read(), segs):
                problems.append(f'{os.path.relpath(path, root)}: "{lit}" is a route\'s path '
                                'outside server/routes.c: write it with route_link')
    for p in problems:
        print('FAIL ' + p)
    print(f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""Embed the exercises of exercises/LIST into a C file for the registry.

usage: embed_exercises.py VALIDATOR SOURCE_ROOT LIST OUTPUT DEPFILE

First runs VALIDATOR (the build's exercise_validate) on every listed folder,
so a definition that does not load fails the build with the loader's
message. Then writes OUTPUT: each folder's exercise.json, README.md,
starter.glsl, solutions/*.glsl and mistakes/*.glsl as strings, and the
table of grader/common/exercise/exercise_embedded.h, each row with the
folder's reference (exercise_reference_ID, as grader/common/meson.build
compiles it). DEPFILE names every file and folder read, so that ninja
rebuilds when any of them changes or a file is added.
"""
import os
import re
import subprocess
import sys

ID = re.compile(r'^[a-z0-9_-]{1,32}$')   # EX_ID_MAX, exercise_id_valid


def read_list(path):
    """The ids of LIST in order; a bad or repeated line stops the build."""
    ids, errors = [], []
    for n, raw in enumerate(open(path, encoding='utf-8').read().split('\n'), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        if not ID.match(line):
            errors.append(f'exercises/LIST: line {n}: "{line}" is not an id: '
                          '1 to 32 bytes of [a-z0-9_-]')
        elif line in ids:
            errors.append(f'exercises/LIST: line {n}: "{line}" is listed twice')
        else:
            ids.append(line)
    if not ids and not errors:
        errors.append('exercises/LIST: lists no exercise (the butterfly at least)')
    return ids, errors


def symbol(ident):
    """The C name meson gives the reference: underscorify()."""
    return 'exercise_reference_' + re.sub(r'[^a-zA-Z0-9]', '_', ident)


def c_string(data):
    out = []
    for line in data.split(b'\n'):
        out.append(''.join(chr(b) if 32 <= b < 127 and b not in (34, 92, 63)
                           else f'\\{b:03o}' for b in line))
    body = '\\n"\n    "'.join(out)
    return f'    "{body}"'


def folder_files(folder):
    """(name, path) of the files the loader reads, in exercise_dir.c's order."""
    names = ['README.md', 'starter.glsl']
    for sub in ('solutions', 'mistakes'):
        d = os.path.join(folder, sub)
        if os.path.isdir(d):
            names += sorted(f'{sub}/{f}' for f in os.listdir(d)
                            if f.endswith('.glsl') and len(f) > 5 and not f.startswith('.'))
    return [(n, os.path.join(folder, n)) for n in names if os.path.isfile(os.path.join(folder, n))]


def main():
    validator, root, list_path, output, depfile = sys.argv[1:6]
    ids, errors = read_list(list_path)
    symbols = {}
    for i in ids:
        if symbol(i) in symbols:
            errors.append(f'exercises/LIST: "{i}" and "{symbols[symbol(i)]}" give one C name')
        symbols[symbol(i)] = i
    if errors:
        sys.stderr.write('\n'.join(errors) + '\n')
        return 1
    run = subprocess.run([os.path.abspath(validator)] + [f'exercises/{i}' for i in ids],
                         cwd=root)
    if run.returncode != 0:
        sys.stderr.write('embed_exercises.py: exercises/ does not load (messages above)\n')
        return 1

    deps = [list_path]
    out = ['/* Generated from exercises/LIST by scripts/embed_exercises.py; do not edit. */\n',
           '#include "common/exercise/exercise_embedded.h"\n\n']
    rows = []
    for n, i in enumerate(ids):
        folder = os.path.join(root, 'exercises', i)
        deps += [folder] + [os.path.join(folder, s) for s in ('solutions', 'mistakes')
                            if os.path.isdir(os.path.join(folder, s))]
        json_path = os.path.join(folder, 'exercise.json')
        deps.append(json_path)
        out.append(f'void {symbol(i)}(int param, const float *in, double *out);\n\n')
        out.append(f'static const char ex{n}_json[] =\n'
                   f'{c_string(open(json_path, "rb").read())};\n\n')
        files = folder_files(folder)
        for k, (name, path) in enumerate(files):
            deps.append(path)
            text = c_string(open(path, 'rb').read())
            out.append(f'static const char ex{n}_f{k}[] =\n{text};\n\n')
        out.append(f'static const struct exercise_file ex{n}_files[] = {{\n')
        out += [f'    {{ "{name}", ex{n}_f{k}, sizeof ex{n}_f{k} - 1 }},\n'
                for k, (name, _) in enumerate(files)]
        out.append('};\n\n')
        rows.append(f'    {{ "exercises/{i}", ex{n}_json, sizeof ex{n}_json - 1, ex{n}_files,\n'
                    f'      {len(files)}, {symbol(i)} }},\n')
    out.append('const struct exercise_embedded exercise_embedded[] = {\n')
    out += rows
    out.append('};\n\n')
    out.append('const size_t exercise_embedded_count = '
               'sizeof exercise_embedded / sizeof exercise_embedded[0];\n')
    with open(output, 'w') as f:
        f.write(''.join(out))
    esc = lambda p: p.replace(' ', '\\ ')
    with open(depfile, 'w') as f:
        f.write(f'{esc(output)}: ' + ' \\\n  '.join(esc(d) for d in deps) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

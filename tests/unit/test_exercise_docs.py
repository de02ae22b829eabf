#!/usr/bin/env python3
"""docs/EXERCISES.md against the format (issue 33, item 8).

usage: test_exercise_docs.py SOURCE_ROOT EXERCISE_VALIDATE

1. exercises/exercise.schema.json is a valid JSON Schema 2020-12, every
   property in it has a description, and the doc's field table names
   exactly the schema's properties.
2. Every exercise of exercises/LIST validates against the schema.
3. The worked example's files, as the doc writes them, load: written to a
   folder and checked by the build's exercise_validate; the example's
   reference compiles.
4. exercises/LIST's mistakes stop scripts/embed_exercises.py: an id listed
   twice, a line that is no id; a good list embeds each folder's files and
   names them in its depfile.
5. The shipped example exercises are titled as examples, of other shapes
   than the butterfly, each with at least four solutions: two right, and
   wrong ones naming their mistake.

Each check is first run on something made to break it, so a check that
cannot fail fails the test.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from doc_files import doc_files, write_folder  # noqa: E402

ROW = re.compile(r'^\| `([^`]+)` \|', re.M)


def schema_paths(node, prefix=''):
    """Every property of the schema as the doc names it: a.b, a[].b."""
    out = {}
    for name, sub in node.get('properties', {}).items():
        path = prefix + name
        out[path] = sub
        out.update(schema_paths(sub, path + '.'))
        items = sub.get('items')
        if isinstance(items, dict) and 'properties' in items:
            out.update(schema_paths(items, path + '[].'))
    return out


def table_mismatch(schema, doc):
    paths = schema_paths(schema)
    rows = ROW.findall(doc)
    problems = [f'schema property {p} is not in the doc' for p in sorted(set(paths) - set(rows))]
    problems += [f'doc row {r} is not in the schema' for r in rows if r not in paths]
    problems += [f'doc row {r} is there twice' for r in set(rows) if rows.count(r) > 1]
    problems += [f'schema property {p} has no description' for p, s in paths.items()
                 if not s.get('description')]
    return problems


def validate(validator, path):
    run = subprocess.run([validator, path], capture_output=True, text=True, timeout=60)
    return run.returncode, run.stderr


def shape(d):
    """What makes two exercises the same shape: sizes, planes and sweep."""
    return (d['input']['n'], d['input']['planes'], d['output']['n'], d['output']['planes'],
            tuple(d['parameter']['values']))


def example_problems(d, expects, butterfly):
    """What an example exercise d (its solutions' first lines, by file)
    lacks of item 6: an example's title, another shape than the
    butterfly's, four solutions of which two right and one wrong with a
    named mistake."""
    out = []
    if not (d['title'].startswith('Example: ') and 'example' in d['subtitle'].lower()):
        out.append(f"not titled as an example: {d['title']} / {d['subtitle']}")
    if shape(d) == shape(butterfly):
        out.append(f"the butterfly's shape {shape(d)}")
    right = [n for n, e in expects.items() if e == '// expect: accepted']
    named = [n for n, e in expects.items() if re.fullmatch(r'// expect: wrong [a-z0-9_-]+', e)]
    if len(expects) < 4 or len(right) < 2 or not named:
        out.append(f'{len(expects)} solutions, {len(right)} right, {len(named)} named wrong')
    return out


def main():
    src, validator = sys.argv[1:3]
    failures = passed = 0

    def check(ok, what, detail=''):
        nonlocal failures, passed
        print(('ok' if ok else 'FAIL') + ': ' + what + (('\n    ' + detail) if detail and not ok else ''))
        failures += not ok
        passed += ok

    schema = json.load(open(os.path.join(src, 'exercises', 'exercise.schema.json')))
    doc = open(os.path.join(src, 'docs', 'EXERCISES.md')).read()

    # 1. the schema, and the doc's table against it
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        check(True, 'the schema is a valid JSON Schema 2020-12')
    except jsonschema.SchemaError as e:
        check(False, 'the schema is a valid JSON Schema 2020-12', str(e))
    broken = doc.replace('| `input.hidden.grid` |', '| `input.hidden.grain` |')
    check(len(table_mismatch(schema, broken)) == 2,
          'self-check: a doc row renamed is found both ways', str(table_mismatch(schema, broken)))
    problems = table_mismatch(schema, doc)
    check(not problems, 'the doc\'s field table is the schema\'s properties, each described',
          '; '.join(problems))

    # 2. every listed exercise against the schema
    ids = [l.strip() for l in open(os.path.join(src, 'exercises', 'LIST'))
           if l.strip() and not l.strip().startswith('#')]
    check('butterfly' in ids, 'exercises/LIST lists the butterfly')
    v = jsonschema.Draft202012Validator(schema)
    bad = {'id': 'butterfly', 'colour': 1}
    check(len(list(v.iter_errors(bad))) > 1, 'self-check: a bad definition fails the schema')
    for i in ids:
        errors = [e.message for e in
                  v.iter_errors(json.load(open(os.path.join(src, 'exercises', i, 'exercise.json'))))]
        check(not errors, f'exercises/{i}/exercise.json validates against the schema', '; '.join(errors))

    # 3. the worked example, as written
    files = doc_files(doc)
    check(list(files) == ['scale'], 'the doc has one worked example, scale', str(list(files)))
    example = files.get('scale', {})
    want = {'exercise.json', 'reference.c', 'README.md', 'starter.glsl', 'mistakes/copies_input.glsl'}
    check(want <= set(example) and sum(n.startswith('solutions/') for n in example) >= 4,
          'the example has every file and four solutions', str(sorted(example)))
    with tempfile.TemporaryDirectory() as t:
        broken = dict(example)
        broken['exercise.json'] = broken.get('exercise.json', '{}').replace('"title"', '"titel"', 1)
        rc, err = validate(validator, write_folder(t, 'broken/scale', broken))
        check(rc == 1 and 'scale/exercise.json: titel: unknown field' in err,
              'self-check: the example with a field misspelt does not load', err)
        folder = write_folder(t, 'scale', example)
        rc, err = validate(validator, folder)
        check(rc == 0 and err == '', 'the doc\'s example loads as written', err)
        errors = [e.message for e in v.iter_errors(json.loads(example.get('exercise.json', '{}')))]
        check(not errors, 'the doc\'s example validates against the schema', '; '.join(errors))
        cc = shutil.which('cc')
        if cc:
            run = subprocess.run([cc, '-std=c17', '-Wall', '-Werror', '-fsyntax-only', '-I', src,
                                  os.path.join(folder, 'reference.c')], capture_output=True, text=True)
            check(run.returncode == 0, 'the doc\'s reference.c compiles', run.stderr)

    # 4. the list, through the embedding
    embed = os.path.join(src, 'scripts', 'embed_exercises.py')
    with tempfile.TemporaryDirectory() as t:
        write_folder(os.path.join(t, 'exercises'), 'scale', example)

        def embed_list(text):
            with open(os.path.join(t, 'exercises', 'LIST'), 'w') as f:
                f.write(text)
            out, dep = os.path.join(t, 'out.c'), os.path.join(t, 'out.c.d')
            run = subprocess.run([sys.executable, embed, validator, t,
                                  os.path.join(t, 'exercises', 'LIST'), out, dep],
                                 capture_output=True, text=True, timeout=60)
            return run, out, dep

        run, _, _ = embed_list('# the list\nscale\n\nscale\n')
        check(run.returncode == 1 and 'exercises/LIST: line 4: "scale" is listed twice' in run.stderr,
              'an id listed twice stops the build', run.stderr)
        run, _, _ = embed_list('Scale\n')
        check(run.returncode == 1 and 'line 1: "Scale" is not an id' in run.stderr,
              'a line that is no id stops the build', run.stderr)
        run, _, _ = embed_list('missing\n')
        check(run.returncode == 1 and 'exercises/missing/reference.c: missing' in run.stderr,
              'a listed folder that is not there stops the build', run.stderr)
        run, out, dep = embed_list('scale\n')
        text = open(out).read() if run.returncode == 0 else ''
        deps = open(dep).read() if run.returncode == 0 else ''
        check(run.returncode == 0 and 'exercise_reference_scale' in text and
              '"solutions/right_local.glsl"' in text and '"mistakes/copies_input.glsl"' in text,
              'a good list embeds the folder with its reference', run.stderr)
        check(all(os.path.join('scale', n) in deps for n in example if n != 'reference.c') and
              os.path.join('exercises', 'scale', 'solutions') in deps,
              'the depfile names every embedded file and the folders files are added to', deps)

    # 5. the example exercises (issue 33, item 6), each rule first on an
    # example made to break it
    butterfly = json.load(open(os.path.join(src, 'exercises', 'butterfly', 'exercise.json')))
    broken = dict(butterfly, title='The Butterfly', subtitle='Task 2 of 6', example=True)
    got = example_problems(broken, {'a.glsl': '// expect: accepted',
                                    'b.glsl': '// expect: wrong'}, butterfly)
    check(len(got) == 3, 'a broken example breaks each rule', str(got))
    with open(os.path.join(src, 'exercises', 'LIST')) as f:
        listed = [ln.strip() for ln in f if ln.strip() and not ln.startswith('#')]
    examples = []
    for ex in listed:
        d = json.load(open(os.path.join(src, 'exercises', ex, 'exercise.json')))
        if not d.get('example'):
            continue
        examples.append(ex)
        sols = os.path.join(src, 'exercises', ex, 'solutions')
        expects = {}
        for name in sorted(os.listdir(sols)):
            with open(os.path.join(sols, name), encoding='utf-8-sig') as f:
                expects[name] = f.readline().strip()
        got = example_problems(d, expects, butterfly)
        check(not got, f'{ex}: titled as an example, of another shape than the butterfly, '
              f'{len(expects)} solutions', '; '.join(got))
    check(len(examples) >= 2, 'at least two example exercises are listed', str(examples))

    print(f'{passed} passed, {failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

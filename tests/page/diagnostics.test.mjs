import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { placeDiagnostics, verdictDiagnostics } from '../../static/diagnostics.mjs';
import { readVerdict } from '../../static/verdict.mjs';
import { fixture } from './helpers.mjs';

const sample = readFileSync(new URL('../samples/compile_error_line3.glsl', import.meta.url), 'utf8');

test('the grader\'s line 4, column 11 is the undeclared name on the body\'s line 4', () => {
  const [d] = placeDiagnostics(fixture('compile_error_line3').diagnostics, sample);
  assert.equal(d.line, 4);
  assert.equal(d.column, 11);
  assert.equal(d.afterCode, false);
  assert.equal(sample.slice(d.from, d.to), 'undefined_name');
  assert.match(d.text, /^Line 4, column 11: 'undefined_name' is not declared: declare it with its type/);
  assert.equal(d.severity, 'error');
});

test('without a column the whole line is marked, less its indentation', () => {
  const body = 'int i = 0;\n  float x = nope + 1.0;\nreturn x;';
  const [d] = placeDiagnostics([{ line: 2, column: null, severity: 'error', message: 'm' }], body);
  assert.equal(body.slice(d.from, d.to), 'float x = nope + 1.0;');
  assert.equal(d.text, 'Line 2: m');
});

test('the column just past a line (a missing \';\') is a point at its end', () => {
  const body = 'float x = 1.0\nreturn x;';
  const [d] = placeDiagnostics([{ line: 1, column: 14, severity: 'error', message: 'missing' }], body);
  assert.equal(d.from, 13);
  assert.equal(d.to, 13);
  assert.equal(d.text, 'Line 1, column 14: missing');
});

test('a column counts UTF-16 units, as the grader does', () => {
  const body = '/* é 😀 */ float y = foo;';
  const [d] = placeDiagnostics([{ line: 1, column: 22, severity: 'error', message: 'm' }], body);
  assert.equal(body.slice(d.from, d.to), 'foo');
});

test('a column marks the word that starts there', () => {
  const body = 'int i = 0;\nfloat x = nope + 1.0;\nreturn x;';
  const [d] = placeDiagnostics([{ line: 2, column: 11, severity: 'error', message: 'undeclared' }], body);
  assert.equal(body.slice(d.from, d.to), 'nope');
  assert.equal(d.text, 'Line 2, column 11: undeclared');
});

test('the line after the body is "after your code", with or without a final newline', () => {
  for (const body of ['return 0.0', 'return 0.0\n']) {
    const [d] = placeDiagnostics([{ line: 2, column: null, severity: 'error', message: 'syntax error' }], body);
    assert.equal(d.afterCode, true, JSON.stringify(body));
    assert.equal(d.line, 2);
    assert.equal(d.from, body.length);
    assert.equal(d.to, body.length);
    assert.equal(d.text, 'After your code (at the closing brace): syntax error');
  }
  const [far] = placeDiagnostics([{ line: 99, message: 'x' }], 'a;\nb;\n');
  assert.equal(far.afterCode, true);
  assert.equal(far.line, 3);
});

test('odd input: no list, line 0, unknown severity, a column past the end', () => {
  assert.deepEqual(placeDiagnostics(undefined, 'x'), []);
  const [d0] = placeDiagnostics([{ line: 0, message: 'm', severity: 'fatal' }], '  abc\n');
  assert.equal(d0.line, 1);
  assert.equal(d0.severity, 'error');
  assert.equal('  abc\n'.slice(d0.from, d0.to), 'abc');
  const [d1] = placeDiagnostics([{ line: 1, column: 50, message: 'm', severity: 'warning' }], 'abc');
  assert.equal(d1.column, 50);
  assert.equal(d1.severity, 'warning');
  assert.equal('abc'.slice(d1.from, d1.to), 'abc');
});

test('a rejection\'s "line N: " prefix is not repeated', () => {
  const body = '// expect: rejected\n// error-line: 3\n#version 460\nreturn 0.0;\n';
  const [d] = placeDiagnostics([{ line: 3, column: null, severity: 'error',
    message: 'line 3: #version is not allowed: the harness sets the GLSL version; remove the #version line.' }], body);
  assert.equal(d.text, 'Line 3: #version is not allowed: the harness sets the GLSL version; remove the #version line.');
  assert.equal(body.slice(d.from, d.to), '#version 460');
});

test('a message rewritten in plain words keeps the compiler\'s own as original', () => {
  const body = 'int i = 0;\nfloat x = nope;\nreturn x;';
  const [d] = placeDiagnostics([{ line: 2, column: null, severity: 'error',
    message: '`nope` is not declared: no variable has that name here',
    original: "'nope' : undeclared identifier" }], body);
  assert.equal(d.text, 'Line 2: `nope` is not declared: no variable has that name here');
  assert.equal(d.original, "'nope' : undeclared identifier");
  const [same] = placeDiagnostics([{ line: 2, severity: 'error', message: 'x', original: 'x' }], body);
  assert.equal(same.original, null, 'nothing to add when they are the same');
  const [real] = placeDiagnostics(fixture('compile_error_line3').diagnostics, sample);
  assert.equal(real.original, "'undefined_name' : undeclared identifier");
});

test('a loop past the budget puts a mark on its line, from the grader\'s diagnostic or from verdict.loop', () => {
  const body = 'int n = 0;\nfor (int k = 0; k < 20000; k++) { n++; }\nreturn float(n);';
  const raw = fixture('endless_loop');
  const v = readVerdict(raw);
  const [d] = placeDiagnostics(verdictDiagnostics(v), body);
  assert.equal(d.line, 2);
  assert.equal(body.slice(d.from, d.to), 'for (int k = 0; k < 20000; k++) { n++; }');
  assert.equal(verdictDiagnostics(v).length, 1, 'no second mark when the grader sent one');
  const bare = readVerdict({ ...raw, diagnostics: [] });
  const made = placeDiagnostics(verdictDiagnostics(bare), body);
  assert.equal(made.length, 1);
  assert.equal(made[0].line, 2);
  assert.equal(made[0].text, 'Line 2: this loop ran more than 10000 times');
  assert.deepEqual(verdictDiagnostics(readVerdict(fixture('compile_error_line3'))), fixture('compile_error_line3').diagnostics);
  assert.deepEqual(verdictDiagnostics(readVerdict({ status: { id: 5 } })), []);
  assert.deepEqual(verdictDiagnostics(null), []);
});

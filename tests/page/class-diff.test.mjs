// The class view's line diff (static/class-diff.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineDiff } from '../../static/class-diff.mjs';

test('a changed line is one removal and one addition, the rest kept', () => {
  const d = lineDiff('int i = 0;\nfloat w = cos(x);\nreturn w;', 'int i = 0;\nfloat w = cos(-x);\nreturn w;');
  assert.deepEqual(d.map((r) => r.op).join(''), ' -+ ');
  assert.equal(d[1].text, 'float w = cos(x);');
  assert.equal(d[2].text, 'float w = cos(-x);');
});

test('identical code has no change', () => {
  assert.ok(lineDiff('a\nb', 'a\nb').every((r) => r.op === ' '));
});

test('added lines at the end and the start', () => {
  assert.deepEqual(lineDiff('b', 'a\nb\nc').map((r) => r.op + r.text), ['+a', ' b', '+c']);
  assert.deepEqual(lineDiff('', 'x').map((r) => r.op + r.text), ['-', '+x']);
});

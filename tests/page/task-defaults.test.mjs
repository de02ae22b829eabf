import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_TASK, mergeTask } from '../../static/task-defaults.mjs';

test('the built-in copy matches the grader\'s task definition', () => {
  const c = readFileSync(new URL('../../grader/common/task.c', import.meta.url), 'utf8');
  const m = /\.starter =\s*((?:"(?:[^"\\]|\\.)*"\s*)+),/.exec(c);
  assert.ok(m, 'starter found in grader/common/task.c');
  const starter = JSON.parse(`[${m[1].trim().split(/"\s+"/).join('","')}]`).join('');
  assert.equal(DEFAULT_TASK.starter, starter);
  assert.ok(c.includes(`.signature = ${JSON.stringify(DEFAULT_TASK.signature)}`));
  for (const plane of DEFAULT_TASK.visible) {
    assert.ok(c.includes(plane.map((v) => `${Number.isInteger(v) ? v.toFixed(1) : v}f`).join(', ')));
  }
});

test('the server\'s values win where they have the right shape', () => {
  const t = mergeTask({ title: 'T', starter: 'S', halves: [1, 2, 4], max_source_bytes: 100, visible: [[1], [2]], api: 'nope' });
  assert.equal(t.title, 'T');
  assert.equal(t.starter, 'S');
  assert.equal(t.max_source_bytes, 100);
  assert.deepEqual(t.visible, DEFAULT_TASK.visible);
  assert.deepEqual(t.api, DEFAULT_TASK.api);
  assert.deepEqual(mergeTask(null), { ...DEFAULT_TASK });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTask } from '../../static/task.mjs';

// The page keeps no copy of the task: the browser suite compares every
// field of the server's /api/tasks/butterfly with what the page read.
// Here: readTask keeps every field it is given, and refuses a bad shape.
const good = {
  id: 'butterfly', title: 'T', subtitle: 'S', signature: 'float f() {', starter: 'return 0.0;',
  api: [{ name: 'half', type: 'int', meaning: 'm' }], visible: [[1, 2], [3, 4]], halves: [1, 2],
  hidden_per_half: 8, tolerance: { atol: 0.005, rtol: 0.001 }, max_source_bytes: 100, loop_budget: 10,
  submit_url: '/x',
};

test('every field of the server\'s task is kept as it is', () => {
  assert.deepEqual(readTask(good), good);
});

test('a task of the wrong shape is refused, field by field', () => {
  for (const bad of [
    null, 'task', {},
    { ...good, title: 1 }, { ...good, starter: null }, { ...good, api: 'x' }, { ...good, api: [{}] },
    { ...good, visible: [[1, 2]] }, { ...good, visible: [[1, 2], [3]] }, { ...good, visible: [[1, 'x'], [3, 4]] },
    { ...good, halves: [] }, { ...good, halves: [1.5] }, { ...good, hidden_per_half: '8' },
    { ...good, max_source_bytes: 0 }, { ...good, tolerance: { atol: 1 } },
  ]) {
    assert.equal(readTask(bad), null, JSON.stringify(bad));
  }
});

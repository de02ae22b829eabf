import { test } from 'node:test';
import assert from 'node:assert/strict';
import { courseIndex, exerciseIdFromPath, exerciseNote, exerciseUrl, readExercise } from '../../static/exercise.mjs';
import { buildGridsOf } from '../../static/grid.mjs';

// The template page (task.html) reads any exercise's definition from the
// server; these are the checks it makes before it shows one.
const good = {
  id: 'bit_reversal', title: 'Example: bit reversal', subtitle: 'Example 1', course: 'Examples', order: 1,
  example: true, brief: '# Brief', function: 'bitrev', signature: 'float bitrev() {', starter: 'return 0.0;',
  api: [{ name: 'PARAM', type: 'int', meaning: 'n' }],
  input: { name: 'x', n: 4, planes: 1 }, output: { n: 4, planes: 1 },
  parameter: { name: 'bits', values: [2] }, visible: [[1, 2, 3, 4]], hidden_per_value: 8,
  tolerance: { atol: 0, rtol: 0 }, loop_budget: 100, max_source_bytes: 65536,
  page: '/tasks/bit_reversal', submit_url: '/api/tasks/bit_reversal/submissions',
};

test('the page\'s path names its exercise', () => {
  assert.equal(exerciseIdFromPath('/tasks/butterfly'), 'butterfly');
  assert.equal(exerciseIdFromPath('/tasks/bit_reversal/'), 'bit_reversal');
  for (const bad of ['/tasks', '/tasks/', '/tasks/a/b', '/', '/tasks/..', '/tasks/A', `/tasks/${'a'.repeat(33)}`, null]) {
    assert.equal(exerciseIdFromPath(bad), null, String(bad));
  }
  assert.equal(exerciseUrl('butterfly'), '/api/tasks/butterfly');
});

test('a whole definition is kept as it is', () => {
  assert.deepEqual(readExercise(good), good);
  assert.equal(readExercise({ ...good, brief: undefined }).brief, '');
});

test('a definition of the wrong shape is refused, field by field', () => {
  for (const bad of [
    null, 'x', {}, { ...good, id: 'Bad Id' }, { ...good, title: 1 }, { ...good, submit_url: 'https://elsewhere/x' },
    { ...good, api: [{ name: 'x' }] }, { ...good, input: { name: 'x', n: 0, planes: 1 } },
    { ...good, output: { n: 4 } }, { ...good, parameter: { name: 'p', values: [] } },
    { ...good, parameter: { name: 'p', values: [1.5] } }, { ...good, visible: [[1, 2, 3]] },
    { ...good, visible: [[1, 2, 3, 4], [1, 2, 3, 4]] }, { ...good, visible: [[1, 2, 3, 'x']] },
    { ...good, tolerance: { atol: 0 } }, { ...good, loop_budget: '9' }, { ...good, max_source_bytes: 0 },
  ]) {
    assert.equal(readExercise(bad), null, JSON.stringify(bad));
  }
});

test('the note under the API table says the definition\'s own figures', () => {
  const note = exerciseNote(good);
  for (const part of ['bits takes 2', 'x is 1 × 4', '1 × 4 output cells', 'within 0 + 0', '100 loop iterations']) {
    assert.ok(note.includes(part), `${part} in ${note}`);
  }
});

test('the course index groups the server\'s list by course, in its order', () => {
  const list = [
    { id: 'a', title: 'A', subtitle: 'Task 1', course: 'FFT', page: '/tasks/a' },
    { id: 'x', title: 'X', course: 'Examples', page: '/tasks/x', example: true },
    { id: 'b', title: 'B', course: 'FFT', page: '/tasks/b' },
    { id: 'c', title: 'C', course: null, page: '/tasks/c' },
    { id: 'evil', title: 'E', page: 'javascript:alert(1)' }, { title: 'no id', page: '/tasks/n' },
  ];
  assert.deepEqual(courseIndex(list), [
    { course: 'FFT', exercises: [
      { id: 'a', title: 'A', subtitle: 'Task 1', page: '/tasks/a', example: false },
      { id: 'b', title: 'B', subtitle: '', page: '/tasks/b', example: false }] },
    { course: 'Examples', exercises: [{ id: 'x', title: 'X', subtitle: '', page: '/tasks/x', example: true }] },
    { course: '', exercises: [{ id: 'c', title: 'C', subtitle: '', page: '/tasks/c', example: false }] },
  ]);
  assert.deepEqual(courseIndex('nope'), []);
});

test('a verdict\'s grid has the exercise\'s own shape: out planes × out n', () => {
  const verdict = { halves: [{ half: 2, passed: false, cells: [
    { x: 0, y: 0, expected: 1, got: 1, passed: true },
    { x: 3, y: 0, expected: 4, got: 2, passed: false },
    { x: 9, y: 5, expected: 0, got: 0, passed: true },   // outside 1 × 4: not shown
  ] }] };
  const [g] = buildGridsOf(verdict, { n: 4, planes: 1, param: 'bits' });
  assert.equal(g.planes.length, 1);
  assert.equal(g.planes[0].name, 'values');
  assert.deepEqual(g.planes[0].cells.map((c) => c.state), ['pass', 'missing', 'missing', 'fail']);
  assert.equal(g.totalCells, 4);
  assert.equal(g.passedCells, 1);
  assert.equal(g.planes[0].cells[3].label, 'bits 2, index 3, values: expected 4, got 2, wrong');
});

// The class view's exercises (static/class-exercises.mjs): the filter's
// query, a line per exercise, a student's progress across them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exerciseLine, progressCell, progressRows, withTask } from '../../static/class-exercises.mjs';

test('the chosen exercise goes on the request, escaped; none: the path as it is', () => {
  assert.equal(withTask('/api/class/summary', ''), '/api/class/summary');
  assert.equal(withTask('/api/class/summary', 'bit_reversal'), '/api/class/summary?task=bit_reversal');
  assert.equal(withTask('/api/class/gradebook?layout=canvas', 'a&b'),
    '/api/class/gradebook?layout=canvas&task=a%26b');
});

test('an exercise line counts its students, passes and attempts', () => {
  assert.equal(exerciseLine({ title: 'Bits', submitted: 1, accepted: 0, records: 1 }),
    'Bits: 1 student tried it, 0 passed, 1 attempt');
  assert.equal(exerciseLine({ title: 'Fly', submitted: 3, accepted: 2, records: 7 }),
    'Fly: 3 students tried it, 2 passed, 7 attempts');
});

const ann = {
  id: 'ann', name: 'Ann',
  progress: {
    butterfly: { attempts: 3, best_points: 3, max_points: 9, accepted: false, late: 0 },
    bit_reversal: { attempts: 1, best_points: 9, max_points: 9, accepted: true, late: 0 },
  },
};
const bob = { id: 'bob', name: 'Bob', progress: {} };
const exercises = [{ id: 'butterfly', title: 'The Butterfly' }, { id: 'bit_reversal', title: 'Bits' }];

test('a cell per exercise: best points and attempts, a dash when never tried', () => {
  assert.deepEqual(progressCell(ann, 'butterfly'), { text: '3/9 · 3 attempts', passed: false, tried: true });
  assert.deepEqual(progressCell(ann, 'bit_reversal'),
    { text: '9/9 · 1 attempt · passed', passed: true, tried: true });
  assert.deepEqual(progressCell(bob, 'butterfly'), { text: '–', passed: false, tried: false });
  assert.deepEqual(progressCell({ id: 'x' }, 'butterfly'), { text: '–', passed: false, tried: false });
});

test('a row per student by name, the exercises in the order given', () => {
  const t = progressRows([bob, ann], exercises);
  assert.deepEqual(t.header, ['The Butterfly', 'Bits']);
  assert.deepEqual(t.rows.map((r) => r.name), ['Ann', 'Bob']);
  assert.deepEqual(t.rows[0].cells.map((c) => c.text), ['3/9 · 3 attempts', '9/9 · 1 attempt · passed']);
  assert.deepEqual(t.rows[1].cells.map((c) => c.tried), [false, false]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checklistState, checklistSummary, REQUIREMENT_IDS } from '../../static/checklist.mjs';
import { fixture } from './helpers.mjs';

test('nothing run: nothing ticked', () => {
  const s = checklistState(null);
  assert.deepEqual(Object.keys(s), [...REQUIREMENT_IDS]);
  assert.ok(Object.values(s).every((v) => v === 'unknown'));
  assert.equal(checklistSummary(s), '0 of 4 requirements met');
});

test('accepted: every requirement ticked', () => {
  const s = checklistState(fixture('correct'));
  assert.ok(Object.values(s).every((v) => v === 'pass'));
  assert.equal(checklistSummary(s), '4 of 4 requirements met');
});

test('wrong twiddle sign: only half = 1 ticked, the others marked failing', () => {
  const s = checklistState(fixture('wrong_twiddle_sign'));
  assert.equal(s['half-1'], 'pass');
  assert.equal(s['half-2'], 'fail');
  assert.equal(s['half-4'], 'fail');
  assert.equal(s.halves, 'fail');
  assert.equal(s.indices, 'unknown');
  assert.equal(s.planes, 'unknown');
  assert.equal(s.signs, 'unknown');
  assert.equal(checklistSummary(s), '0 of 4 requirements met');
});

test('a compile error ticks nothing and fails nothing', () => {
  const s = checklistState(fixture('compile_error_line3'));
  assert.ok(Object.values(s).every((v) => v === 'unknown'));
});

test('every half right but a wrong verdict (hidden failures elsewhere) still leaves the rest unticked', () => {
  const v = { status: { id: 4 }, passed: false, halves: [1, 2, 4].map((half) => ({ half, passed: true })) };
  const s = checklistState(v);
  assert.equal(s.halves, 'pass');
  assert.equal(s.signs, 'unknown');
});

test('a half the page does not list is ignored', () => {
  const s = checklistState({ status: { id: 4 }, halves: [{ half: 8, passed: true }] });
  assert.equal(s['half-8'], undefined);
  assert.equal(s.halves, 'unknown');
});

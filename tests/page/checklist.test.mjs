import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checklistNotes, checklistState, checklistSummary, REQUIREMENT_IDS } from '../../static/checklist.mjs';
import { readVerdict } from '../../static/verdict.mjs';
import { fixture } from './helpers.mjs';

const model = (name) => readVerdict(fixture(name));

test('nothing run: nothing ticked', () => {
  const s = checklistState(null);
  assert.deepEqual(Object.keys(s), [...REQUIREMENT_IDS]);
  assert.ok(Object.values(s).every((v) => v === 'unknown'));
  assert.equal(checklistSummary(s), '0 of 4 requirements met');
  assert.deepEqual(checklistNotes(null), []);
});

test('accepted: every requirement ticked', () => {
  const s = checklistState(model('correct'));
  assert.ok(Object.values(s).every((v) => v === 'pass'));
  assert.equal(checklistSummary(s), '4 of 4 requirements met');
});

test('wrong twiddle sign: half = 1 ticked, the others failing, and the note says what passed', () => {
  const m = model('wrong_twiddle_sign');
  const s = checklistState(m);
  assert.equal(s['half-1'], 'pass');
  assert.equal(s['half-2'], 'fail');
  assert.equal(s['half-4'], 'fail');
  assert.equal(s.halves, 'fail');
  assert.equal(s.indices, 'unknown');
  assert.equal(checklistSummary(s), '0 of 4 requirements met');
  assert.deepEqual(checklistNotes(m), ['half = 1 is right, hidden spectra included.']);
});

test('a Wrong Answer with one plane right says so', () => {
  const raw = fixture('wrong_twiddle_sign');
  const halves = raw.halves.map((h) => ({ ...h, cells: h.cells.map((c) => (c.y === 1 ? { ...c, passed: true } : c)) }));
  const notes = checklistNotes(readVerdict({ ...raw, halves }));
  assert.ok(notes.includes('The imaginary plane is right on the visible spectrum in every half.'), notes.join(' | '));
  assert.ok(!notes.some((n) => n.startsWith('The real plane')));
});

test('a compile error ticks nothing and fails nothing', () => {
  const s = checklistState(model('compile_error_line3'));
  assert.ok(Object.values(s).every((v) => v === 'unknown'));
  assert.deepEqual(checklistNotes(model('compile_error_line3')), []);
});

test('every half right but a wrong verdict (hidden failures elsewhere) still leaves the rest unticked', () => {
  const v = readVerdict({ status: { id: 4 }, passed: false, halves: [1, 2, 4].map((half) => ({ half, passed: true })) });
  const s = checklistState(v);
  assert.equal(s.halves, 'pass');
  assert.equal(s.signs, 'unknown');
});

test('a half the page does not list is ignored', () => {
  const s = checklistState(readVerdict({ status: { id: 4 }, halves: [{ half: 8, passed: true }] }));
  assert.equal(s['half-8'], undefined);
  assert.equal(s.halves, 'unknown');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgress, storagePrefix } from '../../static/progress.mjs';
import { fakeStorage, fixture } from './helpers.mjs';

test('empty storage: no draft, no result, not passed', () => {
  assert.deepEqual(createProgress(fakeStorage(), 'butterfly').load(), { draft: null, result: null, passed: false });
});

test('draft and result survive a round trip (a reload)', () => {
  const storage = fakeStorage();
  const p = createProgress(storage, 'butterfly');
  assert.equal(p.saveDraft('int i = this.thread.x;\n'), true);
  const verdict = fixture('wrong_twiddle_sign');
  assert.equal(p.saveResult(verdict, 'the source', 1700000000000), true);
  const again = createProgress(storage, 'butterfly').load();
  assert.equal(again.draft, 'int i = this.thread.x;\n');
  assert.deepEqual(again.result.verdict, verdict);
  assert.equal(again.result.source, 'the source');
  assert.equal(again.result.savedAt, 1700000000000);
  assert.equal(again.passed, false);
  assert.ok([...storage.map.keys()].every((k) => k.startsWith(storagePrefix('butterfly'))));
});

test('an empty draft is a draft, not a missing one', () => {
  const storage = fakeStorage();
  createProgress(storage, 'butterfly').saveDraft('');
  assert.equal(createProgress(storage, 'butterfly').load().draft, '');
});

test('accepted sets the passed flag, and a later wrong answer does not clear it', () => {
  const storage = fakeStorage();
  const p = createProgress(storage, 'butterfly');
  p.saveResult(fixture('correct'), 'good');
  assert.equal(p.load().passed, true);
  p.saveResult(fixture('wrong_twiddle_sign'), 'bad');
  const s = p.load();
  assert.equal(s.passed, true);
  assert.equal(s.result.source, 'bad');
  assert.equal(s.result.verdict.status.id, 4);
});

test('tasks do not share keys', () => {
  const storage = fakeStorage();
  createProgress(storage, 'butterfly').saveDraft('a');
  assert.equal(createProgress(storage, 'bitreverse').load().draft, null);
});

test('clearDraft keeps the result; clearAll removes everything', () => {
  const storage = fakeStorage();
  const p = createProgress(storage, 'butterfly');
  p.saveDraft('x');
  p.saveResult(fixture('correct'), 'x');
  p.clearDraft();
  assert.equal(p.load().draft, null);
  assert.notEqual(p.load().result, null);
  p.clearAll();
  assert.deepEqual(p.load(), { draft: null, result: null, passed: false });
  assert.equal(storage.map.size, 0);
});

test('a stored result that does not parse, or is not a verdict, is ignored', () => {
  const storage = fakeStorage();
  const p = createProgress(storage, 'butterfly');
  storage.setItem(p.keys.result, '{not json');
  assert.equal(p.load().result, null);
  storage.setItem(p.keys.result, JSON.stringify({ verdict: { hello: 1 } }));
  assert.equal(p.load().result, null);
  assert.equal(p.saveResult({ nope: true }, 'x'), false);
});

test('a storage that throws gives the empty progress and failed writes', () => {
  const p = createProgress(fakeStorage({ failing: true }), 'butterfly');
  assert.deepEqual(p.load(), { draft: null, result: null, passed: false });
  assert.equal(p.saveDraft('x'), false);
  assert.equal(p.saveResult(fixture('correct'), 'x'), false);
  assert.equal(p.clearAll(), false);
});

test('no storage at all (null) behaves like a failing one', () => {
  const p = createProgress(null, 'butterfly');
  assert.equal(p.load().draft, null);
  assert.equal(p.saveDraft('x'), false);
});

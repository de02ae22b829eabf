import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressWithoutToken, confirmText, historyRow, recordNote, signinNote, whoText } from '../../static/history.mjs';

test('a personal token leaves the address; other parameters and the hash stay', () => {
  assert.equal(addressWithoutToken('http://h:1/?k=abc'), '/');
  assert.equal(addressWithoutToken('http://h:1/?k=abc&x=1#w'), '/?x=1#w');
  assert.equal(addressWithoutToken('http://h:1/?signin=failed'), '/');
  assert.equal(addressWithoutToken('http://h:1/?signin=other'), '/');
  assert.equal(addressWithoutToken('http://h:1/?signin=confirm'), '/');
  assert.equal(addressWithoutToken('http://h:1/?x=1'), null);
});

test('recordNote: nothing without records, plain "Not saved" with the reason when the store failed', () => {
  assert.equal(recordNote({ status: { id: 3 } }), null);
  assert.deepEqual(recordNote({ recorded: true }), { saved: true, text: 'Saved to your attempts.' });
  const no = recordNote({ recorded: false, record_error: { code: 'full', message: 'disk full' } });
  assert.equal(no.saved, false);
  assert.match(no.text, /^Not saved/);
  assert.match(no.text, /disk full/);
});

test('historyRow gives time, verdict and points', () => {
  const row = historyRow({ id: 'ab', received_ms: Date.UTC(2026, 11, 1, 9, 0), status: { id: 4, name: 'Wrong Answer' }, points: 3, max_points: 9 }, 'en-GB');
  assert.equal(row.id, 'ab');
  assert.equal(row.iso, '2026-12-01T09:00:00.000Z');
  assert.equal(row.verdict, 'Wrong Answer');
  assert.equal(row.points, '3 / 9');
  assert.equal(historyRow({ id: 'x', received_ms: 'no' }).time, '');
});

test('whoText marks an open lab name as unchecked and never builds HTML', () => {
  assert.equal(whoText({ kind: 'none' }), '');
  assert.match(whoText({ kind: 'guest', name: '<b>x</b>' }), /<b>x<\/b> \(a name you gave: not checked\)/);
  assert.equal(whoText({ kind: 'student', name: 'Ada' }), 'Signed in as Ada.');
});

test('signinNote: a bad link, and a link for someone else that changed nothing', () => {
  assert.match(signinNote('failed', { kind: 'none' }), /not valid/);
  const other = signinNote('other', { kind: 'student', name: 'Cy One' });
  assert.match(other, /someone else/);
  assert.match(other, /signed in as Cy One: nothing changed/);
  assert.match(other, /sign out first/);
  assert.match(signinNote('other', { kind: 'instructor', name: '' }), /signed in as the instructor/);
  assert.match(signinNote('other', { kind: 'none' }), /open it again/);
  assert.equal(signinNote(null, { kind: 'student', name: 'x' }), null);
  assert.equal(signinNote('<b>', { kind: 'none' }), null);
});

test('a link on a signed-out page asks first, naming whom it signs in as', () => {
  assert.equal(signinNote('confirm', { kind: 'none', pending: { kind: 'student', name: 'Cy' } }), null);
  assert.match(signinNote('confirm', { kind: 'none' }), /not confirmed within ten minutes/);
  assert.equal(signinNote('confirm', { kind: 'student', name: 'Cy' }), null);
  const q = confirmText({ kind: 'student', name: 'Cy <b>One</b>' });
  assert.match(q, /signs this page in as Cy <b>One<\/b>\. Is that you\?/);
  assert.match(q, /Not me/);
  assert.match(confirmText({ kind: 'guest', name: 'x' }), /not checked/);
  assert.equal(confirmText(null), '');
});

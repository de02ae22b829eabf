import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addressWithoutToken, confirmText, historyRow, otherText, recordNote, runHold, signinNote, whoText,
} from '../../static/history.mjs';
import { outcomeView } from '../../static/verdict-view.mjs';

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
  assert.deepEqual(recordNote({ recorded: true }, { kind: 'student', name: 'Ada' }), { saved: true, text: 'Saved to your attempts.' });
  assert.deepEqual(recordNote({ recorded: true }, { kind: 'guest', name: 'Ada' }), { saved: true, text: 'Saved to your attempts.' });
  const no = recordNote({ recorded: false, record_error: { code: 'full', message: 'disk full' } });
  assert.equal(no.saved, false);
  assert.match(no.text, /^Not saved/);
  assert.match(no.text, /disk full/);
});

test('"Saved to your attempts" only of a record that is the student\'s', () => {
  // a run from a page signed in as nobody is kept, but as nobody's
  for (const me of [null, { kind: 'none', name: '' }, { kind: 'none', name: '', pending: { kind: 'student', name: 'B', id: 'b' } }]) {
    const n = recordNote({ recorded: true }, me);
    assert.equal(n.saved, false, JSON.stringify(me));
    assert.match(n.text, /^Not saved to your attempts: this page is not signed in/);
  }
  assert.doesNotMatch(recordNote({ recorded: true }, { kind: 'instructor', name: '' }).text, /your attempts/);
});

test('Run asks first: a waiting link, a link for someone else, an open lab with no name', () => {
  const records = { records: true };
  const ask = runHold({ ...records, kind: 'none', name: '', pending: { kind: 'student', name: 'Bea', id: 'b' } }, false);
  assert.equal(ask.ask, 'confirm');
  assert.match(ask.text, /^Not run yet: first answer the question at the top/);
  assert.match(ask.text, /Bea/);
  const other = runHold({ ...records, kind: 'student', name: 'Al', pending: { kind: 'student', name: 'Bea', id: 'b' } }, false);
  assert.equal(other.ask, 'other');
  assert.match(other.text, /This page is signed in as Al\. The link is for Bea: sign out first\./);
  assert.equal(runHold({ ...records, kind: 'none', name: '' }, true).ask, 'name');
  // a roster class hides the name form: its signed-out run is not held
  assert.equal(runHold({ ...records, kind: 'none', name: '' }, false), null);
  assert.equal(runHold({ ...records, kind: 'student', name: 'Al' }, false), null);
  assert.equal(runHold({ kind: 'none', name: '', records: false }, true), null);
  assert.equal(runHold(null, true), null);
});

test('a link for someone else names both, as text', () => {
  assert.equal(otherText({ kind: 'student', name: 'Al <i>', pending: { kind: 'student', name: 'Bea', id: 'b' } }),
    'This page is signed in as Al <i>. The link is for Bea: sign out first.');
  assert.match(otherText({ kind: 'instructor', name: '', pending: { kind: 'student', name: 'Bea', id: 'b' } }), /as the instructor\./);
  assert.equal(otherText({ kind: 'student', name: 'Al' }), '');
  assert.equal(otherText({ kind: 'none', name: '', pending: { kind: 'student', name: 'Bea', id: 'b' } }), '');
});

test('the server\'s 409 sign_in_pending reads as a question, not a failure', () => {
  const v = outcomeView({ kind: 'http', status: 409, code: 'sign_in_pending', message: 'x' });
  assert.equal(v.tone, 'none');
  assert.match(v.title, /^Not run yet/);
  assert.match(v.detail, /at the top of the page/);
  assert.equal(outcomeView({ kind: 'http', status: 409, code: 'other', message: null }).tone, 'error');
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
  assert.equal(whoText({ kind: 'none' }), 'Not signed in.');
  assert.match(whoText({ kind: 'guest', name: '<b>x</b>' }), /<b>x<\/b> \(a name you gave: not checked\)/);
  assert.equal(whoText({ kind: 'student', name: 'Ada' }), 'Signed in as Ada.');
});

test('recordNote: a student forgotten while the run was graded is told so, not "could not keep"', () => {
  const n = recordNote({ recorded: false, record_error: { code: 'student_forgotten', message: 'x' } }, { kind: 'student', name: 'Gil' });
  assert.equal(n.saved, false);
  assert.match(n.text, /removed from this class/);
  assert.match(n.text, /not recorded/);
  assert.doesNotMatch(n.text, /could not keep/);
});

test('whoText gives a roster student\'s section, and none when there is none', () => {
  assert.equal(whoText({ kind: 'student', name: 'Ada', section: 'B' }), 'Signed in as Ada (section B).');
  assert.equal(whoText({ kind: 'student', name: 'Ada', section: '' }), 'Signed in as Ada.');
  assert.equal(whoText({ kind: 'student', name: 'Ada', section: 7 }), 'Signed in as Ada.');
  assert.equal(whoText({ kind: 'instructor', name: '', section: 'B' }), 'Signed in as the instructor.');
  assert.match(whoText({ kind: 'student', name: 'Ada', section: '<i>B</i>' }), /\(section <i>B<\/i>\)/);
});

test('signinNote: a bad link, and a link for someone else that changed nothing', () => {
  assert.match(signinNote('failed', { kind: 'none' }), /not valid/);
  const other = signinNote('other', { kind: 'student', name: 'Cy One' });
  assert.match(other, /someone else/);
  assert.match(other, /signed in as Cy One: nothing changed/);
  assert.match(other, /sign out first/);
  assert.match(signinNote('other', { kind: 'instructor', name: '' }), /signed in as the instructor/);
  // with whom the link is for known, the question at the top says it
  assert.equal(signinNote('other', { kind: 'student', name: 'Cy', pending: { kind: 'student', name: 'B', id: 'b' } }), null);
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

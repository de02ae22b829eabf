import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readVerdict } from '../../static/verdict.mjs';
import { workedCellPicture } from '../../static/worked-cell-picture.mjs';
import {
  gradersWorkedCell, otherPlane, readWorkedCell, workedCellOnShow, workedCellView,
} from '../../static/worked-cell.mjs';
import { fixture } from './helpers.mjs';

const rows = (view) => Object.fromEntries(view.rows);
const none = { half: 2, index: null, plane: null };

test('the flipped twiddle is worked where only it fits, half = 4, output 1, in the grader\'s words', () => {
  const m = readVerdict(fixture('wrong_twiddle_sign-worked'));
  const wc = m.workedCell;
  assert.deepEqual([wc.half, wc.i, wc.plane, wc.spectrum, wc.sign], [4, 1, 0, 'visible', 1]);
  assert.equal(wc.matches, 'a_plus_conj_wb');
  const view = workedCellView(wc);
  assert.equal(view.title, 'half = 4, output 1, real plane');
  const r = rows(view);
  assert.match(r.j, /^\(1 \/ 4\) % 2 = 0: the lower member .* output 5$/);
  assert.equal(r.base, '1 − 0·4 = 1');
  assert.equal(r.b, 'element 5 = 3 + 0.125i');
  assert.equal(r.w, 'e^(−iπ·1/4) = 0.7071 − 0.7071i');
  assert.equal(r.due, 're(a + w·b) = −0.5 + 2.2097 = 1.7097');
  // the sentence is the grader's: one story with the diagnosis, no "check j"
  assert.equal(view.outcome.text, `✗ ${wc.says}`);
  assert.match(view.outcome.text, /a \+ conj\(w\)·b/);
  assert.doesNotMatch(view.outcome.text, /check j|other member/);
});

test('the page computes no worked cell of its own: none without the grader\'s', () => {
  const ok = readVerdict(fixture('correct'));
  assert.equal(ok.workedCell, null);
  assert.equal(workedCellOnShow(ok, none), null);
  assert.equal(workedCellOnShow(ok, { half: 4, index: 6, plane: 0 }), null);
  assert.equal(workedCellOnShow(null, none), null);
  assert.equal(workedCellOnShow(readVerdict(fixture('compile_error_line3')), none), null);
});

test('picking a cell shows the grader\'s working of it; a right cell says so', () => {
  const m = readVerdict(fixture('wrong_twiddle_sign-worked'));
  let show = workedCellOnShow(m, none);
  assert.deepEqual([show.wc.half, show.wc.i], [4, 1]);
  assert.match(show.intro, /^The cell that shows the mistake/);
  show = workedCellOnShow(m, { half: 4, index: 1, plane: 0 });
  assert.match(show.intro, /^The cell that shows the mistake/);
  show = workedCellOnShow(m, { half: 1, index: 5, plane: 0 });
  assert.equal(show.wc.passed, true);
  assert.match(show.intro, /^The cell you picked/);
  assert.match(workedCellView(show.wc).outcome.text, /^✓ .*your kernel returned it\.$/);
  assert.equal(gradersWorkedCell(m, { half: 8, i: 0, plane: 0 }), null);
});

test('a worked cell on a hidden spectrum shows that spectrum\'s numbers and says where they come from', () => {
  const m = readVerdict(fixture('hardcoded_visible-worked'));
  const show = workedCellOnShow(m, none);
  assert.equal(show.wc.spectrum, 'hidden');
  assert.match(show.intro, /hidden random spectra/);
  assert.match(workedCellView(show.wc).where, /hidden/);
  assert.equal(otherPlane(m, show.wc), null, 'a hidden cell has no other plane on show');
});

test('a cell that is not a number is shown as the grader names it', () => {
  const raw = { ...fixture('wrong_twiddle_sign-worked').worked_cell, got: null, got_text: 'NaN', says: null };
  const view = workedCellView(readWorkedCell(raw));
  assert.match(view.outcome.text, /^✗ Your kernel returned NaN, not 1\.7097\./);
  assert.equal(readWorkedCell({ ...raw, got_text: '-Infinity' }).gotText, '−Infinity');
});

test('a worked cell with a missing or mistyped field is not used', () => {
  const good = fixture('wrong_twiddle_sign-worked').worked_cell;
  assert.ok(readWorkedCell(good));
  for (const broken of [
    null, 'cell', {},
    { ...good, a: null }, { ...good, w: { re: 1 } }, { ...good, half: '2' }, { ...good, plane: 2 },
    { ...good, expected: null }, { ...good, due: 3 },
  ]) {
    assert.equal(readWorkedCell(broken), null, JSON.stringify(broken));
  }
});

test('the picture: a, b, w·b and the value due as arrows, the kernel\'s value, w·b and w dashed, and the same in words', () => {
  const m = readVerdict(fixture('wrong_twiddle_sign-worked'));
  const wc = m.workedCell;
  const p = workedCellPicture(wc, otherPlane(m, wc));
  assert.deepEqual(p.values.arrows.map((a) => a.key), ['due', 'got', 'wb', 'kwb', 'a', 'b']);
  assert.deepEqual(p.twiddle.arrows.map((a) => a.key), ['w', 'kw']);
  const due = p.values.arrows.find((a) => a.key === 'due');
  assert.ok(Math.abs(due.re - (wc.a.re + wc.wb.re)) < 1e-9 && Math.abs(due.im - (wc.a.im + wc.wb.im)) < 1e-9);
  const got = p.values.arrows.find((a) => a.key === 'got');
  assert.equal(got.dashed, true);
  assert.equal(got.re, wc.got);
  // the imaginary axis points up: a positive im is above the middle
  const { w: size } = p.values.size;
  const b = p.values.arrows.find((a) => a.key === 'b');
  assert.ok(b.y < size / 2 && b.x > size / 2);
  for (const a of p.values.arrows) assert.ok(a.x >= 0 && a.x <= size && a.y >= 0 && a.y <= size, a.key);
  assert.match(p.words, /^Arrows from 0 in the complex plane: a = .*; b = .*; w = .*; w·b = .*; the value due, a \+ w·b = .*; your kernel's value = .*; so your w·b = .*; and your w = .*\.$/);
  // one plane only (a hidden spectrum): a line across, said as that part
  const alone = workedCellPicture(wc, null);
  assert.equal(alone.values.arrows.length, 4);
  assert.equal(alone.twiddle.arrows.length, 1);
  assert.match(alone.values.line.labelAt.text, /yours \(re\)/);
  assert.match(alone.words, /your kernel's real part = /);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGrids } from '../../static/grid.mjs';
import { DEFAULT_TASK } from '../../static/task-defaults.mjs';
import {
  defaultWorkedCell, firstWorkedCell, gradersWorkedCell, readWorkedCell, workedCellFor, workedCellOnShow,
  workedCellView, workVisibleCell,
} from '../../static/worked-cell.mjs';
import { fixture } from './helpers.mjs';

const visible = DEFAULT_TASK.visible;
const rows = (view) => Object.fromEntries(view.rows);

test('the grader\'s first wrong cell of the wrong twiddle sign, worked through', () => {
  const v = fixture('wrong_twiddle_sign-worked');
  const wc = firstWorkedCell(v);
  assert.equal(wc.source, 'grader');
  assert.deepEqual([wc.half, wc.i, wc.plane, wc.spectrum], [2, 1, 0, 'visible']);
  const view = workedCellView(wc);
  assert.equal(view.title, 'half = 2, output 1, real plane');
  assert.equal(view.where, 'on the visible spectrum');
  const r = rows(view);
  assert.match(r.j, /^\(1 \/ 2\) % 2 = 0: the lower member .* output 3$/);
  assert.equal(r.base, '1 − 0·2 = 1');
  assert.equal(r.r, '1 % 2 = 1');
  assert.equal(r.a, 'element 1 = −0.5 + 1.25i');
  assert.equal(r.b, 'element 3 = 0.75 + 2i');
  // cos(-pi/2) arrives as 6.1e-17 and must read as 0.
  assert.equal(r.w, 'e^(−iπ·1/2) = −i');
  assert.equal(r['w·b'], '2 − 0.75i');
  assert.equal(r.due, 're(a + w·b) = −0.5 + 2 = 1.5');
  assert.equal(view.outcome.passed, false);
  assert.match(view.outcome.text, /^✗ Your kernel returned −2\.5, not 1\.5\. That is re\(a − w·b\), the value due at output 3, the other member of the pair/);
});

test('a wrong cell the grader matched to nothing says only what it returned', () => {
  const v = fixture('wrong_twiddle_sign-worked');
  const wc = gradersWorkedCell(v, { half: 4, i: 1, plane: 1 });
  assert.equal(wc.got_matches, null);
  const view = workedCellView(wc);
  assert.match(rows(view).due, /^im\(a \+ w·b\) = .* = /);
  assert.doesNotMatch(view.outcome.text, /That is/);
  assert.match(view.outcome.text, /^✗ Your kernel returned .*, not .*\.$/);
});

test('an upper member with a negative w·b part is written with brackets', () => {
  const wc = gradersWorkedCell(fixture('wrong_twiddle_sign-worked'), { half: 2, i: 3, plane: 1 });
  assert.equal(wc.j, 1);
  // a = element 1 (1.25 im), w·b im = -0.75: 1.25 - (-0.75) = 2.
  assert.equal(rows(workedCellView(wc)).due, 'im(a − w·b) = 1.25 − (−0.75) = 2');
});

test('a right cell says so', () => {
  const wc = gradersWorkedCell(fixture('wrong_twiddle_sign-worked'), { half: 1, i: 5, plane: 0 });
  assert.equal(wc.passed, true);
  assert.equal(workedCellView(wc).outcome.text, '✓ Your kernel returned −4.5: right.');
});

test('a wrong cell on a hidden spectrum shows that spectrum\'s numbers and says where they come from', () => {
  const v = fixture('hardcoded_visible-worked');
  const grids = buildGrids(v);
  assert.ok(grids.every((g) => g.passedCells === 16), 'every visible cell is right');
  const wc = defaultWorkedCell(v, grids, visible);
  assert.equal(wc.spectrum, 'hidden');
  const view = workedCellView(wc);
  assert.match(view.where, /hidden/);
  assert.equal(rows(view).a, 'element 0 = 1.8125 − 0.4375i');
  assert.equal(rows(view).due, 're(a + w·b) = 1.8125 + (−2.25) = −0.4375');
  assert.equal(view.outcome.text, '✗ Your kernel returned 0.5, not −0.4375.');
});

test('a cell that is not a number is shown as the grader names it', () => {
  const raw = { ...fixture('wrong_twiddle_sign-worked').worked_cell, got: null, got_text: 'NaN', got_matches: null };
  const view = workedCellView(readWorkedCell(raw));
  assert.match(view.outcome.text, /^✗ Your kernel returned NaN, not 1\.5\./);
  const inf = readWorkedCell({ ...raw, got_text: '-Infinity' });
  assert.equal(inf.gotText, '−Infinity');
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
  const v = { ...fixture('wrong_twiddle_sign-worked'), worked_cell: { ...good, a: 'x' } };
  const wc = defaultWorkedCell(v, buildGrids(v), visible);
  assert.equal(wc.source, 'grader', 'falls back to the list of worked cells');
  assert.deepEqual([wc.half, wc.i, wc.plane], [2, 1, 0]);
});

test('an older verdict without worked cells: the page works the first wrong visible cell itself', () => {
  const old = fixture('wrong_twiddle_sign');
  assert.equal(old.worked_cell, undefined);
  const grids = buildGrids(old);
  const wc = defaultWorkedCell(old, grids, visible);
  assert.equal(wc.source, 'page');
  assert.deepEqual([wc.half, wc.i, wc.plane], [2, 1, 0]);
  assert.equal(wc.expected, 1.5);
  assert.equal(wc.got, -2.5);
  assert.equal(wc.passed, false);
  assert.match(workedCellView(wc).outcome.text, /^✗ Your kernel returned −2\.5, not 1\.5\.$/);
});

test('the page\'s own working agrees with the grader\'s on every visible cell', () => {
  const v = fixture('wrong_twiddle_sign-worked');
  assert.equal(v.worked_cells.length, 48);
  const close = (x, y) => Math.abs(x - y) < 1e-12;
  for (const raw of v.worked_cells) {
    const theirs = readWorkedCell(raw);
    const ours = workVisibleCell(visible, raw.half, raw.i, raw.plane);
    for (const k of ['j', 'base', 'r', 'partner']) assert.equal(ours[k], theirs[k], `${k} at ${raw.half}/${raw.i}`);
    for (const k of ['a', 'b', 'w', 'wb']) {
      assert.ok(close(ours[k].re, theirs[k].re) && close(ours[k].im, theirs[k].im), `${k} at ${raw.half}/${raw.i}`);
    }
    assert.ok(close(ours.expected, theirs.expected), `expected at ${raw.half}/${raw.i}/${raw.plane}`);
    assert.equal(workedCellView(ours).rows.at(-1)[1], workedCellView(theirs).rows.at(-1)[1]);
  }
});

test('picking a cell: the grader\'s working when sent, else the page\'s; an accepted run has no default', () => {
  const v = fixture('wrong_twiddle_sign-worked');
  assert.equal(workedCellFor(v, buildGrids(v), visible, { half: 4, i: 6, plane: 0 }).source, 'grader');
  const ok = fixture('correct');
  const grids = buildGrids(ok);
  assert.equal(defaultWorkedCell(ok, grids, visible), null);
  const picked = workedCellFor(ok, grids, visible, { half: 4, i: 6, plane: 0 });
  assert.equal(picked.source, 'page');
  assert.equal(picked.passed, true);
  assert.match(workedCellView(picked).outcome.text, /^✓ /);
  // Before any run: the cell's working and what it should be.
  const before = workVisibleCell(visible, 1, 0, 0);
  assert.equal(workedCellView(before).outcome.text, 'This cell should be 0.5.');
});

test('the panel: none without cells; the first wrong cell until one is picked; then the picked one', () => {
  const none = { half: 2, index: null, plane: null };
  assert.equal(workedCellOnShow(null, [], visible, none), null, 'nothing run yet');
  const ce = fixture('compile_error_line3');
  assert.equal(workedCellOnShow(ce, buildGrids(ce), visible, none), null, 'a compile error has no cells');
  const v = fixture('wrong_twiddle_sign-worked');
  const grids = buildGrids(v);
  let show = workedCellOnShow(v, grids, visible, none);
  assert.deepEqual([show.wc.half, show.wc.i, show.wc.plane], [2, 1, 0]);
  assert.match(show.intro, /^The first wrong cell/);
  // The page selects that first cell itself; it is still "the first".
  show = workedCellOnShow(v, grids, visible, { half: 2, index: 1, plane: 0 });
  assert.match(show.intro, /^The first wrong cell/);
  show = workedCellOnShow(v, grids, visible, { half: 1, index: 7, plane: 1 });
  assert.deepEqual([show.wc.half, show.wc.i, show.wc.plane, show.wc.passed], [1, 7, 1, true]);
  assert.match(show.intro, /^The cell you picked/);
  const hidden = fixture('hardcoded_visible-worked');
  show = workedCellOnShow(hidden, buildGrids(hidden), visible, { half: 1, index: null, plane: null });
  assert.equal(show.wc.spectrum, 'hidden');
  assert.match(show.intro, /hidden random spectra/);
  const ok = fixture('correct');
  show = workedCellOnShow(ok, buildGrids(ok), visible, none);
  assert.equal(show.wc, null);
  assert.match(show.intro, /^Every cell is right/);
});

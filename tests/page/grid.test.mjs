import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGrids, formatNumber, gotText, halfSummary, hiddenWord, moveInGrid } from '../../static/grid.mjs';
import { fixture } from './helpers.mjs';

test('a wrong-twiddle verdict gives 3 halves x 2 planes x 8 cells with the right flags', () => {
  const grids = buildGrids(fixture('wrong_twiddle_sign'));
  assert.deepEqual(grids.map((g) => g.half), [1, 2, 4]);
  assert.deepEqual(grids.map((g) => g.passed), [true, false, false]);
  for (const g of grids) {
    assert.equal(g.planes.length, 2);
    assert.deepEqual(g.planes.map((p) => p.name), ['real', 'imaginary']);
    for (const p of g.planes) {
      assert.equal(p.cells.length, 8);
      p.cells.forEach((c, x) => {
        assert.equal(c.x, x);
        assert.equal(c.y, p.plane);
      });
    }
  }
  const [h1, h2, h4] = grids;
  assert.ok(h1.planes.every((p) => p.cells.every((c) => c.state === 'pass')));
  assert.equal(h1.passedCells, 16);
  assert.deepEqual(h1.hidden, { passed: 8, total: 8 });
  // At half = 2 the sign only matters where r = 1: indices 1, 3, 5, 7.
  const h2real = h2.planes[0].cells.map((c) => c.state);
  assert.deepEqual(h2real, ['pass', 'fail', 'pass', 'fail', 'pass', 'fail', 'pass', 'fail']);
  assert.equal(h2.passedCells, 8);
  assert.deepEqual(h2.hidden, { passed: 0, total: 8 });
  // At half = 4 only r = 0 (indices 0 and 4) is unaffected.
  assert.deepEqual(h4.planes[1].cells.map((c) => c.state === 'pass'), [true, false, false, false, true, false, false, false]);
  const cell = h2.planes[0].cells[1];
  assert.equal(cell.expectedText, '1.5');
  assert.equal(cell.gotText, '\u22122.5');
  assert.equal(cell.label, 'half 2, index 1, real: expected 1.5, got \u22122.5, wrong');
});

test('an accepted verdict: every cell passes', () => {
  const grids = buildGrids(fixture('correct'));
  assert.equal(grids.length, 3);
  assert.ok(grids.every((g) => g.passed && g.passedCells === 16));
});

test('a compile error has no grids', () => {
  assert.deepEqual(buildGrids(fixture('compile_error_line3')), []);
  assert.deepEqual(buildGrids(null), []);
  assert.deepEqual(buildGrids({ status: { id: 13 } }), []);
});

test('cells are placed by (x, y), not by their order; missing cells fail', () => {
  const cells = [];
  for (let y = 1; y >= 0; y--) for (let x = 7; x >= 0; x--) cells.push({ x, y, expected: x + 10 * y, got: x + 10 * y, passed: true });
  cells.splice(cells.findIndex((c) => c.x === 6 && c.y === 0), 1);
  const [g] = buildGrids({ halves: [{ half: 4, passed: false, cells }] });
  assert.equal(g.planes[1].cells[3].expected, 13);
  assert.equal(g.planes[0].cells[2].got, 2);
  assert.equal(g.planes[0].cells[6].state, 'missing');
  assert.equal(g.planes[0].cells[6].gotText, 'nothing');
  assert.equal(g.hidden, null);
  assert.equal(g.passedCells, 15);
  assert.equal(halfSummary(g), '15 of 16 visible cells right');
});

test('a cell that is not finite shows the grader\'s text', () => {
  assert.equal(gotText({ got: null, got_text: 'NaN' }), 'NaN');
  assert.equal(gotText({ got: null, got_text: 'Infinity' }), 'Infinity');
  assert.equal(gotText({ got: null, got_text: '-Infinity' }), '\u2212Infinity');
  assert.equal(gotText({ got: null }), 'nothing');
  const [g] = buildGrids({ halves: [{ half: 1, passed: false, cells: [{ x: 0, y: 0, expected: 0.5, got: null, got_text: 'NaN', passed: false }] }] });
  const c = g.planes[0].cells[0];
  assert.equal(c.state, 'fail');
  assert.equal(c.gotText, 'NaN');
  assert.equal(c.label, 'half 1, index 0, real: expected 0.5, got NaN, wrong');
});

test('formatNumber', () => {
  assert.equal(formatNumber(0.5), '0.5');
  assert.equal(formatNumber(-2.7097087), '\u22122.7097');
  assert.equal(formatNumber(3), '3');
  assert.equal(formatNumber(-0), '0');
  assert.equal(formatNumber(1e-7), '1.000e\u22127');
  assert.equal(formatNumber(NaN), 'NaN');
  assert.equal(formatNumber(-Infinity), '\u2212Infinity');
});

test('halfSummary counts visible cells and hidden spectra', () => {
  const [, h2] = buildGrids(fixture('wrong_twiddle_sign'));
  assert.equal(halfSummary(h2), '8 of 16 visible cells right; hidden spectra: 0 of 8 right');
});

test('arrow keys move inside the 8 x 2 grid and stop at its edges', () => {
  assert.deepEqual(moveInGrid({ x: 0, y: 0 }, 'ArrowRight'), { x: 1, y: 0 });
  assert.deepEqual(moveInGrid({ x: 0, y: 0 }, 'ArrowLeft'), { x: 0, y: 0 });
  assert.deepEqual(moveInGrid({ x: 3, y: 0 }, 'ArrowDown'), { x: 3, y: 1 });
  assert.deepEqual(moveInGrid({ x: 3, y: 1 }, 'ArrowDown'), { x: 3, y: 1 });
  assert.deepEqual(moveInGrid({ x: 7, y: 1 }, 'ArrowUp'), { x: 7, y: 0 });
  assert.deepEqual(moveInGrid({ x: 7, y: 1 }, 'ArrowRight'), { x: 7, y: 1 });
  assert.deepEqual(moveInGrid({ x: 4, y: 1 }, 'Home'), { x: 0, y: 1 });
  assert.deepEqual(moveInGrid({ x: 4, y: 0 }, 'End'), { x: 7, y: 0 });
  assert.equal(moveInGrid({ x: 4, y: 0 }, 'a'), null);
});

test("another exercise's hidden inputs are called inputs, the butterfly's spectra", () => {
  const g = { passedCells: 16, totalCells: 16, hidden: { passed: 3, total: 8 } };
  const bits = { input: { name: 'points' } }, butterfly = { input: { name: 'spectrum' } };
  assert.equal(halfSummary(g, hiddenWord(bits)), '16 of 16 visible cells right; hidden inputs: 3 of 8 right');
  assert.equal(halfSummary(g, hiddenWord(butterfly)), '16 of 16 visible cells right; hidden spectra: 3 of 8 right');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  pairOf, butterfliesOf, referencePass, networkLayout, selectionState, formatComplex, formatReal,
  twiddleText, HALVES,
} from '../../static/network.mjs';
import { fixture } from './helpers.mjs';

// The visible spectrum as the grader read it: a and b of half = 1's
// worked cells are elements i and i + 1 (no copy of the task here).
const VISIBLE = (() => {
  const v = [[], []];
  for (const c of fixture('wrong_twiddle_sign-worked').worked_cells) {
    if (c.half !== 1 || c.plane !== 0 || c.j !== 0) continue;
    [v[0][c.i], v[1][c.i], v[0][c.i + 1], v[1][c.i + 1]] = [c.a.re, c.a.im, c.b.re, c.b.im];
  }
  return v;
})();

test('pairOf answers the three questions for i = 5, half = 2', () => {
  const p = pairOf(5, 2);
  assert.equal(p.j, 0);
  assert.equal(p.base, 5);
  assert.equal(p.r, 1);
  assert.deepEqual(p.inputs, [5, 7]);
  assert.equal(p.partner, 7);
  assert.equal(p.lower, true);
  assert.equal(p.sign, '+');
  assert.deepEqual(p.w, { re: 0, im: -1 });
});

test('pairOf for the upper members', () => {
  assert.deepEqual(pairOf(7, 2).inputs, [5, 7]);
  assert.equal(pairOf(7, 2).j, 1);
  assert.equal(pairOf(7, 2).partner, 5);
  assert.equal(pairOf(6, 4).base, 2);
  assert.equal(pairOf(6, 4).r, 2);
  assert.equal(pairOf(1, 1).base, 0);
  assert.equal(pairOf(1, 1).sign, '-');
});

test('pairOf matches the formulas for every index and half', () => {
  for (const half of HALVES) {
    for (let i = 0; i < 8; i++) {
      const p = pairOf(i, half);
      assert.equal(p.j, Math.floor(i / half) % 2);
      assert.equal(p.base, i - p.j * half);
      assert.equal(p.r, i % half);
      assert.ok(p.inputs.includes(i), `${i} reads itself at half ${half}`);
      assert.equal(pairOf(p.partner, half).partner, i, 'partners are mutual');
      assert.deepEqual(pairOf(p.partner, half).inputs, p.inputs, 'both members read the same two elements');
      assert.deepEqual(pairOf(p.partner, half).w, p.w, 'both members use the same twiddle');
      const angle = -Math.PI * p.r / half;
      assert.ok(Math.abs(p.w.re - Math.cos(angle)) < 1e-12);
      assert.ok(Math.abs(p.w.im - Math.sin(angle)) < 1e-12);
    }
  }
});

test('at half = 1 every twiddle is 1', () => {
  for (let i = 0; i < 8; i++) assert.deepEqual(pairOf(i, 1).w, { re: 1, im: 0 });
});

test('pairOf refuses indices and halves outside the network', () => {
  assert.throws(() => pairOf(8, 2), RangeError);
  assert.throws(() => pairOf(-1, 2), RangeError);
  assert.throws(() => pairOf(1.5, 2), RangeError);
  assert.throws(() => pairOf(0, 3), RangeError);
  assert.throws(() => pairOf(0, 8), RangeError);
});

test('three passes of four butterflies: twelve', () => {
  const all = HALVES.flatMap((h) => butterfliesOf(h));
  assert.equal(all.length, 12);
  assert.deepEqual(butterfliesOf(2), [
    { top: 0, bottom: 2, r: 0 }, { top: 1, bottom: 3, r: 1 },
    { top: 4, bottom: 6, r: 0 }, { top: 5, bottom: 7, r: 1 },
  ]);
  for (const h of HALVES) {
    const touched = butterfliesOf(h).flatMap((b) => [b.top, b.bottom]).sort();
    assert.deepEqual(touched, [0, 1, 2, 3, 4, 5, 6, 7], `every element in exactly one butterfly at half ${h}`);
  }
});

test('referencePass agrees with the grader on the visible spectrum', () => {
  const verdict = fixture('correct');
  for (const h of verdict.halves) {
    const ref = referencePass(VISIBLE, h.half);
    for (const c of h.cells) {
      assert.ok(Math.abs(ref[c.y][c.x] - c.expected) < 1e-6,
        `half ${h.half} x ${c.x} y ${c.y}: ${ref[c.y][c.x]} vs ${c.expected}`);
    }
  }
});

test('networkLayout: 4 columns of 8 nodes, 2 edges into every output of every pass', () => {
  const l = networkLayout();
  assert.equal(l.columns.length, 4);
  assert.equal(l.nodes.length, 32);
  assert.equal(l.edges.length, 48);
  assert.deepEqual(l.columns.map((c) => c.label), ['input', 'half = 1', 'half = 2', 'half = 4']);
  for (let pass = 0; pass < 3; pass++) {
    for (let i = 0; i < 8; i++) {
      const into = l.edges.filter((e) => e.pass === pass && e.to === i);
      assert.equal(into.length, 2);
      assert.deepEqual(into.map((e) => e.from).sort(), [...pairOf(i, HALVES[pass]).inputs].sort());
      assert.equal(into.filter((e) => e.kind === 'straight').length, 1);
      for (const e of into) {
        assert.equal(e.x1, l.columns[pass].x);
        assert.equal(e.x2, l.columns[pass + 1].x);
      }
    }
  }
  const xs = l.columns.map((c) => c.x);
  assert.ok(xs.every((x, k) => k === 0 || x > xs[k - 1]), 'columns go left to right');
  assert.ok(l.nodes.every((n) => n.x >= 0 && n.x <= l.width && n.y >= 0 && n.y <= l.height));
});

test('selectionState highlights the pass and the two inputs of the selected output', () => {
  const l = networkLayout();
  const s = selectionState(l, 2, 5);
  assert.equal(s.pass, 1);
  assert.equal(s.activeEdges.length, 16);
  assert.ok(s.activeEdges.every((id) => id.startsWith('e1-')));
  assert.deepEqual(s.selectedEdges, ['e1-5-5', 'e1-7-5']);
  assert.deepEqual(s.inputNodes, ['n1-5', 'n1-7']);
  assert.equal(s.outputNode, 'n2-5');
  assert.equal(s.partnerNode, 'n2-7');
  const none = selectionState(l, 4, null);
  assert.equal(none.pass, 2);
  assert.deepEqual(none.inputNodes, []);
  assert.equal(none.outputNode, null);
  assert.throws(() => selectionState(l, 3, 0), RangeError);
});

test('numbers for people', () => {
  assert.equal(formatReal(2.75), '2.75');
  assert.equal(formatReal(-0.5), '\u22120.5');
  assert.equal(formatReal(-1e-17), '0');
  assert.equal(formatComplex(0, -1), '\u2212i');
  assert.equal(formatComplex(1, 0), '1');
  assert.equal(formatComplex(Math.SQRT1_2, -Math.SQRT1_2), '0.707 \u2212 0.707i');
  assert.equal(formatComplex(3, 0.125), '3 + 0.125i');
  assert.equal(twiddleText(0, 2), 'e^0');
  assert.equal(twiddleText(1, 2), 'e^(\u2212iπ·1/2)');
});

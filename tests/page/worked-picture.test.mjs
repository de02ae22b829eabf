// worked-picture.test.mjs - the worked cell's pictures (issue 32 item 5)
// for the real grader's verdict on every kernel of tests/samples/mistakes/
// (mistake-verdicts.json, remade by make_mistake_verdicts.py): drawn at
// least 360 px wide, no two labels' boxes intersecting, none on an arrow
// or past the edge, arrows for w and the kernel's w, w·b and the kernel's
// w·b and the two results, and the legend naming both results with their
// numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { readVerdict } from '../../static/verdict.mjs';
import {
  boxesIntersect, kernelNumbers, labelBox, labelBoxes, LABEL_FONT, placeLabels, segmentHitsBox,
  VALUES_SIZE, workedCellPicture,
} from '../../static/worked-cell-picture.mjs';
import { otherPlane } from '../../static/worked-cell.mjs';
import { formatComplex } from '../../static/network.mjs';

const verdicts = JSON.parse(readFileSync(new URL('./mistake-verdicts.json', import.meta.url), 'utf8'));

function picturesOf(name) {
  const m = readVerdict(verdicts[name]);
  assert.ok(m && m.workedCell, `${name}: a worked cell`);
  const wc = m.workedCell;
  return { m, wc, other: otherPlane(m, wc), p: workedCellPicture(wc, otherPlane(m, wc)) };
}

function checkLayout(name, pic) {
  const boxes = labelBoxes(pic);
  for (let x = 0; x < boxes.length; x++) {
    const b = boxes[x].box;
    assert.ok(b.x0 >= 0 && b.y0 >= 0 && b.x1 <= pic.size.w && b.y1 <= pic.size.h,
      `${name}: "${boxes[x].text}" inside the picture ${JSON.stringify(b)}`);
    for (let y = x + 1; y < boxes.length; y++) {
      assert.ok(!boxesIntersect(b, boxes[y].box),
        `${name}: the labels "${boxes[x].text}" and "${boxes[y].text}" overlap`);
    }
    // and no label lies on an arrow (nor on the one-plane line)
    const segments = pic.arrows.filter((a) => Math.hypot(a.x - a.x1, a.y - a.y1) > 0.5)
      .map((a) => ({ key: a.key, x1: a.x1, y1: a.y1, x2: a.x, y2: a.y }));
    if (pic.line) segments.push({ key: 'line', ...pic.line });
    for (const s of segments) {
      assert.ok(!segmentHitsBox(s, b), `${name}: the label "${boxes[x].text}" lies on the arrow ${s.key}`);
    }
  }
}

const names = Object.keys(verdicts);

test('the fixtures are the grader\'s verdicts on every kernel of tests/samples/mistakes', () => {
  const kernels = readdirSync(new URL('../samples/mistakes/', import.meta.url))
    .filter((f) => f.endsWith('.glsl')).map((f) => f.slice(0, -5)).sort();
  assert.deepEqual(names.slice().sort(), kernels, 'remake mistake-verdicts.json with make_mistake_verdicts.py');
  assert.ok(names.length >= 30, `${names.length} verdicts`);
  const named = names.filter((n) => verdicts[n].diagnosis);
  assert.ok(named.length >= 30, `${named.length} named`);
});

for (const name of names) {
  test(`${name}: the pictures are wide enough, their labels apart and off the arrows`, () => {
    const { wc, other, p } = picturesOf(name);
    assert.ok(p.values.size.w >= 360, 'the values drawn 360 px wide at least');
    checkLayout(`${name} (values)`, p.values);
    checkLayout(`${name} (twiddle)`, p.twiddle);
    const keys = p.values.arrows.map((a) => a.key);
    const k = kernelNumbers(wc, other);
    assert.deepEqual(p.twiddle.arrows.map((a) => a.key), k.w ? ['w', 'kw'] : ['w']);
    assert.deepEqual(keys, k.got ? ['due', 'got', 'wb', 'kwb', 'a', 'b'] : ['due', 'wb', 'a', 'b']);
    // the legend names the due value and the student's, with their numbers
    const legend = Object.fromEntries(p.legend.map((l) => [l.key, l]));
    const due = { re: wc.a.re + wc.sign * wc.wb.re, im: wc.a.im + wc.sign * wc.wb.im };
    assert.equal(legend.due.value, formatComplex(due.re, due.im));
    assert.match(legend.due.name, new RegExp(`^due: ${wc.due.replace(/[+()]/g, '\\$&')}$`));
    assert.match(legend.got.name, /^yours/);
    if (k.got) assert.equal(legend.got.value, formatComplex(k.got.re, k.got.im));
    assert.ok(legend.w && legend.wb && legend.a && legend.b);
  });
}

test('a twiddle turned the wrong way: the kernel\'s w is the mirror of the w due, and said so', () => {
  const { wc, p } = picturesOf('twiddle_sign');
  assert.deepEqual([wc.half, wc.i, wc.plane], [4, 1, 0]);
  const w = p.twiddle.arrows.find((a) => a.key === 'w');
  const kw = p.twiddle.arrows.find((a) => a.key === 'kw');
  // w = e^(−iπ/4), the kernel's e^(+iπ/4): the same real part, the other imaginary part
  assert.ok(Math.abs(kw.re - w.re) < 1e-3 && Math.abs(kw.im + w.im) < 1e-3, JSON.stringify({ w, kw }));
  assert.ok(kw.y < p.twiddle.size.h / 2 && w.y > p.twiddle.size.h / 2, 'the kernel\'s w above the axis, the due one below');
  assert.equal(p.legend.find((l) => l.key === 'kw').value, '0.707 + 0.707i');
  assert.match(p.words, /and your w = 0\.707 \+ 0\.707i\./);
});

test('the kernel\'s w is solved from its value: w = ±(got − a)/b, the sign due', () => {
  // the upper member: got = a − w'·b, so w' = −(got − a)/b
  const wc = { half: 2, i: 3, plane: 0, sign: -1, a: { re: 1, im: 0 }, b: { re: 0, im: 2 },
    w: { re: 0, im: -1 }, wb: { re: 2, im: 0 }, due: 'a − w·b', got: 3, gotText: '3' };
  const other = { ...wc, plane: 1, got: 0 };
  const k = kernelNumbers(wc, other);
  assert.deepEqual(k.got, { re: 3, im: 0 });
  assert.deepEqual(k.wb, { re: -2, im: -0 });
  assert.ok(Math.abs(k.w.re) < 1e-12 && Math.abs(k.w.im - 1) < 1e-12, JSON.stringify(k.w));
  // b = 0: no w can be solved, and none is drawn
  const k0 = kernelNumbers({ ...wc, b: { re: 0, im: 0 } }, other);
  assert.equal(k0.w, null);
  // one plane only: nothing of the kernel's but the line
  assert.deepEqual(kernelNumbers(wc, null), { got: null, wb: null, w: null });
  const p = workedCellPicture(wc, null);
  assert.ok(p.values.line && p.values.line.labelAt);
  checkLayout('one plane', p.values);
});

test('the starter: "yours" lies on a, and the two labels still do not touch', () => {
  const { wc, other, p } = picturesOf('copies_input');
  const k = kernelNumbers(wc, other);
  assert.ok(k.got, 'both planes known');
  const a = p.values.arrows.find((x) => x.key === 'a');
  const got = p.values.arrows.find((x) => x.key === 'got');
  // the starter returns its own input, which here is a
  assert.ok(Math.hypot(a.x - got.x, a.y - got.y) < 1, `${JSON.stringify(a)} ${JSON.stringify(got)}`);
  assert.ok(!boxesIntersect(a.labelAt.box, got.labelAt.box));
});

test('label boxes come from the font size and the text\'s length, exactly', () => {
  const b = labelBox('w·b', 100, 50);
  assert.ok(Math.abs((b.x1 - b.x0) - 3 * LABEL_FONT * 0.62) < 1e-9);
  assert.equal((b.x0 + b.x1) / 2, 100);
  assert.equal((b.y0 + b.y1) / 2, 50);
  // crowded: eight labels wanted at one point still get eight places apart
  const want = Array.from({ length: 8 }, (_, k) => ({ text: `label ${k}`, x: 180, y: 180, dir: { x: 1, y: 0 } }));
  const placed = placeLabels(want, [{ x1: 180, y1: 180, x2: 300, y2: 180 }], { w: VALUES_SIZE, h: VALUES_SIZE });
  for (let x = 0; x < placed.length; x++) {
    for (let y = x + 1; y < placed.length; y++) assert.ok(!boxesIntersect(placed[x].box, placed[y].box), `${x} and ${y}`);
  }
  // and the same every time
  assert.deepEqual(placeLabels(want, [], { w: 360, h: 360 }), placeLabels(want, [], { w: 360, h: 360 }));
});

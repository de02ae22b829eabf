// worked-cell-picture.mjs - the worked cell as two pictures in the complex
// plane, so that a twiddle turned the wrong way is seen at a glance:
//   the twiddle: w (due) and the kernel's own w on the unit circle;
//   the values: a, b, w·b (due), the kernel's w·b, the value due and the
//   kernel's value.
// The kernel's w is solved from its value: it returned got = a ± w'·b, so
// w' = ±(got − a)/b (the sign due before w·b). It is the w the kernel
// would have used had it read the right a and b, which is what a wrong
// twiddle looks like; for any other mistake it shows how far the value is
// turned. Labels are placed here, away from one another and from every
// arrow, with boxes computed from the font size and the text's length, so
// that a test can check them exactly. Pure: the geometry and the words;
// worked-cell-view draws them.

import { formatComplex, formatReal, twiddleText } from './network.mjs';

/* Each picture's width and height in its own pixels, which are screen
 * pixels at its natural size (the page draws it that wide when there is
 * room, and narrower on a phone). */
export const VALUES_SIZE = 360;
export const TWIDDLE_SIZE = 240;
/* The labels' font (monospace, so that a text's width is its length). */
export const LABEL_FONT = 13;
/* A monospace glyph's advance as a share of the font size: 0.6 for DejaVu
 * Sans Mono, Menlo and SF Mono, less for Consolas; rounded up. */
export const CHAR_WIDTH = 0.62;
const LABEL_HEIGHT = Math.ceil(LABEL_FONT * 1.3);
const PAD = 2;               // room kept between a label and anything else
const EDGE = 3;              // and between a label and the picture's edge

/* The box {x0, y0, x1, y1} of a label centred on (x, y). */
export function labelBox(text, x, y) {
  const w = [...text].length * LABEL_FONT * CHAR_WIDTH;
  return { x0: x - w / 2, y0: y - LABEL_HEIGHT / 2, x1: x + w / 2, y1: y + LABEL_HEIGHT / 2 };
}

/* Whether two boxes overlap (touching edges do not). */
export function boxesIntersect(p, q) {
  return p.x0 < q.x1 && q.x0 < p.x1 && p.y0 < q.y1 && q.y0 < p.y1;
}

function grow(b, d) {
  return { x0: b.x0 - d, y0: b.y0 - d, x1: b.x1 + d, y1: b.y1 + d };
}

/* Whether the segment (x1, y1)-(x2, y2) passes through box b (clipped
 * to the box, Liang-Barsky). */
export function segmentHitsBox(s, b) {
  let t0 = 0, t1 = 1;
  const dx = s.x2 - s.x1, dy = s.y2 - s.y1;
  const sides = [[-dx, s.x1 - b.x0], [dx, b.x1 - s.x1], [-dy, s.y1 - b.y0], [dy, b.y1 - s.y1]];
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; }
      else { if (t < t0) return false; if (t < t1) t1 = t; }
    }
  }
  return t0 <= t1;
}

/*
 * Places labels, in the order given, each as near its anchor (x, y) as it
 * can be without touching a label placed before it, an arrow (segments)
 * or the picture's edge: first around the anchor at growing distances,
 * then anywhere on a grid over the picture, nearest first. fixed are
 * boxes already taken (the axes' names). Returns [{text, x, y, box,
 * leader}] where leader says the label sits far enough from its anchor to
 * need a line to it. Deterministic.
 */
export function placeLabels(wanted, segments, size, fixed = []) {
  const taken = [...fixed];
  const placed = [];
  const inside = (b) => b.x0 >= EDGE && b.y0 >= EDGE && b.x1 <= size.w - EDGE && b.y1 <= size.h - EDGE;
  const free = (b) => {
    const g = grow(b, PAD);
    if (!inside(b) || taken.some((t) => boxesIntersect(g, t))) return false;
    return !segments.some((s) => segmentHitsBox(s, g));
  };
  for (const { text, x, y, dir } of wanted) {
    const half = labelBox(text, 0, 0);
    const hw = half.x1, hh = half.y1;
    const len = Math.hypot(dir.x, dir.y);
    const d = len > 1e-9 ? { x: dir.x / len, y: dir.y / len } : { x: 1, y: 0 };
    const n = { x: -d.y, y: d.x };
    // how far a box's centre must be from the anchor, along a unit u, to clear it
    const clear = (u) => Math.abs(u.x) * hw + Math.abs(u.y) * hh + PAD + 1;
    const ways = [d, n, { x: -n.x, y: -n.y },
      { x: (d.x + n.x) / Math.SQRT2, y: (d.y + n.y) / Math.SQRT2 },
      { x: (d.x - n.x) / Math.SQRT2, y: (d.y - n.y) / Math.SQRT2 },
      { x: -d.x, y: -d.y }];
    let spot = null;
    for (let extra = 0; extra <= 48 && !spot; extra += 8) {
      for (const u of ways) {
        const cx = x + u.x * (clear(u) + extra), cy = y + u.y * (clear(u) + extra);
        const b = labelBox(text, cx, cy);
        if (free(b)) { spot = { x: cx, y: cy, box: b }; break; }
      }
    }
    if (!spot) {
      // anywhere: a grid over the picture, the nearest free place first
      let best = null;
      for (let cy = EDGE + hh; cy <= size.h - EDGE - hh; cy += 4) {
        for (let cx = EDGE + hw; cx <= size.w - EDGE - hw; cx += 4) {
          const b = labelBox(text, cx, cy);
          const dist = Math.hypot(cx - x, cy - y);
          if ((!best || dist < best.dist) && free(b)) best = { x: cx, y: cy, box: b, dist };
        }
      }
      if (best) spot = best;
    }
    if (!spot) {
      // no room clear of the arrows: clear of the labels at least
      let best = null;
      for (let cy = EDGE + hh; cy <= size.h - EDGE - hh; cy += 4) {
        for (let cx = EDGE + hw; cx <= size.w - EDGE - hw; cx += 4) {
          const b = labelBox(text, cx, cy);
          const dist = Math.hypot(cx - x, cy - y);
          if ((!best || dist < best.dist) && inside(b) && !taken.some((t) => boxesIntersect(grow(b, PAD), t))) {
            best = { x: cx, y: cy, box: b, dist };
          }
        }
      }
      spot = best || { x, y, box: labelBox(text, x, y) };
    }
    const far = Math.hypot(spot.x - x, spot.y - y) > hw + hh + 20;
    taken.push(spot.box);
    placed.push({ text, x: spot.x, y: spot.y, box: spot.box, leader: far ? { x1: x, y1: y } : null });
  }
  return placed;
}

const sub = (p, q) => ({ re: p.re - q.re, im: p.im - q.im });
const scaleC = (p, k) => ({ re: p.re * k, im: p.im * k });
function div(p, q) {
  const d = q.re * q.re + q.im * q.im;
  return d > 1e-12 ? { re: (p.re * q.re + p.im * q.im) / d, im: (p.im * q.re - p.re * q.im) / d } : null;
}
const near = (p, q) => Math.hypot(p.re - q.re, p.im - q.im) <= 5e-4 * Math.max(1, Math.hypot(q.re, q.im));

/*
 * The kernel's own numbers for a worked cell wc and, when known, its
 * other plane (other, a worked cell of the same half, i and spectrum):
 *   {got, wb, w} complex or null each. got needs both planes; wb is
 *   ±(got − a), the sign being the one due; w is wb/b (null when b = 0).
 */
export function kernelNumbers(wc, other = null) {
  const both = Number.isFinite(wc.got) && other && Number.isFinite(other.got);
  if (!both) return { got: null, wb: null, w: null };
  const got = wc.plane === 0 ? { re: wc.got, im: other.got } : { re: other.got, im: wc.got };
  const wb = scaleC(sub(got, wc.a), wc.sign);
  return { got, wb, w: div(wb, wc.b) };
}

/* The arrows of list, scaled so that the longest (or at least `least`)
 * is radius long. */
function arrowsOf(list, size, radius, least = 0) {
  let longest = least;
  for (const { z } of list) longest = Math.max(longest, Math.hypot(z.re, z.im));
  const scale = longest > 0 ? radius / longest : 1;
  const c = { x: size.w / 2, y: size.h / 2 };
  const arrows = list.map(({ key, label, z, dashed }) => ({
    key, label, re: z.re, im: z.im, dashed: Boolean(dashed),
    x1: c.x, y1: c.y, x: c.x + z.re * scale, y: c.y - z.im * scale,
  }));
  return { arrows, scale, c };
}

/* The axes of a picture and the boxes their names take. */
function axes(size) {
  const c = { x: size.w / 2, y: size.h / 2 };
  const names = [
    { text: 're', x: size.w - EDGE - 10, y: c.y - 10 },
    { text: 'im', x: c.x + 14, y: EDGE + 9 },
  ].map((t) => ({ ...t, box: labelBox(t.text, t.x, t.y) }));
  return {
    lines: [{ x1: 4, y1: c.y, x2: size.w - 4, y2: c.y }, { x1: c.x, y1: 4, x2: c.x, y2: size.h - 4 }],
    names,
  };
}

function labelled(arrows, size, fixed, extraSegments = []) {
  const segments = [...arrows.filter((a) => Math.hypot(a.x - a.x1, a.y - a.y1) > 0.5)
    .map((a) => ({ x1: a.x1, y1: a.y1, x2: a.x, y2: a.y })), ...extraSegments];
  const labels = placeLabels(arrows.map((a) => ({ text: a.label, x: a.x, y: a.y, dir: { x: a.x - a.x1, y: a.y - a.y1 } })),
    segments, size, fixed);
  return arrows.map((a, k) => ({ ...a, labelAt: labels[k] }));
}

/*
 * The pictures of a worked cell wc (worked-cell.mjs) and, when known, the
 * same cell's other plane (other), which gives the kernel's whole
 * complex value and so its w·b and w:
 *   {values, twiddle, legend, words}
 * values and twiddle: {size: {w, h}, axes: {lines, names}, circle (the
 * twiddle's unit circle {cx, cy, r}) , arrows: [{key, label, re, im,
 * dashed, x1, y1, x, y, labelAt: {text, x, y, box, leader}}], line}.
 * Coordinates are pixels from the top left, the origin in the middle,
 * imaginary up. line ({x1, y1, x2, y2, labelAt}) stands for the
 * kernel's value where only its one plane is known. legend: [{key, name,
 * value}] says what each arrow is, with its numbers; words is the text
 * equivalent of the whole.
 */
export function workedCellPicture(wc, other = null) {
  const due = { re: wc.a.re + wc.sign * wc.wb.re, im: wc.a.im + wc.sign * wc.wb.im };
  const k = kernelNumbers(wc, other);
  const gotKnown = Number.isFinite(wc.got);

  // the values
  const vsize = { w: VALUES_SIZE, h: VALUES_SIZE };
  const list = [
    { key: 'due', label: wc.due, z: due },
    ...(k.got ? [{ key: 'got', label: 'yours', z: k.got, dashed: true }] : []),
    { key: 'wb', label: 'w·b', z: wc.wb },
    ...(k.wb ? [{ key: 'kwb', label: 'your w·b', z: k.wb, dashed: true }] : []),
    { key: 'a', label: 'a', z: wc.a },
    { key: 'b', label: 'b', z: wc.b },
  ];
  const va = axes(vsize);
  const radius = VALUES_SIZE / 2 - 40;
  const oneLine = gotKnown && !k.got;
  const drawn = arrowsOf(list, vsize, radius, oneLine ? Math.abs(wc.got) : 0);
  const { scale, c } = drawn;
  let { arrows } = drawn;
  let line = null;
  if (oneLine) {
    // one plane only: every value with that part, a line across the picture
    const v = wc.got * scale;
    line = wc.plane === 0
      ? { x1: c.x + v, y1: 8, x2: c.x + v, y2: vsize.h - 8, text: 'yours (re)' }
      : { x1: 8, y1: c.y - v, x2: vsize.w - 8, y2: c.y - v, text: 'yours (im)' };
  }
  const lineSeg = line ? [{ x1: line.x1, y1: line.y1, x2: line.x2, y2: line.y2 }] : [];
  arrows = labelled(arrows, vsize, va.names.map((n) => n.box), lineSeg);
  if (line) {
    const taken = [...va.names.map((n) => n.box), ...arrows.map((a) => a.labelAt.box)];
    const segs = arrows.map((a) => ({ x1: a.x1, y1: a.y1, x2: a.x, y2: a.y }));
    const [at] = placeLabels([{ text: line.text, x: (line.x1 + line.x2) / 2 + (wc.plane === 0 ? 0 : vsize.w * 0.3),
      y: wc.plane === 0 ? line.y1 + 12 : line.y1, dir: wc.plane === 0 ? { x: 1, y: 0 } : { x: 0, y: -1 } }],
    segs.concat(lineSeg), vsize, taken);
    line.labelAt = at;
  }

  // the twiddle
  const tsize = { w: TWIDDLE_SIZE, h: TWIDDLE_SIZE };
  const ta = axes(tsize);
  const tlist = [
    { key: 'w', label: 'w', z: wc.w },
    ...(k.w ? [{ key: 'kw', label: 'your w', z: k.w, dashed: true }] : []),
  ];
  const tradius = TWIDDLE_SIZE / 2 - 34;
  const longestW = Math.max(1, ...tlist.map(({ z }) => Math.hypot(z.re, z.im)));
  const tscale = tradius / longestW;
  const tc = { x: tsize.w / 2, y: tsize.h / 2 };
  let tarrows = tlist.map(({ key, label, z, dashed }) => ({
    key, label, re: z.re, im: z.im, dashed: Boolean(dashed),
    x1: tc.x, y1: tc.y, x: tc.x + z.re * tscale, y: tc.y - z.im * tscale,
  }));
  tarrows = labelled(tarrows, tsize, ta.names.map((n) => n.box));

  // the legend and the words
  const part = wc.plane === 0 ? 'real' : 'imaginary';
  const legend = [
    { key: 'due', name: `due: ${wc.due}`, value: formatComplex(due.re, due.im) },
    k.got ? { key: 'got', name: 'yours', value: formatComplex(k.got.re, k.got.im) }
      : { key: 'got', name: gotKnown ? `yours (${part} part)` : 'yours', value: gotKnown ? formatReal(wc.got) : wc.gotText },
    { key: 'w', name: `w = ${twiddleText(wc.r, wc.half)}`, value: formatComplex(wc.w.re, wc.w.im) },
  ];
  if (k.w) legend.push({ key: 'kw', name: `your w = ${wc.sign < 0 ? '−' : ''}(yours − a)/b`, value: formatComplex(k.w.re, k.w.im) });
  legend.push({ key: 'wb', name: 'w·b', value: formatComplex(wc.wb.re, wc.wb.im) });
  if (k.wb) legend.push({ key: 'kwb', name: 'your w·b', value: formatComplex(k.wb.re, k.wb.im) });
  legend.push({ key: 'a', name: 'a', value: formatComplex(wc.a.re, wc.a.im) },
    { key: 'b', name: 'b', value: formatComplex(wc.b.re, wc.b.im) });

  const said = [
    `a = ${formatComplex(wc.a.re, wc.a.im)}`, `b = ${formatComplex(wc.b.re, wc.b.im)}`,
    `w = ${formatComplex(wc.w.re, wc.w.im)}`, `w·b = ${formatComplex(wc.wb.re, wc.wb.im)}`,
    `the value due, ${wc.due} = ${formatComplex(due.re, due.im)}`,
  ];
  if (k.got) {
    said.push(`your kernel's value = ${formatComplex(k.got.re, k.got.im)}`);
    if (k.wb) said.push(`so your w·b = ${formatComplex(k.wb.re, k.wb.im)}`);
    if (k.w) said.push(`and your w = ${formatComplex(k.w.re, k.w.im)}${near(k.w, wc.w) ? ', the w due' : ''}`);
  } else if (gotKnown) said.push(`your kernel's ${part} part = ${formatReal(wc.got)}`);
  else said.push(`your kernel returned ${wc.gotText}`);

  return {
    values: { size: vsize, axes: va, circle: null, arrows, line },
    twiddle: { size: tsize, axes: ta, circle: { cx: tc.x, cy: tc.y, r: tscale }, arrows: tarrows, line: null },
    legend,
    words: `Arrows from 0 in the complex plane: ${said.join('; ')}.`,
  };
}

/* Every label box of a picture (values or twiddle), the axes' names
 * included: what must never overlap. */
export function labelBoxes(pic) {
  const boxes = pic.axes.names.map((n) => ({ text: n.text, box: n.box }));
  for (const a of pic.arrows) boxes.push({ text: a.labelAt.text, box: a.labelAt.box });
  if (pic.line && pic.line.labelAt) boxes.push({ text: pic.line.labelAt.text, box: pic.line.labelAt.box });
  return boxes;
}

// worked-cell-picture.mjs - the worked cell as arrows in the complex
// plane: a, b, w·b, the value due and the kernel's value, so that a
// twiddle turned the wrong way or mirrored is seen at a glance; and the
// same in words for a screen reader. Pure: the geometry; worked-cell-view
// draws it.

import { formatComplex, formatReal } from './network.mjs';

export const PICTURE_SIZE = 240;
const RADIUS = 80;           // the longest arrow's length, in pixels (room for labels)

/*
 * The picture of a worked cell wc (worked-cell.mjs) and, when known, the
 * same cell's other plane (other: a worked cell of the same half, i and
 * spectrum), which gives the kernel's whole complex value:
 *   {size, arrows: [{key, label, re, im, x, y, dashed}], line, words}
 * x, y are the arrow's tip in pixels from the top left (the origin in the
 * middle, imaginary up). line ({x1, y1, x2, y2, label}) stands for the
 * kernel's value where only its one plane is known. words is the text
 * equivalent.
 */
export function workedCellPicture(wc, other = null) {
  const due = { re: wc.a.re + wc.sign * wc.wb.re, im: wc.a.im + wc.sign * wc.wb.im };
  const gotKnown = Number.isFinite(wc.got);
  const both = gotKnown && other && Number.isFinite(other.got);
  const got = both ? (wc.plane === 0 ? { re: wc.got, im: other.got } : { re: other.got, im: wc.got }) : null;
  const list = [
    { key: 'a', label: 'a', z: wc.a },
    { key: 'b', label: 'b', z: wc.b },
    { key: 'wb', label: 'w·b', z: wc.wb },
    { key: 'due', label: wc.due, z: due },
  ];
  if (got) list.push({ key: 'got', label: 'yours', z: got, dashed: true });
  let longest = 0;
  for (const { z } of list) longest = Math.max(longest, Math.hypot(z.re, z.im));
  if (gotKnown && !got) longest = Math.max(longest, Math.abs(wc.got));
  const scale = longest > 0 ? RADIUS / longest : 1;
  const c = PICTURE_SIZE / 2;
  const px = (re, im) => ({ x: c + re * scale, y: c - im * scale });
  const arrows = list.map(({ key, label, z, dashed }) => ({
    key, label, re: z.re, im: z.im, dashed: Boolean(dashed), ...px(z.re, z.im),
  }));
  let line = null;
  if (gotKnown && !got) {
    // one plane only: every value with that part, a line across the picture
    const v = wc.got * scale;
    line = wc.plane === 0
      ? { x1: c + v, y1: 8, x2: c + v, y2: PICTURE_SIZE - 8, label: 'yours (real part)' }
      : { x1: 8, y1: c - v, x2: PICTURE_SIZE - 8, y2: c - v, label: 'yours (imaginary part)' };
  }
  const said = list.map(({ label, z }) => `${label} = ${formatComplex(z.re, z.im)}`);
  let yours;
  if (got) yours = `your kernel's value = ${formatComplex(got.re, got.im)}`;
  else if (gotKnown) yours = `your kernel's ${wc.plane === 0 ? 'real' : 'imaginary'} part = ${formatReal(wc.got)}`;
  else yours = `your kernel returned ${wc.gotText}`;
  return {
    size: PICTURE_SIZE,
    arrows,
    line,
    words: `Arrows from 0 in the complex plane: ${[...said.slice(0, 3), `the value due, ${said[3]}`, yours].join('; ')}.`,
  };
}

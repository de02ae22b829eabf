// worked-cell-view.mjs - the panel that works one cell through: the
// grader's sentence, the picture of its arrows, and the steps behind
// "more" (the words come from worked-cell.mjs, the geometry from
// worked-cell-picture.mjs). DOM only.

import { h } from './dom.mjs';
import { workedCellPicture } from './worked-cell-picture.mjs';
import { workedCellView } from './worked-cell.mjs';

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

/* The picture as an SVG with its words as title and description. */
function pictureSvg(wc, other) {
  const p = workedCellPicture(wc, other);
  const c = p.size / 2;
  const id = `worked-pic-${wc.half}-${wc.i}-${wc.plane}`;
  const svg = el('svg', { viewBox: `0 0 ${p.size} ${p.size}`, class: 'worked-picture', role: 'img',
    'aria-labelledby': `${id}-title ${id}-desc` });
  svg.append(el('title', { id: `${id}-title` }, 'The cell in the complex plane'),
    el('desc', { id: `${id}-desc` }, p.words));
  svg.append(el('defs', {}, el('marker', { id: `${id}-head`, viewBox: '0 0 10 10', refX: 9, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }))));
  svg.append(el('line', { x1: 4, y1: c, x2: p.size - 4, y2: c, class: 'axis' }),
    el('line', { x1: c, y1: 4, x2: c, y2: p.size - 4, class: 'axis' }),
    el('text', { x: p.size - 6, y: c - 4, class: 'axis-label', 'text-anchor': 'end' }, 're'),
    el('text', { x: c + 4, y: 12, class: 'axis-label' }, 'im'));
  if (p.line) {
    svg.append(el('line', { ...p.line, class: 'arrow got dashed' }),
      el('text', { x: Math.min(p.line.x2, p.size - 4), y: Math.max(12, p.line.y1 + 4), class: 'arrow-label got',
        'text-anchor': 'end' }, p.line.label));
  }
  for (const a of p.arrows) {
    svg.append(el('line', { x1: c, y1: c, x2: a.x, y2: a.y, class: `arrow ${a.key}${a.dashed ? ' dashed' : ''}`,
      'marker-end': `url(#${id}-head)` }));
    // the label beyond the tip, kept inside the picture
    const right = a.x >= c;
    const x = Math.max(4, Math.min(p.size - 4, a.x + (right ? 4 : -4)));
    const anchor = right ? (x > p.size - 48 ? 'end' : 'start') : (x < 48 ? 'start' : 'end');
    svg.append(el('text', { x, y: Math.max(10, Math.min(p.size - 4, a.y + (a.y >= c ? 12 : -4))),
      class: `arrow-label ${a.key}`, 'text-anchor': anchor }, a.label));
  }
  // The words are the picture's description (desc), read in its place.
  return h('figure', { className: 'worked-figure' }, svg);
}

/*
 * Fills the panel: its intro line, then (when wc is not null) the
 * grader's sentence for the cell, its picture and, behind "more", the
 * steps from the index to the value. other is the same cell's other
 * plane (or null). The panel's data attributes name the cell on show, so
 * tests and styles need not read its words.
 */
export function renderWorkedCell(panel, body, wc, intro, other = null) {
  const parts = [];
  if (intro) parts.push(h('p', { className: 'worked-intro' }, intro));
  for (const k of ['half', 'i', 'plane', 'spectrum', 'passed', 'matches']) delete panel.dataset[k];
  if (wc) {
    const view = workedCellView(wc);
    Object.assign(panel.dataset, {
      half: wc.half, i: wc.i, plane: wc.plane, spectrum: wc.spectrum, passed: String(wc.passed),
      matches: wc.matches || '',
    });
    parts.push(h('p', { className: 'worked-where' }, h('strong', {}, view.title), `, ${view.where}:`));
    parts.push(h('p', { className: 'worked-outcome', 'data-passed': String(view.outcome.passed) }, view.outcome.text));
    parts.push(pictureSvg(wc, other));
    const dl = h('dl', { className: 'worked-steps' });
    for (const [term, text] of view.rows) dl.append(h('dt', {}, term), h('dd', {}, text));
    parts.push(h('details', { className: 'worked-details' }, h('summary', {}, 'The steps, worked through'), dl));
    if (wc.spectrum === 'visible') {
      parts.push(h('p', { className: 'worked-more' }, h('a', { href: '#network' }, `See output ${wc.i} in the network`)));
    }
  }
  body.replaceChildren(...parts);
}

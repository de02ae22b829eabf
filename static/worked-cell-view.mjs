// worked-cell-view.mjs - the panel that works one cell through: the
// grader's sentence, the picture of its arrows, and the steps behind
// "more" (the words come from worked-cell.mjs, the geometry from
// worked-cell-picture.mjs). DOM only.

import { h } from './dom.mjs';
import { LABEL_FONT, workedCellPicture } from './worked-cell-picture.mjs';
import { workedCellView } from './worked-cell.mjs';

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

/* One of the two pictures (worked-cell-picture.mjs) as an SVG: its axes,
 * arrows and labels where the module placed them. */
function panelSvg(pic, id, title, extraClass) {
  const { w, h: height } = pic.size;
  const svg = el('svg', { viewBox: `0 0 ${w} ${height}`, width: w, height, class: `worked-picture ${extraClass}`,
    'aria-hidden': 'true' });
  // one arrowhead per arrow, so that each takes its arrow's colour
  const defs = el('defs');
  for (const a of pic.arrows) {
    defs.append(el('marker', { id: `${id}-${a.key}`, class: a.key, viewBox: '0 0 10 10', refX: 9, refY: 5,
      markerWidth: 10, markerHeight: 10, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
    el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' })));
  }
  svg.append(defs);
  for (const l of pic.axes.lines) svg.append(el('line', { ...l, class: 'axis' }));
  if (pic.circle) svg.append(el('circle', { ...pic.circle, class: 'unit-circle' }));
  for (const n of pic.axes.names) svg.append(el('text', { x: n.x, y: n.y, class: 'axis-label' }, n.text));
  if (pic.line) {
    svg.append(el('line', { x1: pic.line.x1, y1: pic.line.y1, x2: pic.line.x2, y2: pic.line.y2, class: 'arrow got dashed' }));
  }
  for (const a of pic.arrows) {
    const g = el('g', { class: `arrow-group ${a.key}`, 'data-key': a.key });
    // a zero arrow is a dot: a head on nothing would point anywhere
    if (Math.hypot(a.x - a.x1, a.y - a.y1) < 1) g.append(el('circle', { cx: a.x, cy: a.y, r: 3.5, class: 'arrow-dot' }));
    else {
      g.append(el('line', { x1: a.x1, y1: a.y1, x2: a.x, y2: a.y, class: `arrow${a.dashed ? ' dashed' : ''}`,
        'marker-end': `url(#${id}-${a.key})` }));
    }
    svg.append(g);
  }
  const labels = pic.arrows.map((a) => [a.key, a.labelAt]);
  if (pic.line && pic.line.labelAt) labels.push(['got', pic.line.labelAt]);
  for (const [key, at] of labels) {
    if (at.leader) svg.append(el('line', { x1: at.leader.x1, y1: at.leader.y1, x2: at.x, y2: at.y, class: `leader ${key}` }));
    svg.append(el('rect', { x: at.box.x0, y: at.box.y0, width: at.box.x1 - at.box.x0, height: at.box.y1 - at.box.y0,
      class: 'label-back' }));
    svg.append(el('text', { x: at.x, y: at.y, class: `arrow-label ${key}`, 'font-size': LABEL_FONT, 'text-anchor': 'middle',
      'dominant-baseline': 'central', 'data-key': key }, at.text));
  }
  return h('div', { className: 'worked-panel' }, h('p', { className: 'worked-panel-title' }, title), svg);
}

/* The pictures with their legend; the words are the figure's text for a
 * screen reader (the SVGs themselves are hidden from it). */
function pictureFigure(wc, other) {
  const p = workedCellPicture(wc, other);
  const id = `worked-pic-${wc.half}-${wc.i}-${wc.plane}`;
  const legend = h('ul', { className: 'worked-legend', 'aria-hidden': 'true' },
    ...p.legend.map((l) => h('li', { className: `legend-${l.key}`, 'data-key': l.key },
      h('span', { className: 'swatch' }), `${l.name} = `, h('span', { className: 'legend-value' }, l.value))));
  return h('figure', { className: 'worked-figure', role: 'img', 'aria-label': p.words },
    h('div', { className: 'worked-pictures' },
      panelSvg(p.values, `${id}-v`, 'The values', 'values'),
      panelSvg(p.twiddle, `${id}-t`, 'The twiddle w', 'twiddle')),
    legend);
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
    parts.push(pictureFigure(wc, other));
    const dl = h('dl', { className: 'worked-steps' });
    for (const [term, text] of view.rows) dl.append(h('dt', {}, term), h('dd', {}, text));
    parts.push(h('details', { className: 'worked-details' }, h('summary', {}, 'The steps, worked through'), dl));
    if (wc.spectrum === 'visible') {
      parts.push(h('p', { className: 'worked-more' }, h('a', { href: '#network' }, `See output ${wc.i} in the network`)));
    }
  }
  body.replaceChildren(...parts);
}

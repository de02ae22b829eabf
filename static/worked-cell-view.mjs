// worked-cell-view.mjs - the panel beside the grids that works one cell
// through, step by step (the words come from worked-cell.mjs). DOM only.

import { h } from './dom.mjs';
import { workedCellView } from './worked-cell.mjs';

/*
 * Fills the panel: its intro line, then (when wc is not null) the cell's
 * working. The panel's data attributes name the cell on show, so tests
 * and styles need not read its words.
 */
export function renderWorkedCell(panel, body, wc, intro) {
  const parts = [];
  if (intro) parts.push(h('p', { className: 'worked-intro' }, intro));
  for (const k of ['half', 'i', 'plane', 'spectrum', 'source', 'passed']) delete panel.dataset[k];
  if (wc) {
    const view = workedCellView(wc);
    Object.assign(panel.dataset, {
      half: wc.half, i: wc.i, plane: wc.plane, spectrum: wc.spectrum, source: wc.source, passed: String(wc.passed),
    });
    parts.push(h('p', { className: 'worked-where' }, h('strong', {}, view.title), `, ${view.where}:`));
    const dl = h('dl', { className: 'worked-steps' });
    for (const [term, text] of view.rows) dl.append(h('dt', {}, term), h('dd', {}, text));
    parts.push(dl);
    parts.push(h('p', { className: 'worked-outcome', 'data-passed': String(view.outcome.passed) }, view.outcome.text));
    if (wc.spectrum === 'visible') {
      parts.push(h('p', { className: 'worked-more' }, h('a', { href: '#network' }, `See output ${wc.i} in the network`)));
    }
  }
  body.replaceChildren(...parts);
}

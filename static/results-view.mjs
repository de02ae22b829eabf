// results-view.mjs - the grids of green and red cells (each with the
// value got and, on wide screens, the value expected) and the same data as
// tables, built from grid.mjs's model. DOM only.

import { h } from './dom.mjs';
import { halfSummary, moveInGrid, PLANES } from './grid.mjs';

/*
 * Renders the grids into container. onSelect({half, index, plane}) fires
 * when a cell is pressed. Returns {setSelected(selection)}.
 */
export function renderGrids(container, grids, { onSelect }) {
  container.replaceChildren();
  const cellsByKey = new Map();
  for (const g of grids) {
    const titleId = `half-${g.half}-title`;
    const detailId = `half-${g.half}-detail`;
    const badge = h('span', { className: `half-badge ${g.passed ? 'pass' : 'fail'}` },
      g.passed ? '✓ right' : '✗ wrong');
    const detail = h('p', { className: 'cell-detail', id: detailId });
    const grid = h('div', { className: 'cell-grid', role: 'group', 'aria-labelledby': titleId,
      'data-half': g.half });
    grid.append(h('span', { className: 'corner', 'aria-hidden': 'true' }));
    for (let x = 0; x < 8; x++) grid.append(h('span', { className: 'colhead', 'aria-hidden': 'true' }, String(x)));
    for (const plane of g.planes) {
      grid.append(h('span', { className: 'rowhead', 'aria-hidden': 'true', title: plane.name }, plane.short));
      for (const cell of plane.cells) {
        const edge = cell.x <= 1 ? ' edge-left' : cell.x >= 6 ? ' edge-right' : '';
        const button = h('button', {
          type: 'button',
          className: `cell ${cell.state}`,
          'data-half': g.half,
          'data-x': cell.x,
          'data-y': cell.y,
          'data-state': cell.state,
          'aria-label': cell.label,
          'aria-pressed': 'false',
          'aria-describedby': detailId,
          tabindex: cell.x === 0 && cell.y === 0 ? '0' : '-1',
        },
        h('span', { className: 'mark', 'aria-hidden': 'true' }, cell.state === 'pass' ? '✓' : '✗'),
        h('span', { className: 'value', 'aria-hidden': 'true' }, cell.gotText),
        // What the cell should hold, under what it holds (shown on wide screens).
        h('span', { className: 'expected', 'aria-hidden': 'true' }, cell.expectedText),
        h('span', { className: `tip${edge}`, 'aria-hidden': 'true' },
          h('strong', {}, `index ${cell.x}, ${PLANES[cell.y]}`), h('br'),
          `expected ${cell.expectedText}`, h('br'), `got ${cell.gotText}`));
        button.addEventListener('click', () => onSelect({ half: g.half, index: cell.x, plane: cell.y }));
        button.addEventListener('focus', () => {
          for (const b of grid.querySelectorAll('.cell')) b.tabIndex = -1;
          button.tabIndex = 0;
          detail.textContent = `Index ${cell.x}, ${PLANES[cell.y]}: expected ${cell.expectedText}, ` +
            `got ${cell.gotText} ${cell.state === 'pass' ? '✓ right' : '✗ wrong'}`;
        });
        cellsByKey.set(`${g.half}:${cell.x}:${cell.y}`, button);
        grid.append(button);
      }
    }
    grid.addEventListener('keydown', (event) => {
      const b = event.target.closest('.cell');
      if (!b) return;
      const next = moveInGrid({ x: Number(b.dataset.x), y: Number(b.dataset.y) }, event.key);
      if (!next) return;
      event.preventDefault();
      const target = cellsByKey.get(`${g.half}:${next.x}:${next.y}`);
      if (target) target.focus();
    });
    const section = h('section', { className: 'half-grid', 'aria-labelledby': titleId, 'data-half': g.half,
      'data-passed': String(g.passed) },
    h('h3', { id: titleId }, h('span', {}, `half = ${g.half}`), badge),
    h('p', { className: 'half-summary' }, halfSummary(g)),
    grid,
    detail);
    container.append(section);
  }

  return {
    setSelected(sel) {
      for (const [key, b] of cellsByKey) {
        const [half, x, y] = key.split(':').map(Number);
        const on = sel && sel.half === half && sel.index === x && (sel.plane === null || sel.plane === undefined || sel.plane === y);
        b.setAttribute('aria-pressed', String(Boolean(on)));
      }
    },
  };
}

/* The same results as one table per half, for screen readers and for
 * anyone who wants all the numbers at once. */
export function renderResultTables(container, grids) {
  container.replaceChildren();
  for (const g of grids) {
    const body = h('tbody');
    for (const plane of g.planes) {
      for (const cell of plane.cells) {
        const ok = cell.state === 'pass';
        body.append(h('tr', {},
          h('th', { scope: 'row' }, String(cell.x)),
          h('td', {}, plane.name),
          h('td', {}, cell.expectedText),
          h('td', {}, cell.gotText),
          h('td', { className: ok ? 'right' : 'wrong' }, ok ? '✓ right' : '✗ wrong')));
      }
    }
    const table = h('table', {},
      h('caption', {}, `half = ${g.half}: ${g.passed ? 'right' : 'wrong'} (${halfSummary(g)})`),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'index'),
        h('th', { scope: 'col' }, 'plane'),
        h('th', { scope: 'col' }, 'expected'),
        h('th', { scope: 'col' }, 'got'),
        h('th', { scope: 'col' }, 'result'))),
      body);
    container.append(h('div', { className: 'table-scroll' }, table));
  }
}

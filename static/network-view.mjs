// network-view.mjs - draws the butterfly network (network.mjs) as SVG and
// keeps its highlight in step with the page's selection. DOM only; the
// geometry and the choice of what to highlight live in network.mjs.

import { networkLayout, selectionState, nodeId } from './network.mjs';

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/*
 * Renders into container and returns {update(selection, failing)}.
 * onPick({half, index}) is called when the student picks an output node,
 * by mouse or keyboard. selection is {half, index|null}; failing is a Set of
 * "stage:index" strings whose cells failed in the last result.
 */
export function createNetworkView(container, { halves, onPick }) {
  const layout = networkLayout({ halves });
  const svg = el('svg', {
    viewBox: `0 0 ${layout.width} ${layout.height}`,
    role: 'group',
    'aria-label': 'Butterfly network, 8 points, 3 passes',
    class: 'net',
  });
  const r = 10;
  const colGap = layout.columns[1].x - layout.columns[0].x;

  const bands = layout.halves.map((half, p) => {
    const band = el('rect', {
      class: 'net-pass-band', x: layout.columns[p].x + r, y: 22,
      width: colGap - 2 * r, height: layout.height - 26, rx: 6, 'data-pass': p,
    });
    svg.append(band);
    return band;
  });

  const labels = layout.columns.map((c) => {
    const t = el('text', { class: 'net-col-label', x: c.x, y: 14 }, c.label);
    svg.append(t);
    return t;
  });

  const edges = new Map();
  for (const e of layout.edges) {
    const line = el('line', {
      class: `net-edge ${e.kind}`, x1: e.x1 + r, y1: e.y1, x2: e.x2 - r, y2: e.y2,
      'data-edge': e.id, 'data-pass': e.pass, 'data-from': e.from, 'data-to': e.to,
    });
    svg.append(line);
    edges.set(e.id, line);
  }

  const inputLabels = [el('text', { class: 'net-input-label' }, 'a'), el('text', { class: 'net-input-label' }, 'b')];
  for (const t of inputLabels) {
    t.setAttribute('visibility', 'hidden');
    svg.append(t);
  }

  const nodes = new Map();
  for (const n of layout.nodes) {
    const g = el('g', { class: 'net-node', 'data-stage': n.stage, 'data-index': n.index, 'data-node': n.id });
    g.append(el('circle', { class: 'focus-ring', cx: n.x, cy: n.y, r: r + 4 }));
    g.append(el('circle', { class: 'dot', cx: n.x, cy: n.y, r }));
    g.append(el('text', { x: n.x, y: n.y }, String(n.index)));
    if (n.stage > 0) {
      g.addEventListener('click', () => onPick({ half: layout.halves[n.stage - 1], index: n.index }));
    }
    svg.append(g);
    nodes.set(n.id, g);
  }

  svg.addEventListener('keydown', (event) => {
    const g = event.target.closest && event.target.closest('.net-node.pickable');
    if (!g) return;
    const stage = Number(g.dataset.stage);
    const index = Number(g.dataset.index);
    const half = layout.halves[stage - 1];
    let next = null;
    if (event.key === 'ArrowDown') next = { half, index: Math.min(layout.n - 1, index + 1) };
    else if (event.key === 'ArrowUp') next = { half, index: Math.max(0, index - 1) };
    else if (event.key === 'ArrowRight' && stage < layout.halves.length) next = { half: layout.halves[stage], index };
    else if (event.key === 'ArrowLeft' && stage > 1) next = { half: layout.halves[stage - 2], index };
    else if (event.key === 'Home') next = { half, index: 0 };
    else if (event.key === 'End') next = { half, index: layout.n - 1 };
    else if (event.key === 'Enter' || event.key === ' ') next = { half, index };
    if (!next) return;
    event.preventDefault();
    onPick(next, { focus: true });
  });

  container.replaceChildren(svg);

  function update(selection, failing = new Set(), { focus = false } = {}) {
    const s = selectionState(layout, selection.half, selection.index);
    bands.forEach((b, p) => b.classList.toggle('active', p === s.pass));
    labels.forEach((t, c) => t.classList.toggle('active', c === s.outputStage));
    const active = new Set(s.activeEdges);
    const selected = new Set(s.selectedEdges);
    for (const [id, line] of edges) {
      line.classList.toggle('active', active.has(id));
      line.classList.toggle('selected', selected.has(id));
    }
    // Selected edges drawn last, so they sit on top of the others.
    for (const id of s.selectedEdges) svg.insertBefore(edges.get(id), inputLabels[0]);
    const inputs = new Set(s.inputNodes);
    for (const [id, g] of nodes) {
      const stage = Number(g.dataset.stage);
      const index = Number(g.dataset.index);
      const pickable = stage === s.outputStage;
      g.classList.toggle('pickable', pickable);
      g.classList.toggle('is-input', inputs.has(id));
      g.classList.toggle('is-output', id === s.outputNode);
      g.classList.toggle('is-partner', id === s.partnerNode);
      g.classList.toggle('cell-fail', failing.has(`${stage}:${index}`));
      if (pickable) {
        const isSel = s.index === index;
        g.setAttribute('role', 'button');
        g.setAttribute('tabindex', (s.index === null ? index === 0 : isSel) ? '0' : '-1');
        g.setAttribute('aria-pressed', String(isSel));
        g.setAttribute('aria-label', `output ${index} of the pass for half = ${s.half}` +
          `${failing.has(`${stage}:${index}`) ? ', has a wrong cell' : ''}`);
        g.removeAttribute('aria-hidden');
      } else {
        g.removeAttribute('role');
        g.removeAttribute('tabindex');
        g.removeAttribute('aria-pressed');
        g.removeAttribute('aria-label');
        g.setAttribute('aria-hidden', 'true');
      }
    }
    s.inputNodes.forEach((id, k) => {
      const n = layout.nodes.find((m) => m.id === id);
      inputLabels[k].setAttribute('x', String(n.x - r - 12));
      inputLabels[k].setAttribute('y', String(n.y - r + 2));
      inputLabels[k].setAttribute('visibility', 'visible');
    });
    if (!s.inputNodes.length) inputLabels.forEach((t) => t.setAttribute('visibility', 'hidden'));
    if (focus && s.outputNode) nodes.get(s.outputNode).focus();
    return s;
  }

  return { layout, update, node: (stage, index) => nodes.get(nodeId(stage, index)) };
}

// class-chart.mjs - the share-Accepted chart of the class view: plain
// SVG, no library.

const NS = 'http://www.w3.org/2000/svg';
const W = 320;
const H = 140;
const PAD = { l: 36, r: 8, t: 8, b: 22 };

function el(tag, attrs, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/* The chart of series [{t_ms, share}] as an <svg> with a text alternative. */
export function shareChart(series) {
  const last = series.length ? series[series.length - 1].share : 0;
  const svg = el('svg', {
    viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart',
    'aria-label': series.length
      ? `Share Accepted: ${Math.round(last * 100)}% now, from ${series.length} points since ${clock(series[0].t_ms)}`
      : 'Share Accepted: no submissions yet',
  });
  const x0 = PAD.l;
  const x1 = W - PAD.r;
  const y0 = H - PAD.b;
  const y1 = PAD.t;
  for (const v of [0, 0.5, 1]) {
    const y = y0 - v * (y0 - y1);
    svg.append(el('line', { x1: x0, x2: x1, y1: y, y2: y, class: 'grid-line' }));
    svg.append(el('text', { x: x0 - 4, y: y + 4, 'text-anchor': 'end', class: 'axis' },
      `${v * 100}%`));
  }
  if (series.length) {
    const t0 = series[0].t_ms;
    const span = Math.max(1, series[series.length - 1].t_ms - t0);
    const pts = series.map((p) => {
      const x = series.length === 1 ? x1 : x0 + ((p.t_ms - t0) / span) * (x1 - x0);
      return `${x.toFixed(1)},${(y0 - p.share * (y0 - y1)).toFixed(1)}`;
    });
    svg.append(el('polyline', { points: pts.join(' '), class: 'share-line' }));
    svg.append(el('text', { x: x0, y: H - 4, class: 'axis' }, clock(t0)));
    svg.append(el('text', { x: x1, y: H - 4, 'text-anchor': 'end', class: 'axis' },
      clock(series[series.length - 1].t_ms)));
  }
  return svg;
}

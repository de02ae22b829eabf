// network.mjs - the 8-point butterfly network as numbers: which pair an
// output belongs to, its twiddle, a double-precision reference pass, and
// the geometry of the picture. Pure: no DOM, so node can test it.

export const N = 8;
export const HALVES = Object.freeze([1, 2, 4]);

const MINUS = '\u2212';

function checkIndex(i, half, n = N) {
  if (!Number.isInteger(i) || i < 0 || i >= n) {
    throw new RangeError(`index ${i} is not in 0..${n - 1}`);
  }
  if (!Number.isInteger(half) || half < 1 || half >= n || (half & (half - 1)) !== 0) {
    throw new RangeError(`half ${half} is not a power of two below ${n}`);
  }
}

// Rounds values that are zero up to float noise (cos(pi/2) = 6e-17) to 0,
// and turns -0 into 0, so the page never shows "-0" or "6.1e-17".
function clean(v) {
  return Math.abs(v) < 1e-12 ? 0 : v;
}

/*
 * The three questions thread i asks in the pass with half-block size half,
 * and what follows from them: the two inputs it reads (base and
 * base + half), its partner in the pair, and the twiddle
 * w = e^(-i*pi*r/half) as {re, im}.
 */
export function pairOf(i, half, n = N) {
  checkIndex(i, half, n);
  const j = Math.floor(i / half) % 2;
  const base = i - j * half;
  const r = i % half;
  const angle = -Math.PI * r / half;
  return {
    i,
    half,
    j,
    base,
    r,
    lower: j === 0,
    partner: j === 0 ? i + half : i - half,
    inputs: [base, base + half],
    sign: j === 0 ? '+' : '-',
    w: { re: clean(Math.cos(angle)), im: clean(Math.sin(angle)) },
  };
}

/* The pairs of one pass: n/2 butterflies, each {top, bottom, r}. */
export function butterfliesOf(half, n = N) {
  const list = [];
  for (let i = 0; i < n; i++) {
    const p = pairOf(i, half, n);
    if (p.lower) list.push({ top: p.base, bottom: p.base + half, r: p.r });
  }
  return list;
}

/*
 * One butterfly pass in double precision over spectrum = [reals, imags]:
 * what the grader expects for every cell. Returns [reals, imags].
 */
export function referencePass(spectrum, half) {
  const n = spectrum[0].length;
  const out = [new Array(n), new Array(n)];
  for (let i = 0; i < n; i++) {
    const p = pairOf(i, half, n);
    const ar = spectrum[0][p.base], ai = spectrum[1][p.base];
    const br = spectrum[0][p.base + half], bi = spectrum[1][p.base + half];
    const tr = p.w.re * br - p.w.im * bi;
    const ti = p.w.re * bi + p.w.im * br;
    out[0][i] = p.lower ? ar + tr : ar - tr;
    out[1][i] = p.lower ? ai + ti : ai - ti;
  }
  return out;
}

/* A short decimal: at most `digits` decimals, trailing zeros dropped, a
 * real minus sign. */
export function formatReal(v, digits = 3) {
  if (!Number.isFinite(v)) return String(v);
  let s = clean(v).toFixed(digits);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  if (s === '-0') s = '0';
  return s.replace('-', MINUS);
}

/* "0.707 − 0.707i", "1", "−1i". */
export function formatComplex(re, im, digits = 3) {
  const r = clean(re), m = clean(im);
  if (m === 0) return formatReal(r, digits);
  const mag = formatReal(Math.abs(m), digits);
  const imText = (mag === '1' ? '' : mag) + 'i';
  if (r === 0) return (m < 0 ? MINUS : '') + imText;
  return `${formatReal(r, digits)} ${m < 0 ? MINUS : '+'} ${imText}`;
}

/* "e^(−iπ·1/2)" for the twiddle of offset r in a half-block of size half. */
export function twiddleText(r, half) {
  if (r === 0) return 'e^0';
  return `e^(${MINUS}iπ·${r}/${half})`;
}

/*
 * The picture: four columns of eight nodes (the input, then the output of
 * the pass for half = 1, 2 and 4) and, for each pass, two edges into every
 * output node, from base and from base + half: 3 passes x 4 butterflies.
 * Coordinates are in the SVG's user units.
 */
export function networkLayout({ n = N, halves = HALVES, width = 420, rowGap = 34,
  top = 40, left = 44, right = 28, bottom = 14 } = {}) {
  const stages = halves.length + 1;
  const colGap = (width - left - right) / (stages - 1);
  const height = top + (n - 1) * rowGap + bottom;
  const columns = [];
  const nodes = [];
  const edges = [];
  for (let s = 0; s < stages; s++) {
    const x = left + s * colGap;
    columns.push({ stage: s, x, half: s === 0 ? null : halves[s - 1],
      label: s === 0 ? 'input' : `half = ${halves[s - 1]}` });
    for (let i = 0; i < n; i++) {
      nodes.push({ id: nodeId(s, i), stage: s, index: i, x, y: top + i * rowGap });
    }
  }
  halves.forEach((half, p) => {
    for (let i = 0; i < n; i++) {
      const pair = pairOf(i, half, n);
      for (const from of pair.inputs) {
        edges.push({
          id: edgeId(p, from, i),
          pass: p,
          half,
          from,
          to: i,
          kind: from === i ? 'straight' : 'cross',
          x1: columns[p].x, y1: top + from * rowGap,
          x2: columns[p + 1].x, y2: top + i * rowGap,
        });
      }
    }
  });
  return { width, height, n, halves: [...halves], columns, nodes, edges };
}

export function nodeId(stage, index) {
  return `n${stage}-${index}`;
}

export function edgeId(pass, from, to) {
  return `e${pass}-${from}-${to}`;
}

/*
 * What to highlight for a selection {half, index} (index may be null):
 * the edges of the pass, the two edges and two input nodes the selected
 * output reads, the output node itself and its partner.
 */
export function selectionState(layout, half, index) {
  const pass = layout.halves.indexOf(half);
  if (pass < 0) throw new RangeError(`half ${half} is not one of ${layout.halves}`);
  const activeEdges = layout.edges.filter((e) => e.pass === pass).map((e) => e.id);
  const state = {
    pass,
    half,
    index: index ?? null,
    inputStage: pass,
    outputStage: pass + 1,
    activeEdges,
    selectedEdges: [],
    inputNodes: [],
    outputNode: null,
    partnerNode: null,
    pair: null,
  };
  if (index === null || index === undefined) return state;
  const pair = pairOf(index, half, layout.n);
  state.pair = pair;
  state.selectedEdges = pair.inputs.map((from) => edgeId(pass, from, index));
  state.inputNodes = pair.inputs.map((k) => nodeId(pass, k));
  state.outputNode = nodeId(pass + 1, index);
  state.partnerNode = nodeId(pass + 1, pair.partner);
  return state;
}

// worked-cell.mjs - one output cell worked through: which pair it belongs
// to, the two elements it reads, its twiddle, the value it is due and what
// the kernel returned. On a Wrong Answer the grader sends these
// (verdict.worked_cell, the first failing cell, perhaps from a hidden
// spectrum; verdict.worked_cells, every visible cell). For other verdicts,
// and from graders that send neither, the page works a visible cell out
// itself from the visible spectrum. Pure.

import { formatNumber, gotText, PLANES } from './grid.mjs';
import { formatComplex, pairOf, twiddleText } from './network.mjs';

const MINUS = '\u2212';
const PLUS_DUE = 'a + w·b';
const MINUS_DUE = `a ${MINUS} w·b`;

function complex(v) {
  return v && typeof v === 'object' && Number.isFinite(v.re) && Number.isFinite(v.im) ? { re: v.re, im: v.im } : null;
}

function int(v, lo, hi) {
  return Number.isInteger(v) && v >= lo && v <= hi;
}

/* "a - w*b", "a − w·b" and "a-w·b" are one expression: compare them so. */
function canon(expr) {
  return String(expr).replace(/-/g, MINUS).replace(/[*×]/g, '·').replace(/\s+/g, '');
}

/*
 * A worked cell of the verdict contract in the page's shape (the grader's
 * fields, plus gotText and source: 'grader'), or null when raw lacks a
 * field the page shows or has one of the wrong type.
 */
export function readWorkedCell(raw) {
  if (!raw || typeof raw !== 'object') return null;
  const { half, i, plane, j, base, r, partner } = raw;
  if (!int(half, 1, 64) || !int(i, 0, 127) || !int(plane, 0, 1) || !int(j, 0, 1) ||
      !int(base, 0, 127) || !int(r, 0, 127) || !int(partner, 0, 127)) return null;
  const a = complex(raw.a), b = complex(raw.b), w = complex(raw.w), wb = complex(raw.wb);
  if (!a || !b || !w || !wb || typeof raw.due !== 'string' || !Number.isFinite(raw.expected)) return null;
  const got = Number.isFinite(raw.got) ? raw.got : null;
  return {
    half, i, plane, j, base, r, partner, a, b, w, wb,
    spectrum: raw.spectrum === 'hidden' ? 'hidden' : 'visible',
    due: raw.due,
    expected: raw.expected,
    got,
    gotText: gotText({ got, got_text: raw.got_text }),
    got_matches: typeof raw.got_matches === 'string' && raw.got_matches ? raw.got_matches : null,
    passed: raw.passed === true,
    source: 'grader',
  };
}

export function sameCell(x, y) {
  return Boolean(x && y) && x.half === y.half && x.i === y.i && x.plane === y.plane;
}

/* The grader's first failing cell (verdict.worked_cell), or null. */
export function firstWorkedCell(verdict) {
  return verdict && typeof verdict === 'object' ? readWorkedCell(verdict.worked_cell) : null;
}

/* The grader's worked cell for the visible cell {half, i, plane}, or null. */
export function gradersWorkedCell(verdict, cell) {
  const list = verdict && Array.isArray(verdict.worked_cells) ? verdict.worked_cells : [];
  for (const raw of list) {
    const wc = readWorkedCell(raw);
    if (wc && wc.spectrum === 'visible' && sameCell(wc, cell)) return wc;
  }
  return null;
}

/*
 * A visible cell worked out on the page from the visible spectrum
 * ([reals, imags]). gridCell (grid.mjs's cell, optional) gives what the
 * grader expected and got; without it got is null and passed is null.
 */
export function workVisibleCell(visible, half, i, plane, gridCell = null) {
  const p = pairOf(i, half);
  const a = { re: visible[0][p.base], im: visible[1][p.base] };
  const b = { re: visible[0][p.base + half], im: visible[1][p.base + half] };
  const wb = { re: p.w.re * b.re - p.w.im * b.im, im: p.w.re * b.im + p.w.im * b.re };
  const part = plane === 0 ? 're' : 'im';
  const due = p.lower ? a[part] + wb[part] : a[part] - wb[part];
  const known = gridCell && gridCell.state !== 'missing';
  return {
    half, i, plane, j: p.j, base: p.base, r: p.r, partner: p.partner, a, b, w: p.w, wb,
    spectrum: 'visible',
    due: p.lower ? PLUS_DUE : MINUS_DUE,
    expected: known && gridCell.expected !== null ? gridCell.expected : due,
    got: known ? gridCell.got : null,
    gotText: gridCell ? gridCell.gotText : null,
    got_matches: null,
    passed: gridCell ? gridCell.state === 'pass' : null,
    source: 'page',
  };
}

/*
 * The worked cell for a picked visible cell {half, i, plane}: the
 * grader's when it sent one, else the page's from the grids
 * (grid.mjs's buildGrids) and the visible spectrum.
 */
export function workedCellFor(verdict, grids, visible, cell) {
  const theirs = gradersWorkedCell(verdict, cell);
  if (theirs) return theirs;
  const g = (grids || []).find((x) => x.half === cell.half);
  const gridCell = g ? g.planes[cell.plane].cells[cell.i] : null;
  return workVisibleCell(visible, cell.half, cell.i, cell.plane, gridCell);
}

/*
 * The cell to work when the student has picked none: the grader's first
 * failing cell, else the first failing visible cell of the grids (in
 * their order: smallest half first), else null (nothing failed).
 */
export function defaultWorkedCell(verdict, grids, visible) {
  const theirs = firstWorkedCell(verdict);
  if (theirs) return theirs;
  for (const g of grids || []) {
    for (const plane of g.planes) {
      const c = plane.cells.find((x) => x.state !== 'pass');
      if (c) return workedCellFor(verdict, grids, visible, { half: g.half, i: c.x, plane: c.y });
    }
  }
  return null;
}

/*
 * What the panel beside the grids shows for a verdict and the selection
 * {half, index, plane} (index null: nothing picked):
 *   null                 no panel (no verdict, or one without cells)
 *   {wc, intro}          the cell to work (null when every cell is right
 *                        and none is picked) and the line above it.
 */
export function workedCellOnShow(verdict, grids, visible, selection) {
  const first = verdict ? defaultWorkedCell(verdict, grids, visible) : null;
  if (!verdict || (!(grids && grids.length) && !first)) return null;
  const { half, index, plane } = selection || {};
  if (Number.isInteger(index) && grids.length) {
    const wc = workedCellFor(verdict, grids, visible, { half, i: index, plane: plane ?? 0 });
    const isFirst = sameCell(wc, first) && wc.spectrum === first.spectrum;
    return { wc, intro: isFirst
      ? 'The first wrong cell of your run. Pick any cell of the grids to work it instead.'
      : 'The cell you picked. Pick any other cell of the grids to work it instead.' };
  }
  if (first && first.spectrum === 'hidden') {
    return { wc: first, intro: 'The first wrong cell of your run is on one of the hidden random spectra. ' +
      'Pick a cell of the grids to work a visible one instead.' };
  }
  if (first) return { wc: first, intro: 'The first wrong cell of your run. Pick any cell of the grids to work it instead.' };
  return { wc: null, intro: 'Every cell is right. Pick any cell of the grids to see how it is worked out.' };
}

// Mistakes that a returned value can reveal, by the expression it equals.
const MATCH_WORDS = new Map([
  [canon('a'), 'the twiddle term w·b is missing'],
  [canon('b'), 'that is b alone: a and the twiddle are missing'],
  [canon('w·b'), 'a is missing'],
  [canon('a + b'), 'b was not multiplied by the twiddle w'],
  [canon('a - b'), 'b was not multiplied by the twiddle w'],
]);

function signed(v) {
  return v < 0 ? `(${formatNumber(v)})` : formatNumber(v);
}

/*
 * The words for a worked cell:
 *   {title, where, rows: [[term, text]], outcome: {passed, text}}
 * rows walk from the index to the value; outcome says what the kernel
 * returned and, when the grader matched it to another expression, what
 * that means.
 */
export function workedCellView(wc) {
  const planeName = PLANES[wc.plane];
  const part = wc.plane === 0 ? 're' : 'im';
  const lower = wc.j === 0;
  const rows = [
    ['j', `(${wc.i} / ${wc.half}) % 2 = ${wc.j}: the ${lower ? 'lower' : 'upper'} member of its pair; ` +
      `the other member is output ${wc.partner}`],
    ['base', `${wc.i} ${MINUS} ${wc.j}·${wc.half} = ${wc.base}`],
    ['r', `${wc.i} % ${wc.half} = ${wc.r}`],
    ['a', `element ${wc.base} = ${formatComplex(wc.a.re, wc.a.im, 4)}`],
    ['b', `element ${wc.base + wc.half} = ${formatComplex(wc.b.re, wc.b.im, 4)}`],
    ['w', `${twiddleText(wc.r, wc.half)} = ${formatComplex(wc.w.re, wc.w.im, 4)}`],
    ['w·b', formatComplex(wc.wb.re, wc.wb.im, 4)],
  ];
  const due = canon(wc.due);
  const op = due === canon(PLUS_DUE) ? '+' : due === canon(MINUS_DUE) ? MINUS : null;
  rows.push(['due', op
    ? `${part}(${wc.due}) = ${formatNumber(wc.a[part])} ${op} ${signed(wc.wb[part])} = ${formatNumber(wc.expected)}`
    : `${part}(${wc.due}) = ${formatNumber(wc.expected)}`]);

  let text;
  if (wc.passed === null || wc.gotText === null) {
    text = `This cell should be ${formatNumber(wc.expected)}.`;
  } else if (wc.passed) {
    text = `✓ Your kernel returned ${wc.gotText}: right.`;
  } else {
    text = `✗ Your kernel returned ${wc.gotText}, not ${formatNumber(wc.expected)}.`;
    if (wc.got === null) text += ' Check for a division by zero or a value read before it was set.';
    const m = wc.got_matches ? canon(wc.got_matches) : null;
    const other = op === '+' ? canon(MINUS_DUE) : op === MINUS ? canon(PLUS_DUE) : null;
    if (m && m === other) {
      text += ` That is ${part}(${wc.got_matches}), the value due at output ${wc.partner}, the other member ` +
        'of the pair: check j and the sign that goes with it.';
    } else if (m) {
      const why = MATCH_WORDS.get(m);
      text += ` That is ${part}(${wc.got_matches})${why ? `: ${why}` : ''}.`;
    }
  }
  return {
    title: `half = ${wc.half}, output ${wc.i}, ${planeName} plane`,
    where: wc.spectrum === 'hidden'
      ? 'on one of the hidden random spectra, whose numbers are shown here'
      : 'on the visible spectrum',
    rows,
    outcome: { passed: wc.passed, text },
  };
}

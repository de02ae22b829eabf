// worked-cell.mjs - one output cell worked through, as the grader sends it
// (verdict.worked_cell, the cell where the named mistake is the only
// reading; verdict.worked_cells, every visible cell). The page computes
// nothing of its own here: it lays out the grader's numbers and shows the
// grader's sentence, so that the cell and the diagnosis tell one story.
// Pure.

import { formatNumber, gotText, PLANES } from './grid.mjs';
import { formatComplex, twiddleText } from './network.mjs';

const MINUS = '\u2212';

function complex(v) {
  return v && typeof v === 'object' && Number.isFinite(v.re) && Number.isFinite(v.im) ? { re: v.re, im: v.im } : null;
}

function int(v, lo, hi) {
  return Number.isInteger(v) && v >= lo && v <= hi;
}

/*
 * A worked cell of the verdict contract in the page's shape, or null when
 * raw lacks a field the page shows or has one of the wrong type. sign is
 * the sign due before w·b (1 for the lower member, -1 for the upper);
 * matches the slug of what the value returned equals; says the grader's
 * sentence.
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
    sign: raw.sign === -1 || raw.sign === 1 ? raw.sign : (j === 0 ? 1 : -1),
    spectrum: raw.spectrum === 'hidden' ? 'hidden' : 'visible',
    due: raw.due,
    expected: raw.expected,
    got,
    gotText: gotText({ got, got_text: raw.got_text }),
    got_matches: typeof raw.got_matches === 'string' && raw.got_matches ? raw.got_matches : null,
    matches: typeof raw.matches === 'string' && raw.matches ? raw.matches : null,
    says: typeof raw.says === 'string' && raw.says ? raw.says : null,
    passed: raw.passed === true,
  };
}

export function sameCell(x, y) {
  return Boolean(x && y) && x.half === y.half && x.i === y.i && x.plane === y.plane;
}

/* The grader's worked cell for the visible cell {half, i, plane} of a
 * verdict model (verdict.mjs), or null. */
export function gradersWorkedCell(model, cell) {
  const list = model ? model.workedCells : [];
  return list.find((wc) => wc.spectrum === 'visible' && sameCell(wc, cell)) || null;
}

/* The same cell's other plane, from the same spectrum, or null: with both
 * the kernel's complex value can be drawn. */
export function otherPlane(model, wc) {
  if (!model || !wc || wc.spectrum !== 'visible') return null;
  return gradersWorkedCell(model, { half: wc.half, i: wc.i, plane: 1 - wc.plane });
}

/*
 * What the panel beside the grids shows for a verdict model and the
 * selection {half, index, plane} (index null: nothing picked):
 *   null          no panel (no verdict, or one the grader worked no cell of)
 *   {wc, intro}   the cell to work and the line above it.
 */
export function workedCellOnShow(model, selection) {
  if (!model || !model.workedCell) return null;
  const first = model.workedCell;
  const { half, index, plane } = selection || {};
  if (Number.isInteger(index)) {
    const wc = gradersWorkedCell(model, { half, i: index, plane: plane ?? 0 });
    if (wc) {
      const isFirst = sameCell(wc, first) && wc.spectrum === first.spectrum;
      return { wc, intro: isFirst
        ? 'The cell that shows the mistake. Pick any cell of the grids to work it instead.'
        : 'The cell you picked. Pick any other cell of the grids to work it instead.' };
    }
  }
  if (first.spectrum === 'hidden') {
    return { wc: first, intro: 'This cell is on one of the hidden random spectra. ' +
      'Pick a cell of the grids to work a visible one instead.' };
  }
  return { wc: first, intro: 'The cell that shows the mistake. Pick any cell of the grids to work it instead.' };
}

function signed(v) {
  return v < 0 ? `(${formatNumber(v)})` : formatNumber(v);
}

/*
 * The words for a worked cell:
 *   {title, where, rows: [[term, text]], outcome: {passed, text}}
 * rows lay out the grader's numbers from the index to the value; outcome
 * is the grader's sentence (or, from a grader that sends none, only what
 * the kernel returned).
 */
export function workedCellView(wc) {
  const planeName = PLANES[wc.plane];
  const part = wc.plane === 0 ? 're' : 'im';
  const lower = wc.j === 0;
  const op = wc.sign < 0 ? MINUS : '+';
  const rows = [
    ['j', `(${wc.i} / ${wc.half}) % 2 = ${wc.j}: the ${lower ? 'lower' : 'upper'} member of its pair; ` +
      `the other member is output ${wc.partner}`],
    ['base', `${wc.i} ${MINUS} ${wc.j}·${wc.half} = ${wc.base}`],
    ['r', `${wc.i} % ${wc.half} = ${wc.r}`],
    ['a', `element ${wc.base} = ${formatComplex(wc.a.re, wc.a.im, 4)}`],
    ['b', `element ${wc.base + wc.half} = ${formatComplex(wc.b.re, wc.b.im, 4)}`],
    ['w', `${twiddleText(wc.r, wc.half)} = ${formatComplex(wc.w.re, wc.w.im, 4)}`],
    ['w·b', formatComplex(wc.wb.re, wc.wb.im, 4)],
    ['due', `${part}(${wc.due}) = ${formatNumber(wc.a[part])} ${op} ${signed(wc.wb[part])} = ${formatNumber(wc.expected)}`],
  ];
  let text;
  if (wc.says) text = `${wc.passed ? '✓' : '✗'} ${wc.says}`;
  else if (wc.passed) text = `✓ Your kernel returned ${wc.gotText}: right.`;
  else text = `✗ Your kernel returned ${wc.gotText}, not ${formatNumber(wc.expected)}.`;
  return {
    title: `half = ${wc.half}, output ${wc.i}, ${planeName} plane`,
    where: wc.spectrum === 'hidden'
      ? 'on one of the hidden random spectra, whose numbers are shown here'
      : 'on the visible spectrum',
    rows,
    outcome: { passed: wc.passed, text },
  };
}

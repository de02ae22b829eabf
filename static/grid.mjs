// grid.mjs - the result grids as data: for every half of a verdict, two
// planes (real, imaginary) of eight cells, each with its expected and got
// values, its state and the words a screen reader says for it. Pure.

export const PLANES = Object.freeze(['real', 'imaginary']);
export const PLANE_SHORT = Object.freeze(['re', 'im']);
export const COLUMNS = 8;

const MINUS = '\u2212';

/* Up to `digits` decimals, trailing zeros dropped, a real minus sign. */
export function formatNumber(v, digits = 4) {
  if (typeof v !== 'number' || Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return `${MINUS}Infinity`;
  if (Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-4)) {
    return v.toExponential(3).replace('-', MINUS);
  }
  let s = v.toFixed(digits);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  if (s === '-0') s = '0';
  return s.replace('-', MINUS);
}

/*
 * The text for a cell's "got": the number, or the grader's got_text
 * ("NaN", "Infinity", "-Infinity") when the value is not finite, or
 * "nothing" when the kernel left the cell unwritten or the cell is absent.
 */
export function gotText(cell) {
  if (!cell) return 'nothing';
  if (typeof cell.got === 'number') return formatNumber(cell.got);
  if (typeof cell.got_text === 'string' && cell.got_text) {
    return cell.got_text.replace(/^-/, MINUS);
  }
  return 'nothing';
}

export function cellLabel(half, cell, param = 'half') {
  const verdict = cell.state === 'pass' ? 'right' : 'wrong';
  return `${param} ${half}, index ${cell.x}, ${cell.plane}: expected ` +
    `${cell.expectedText}, got ${cell.gotText}, ${verdict}`;
}

/* The name of output plane y of `planes`: the butterfly's two are the
 * real and imaginary parts; one plane is the values; more are numbered. */
export function planeName(y, planes) {
  if (planes === PLANES.length) return PLANES[y];
  return planes === 1 ? 'values' : `plane ${y}`;
}

function buildCell(half, x, y, raw, planes, param) {
  const cell = {
    x,
    y,
    plane: planeName(y, planes),
    expected: raw && typeof raw.expected === 'number' ? raw.expected : null,
    got: raw && typeof raw.got === 'number' ? raw.got : null,
    expectedText: raw && typeof raw.expected === 'number' ? formatNumber(raw.expected) : '?',
    gotText: gotText(raw),
    state: !raw ? 'missing' : raw.passed === true ? 'pass' : 'fail',
  };
  cell.label = cellLabel(half, cell, param);
  return cell;
}

/*
 * The grids of a verdict: one entry per half in the verdict's order, each
 * {half, passed, hidden, passedCells, planes: [{plane, name, short, cells}]}
 * with 8 cells per plane, found by their (x, y) whatever order the verdict
 * lists them in. A cell the verdict lacks is state 'missing' and fails.
 * Returns [] for a verdict without halves (a compile error, a rejection).
 */
export function buildGrids(verdict) {
  return buildGridsOf(verdict, { n: COLUMNS, planes: PLANES.length, param: 'half' });
}

/*
 * buildGrids for any exercise: `n` cells in each of `planes` output
 * planes (the exercise's output.n and output.planes), the sweep's value
 * named `param` in the cells' labels ("half" for the butterfly). A cell
 * the verdict has outside n x planes is not shown.
 */
export function buildGridsOf(verdict, { n, planes, param = 'value' }) {
  const halves = verdict && Array.isArray(verdict.halves) ? verdict.halves : [];
  return halves.map((h) => {
    const byPos = new Map();
    for (const c of Array.isArray(h.cells) ? h.cells : []) {
      if (c && Number.isInteger(c.x) && Number.isInteger(c.y)) byPos.set(`${c.x},${c.y}`, c);
    }
    const rows = Array.from({ length: planes }, (_, y) => ({
      plane: y,
      name: planeName(y, planes),
      short: planes === PLANES.length ? PLANE_SHORT[y] : planes === 1 ? '' : `p${y}`,
      cells: Array.from({ length: n }, (_, x) => buildCell(h.half, x, y, byPos.get(`${x},${y}`), planes, param)),
    }));
    const all = rows.flatMap((p) => p.cells);
    const hidden = h.hidden && Number.isInteger(h.hidden.total)
      ? { passed: h.hidden.passed, total: h.hidden.total } : null;
    return {
      half: h.half,
      passed: h.passed === true,
      hidden,
      passedCells: all.filter((c) => c.state === 'pass').length,
      totalCells: all.length,
      planes: rows,
    };
  });
}

/* "14 of 16 cells right; hidden spectra: 8 of 8 right"; `hidden` is what
 * the exercise's hidden inputs are called ("spectra" for the butterfly). */
export function halfSummary(grid, hidden = 'spectra') {
  let s = `${grid.passedCells} of ${grid.totalCells} visible cells right`;
  if (grid.hidden) s += `; hidden ${hidden}: ${grid.hidden.passed} of ${grid.hidden.total} right`;
  return s;
}

/* What exercise ex's hidden inputs are called: the butterfly's are
 * spectra, as its page says (the grader's exercise_hidden_word, the same
 * rule: an input named spectrum). */
export function hiddenWord(ex) {
  return ex && ex.input && ex.input.name === 'spectrum' ? 'spectra' : 'inputs';
}

/*
 * Arrow-key movement inside one 8 x 2 grid: returns the new {x, y}, or
 * null when the key is not a movement key. Stops at the edges.
 */
export function moveInGrid(pos, key, cols = COLUMNS, rows = PLANES.length) {
  let { x, y } = pos;
  switch (key) {
    case 'ArrowLeft': x = Math.max(0, x - 1); break;
    case 'ArrowRight': x = Math.min(cols - 1, x + 1); break;
    case 'ArrowUp': y = Math.max(0, y - 1); break;
    case 'ArrowDown': y = Math.min(rows - 1, y + 1); break;
    case 'Home': x = 0; break;
    case 'End': x = cols - 1; break;
    default: return null;
  }
  return { x, y };
}

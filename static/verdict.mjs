// verdict.mjs - the one reader of the grader's verdict JSON: readVerdict()
// turns it, once, into the page's model, so that every view renders from
// named fields and none parses the grader's prose. Pure.

import { readWorkedCell } from './worked-cell.mjs';

/* The status slugs of the verdict contract, and the page's kind for each. */
const KINDS = Object.freeze({
  accepted: 'accepted',
  wrong_answer: 'wrong',
  time_limit_exceeded: 'time-limit',
  compilation_error: 'compile',
  runtime_error: 'runtime',
  internal_error: 'internal',
  rejected: 'rejected',
});

/* The page's kind for a status id (Judge0's ids), for results saved by
 * a page from before the slug: 'accepted' | 'wrong' | 'time-limit' |
 * 'compile' | 'runtime' | 'internal' | 'rejected' | 'unknown'. */
export function statusKind(id) {
  if (id === 3) return 'accepted';
  if (id === 4) return 'wrong';
  if (id === 5) return 'time-limit';
  if (id === 6) return 'compile';
  if (Number.isInteger(id) && id >= 7 && id <= 12) return 'runtime';
  if (id === 13) return 'internal';
  if (id === 100) return 'rejected';
  return 'unknown';
}

/*
 * The page's three hints, in one table: the number of each (its id is
 * hint-N), the name its summary shows in index.html, which is also how
 * the grader's hint begins (grader/engine/diagnosis/family.c), and the
 * steps of the recipe it covers. A diagnosis links to the hint its text
 * names; the step decides only for a text that names none, so the link
 * and the words never point at two different hints.
 */
export const HINTS = Object.freeze([
  Object.freeze({ number: 1, name: 'Hint 1 — which pair am I in?', steps: Object.freeze(['i', 'j', 'base', 'read']) }),
  Object.freeze({ number: 2, name: 'Hint 2 — which twiddle?', steps: Object.freeze(['r', 'w']) }),
  Object.freeze({ number: 3, name: 'Hint 3 — the ending', steps: Object.freeze(['wb', 'sign', 'plane']) }),
]);

/* The hint number for a diagnosis: the one its hint text begins with, else
 * the one that covers its step, else null. */
export function hintNumberOf(step, hintText) {
  if (typeof hintText === 'string') {
    const named = HINTS.find((h) => hintText.startsWith(h.name));
    if (named) return named.number;
  }
  const covering = HINTS.find((h) => h.steps.includes(step));
  return covering ? covering.number : null;
}

const text = (v) => (typeof v === 'string' && v ? v : null);

function readDiagnosis(raw) {
  if (!raw || typeof raw !== 'object' || !(text(raw.title) || text(raw.explanation))) return null;
  const step = text(raw.step);
  return {
    id: text(raw.id) || '',
    step,
    title: text(raw.title) || 'What went wrong',
    explanation: text(raw.explanation),
    hint: text(raw.hint),
    hintNumber: hintNumberOf(step, text(raw.hint)),
    more: text(raw.more),
  };
}

/*
 * verdict.loop (a Time Limit Exceeded from the grader's loop budget) as
 * {line, limit, half, spectrum, i, plane}, or null when absent or unusable.
 */
export function readLoop(raw) {
  if (!raw || typeof raw !== 'object' || !Number.isInteger(raw.line) || raw.line < 1) return null;
  const intOrNull = (v) => (Number.isInteger(v) && v >= 0 ? v : null);
  return {
    line: raw.line,
    limit: Number.isInteger(raw.limit) && raw.limit > 0 ? raw.limit : null,
    half: intOrNull(raw.half),
    spectrum: raw.spectrum === 'hidden' ? 'hidden' : 'visible',
    i: intOrNull(raw.i),
    plane: raw.plane === 0 || raw.plane === 1 ? raw.plane : null,
  };
}

/*
 * The page's model of a verdict (null when raw is no verdict):
 *   {raw, status: {id, slug, description}, kind, passed, message, halves,
 *    diagnosis: {id, step, title, explanation, hint, hintNumber, more} | null,
 *    summary, loop, workedCell, workedCells, diagnostics, compileLog,
 *    compileLogTruncated, device, timings, seed}
 * raw is kept for what is stored and for the grids' cells.
 */
export function readVerdict(raw) {
  if (!raw || typeof raw !== 'object' || !raw.status || typeof raw.status !== 'object') return null;
  const id = raw.status.id;
  const slug = text(raw.status.slug);
  const kind = slug && KINDS[slug] ? KINDS[slug] : statusKind(id);
  const cells = Array.isArray(raw.worked_cells) ? raw.worked_cells.map(readWorkedCell).filter(Boolean) : [];
  return {
    raw,
    status: { id, slug, description: text(raw.status.description) || '' },
    kind,
    passed: raw.passed === true && kind === 'accepted',
    message: text(raw.message),
    halves: Array.isArray(raw.halves) ? raw.halves : [],
    diagnosis: kind === 'wrong' ? readDiagnosis(raw.diagnosis) : null,
    summary: kind === 'wrong' ? text(raw.summary) : null,
    loop: kind === 'time-limit' ? readLoop(raw.loop) : null,
    workedCell: readWorkedCell(raw.worked_cell),
    workedCells: cells,
    diagnostics: Array.isArray(raw.diagnostics) ? raw.diagnostics : [],
    compileLog: text(raw.compile_log),
    compileLogTruncated: raw.compile_log_truncated === true,
    device: raw.device && typeof raw.device === 'object' ? raw.device : null,
    timings: raw.timings_ms && typeof raw.timings_ms === 'object' ? raw.timings_ms : null,
    seed: Number.isFinite(raw.seed) ? raw.seed : null,
  };
}

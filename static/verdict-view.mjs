// verdict-view.mjs - what the page says about an outcome of Run: a verdict
// from the grader, an HTTP error, a lost connection or an answer it cannot
// read. Pure: returns words and flags, app.mjs turns them into DOM.

export const STATUS = Object.freeze({
  ACCEPTED: 3,
  WRONG_ANSWER: 4,
  TIME_LIMIT: 5,
  COMPILATION_ERROR: 6,
  RUNTIME_FIRST: 7,
  RUNTIME_LAST: 12,
  INTERNAL_ERROR: 13,
  REJECTED: 100,
});

/* 'accepted' | 'wrong' | 'time-limit' | 'compile' | 'runtime' |
 * 'internal' | 'rejected' | 'unknown' for a status id. */
export function statusKind(id) {
  if (id === STATUS.ACCEPTED) return 'accepted';
  if (id === STATUS.WRONG_ANSWER) return 'wrong';
  if (id === STATUS.TIME_LIMIT) return 'time-limit';
  if (id === STATUS.COMPILATION_ERROR) return 'compile';
  if (Number.isInteger(id) && id >= STATUS.RUNTIME_FIRST && id <= STATUS.RUNTIME_LAST) return 'runtime';
  if (id === STATUS.INTERNAL_ERROR) return 'internal';
  if (id === STATUS.REJECTED) return 'rejected';
  return 'unknown';
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/*
 * The view of a verdict: {kind, tone ('pass' | 'fail' | 'error' |
 * 'unknown'), icon, title, detail, showGrids, showDiagnostics}.
 */
export function verdictView(verdict) {
  const id = verdict && verdict.status ? verdict.status.id : undefined;
  const description = verdict && verdict.status && typeof verdict.status.description === 'string'
    ? verdict.status.description : '';
  const message = verdict && typeof verdict.message === 'string' ? verdict.message : '';
  const hasHalves = Boolean(verdict && Array.isArray(verdict.halves) && verdict.halves.length);
  const kind = statusKind(id);
  const view = { kind, tone: 'error', icon: '✗', title: '', detail: '', showGrids: hasHalves,
    showDiagnostics: false };
  switch (kind) {
    case 'accepted':
      return { ...view, tone: 'pass', icon: '✓', title: 'Accepted',
        detail: 'Every cell is right for half = 1, 2 and 4, on the visible spectrum and on every hidden one.' };
    case 'wrong':
      return { ...view, tone: 'fail', title: 'Wrong answer',
        detail: message || 'Some cells differ from the reference; the red ones below.' };
    case 'time-limit':
      return { ...view, title: 'Time limit exceeded',
        detail: 'Your kernel did not finish in time. A single pass needs no loop; look for one that never ends.' };
    case 'compile':
      return { ...view, title: 'Compilation error', showDiagnostics: true,
        detail: 'The GLSL compiler did not accept your code. The errors are marked in the editor and listed below it.' };
    case 'runtime':
      return { ...view, title: `Runtime error${description && description !== 'Runtime Error' ? ` (${description})` : ''}`,
        detail: message || 'Your kernel compiled but crashed while running.' };
    case 'internal':
      return { ...view, title: 'Internal error',
        detail: 'Something went wrong inside the grader, not in your code. Run again; if it happens again, tell your instructor.' };
    case 'rejected':
      return { ...view, title: 'Rejected', showDiagnostics: true,
        detail: message || 'The grader refused this code before compiling it.' };
    default:
      return { ...view, tone: 'unknown', icon: '?', title: 'A verdict this page does not know',
        detail: `The grader answered with status ${id === undefined ? '(none)' : id}` +
          `${description ? ` “${description}”` : ''}, which this page cannot interpret.` +
          `${message ? ` Its message: ${message}` : ''} Reloading the page may bring a newer version of it.` };
  }
}

/*
 * Seconds to wait from a Retry-After header: delta-seconds or an HTTP
 * date. Returns null when absent or unreadable; never negative.
 */
export function parseRetryAfter(value, now = Date.now()) {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

export function formatBytes(n) {
  if (n < 1024) return `${n} bytes`;
  return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
}

/*
 * The view of an outcome that is not a verdict (see api.mjs):
 * {tone, icon, title, detail, retryAfter}.
 */
export function outcomeView(outcome) {
  const base = { tone: 'error', icon: '!', retryAfter: null };
  switch (outcome.kind) {
    case 'too-large':
      return { ...base, title: 'Your code is too large',
        detail: `The grader takes at most ${formatBytes(outcome.limit)} of code` +
          `${outcome.size ? ` and yours is ${formatBytes(outcome.size)}` : ''}. Shorten it and run again.` };
    case 'http': {
      if (outcome.status === 413) {
        return outcomeView({ kind: 'too-large', limit: outcome.limit ?? 65536, size: outcome.size });
      }
      if (outcome.status === 503) {
        const s = outcome.retryAfter;
        return { ...base, tone: 'busy', icon: '…', title: 'The grader is busy', retryAfter: s,
          detail: s === null || s === undefined
            ? 'Every worker is busy with other kernels. Wait a moment and run again.'
            : `Every worker is busy with other kernels. Try again in ${plural(s, 'second')}.` };
      }
      const why = outcome.message ? ` It said: ${outcome.message}` : '';
      return { ...base, title: `The server could not grade this (HTTP ${outcome.status})`,
        detail: `${outcome.status >= 500 ? 'The server failed.' : 'The server refused the request.'}${why}` };
    }
    case 'network':
      return { ...base, title: 'No connection to the grader',
        detail: outcome.reason === 'timeout'
          ? 'The grader did not answer in time. Your draft is saved in this browser; press Run to try again.'
          : 'The page could not reach the grader. Your draft is saved in this browser; check your connection and press Run again.' };
    case 'bad-response':
      return { ...base, title: 'An answer the page cannot read',
        detail: `The server answered (HTTP ${outcome.status}) with something that is not a verdict. Run again; if it keeps happening, tell your instructor.` };
    default:
      return { ...base, title: 'Something went wrong', detail: 'Run again.' };
  }
}

const TIMING_NAMES = [['compile', 'compile'], ['pipeline', 'pipeline'], ['run', 'run'], ['total', 'total']];

function ms(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  if (v < 10) return `${v.toFixed(1)} ms`;
  return `${Math.round(v)} ms`;
}

/* "compile 82 ms · pipeline 6.2 ms · run 1.3 ms · total 225 ms" */
export function formatTimings(t) {
  if (!t || typeof t !== 'object') return '';
  return TIMING_NAMES.filter(([key]) => key in t).map(([key, name]) => `${name} ${ms(t[key])}`).join(' · ');
}

/* "llvmpipe (LLVM 15.0.6, 256 bits), cpu" */
export function formatDevice(d) {
  if (!d || typeof d !== 'object' || !d.name) return '';
  return d.type ? `${d.name}, ${d.type}` : d.name;
}

// verdict-view.mjs - what the page says about an outcome of Run: a verdict
// from the grader (read once by verdict.mjs), an HTTP error, a lost
// connection, a cancelled run or an answer it cannot read. Pure: returns
// words and flags, the views turn them into DOM.

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/* The loop's story in words, from the structured fields rather than the
 * grader's sentence, so that it names the line the editor marks. A loop
 * past the budget ran that many times: whether it would have ended is
 * not known, and not said. */
function loopDetail(loop) {
  const times = loop.limit ? `more than ${loop.limit.toLocaleString('en-US')} times` : 'too many times';
  const where = [];
  if (loop.half !== null) where.push(`half = ${loop.half}`);
  if (loop.i !== null) where.push(`output ${loop.i}`);
  if (loop.plane !== null) where.push(`${loop.plane === 0 ? 'real' : 'imaginary'} plane`);
  const on = where.length
    ? ` (${where.join(', ')}, on ${loop.spectrum === 'hidden' ? 'a hidden' : 'the visible'} spectrum)` : '';
  return `The loop on line ${loop.line} ran ${times}${on}, past the grader's budget, so the grader ` +
    'stopped it. A single butterfly pass needs no loop at all.';
}

/*
 * The view of a verdict model (verdict.mjs's readVerdict): {kind, tone
 * ('pass' | 'fail' | 'error' | 'unknown'), icon, title, detail, showGrids,
 * showDiagnostics, cause}. cause is 'loop' for a Time Limit Exceeded from
 * the loop budget, else null.
 */
export function verdictView(model) {
  const id = model ? model.status.id : undefined;
  const description = model ? model.status.description : '';
  const message = model && model.message ? model.message : '';
  const kind = model ? model.kind : 'unknown';
  const view = { kind, tone: 'error', icon: '✗', title: '', detail: '',
    showGrids: Boolean(model && model.halves.length), showDiagnostics: false, cause: null };
  switch (kind) {
    case 'accepted':
      return { ...view, tone: 'pass', icon: '✓', title: 'Accepted',
        detail: 'Every cell is right for half = 1, 2 and 4, on the visible spectrum and on every hidden one.' };
    case 'wrong':
      return { ...view, tone: 'fail', title: 'Wrong answer',
        detail: message || 'Some cells differ from the reference; the red ones below.' };
    case 'time-limit': {
      const { loop } = model;
      if (loop) {
        const times = loop.limit ? `more than ${loop.limit.toLocaleString('en-US')} times` : 'too many times';
        return { ...view, cause: 'loop', loop, title: `Time limit exceeded: a loop ran ${times}`, detail: loopDetail(loop) };
      }
      return { ...view, title: 'Time limit exceeded',
        detail: message || 'Your kernel did not finish in time. A single pass needs no loop.' };
    }
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
      if (outcome.status === 409 && outcome.code === 'sign_in_pending') {
        return { ...base, tone: 'none', icon: '·', title: 'Not run yet: who are you?',
          detail: 'A sign-in is waiting for your answer at the top of the page, and the server keeps no run until it has one. Answer it, and the run goes.' };
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
    case 'cancelled':
      return { ...base, tone: 'none', icon: '·', title: 'Run cancelled',
        detail: 'You cancelled the run; the grader stops grading it. Your draft is saved; press Run when you are ready.' };
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

/* "0.4 s", "12 s", "2 min 05 s": time since Run, as the waiting state shows it. */
export function formatElapsed(msElapsed) {
  const t = Math.max(0, Number.isFinite(msElapsed) ? msElapsed : 0) / 1000;
  if (t < 10) return `${(Math.floor(t * 10) / 10).toFixed(1)} s`;
  if (t < 60) return `${Math.floor(t)} s`;
  const m = Math.floor(t / 60);
  return `${m} min ${String(Math.floor(t - 60 * m)).padStart(2, '0')} s`;
}

/* Past this, the waiting state says the grader may be busy. */
export const SLOW_RUN_MS = 10000;

/* The waiting state after Run: {title, detail}, with the time so far. */
export function runningView(msElapsed) {
  return {
    title: `Running… ${formatElapsed(msElapsed)}`,
    detail: msElapsed < SLOW_RUN_MS
      ? 'Compiling your kernel and running it for half = 1, 2 and 4.'
      : 'Still waiting for the grader; it may be busy with other kernels. Your draft is saved.',
  };
}

/* One sentence for the live region: the title and detail, without the
 * icon and the backticks that only mean something on screen. */
export function announcement(view) {
  const strip = (t) => String(t || '').replace(/`/g, '').trim();
  return [strip(view.title), strip(view.detail)].filter(Boolean).map((t) => (/[.!?]$/.test(t) ? t : `${t}.`)).join(' ');
}

// api.mjs - the page's network: every request the exercise page, its
// records (history.mjs) and the class view (class.mjs) make goes through
// request() below, which turns a Response into one plain object, so that
// no other module handles a raw Response or its own kind of error. The
// fetch function is passed in, so node can test this with a fake. The
// class view's event stream (EventSource) is the one connection opened
// elsewhere: the browser reconnects it by itself.

import { COURSE_URL } from './course.mjs';
import { launchHeaders } from './launch.mjs';
import { parseRetryAfter } from './verdict-view.mjs';

export const TASK_URL = '/api/tasks/butterfly';
export const SUBMIT_URL = '/api/tasks/butterfly/submissions';
export const SUBMIT_TIMEOUT_MS = 90000;
export const ME_URL = '/api/me';
export const SESSION_URL = '/api/session';
export const MY_SUBMISSIONS_URL = '/api/me/submissions';
/* A cross-site page cannot send this header without a preflight the
 * server never grants: the server's second lock on every state change. */
export const CSRF_HEADERS = { 'X-Requested-With': 'butterfly' };

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/* The one error shape: {kind: 'http', status, code, message, retryAfter}
 * for an answer that is not 2xx (code and message from the server's
 * {error: {code, message}} body, else null). */
function httpError(response, body) {
  const error = body && body.error && typeof body.error === 'object' ? body.error : {};
  return {
    kind: 'http',
    status: response.status,
    code: typeof error.code === 'string' ? error.code : null,
    message: typeof error.message === 'string' ? error.message : null,
    retryAfter: parseRetryAfter(response.headers && response.headers.get
      ? response.headers.get('Retry-After') : null),
  };
}

/*
 * One request, JSON asked for. init is fetch's (method, headers, body,
 * signal, credentials, cache); Accept: application/json is added.
 * Resolves, never rejects, to
 *   {ok: true, status, body, error: null}      a 2xx answer
 *   {ok: false, status, body, error}           any other answer
 *   {ok: false, status: 0, body: null, error}  no answer at all
 * where body is the parsed JSON (null when there is none or it is not
 * JSON) and error is httpError's shape or {kind: 'network', reason:
 * 'lost'}. The caller turns an error into words with errorText().
 */
export async function request(fetchFn, url, init = {}) {
  let response;
  try {
    response = await fetchFn(url, { ...init, headers: { Accept: 'application/json', ...(init.headers || {}) } });
  } catch {
    return { ok: false, status: 0, body: null, error: { kind: 'network', reason: 'lost' } };
  }
  const parsed = await readJson(response);
  const body = parsed === undefined ? null : parsed;
  const status = typeof response.status === 'number' ? response.status : 0;
  if (response.ok) return { ok: true, status, body, error: null };
  return { ok: false, status, body, error: httpError(response, body) };
}

/* The words for request()'s error: the server's own message where it
 * sent one, else fallback. */
export function errorText(error, fallback) {
  return error && typeof error.message === 'string' && error.message ? error.message : fallback;
}

/* A short tag for an error in a status line: "HTTP 503", "no connection". */
export function errorTag(error) {
  if (!error) return '';
  return error.kind === 'http' ? `HTTP ${error.status}` : 'no connection';
}

/* Returns {ok: true, task} or {ok: false, outcome}. */
export async function fetchTask(fetchFn, url = TASK_URL) {
  const r = await request(fetchFn, url);
  if (!r.ok) return { ok: false, outcome: r.error };
  if (!r.body || typeof r.body !== 'object' || typeof r.body.starter !== 'string') {
    return { ok: false, outcome: { kind: 'bad-response', status: r.status } };
  }
  return { ok: true, task: r.body };
}

/*
 * One run's Idempotency-Key: 128 random bits as hex. randomUUID exists in
 * secure contexts only (https, localhost), and a classroom's server is
 * often plain http on the lab's network; getRandomValues exists in every
 * context. No header where neither does (the run is then as before).
 */
export function idempotencyHeader(cryptoObj = globalThis.crypto) {
  if (cryptoObj && typeof cryptoObj.getRandomValues === 'function') {
    const bytes = cryptoObj.getRandomValues(new Uint8Array(16));
    return { 'Idempotency-Key': Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('') };
  }
  return {};
}

/*
 * Posts a kernel body, as it is (text/plain: the server grades the bytes
 * it gets, with no JSON to unwrap). Resolves (never rejects) to one of
 *   {kind: 'verdict', verdict}
 *   {kind: 'http', status, code, message, retryAfter}
 *   {kind: 'network', reason: 'lost' | 'timeout'}
 *   {kind: 'cancelled'}            (options.signal aborted: the student cancelled)
 *   {kind: 'bad-response', status}
 * Aborting the request closes the connection, and the server cancels a
 * job whose client has gone. options.launch: the tab's LTI launch tag
 * (launch.mjs), sent so the score goes to that launch's course.
 */
export async function submitSource(fetchFn, source, { url = SUBMIT_URL, timeoutMs = SUBMIT_TIMEOUT_MS, signal = null, launch = null } = {}) {
  if (signal && signal.aborted) return { kind: 'cancelled' };
  const controller = typeof AbortController === 'function' ? new AbortController() : null;
  let timedOut = false;
  let cancelled = false;
  const timer = controller ? setTimeout(() => { timedOut = true; controller.abort(); }, timeoutMs) : null;
  const onCancel = () => { cancelled = true; if (controller) controller.abort(); };
  if (signal) signal.addEventListener('abort', onCancel, { once: true });
  let r;
  try {
    r = await request(fetchFn, url, {
      method: 'POST',
      // CSRF_HEADERS: the server's same-origin check; launchHeaders: the
      // LTI launch this tab came from (launch.mjs), whose course gets the
      // score; Idempotency-Key: one per run, so that a proxy's retry of this
      // POST is the same record (docs/DEPLOY.md)
      headers: { 'Content-Type': 'text/plain; charset=utf-8', ...CSRF_HEADERS, ...launchHeaders(launch), ...idempotencyHeader() },
      body: source,
      signal: controller ? controller.signal : undefined,
    });
  } finally {
    if (timer) clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', onCancel);
  }
  if (cancelled && !timedOut) return { kind: 'cancelled' };
  if (r.error && r.error.kind === 'network') return { kind: 'network', reason: timedOut ? 'timeout' : 'lost' };
  // A verdict is a verdict whatever the HTTP status: the server sends an
  // Internal Error verdict with 500.
  const body = r.body;
  if (body && typeof body === 'object' && body.status && typeof body.status.id === 'number') {
    return { kind: 'verdict', verdict: body };
  }
  if (r.status === 200) return { kind: 'bad-response', status: 200 };
  return r.ok ? { kind: 'bad-response', status: r.status } : r.error;
}

/*
 * The instructor's course file (course.mjs reads it): the parsed JSON, or
 * null when it is missing, unreadable or unreachable. Never rejects.
 */
export async function fetchCourseFile(fetchFn, url = COURSE_URL) {
  const r = await request(fetchFn, url);
  return r.ok ? r.body : null;
}

/* The UTF-8 size of a body, as the server counts it against its limit. */
export function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

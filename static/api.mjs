// api.mjs - the three requests the page makes, each turned into one plain
// outcome object so that the page never handles a raw Response. The fetch
// function is passed in, so node can test this with a fake.

import { COURSE_URL } from './course.mjs';
import { launchHeaders } from './launch.mjs';
import { parseRetryAfter } from './verdict-view.mjs';

export const TASK_URL = '/api/tasks/butterfly';
export const SUBMIT_URL = '/api/tasks/butterfly/submissions';
export const SUBMIT_TIMEOUT_MS = 90000;

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/* Returns {ok: true, task} or {ok: false, outcome}. */
export async function fetchTask(fetchFn, url = TASK_URL) {
  let response;
  try {
    response = await fetchFn(url, { headers: { Accept: 'application/json' } });
  } catch {
    return { ok: false, outcome: { kind: 'network', reason: 'lost' } };
  }
  const body = await readJson(response);
  if (!response.ok) return { ok: false, outcome: httpOutcome(response, body) };
  if (!body || typeof body !== 'object' || typeof body.starter !== 'string') {
    return { ok: false, outcome: { kind: 'bad-response', status: response.status } };
  }
  return { ok: true, task: body };
}

function httpOutcome(response, body) {
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
  let response;
  try {
    response = await fetchFn(url, {
      method: 'POST',
      // X-Requested-With: the server's same-origin check (history.mjs, CSRF_HEADERS)
      // the LTI launch this tab came from (launch.mjs): its course gets the score
      headers: { 'Content-Type': 'text/plain; charset=utf-8', Accept: 'application/json', 'X-Requested-With': 'butterfly', ...launchHeaders(launch) },
      body: source,
      signal: controller ? controller.signal : undefined,
    });
  } catch {
    if (cancelled && !timedOut) return { kind: 'cancelled' };
    return { kind: 'network', reason: timedOut ? 'timeout' : 'lost' };
  } finally {
    if (timer) clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', onCancel);
  }
  let body;
  try {
    body = await readJson(response);
  } catch {
    body = undefined;
  }
  if (cancelled) return { kind: 'cancelled' };
  // A verdict is a verdict whatever the HTTP status: the server sends an
  // Internal Error verdict with 500.
  if (body && typeof body === 'object' && body.status && typeof body.status.id === 'number') {
    return { kind: 'verdict', verdict: body };
  }
  if (response.status === 200) return { kind: 'bad-response', status: 200 };
  return httpOutcome(response, body);
}

/*
 * The instructor's course file (course.mjs reads it): the parsed JSON, or
 * null when it is missing, unreadable or unreachable. Never rejects.
 */
export async function fetchCourseFile(fetchFn, url = COURSE_URL) {
  try {
    const response = await fetchFn(url, { headers: { Accept: 'application/json' } });
    if (!response.ok) return null;
    const body = await readJson(response);
    return body === undefined ? null : body;
  } catch {
    return null;
  }
}

/* The UTF-8 size of a body, as the server counts it against its limit. */
export function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorTag, errorText, fetchTask, idempotencyHeader, request, submitSource, utf8Length, SUBMIT_URL, TASK_URL } from '../../static/api.mjs';
import { fixture } from './helpers.mjs';

function respond(status, body, headers = {}) {
  const h = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: { get: (k) => (h.has(k.toLowerCase()) ? h.get(k.toLowerCase()) : null) },
    json: async () => {
      if (typeof body === 'string') return JSON.parse(body);
      return body;
    },
  };
}

test('submitSource posts the body as text/plain to the submissions route and returns the verdict', async () => {
  const calls = [];
  const verdict = fixture('wrong_twiddle_sign');
  const out = await submitSource(async (url, init) => { calls.push({ url, init }); return respond(200, verdict); }, 'return 0.0;');
  assert.deepEqual(out, { kind: 'verdict', verdict });
  assert.equal(calls.length, 1);
  assert.equal(calls[0].url, SUBMIT_URL);
  assert.equal(calls[0].init.method, 'POST');
  assert.equal(calls[0].init.headers['Content-Type'], 'text/plain; charset=utf-8');
  assert.equal(calls[0].init.body, 'return 0.0;');
});

test('each run sends an Idempotency-Key of its own', async () => {
  const keys = [];
  for (let i = 0; i < 2; i++) {
    await submitSource(async (url, init) => { keys.push(init.headers['Idempotency-Key']); return respond(200, fixture('wrong_twiddle_sign')); }, 'x');
  }
  assert.match(keys[0], /^[0-9a-f]{32}$/);
  assert.notEqual(keys[0], keys[1]);
});

test('the key needs only getRandomValues (plain http has no randomUUID); none without it', () => {
  const onlyValues = { getRandomValues: (a) => { a.fill(171); return a; } };
  assert.deepEqual(idempotencyHeader(onlyValues), { 'Idempotency-Key': 'ab'.repeat(16) });
  assert.deepEqual(idempotencyHeader(null), {});
});

test('503 carries its Retry-After', async () => {
  const out = await submitSource(async () => respond(503, { error: { code: 'busy', message: 'queue full' } }, { 'Retry-After': '9' }), 'x');
  assert.deepEqual(out, { kind: 'http', status: 503, code: 'busy', message: 'queue full', retryAfter: 9 });
});

test('413 and other errors keep the server\'s code and message; a body that is not JSON is fine', async () => {
  const big = await submitSource(async () => respond(413, { error: { code: 'too_large', message: 'over 64 KiB' } }), 'x');
  assert.equal(big.kind, 'http');
  assert.equal(big.status, 413);
  assert.equal(big.code, 'too_large');
  const html = await submitSource(async () => respond(502, '<html>bad gateway</html>'), 'x');
  assert.deepEqual(html, { kind: 'http', status: 502, code: null, message: null, retryAfter: null });
});

test('an Internal Error verdict sent with HTTP 500 is still a verdict', async () => {
  const verdict = { status: { id: 13, description: 'Internal Error' }, passed: false, halves: [] };
  assert.deepEqual(await submitSource(async () => respond(500, verdict), 'x'), { kind: 'verdict', verdict });
});

test('a lost connection is a network outcome, not an exception', async () => {
  const out = await submitSource(async () => { throw new TypeError('Failed to fetch'); }, 'x');
  assert.deepEqual(out, { kind: 'network', reason: 'lost' });
});

test('a grader that never answers times out', async () => {
  const hang = (url, init) => new Promise((resolve, reject) => {
    init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
  });
  const out = await submitSource(hang, 'x', { timeoutMs: 20 });
  assert.deepEqual(out, { kind: 'network', reason: 'timeout' });
});

test('Run cancelled: the request is aborted (the server cancels on the hang-up) and says so', async () => {
  let aborted = false;
  const hang = (url, init) => new Promise((resolve, reject) => {
    init.signal.addEventListener('abort', () => { aborted = true; reject(new DOMException('aborted', 'AbortError')); });
  });
  const cancel = new AbortController();
  const pending = submitSource(hang, 'x', { signal: cancel.signal });
  cancel.abort();
  assert.deepEqual(await pending, { kind: 'cancelled' });
  assert.ok(aborted, 'the request itself was aborted');
  const early = new AbortController();
  early.abort();
  assert.deepEqual(await submitSource(hang, 'x', { signal: early.signal }), { kind: 'cancelled' });
});

test('a 200 that is not a verdict is a bad response', async () => {
  assert.deepEqual(await submitSource(async () => respond(200, '<html>'), 'x'), { kind: 'bad-response', status: 200 });
  assert.deepEqual(await submitSource(async () => respond(200, { hello: 'world' }), 'x'), { kind: 'bad-response', status: 200 });
});

test('fetchTask: the task, or an outcome that says why not', async () => {
  const task = { id: 'butterfly', starter: 'return 0.0;\n' };
  let asked;
  const ok = await fetchTask(async (url) => { asked = url; return respond(200, task); });
  assert.equal(asked, TASK_URL);
  assert.deepEqual(ok, { ok: true, task });
  const missing = await fetchTask(async () => respond(404, { error: { code: 'not_found', message: 'no such task' } }));
  assert.equal(missing.ok, false);
  assert.equal(missing.outcome.status, 404);
  const lost = await fetchTask(async () => { throw new TypeError('x'); });
  assert.deepEqual(lost, { ok: false, outcome: { kind: 'network', reason: 'lost' } });
  const odd = await fetchTask(async () => respond(200, { id: 'butterfly' }));
  assert.equal(odd.outcome.kind, 'bad-response');
});

test('utf8Length counts bytes as the server does', () => {
  assert.equal(utf8Length('abc'), 3);
  assert.equal(utf8Length('π'), 2);
  assert.equal(utf8Length('✓'), 3);
});

test('request: one shape for every answer, with Accept added and the caller\'s headers kept', async () => {
  let seen = null;
  const ok = await request(async (url, init) => { seen = { url, init }; return respond(200, { kind: 'guest' }); },
    '/api/session', { method: 'DELETE', headers: { 'X-Requested-With': 'butterfly' } });
  assert.deepEqual(ok, { ok: true, status: 200, body: { kind: 'guest' }, error: null });
  assert.equal(seen.init.method, 'DELETE');
  assert.equal(seen.init.headers.Accept, 'application/json');
  assert.equal(seen.init.headers['X-Requested-With'], 'butterfly');

  const refused = await request(async () => respond(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'Retry-After': '3' }), '/api/me');
  assert.deepEqual(refused, { ok: false, status: 429, body: { error: { code: 'rate_limited', message: 'slow down' } },
    error: { kind: 'http', status: 429, code: 'rate_limited', message: 'slow down', retryAfter: 3 } });
  assert.equal(errorText(refused.error, 'fallback'), 'slow down');
  assert.equal(errorTag(refused.error), 'HTTP 429');

  const html = await request(async () => respond(502, '<html>'), '/api/me');
  assert.equal(html.body, null);
  assert.equal(errorText(html.error, 'fallback'), 'fallback');

  const lost = await request(async () => { throw new TypeError('Failed to fetch'); }, '/api/me');
  assert.deepEqual(lost, { ok: false, status: 0, body: null, error: { kind: 'network', reason: 'lost' } });
  assert.equal(errorTag(lost.error), 'no connection');
  assert.equal(errorText(lost.error, 'fallback'), 'fallback');
});

test('the page\'s modules fetch through api.mjs alone', async () => {
  const { readdir, readFile } = await import('node:fs/promises');
  const dir = new URL('../../static/', import.meta.url);
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.mjs') && n !== 'api.mjs')) {
    const text = await readFile(new URL(name, dir), 'utf8');
    // a call of fetch (passing the function on, as app.mjs does, is fine)
    assert.doesNotMatch(text, /\bfetch(Fn)?\s*\(/, `${name} calls fetch itself: use api.mjs's request()`);
  }
});

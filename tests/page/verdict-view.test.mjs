import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  verdictView as viewOfModel, outcomeView, parseRetryAfter, formatTimings, formatDevice, formatBytes,
  formatElapsed, runningView, announcement, SLOW_RUN_MS,
} from '../../static/verdict-view.mjs';
import { readLoop, readVerdict, statusKind } from '../../static/verdict.mjs';
import { fixture } from './helpers.mjs';

// The views render from the model readVerdict makes, once.
const verdictView = (raw) => viewOfModel(readVerdict(raw));

test('the status slug gives the kind; ids serve results saved before the slug', () => {
  assert.equal(readVerdict(fixture('wrong_twiddle_sign')).kind, 'wrong');
  assert.equal(readVerdict({ status: { id: 99, slug: 'runtime_error' } }).kind, 'runtime');
  assert.equal(readVerdict({ status: { id: 4 } }).kind, 'wrong');
  assert.equal(readVerdict({ status: { id: 4, slug: 'nonsense' } }).kind, 'wrong');
  assert.equal(readVerdict(null), null);
  assert.equal(readVerdict({}), null);
});

test('status ids map to kinds; anything else is unknown', () => {
  assert.equal(statusKind(3), 'accepted');
  assert.equal(statusKind(4), 'wrong');
  assert.equal(statusKind(5), 'time-limit');
  assert.equal(statusKind(6), 'compile');
  for (let id = 7; id <= 12; id++) assert.equal(statusKind(id), 'runtime');
  assert.equal(statusKind(13), 'internal');
  assert.equal(statusKind(100), 'rejected');
  for (const id of [0, 1, 2, 14, 42, 99, 101, -3, undefined, null, '3']) assert.equal(statusKind(id), 'unknown');
});

test('accepted, wrong and compile error views', () => {
  const ok = verdictView(fixture('correct'));
  assert.equal(ok.tone, 'pass');
  assert.equal(ok.icon, '✓');
  assert.equal(ok.showGrids, true);
  const wrong = verdictView(fixture('wrong_twiddle_sign'));
  assert.equal(wrong.tone, 'fail');
  assert.equal(wrong.title, 'Wrong answer');
  assert.equal(wrong.detail, readVerdict(fixture('wrong_twiddle_sign')).message);
  assert.equal(wrong.showGrids, true);
  const ce = verdictView(fixture('compile_error_line3'));
  assert.equal(ce.kind, 'compile');
  assert.equal(ce.showGrids, false);
  assert.equal(ce.showDiagnostics, true);
});

test('runtime variants name their description; rejected shows the message', () => {
  const rt = verdictView({ status: { id: 11, description: 'Runtime Error (NZEC)' }, halves: [] });
  assert.equal(rt.kind, 'runtime');
  assert.equal(rt.title, 'Runtime error (Runtime Error (NZEC))');
  const plain = verdictView({ status: { id: 12, description: 'Runtime Error' }, halves: [] });
  assert.equal(plain.title, 'Runtime error');
  const rej = verdictView({ status: { id: 100, description: 'Rejected' }, message: 'line 3: #version is not allowed', halves: [] });
  assert.equal(rej.title, 'Rejected');
  assert.equal(rej.detail, 'line 3: #version is not allowed');
  assert.equal(verdictView({ status: { id: 5 } }).title, 'Time limit exceeded');
  assert.equal(verdictView({ status: { id: 13 } }).title, 'Internal error');
});

test('a verdict the page does not know says so and still shows its cells', () => {
  const v = fixture('wrong_twiddle_sign');
  v.status = { id: 42, description: 'Mystery' };
  const view = verdictView(v);
  assert.equal(view.kind, 'unknown');
  assert.equal(view.tone, 'unknown');
  assert.match(view.detail, /status 42 “Mystery”/);
  assert.equal(view.showGrids, true);
  assert.equal(viewOfModel(null).kind, 'unknown');
});

test('Retry-After: seconds, an HTTP date, or nothing', () => {
  assert.equal(parseRetryAfter('5'), 5);
  assert.equal(parseRetryAfter(' 12 '), 12);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter('soon'), null);
});

test('413, 503, lost connection and unreadable answers get clear messages', () => {
  const big = outcomeView({ kind: 'http', status: 413, limit: 65536, size: 70000 });
  assert.equal(big.title, 'Your code is too large');
  assert.match(big.detail, /64 KiB/);
  assert.match(big.detail, /68\.4 KiB/);
  const busy = outcomeView({ kind: 'http', status: 503, retryAfter: 7 });
  assert.equal(busy.tone, 'busy');
  assert.equal(busy.retryAfter, 7);
  assert.match(busy.detail, /Try again in 7 seconds\./);
  assert.match(outcomeView({ kind: 'http', status: 503, retryAfter: 1 }).detail, /in 1 second\./);
  assert.match(outcomeView({ kind: 'http', status: 503, retryAfter: null }).detail, /Wait a moment/);
  const lost = outcomeView({ kind: 'network', reason: 'lost' });
  assert.equal(lost.title, 'No connection to the grader');
  assert.match(lost.detail, /draft is saved/);
  assert.match(outcomeView({ kind: 'network', reason: 'timeout' }).detail, /did not answer in time/);
  const e500 = outcomeView({ kind: 'http', status: 500, message: 'boom' });
  assert.match(e500.title, /HTTP 500/);
  assert.match(e500.detail, /boom/);
  assert.match(outcomeView({ kind: 'http', status: 415, message: 'send JSON' }).detail, /refused.*send JSON/);
  assert.match(outcomeView({ kind: 'bad-response', status: 200 }).title, /cannot read/);
  assert.equal(outcomeView({ kind: 'cancelled' }).title, 'Run cancelled');
});

test('timings, device and sizes', () => {
  assert.equal(formatTimings({ compile: 82.883, pipeline: 0, run: null, total: 82.889 }),
    'compile 83 ms · pipeline 0.0 ms · run — · total 83 ms');
  assert.equal(formatTimings(null), '');
  assert.equal(formatDevice({ name: 'llvmpipe', type: 'cpu' }), 'llvmpipe, cpu');
  assert.equal(formatDevice(null), '');
  assert.equal(formatBytes(100), '100 bytes');
  assert.equal(formatBytes(65536), '64 KiB');
});

test('a loop past the budget: it ran more than N times, never "never ends", naming the line', () => {
  const view = verdictView(fixture('endless_loop'));
  assert.equal(view.kind, 'time-limit');
  assert.equal(view.cause, 'loop');
  assert.equal(view.title, 'Time limit exceeded: a loop ran more than 10,000 times');
  assert.match(view.detail, /^The loop on line 2 ran more than 10,000 times \(half = 1, output 0, real plane, on the visible spectrum\)/);
  assert.doesNotMatch(`${view.title} ${view.detail}`, /never end/);
  assert.doesNotMatch(`${view.title} ${view.detail}`, /wrong answer/i);
  const plain = verdictView({ status: { id: 5, description: 'Time Limit Exceeded' }, loop: null, halves: [] });
  assert.equal(plain.cause, null);
  assert.equal(plain.title, 'Time limit exceeded');
  assert.doesNotMatch(plain.detail, /line \d/);
  const said = verdictView({ status: { id: 5 }, message: 'Your kernel, or the driver compiling it, took too long.' });
  assert.equal(said.detail, 'Your kernel, or the driver compiling it, took too long.');
});

test('a loop object with missing parts still names its line; without a line it is ignored', () => {
  assert.equal(readLoop({ limit: 10 }), null);
  assert.equal(readLoop({ line: 0 }), null);
  assert.equal(readLoop('loop'), null);
  const v = verdictView({ status: { id: 5 }, loop: { line: 7 } });
  assert.equal(v.cause, 'loop');
  assert.match(v.detail, /^The loop on line 7 ran too many times, past the grader's budget, so the grader stopped it/);
  const hidden = verdictView({ status: { id: 5 }, loop: { line: 1, limit: 500, half: 4, spectrum: 'hidden', i: 0, plane: 1 } });
  assert.match(hidden.detail, /more than 500 times \(half = 4, output 0, imaginary plane, on a hidden spectrum\)/);
});

test('the waiting state counts the time since Run and says when it is slow', () => {
  assert.equal(formatElapsed(0), '0.0 s');
  assert.equal(formatElapsed(470), '0.4 s');
  assert.equal(formatElapsed(9999), '9.9 s');
  assert.equal(formatElapsed(12400), '12 s');
  assert.equal(formatElapsed(125000), '2 min 05 s');
  assert.equal(formatElapsed(-5), '0.0 s');
  assert.equal(runningView(1300).title, 'Running… 1.3 s');
  assert.match(runningView(1300).detail, /Compiling/);
  assert.match(runningView(SLOW_RUN_MS + 1).detail, /busy/);
});

test('the announcement reads the title and the detail, without backticks', () => {
  assert.equal(announcement({ title: 'Wrong answer', detail: 'Wrong for half = 2, 4; the other halves are right.' }),
    'Wrong answer. Wrong for half = 2, 4; the other halves are right.');
  assert.equal(announcement({ title: 'Rejected', detail: 'line 1: `#version` is not allowed' }),
    'Rejected. line 1: #version is not allowed.');
  assert.equal(announcement({ title: 'Accepted', detail: '' }), 'Accepted.');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreNote } from '../../static/class-score.mjs';

test('a score that reached the gradebook says nothing', () => {
  assert.equal(scoreNote(null), null);
  assert.equal(scoreNote(undefined), null);
});

test('a score being retried says so, with the tries and the reason', () => {
  assert.equal(scoreNote({ failed: false, state: 'retrying', attempts: 2, error: 'HTTP 503' }),
    'Score not sent to the gradebook yet (retrying, 2 tries): HTTP 503');
});

test('a score given up on says so', () => {
  assert.equal(scoreNote({ failed: true, state: 'failed', attempts: 1, error: '' }),
    'Score not sent to the gradebook (gave up, 1 try)');
});

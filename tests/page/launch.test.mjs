import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentLaunch, launchFromHash, launchHeaders, LAUNCH_HEADER } from '../../static/launch.mjs';
import { submitSource } from '../../static/api.mjs';

const TAG = '12.0123456789abcdef0123456789abcdef';

function memoryStorage() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)) };
}

test('the launch is read from the address the server lands a launch on', () => {
  assert.equal(launchFromHash('#launch=' + TAG), TAG);
  assert.equal(launchFromHash('#x=1&launch=' + TAG), TAG);
  assert.equal(launchFromHash(''), null);
  assert.equal(launchFromHash('#launch='), null);
  assert.equal(launchFromHash('#launch=12.xyz'), null);
  assert.equal(launchFromHash('#launch=012.0123456789abcdef0123456789abcdef'), null);
  assert.equal(launchFromHash(undefined), null);
});

test('each tab keeps its own launch: a reload without the fragment still names it', () => {
  const tabA = memoryStorage();
  const tabB = memoryStorage();
  const other = '7.fedcba9876543210fedcba9876543210';
  assert.equal(currentLaunch('#launch=' + TAG, tabA), TAG);
  assert.equal(currentLaunch('#launch=' + other, tabB), other);
  assert.equal(currentLaunch('', tabA), TAG);
  assert.equal(currentLaunch('', tabB), other);
  assert.equal(currentLaunch('', memoryStorage()), null);
  assert.equal(currentLaunch('#launch=' + TAG, null), TAG);
  const refusing = { getItem() { throw new Error('denied'); }, setItem() { throw new Error('denied'); } };
  assert.equal(currentLaunch('#launch=' + TAG, refusing), TAG);
  assert.equal(currentLaunch('', refusing), null);
});

test('a submission names its tab\'s launch, and none when there is none', async () => {
  assert.deepEqual(launchHeaders(null), {});
  const calls = [];
  const fake = async (url, init) => {
    calls.push(init);
    return { status: 200, ok: true, headers: { get: () => null }, json: async () => ({ status: { id: 3 } }) };
  };
  await submitSource(fake, 'return 0.0;', { launch: TAG });
  await submitSource(fake, 'return 0.0;');
  assert.equal(calls[0].headers[LAUNCH_HEADER], TAG);
  assert.equal(calls[0].headers['X-Requested-With'], 'butterfly');
  assert.equal(LAUNCH_HEADER in calls[1].headers, false);
});

test('the page sends the header the server reads (grader/common/defaults.h)', async () => {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(new URL('../../grader/common/defaults.h', import.meta.url), 'utf8');
  assert.match(text, new RegExp(`#define LTI_LAUNCH_HEADER\\s+"${LAUNCH_HEADER}"`));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EMPTY_COURSE, nextStep, parseCourse, safeUrl, taskPosition } from '../../static/course.mjs';
import { fetchCourseFile } from '../../static/api.mjs';

test('the course file shipped with the page lists no links and no next step', () => {
  const shipped = JSON.parse(readFileSync(new URL('../../static/course.json', import.meta.url), 'utf8'));
  assert.deepEqual(parseCourse(shipped), { links: [], next: null });
});

test('links keep their order, title and url; current marks this task', () => {
  const course = parseCourse({
    links: [
      { title: 'Course home', url: 'https://lms.example.edu/fft' },
      { title: '  Task 2:\n the butterfly ', current: true },
      { title: 'Task 3', url: '/course/task-3' },
    ],
    next: { title: 'Task 3: chaining the passes', url: '../task-3/' },
  });
  assert.deepEqual(course.links, [
    { title: 'Course home', url: 'https://lms.example.edu/fft', current: false },
    { title: 'Task 2: the butterfly', url: null, current: true },
    { title: 'Task 3', url: '/course/task-3', current: false },
  ]);
  assert.deepEqual(course.next, { title: 'Task 3: chaining the passes', url: '../task-3/' });
});

test('a link that is not http(s) or relative loses its url; one without a title goes', () => {
  for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,hi', 'vbscript:x', 'file:///etc/passwd', '', 42, null]) {
    assert.equal(safeUrl(bad), null, String(bad));
  }
  assert.equal(safeUrl('http://example.org/x'), 'http://example.org/x');
  assert.equal(safeUrl('task-3.html'), 'task-3.html');
  const course = parseCourse({
    links: [{ title: 'Evil', url: 'javascript:alert(1)' }, { url: 'https://x.org' }, 'text', null, { title: '  ' }],
    next: { title: 'Next', url: 'javascript:alert(1)' },
  });
  assert.deepEqual(course.links, [{ title: 'Evil', url: null, current: false }]);
  assert.equal(course.next, null, 'a next step needs a usable url');
});

test('anything that is not a course object is the empty course', () => {
  for (const raw of [null, undefined, 'links', 3, [], { links: 'x', next: 'y' }]) {
    assert.deepEqual(parseCourse(raw), { links: [], next: null });
  }
  assert.equal(parseCourse(null), EMPTY_COURSE);
});

test('task position from the subtitle', () => {
  assert.deepEqual(taskPosition('Task 2 of 6'), { n: 2, of: 6 });
  assert.deepEqual(taskPosition('FFT · task 6 of 6'), { n: 6, of: 6 });
  assert.equal(taskPosition('Task 7 of 6'), null);
  assert.equal(taskPosition('The butterfly'), null);
  assert.equal(taskPosition(undefined), null);
});

test('the next step: the configured link, else the next task in words', () => {
  const next = { title: 'Task 3', url: '/t3' };
  assert.deepEqual(nextStep({ links: [], next }, 'Task 2 of 6'), { link: next, text: null });
  const words = nextStep(EMPTY_COURSE, 'Task 2 of 6');
  assert.equal(words.link, null);
  assert.match(words.text, /task 3 of 6/);
  assert.match(nextStep(EMPTY_COURSE, 'Task 6 of 6').text, /last task/);
  assert.match(nextStep(EMPTY_COURSE, 'Butterflies').text, /next task/);
});

test('fetchCourseFile: the JSON, or null for a 404, a broken file or no connection', async () => {
  const ok = (body) => async () => ({ ok: true, status: 200, json: async () => body });
  assert.deepEqual(await fetchCourseFile(ok({ links: [] })), { links: [] });
  assert.equal(await fetchCourseFile(async () => ({ ok: false, status: 404, json: async () => ({}) })), null);
  assert.equal(await fetchCourseFile(async () => ({ ok: true, status: 200, json: async () => { throw new SyntaxError('x'); } })), null);
  assert.equal(await fetchCourseFile(async () => { throw new TypeError('offline'); }), null);
  let asked = null;
  await fetchCourseFile(async (url) => { asked = url; return { ok: false }; });
  assert.equal(asked, '/static/course.json');
});

// tasks-page.mjs - the course index (tasks.html): the server's exercises
// (GET /api/tasks), grouped by course in course order, each a link to its
// page. DOM; the grouping is exercise.mjs's.

import { errorText, request } from './api.mjs';
import { h } from './dom.mjs';
import { courseIndex } from './exercise.mjs';

const TASKS_URL = '/api/tasks';

async function start() {
  const status = document.getElementById('tasks-status');
  const r = await request(fetch, TASKS_URL);
  const groups = r.ok ? courseIndex(r.body) : [];
  if (!r.ok || groups.length === 0) {
    status.textContent = r.ok ? 'This server serves no exercise.'
      : errorText(r.error, 'The list of exercises could not be loaded; reload the page.');
    return;
  }
  status.textContent = '';
  document.getElementById('tasks').replaceChildren(...groups.map((g) => h('section', {},
    h('h2', {}, g.course || 'Other exercises'),
    h('ol', {}, ...g.exercises.map((e) => h('li', {},
      h('a', { href: e.page }, e.title),
      e.subtitle ? ` · ${e.subtitle}` : null,
      e.example ? h('span', { className: 'api-note' }, ' (an example for authors)') : null))))));
  document.body.dataset.ready = 'true';
}

start();

// class.mjs - the instructor's live class view: loads the roster and the
// summary, follows /api/class/events, and redraws what changed.
//
// State: the tiles by student id, the summary, the ids of the records
// seen (an event replayed after a reconnect is dropped), the last event
// id. The server's clock is the one the minutes are counted on. Its
// requests go through api.mjs's request(), as all the page's do; the
// event stream is the browser's EventSource.

import { errorTag, request } from '/static/api.mjs';
import { h } from '/static/dom.mjs';
import { shareChart } from '/static/class-chart.mjs';
import { counts, progressTable, rosterLine, studentPanel, tile } from '/static/class-view.mjs';
import { exerciseLine, withTask } from '/static/class-exercises.mjs';

const state = {
  tiles: new Map(),
  summary: null,
  seen: new Set(),
  lastId: '',
  skewMs: 0,            // server time minus this browser's
  source: null,
  summaryTimer: 0,
  open: null,           // the student shown, or null
  projector: false,
  task: '',             // the exercise whose attempts the view counts ('': all)
  studentsTimer: 0,
};

const $ = (id) => document.getElementById(id);

// The class this view shows: /class?class=ID (an LTI launch names it;
// ?context= is the older name), passed on to every request of the view.
const params = new URLSearchParams(window.location.search);
const context = params.get('class') || params.get('context') || '';
state.task = params.get('task') || '';
function withContext(path) {
  if (!context) return path;
  return path + (path.includes('?') ? '&' : '?') + `class=${encodeURIComponent(context)}`;
}
const serverNow = () => Date.now() + state.skewMs;

/* The JSON of GET path (for the view's class); throws an Error whose
 * message names the path and request()'s error, for the status line. */
async function getJSON(path) {
  const r = await request(fetch, withContext(path), { credentials: 'same-origin', cache: 'no-store' });
  if (!r.ok || !r.body) throw new Error(`${path}: ${r.ok ? 'not JSON' : errorTag(r.error)}`);
  return r.body;
}

function setLive(text) {
  $('live').textContent = text;
}

/* --- the grid ------------------------------------------------------------- */

const SORTS = {
  help: (a, b) => b.needs_help - a.needs_help || (b.last_ms || 0) - (a.last_ms || 0)
    || a.name.localeCompare(b.name),
  name: (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  last: (a, b) => (b.last_ms || 0) - (a.last_ms || 0) || a.name.localeCompare(b.name),
  section: (a, b) => a.section.localeCompare(b.section) || a.name.localeCompare(b.name),
};

function drawGrid() {
  const sort = SORTS[$('sort').value] || SORTS.help;
  const section = $('section').value;
  const list = [...state.tiles.values()].filter((t) => !section || t.section === section).sort(sort);
  const focused = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.student : null;
  const grid = $('grid');
  if (state.projector) {
    grid.replaceChildren();   // no names on a projected screen, not even hidden ones
    return;
  }
  grid.replaceChildren(...list.map((t) => tile(t, serverNow(), openStudent)));
  if (focused) {
    const again = grid.querySelector(`button[data-student="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
  drawSections();
  drawProgress();
}

/* The table of every student's progress across the exercises. */
function drawProgress() {
  const exercises = state.summary ? state.summary.exercises || [] : [];
  // no names on a projected screen, not even hidden ones
  $('progress').replaceChildren(...(state.projector ? []
    : progressTable([...state.tiles.values()], exercises)));
}

function drawSections() {
  const select = $('section');
  const have = new Set([...select.options].map((o) => o.value));
  const sections = [...new Set([...state.tiles.values()].map((t) => t.section).filter(Boolean))].sort();
  for (const s of sections) {
    if (!have.has(s)) select.append(h('option', { value: s }, s));
  }
}

/* --- the summary ------------------------------------------------------------ */

function drawSummary() {
  const s = state.summary;
  if (!s) return;
  $('counts').replaceChildren(...counts(s));
  $('chart').replaceChildren(shareChart(s.accepted_series));
  $('halves').replaceChildren(...s.halves.map((x) => h('li', {},
    `${x.param || 'half'} = ${x.half}: ${x.run ? Math.round((100 * x.passed) / x.run) : 0}% pass (${x.passed} of ${x.run})`)));
  $('mistakes').replaceChildren(...(s.mistakes.length ? s.mistakes.map((m) => h('li', {},
    h('span', { className: 'kind' }, m.kind === 'compile_error' ? 'Compile error: ' : 'Mistake: '),
    m.label, ` — ${m.count} student${m.count === 1 ? '' : 's'}`,
    state.projector ? null : h('button', { type: 'button', className: 'link', 'data-example': m.example },
      ' (an example)'))) : [h('li', {}, 'None right now.')]));
  for (const b of $('mistakes').querySelectorAll('button[data-example]')) {
    b.addEventListener('click', () => {
      const owner = [...state.tiles.values()].find((t) => t.last_id === b.dataset.example);
      if (owner) openStudent(owner.id);
    });
  }
  $('exercises').replaceChildren(...(s.exercises || []).map((x) => h('li', {}, exerciseLine(x))));
  drawTaskChoices(s.exercises || []);
  drawProgress();
  const t = s.thresholds;
  $('thresholds').textContent = `Stuck: ${t.attempts} or more attempts over at least ${t.minutes} minutes without passing, `
    + `or the same mistake ${t.repeats} times in a row. Silent: no attempt for ${t.silent_minutes} minutes.`;
  const line = rosterLine(s.roster);
  $('course-roster').textContent = line;
  $('course-roster').hidden = !line;
}

/* The exercise select: every exercise the summary names, the chosen one kept. */
function drawTaskChoices(exercises) {
  const select = $('task');
  const have = new Set([...select.options].map((o) => o.value));
  for (const x of exercises) {
    if (!have.has(x.id)) select.append(h('option', { value: x.id }, x.title));
  }
  select.value = state.task;
}

async function loadSummary() {
  try {
    const s = await getJSON(withTask('/api/class/summary', state.task));
    state.skewMs = s.now_ms - Date.now();
    state.summary = s;
    drawSummary();
  } catch (e) {
    setLive(`The summary could not be loaded (${e.message}).`);
  }
}

function summarySoon() {
  if (state.summaryTimer) return;
  state.summaryTimer = setTimeout(() => {
    state.summaryTimer = 0;
    loadSummary();
  }, 250);
}

/* --- events ------------------------------------------------------------------- */

function onRecord(ev) {
  let e;
  try {
    e = JSON.parse(ev.data);
  } catch {
    return;
  }
  state.lastId = ev.lastEventId || e.id;
  if (state.seen.has(e.id)) return;
  state.seen.add(e.id);
  // the event's tile counts every exercise: with one chosen, the tiles
  // are read again (soon, once for a burst), counted as the view counts
  if (state.task) studentsSoon();
  else if (e.tile.id) state.tiles.set(e.tile.id, e.tile);   // "": signed out, nobody's tile
  drawGrid();
  summarySoon();
  if (state.open === e.tile.id) openStudent(e.tile.id, false);
  document.body.dataset.events = String(Number(document.body.dataset.events || 0) + 1);
}

async function loadStudents() {
  const r = await getJSON(withTask('/api/class/students', state.task));
  state.tiles = new Map(r.students.map((t) => [t.id, t]));
  return r;
}

function studentsSoon() {
  if (state.studentsTimer) return;
  state.studentsTimer = setTimeout(async () => {
    state.studentsTimer = 0;
    try {
      await loadStudents();
      drawGrid();
    } catch (e) {
      setLive(`The students could not be loaded (${e.message}).`);
    }
  }, 250);
}

function connect() {
  if (state.source) state.source.close();
  const url = '/api/class/events' + (state.lastId ? `?after=${encodeURIComponent(state.lastId)}` : '');
  const src = new EventSource(withContext(url));
  state.source = src;
  src.addEventListener('open', () => setLive('Live: new submissions appear as they are graded.'));
  src.addEventListener('record', onRecord);
  src.addEventListener('reset', () => loadAll());
  src.addEventListener('error', () => {
    setLive('Reconnecting… (what is graded meanwhile will be filled in)');
    // the browser retries by itself, with Last-Event-ID, unless the
    // answer was an error (a 503, a restart's refusal): then we do
    if (src.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
  });
}

async function loadAll() {
  try {
    const r = await loadStudents();
    state.lastId = r.last_event_id || state.lastId;
    drawGrid();
    await loadSummary();
    connect();
  } catch (e) {
    setLive(`The class could not be loaded (${e.message}); trying again.`);
    setTimeout(loadAll, 3000);
  }
}

/* --- one student ------------------------------------------------------------ */

async function openStudent(id, focus = true) {
  if (state.projector) return;
  state.open = id;
  const panel = $('student');
  try {
    const data = await getJSON(`/api/class/students/${encodeURIComponent(id)}`);
    if (state.open !== id) return;
    $('student-heading').textContent = data.student ? data.student.name : id;
    $('student-body').replaceChildren(studentPanel(data));
    panel.hidden = false;
    $('roster').hidden = true;
    if (focus) $('student-heading').focus();
  } catch (e) {
    setLive(`That student's attempts could not be loaded (${e.message}).`);
  }
}

function closeStudent() {
  const id = state.open;
  state.open = null;
  $('student').hidden = true;
  $('roster').hidden = false;
  const b = id && $('grid').querySelector(`button[data-student="${CSS.escape(id)}"]`);
  (b || $('grid-heading')).focus();
}

/* --- projector mode: the aggregates only ------------------------------------ */

function setProjector(on) {
  state.projector = on;
  document.body.classList.toggle('projector', on);
  $('projector').setAttribute('aria-pressed', String(on));
  $('projector').textContent = on ? 'Leave projector mode' : 'Projector mode';
  if (on) {
    state.open = null;
    $('student').hidden = true;
    $('student-body').replaceChildren();
    $('student-heading').textContent = 'Student';
  }
  // the names and the code leave the page, not only the screen
  $('grid').hidden = on;
  $('gradebooks').hidden = on;
  $('progress-box').hidden = on;
  $('roster').hidden = false;
  drawGrid();
  drawSummary();
  $('projector').focus();
}

/* The layouts' links, for the chosen exercise (all: the default one);
 * a link with data-task="all" keeps its column per exercise. */
function drawLinks() {
  for (const a of document.querySelectorAll('#gradebooks a[data-layout]')) {
    const task = a.dataset.task || state.task;
    a.href = withContext(withTask(`/api/class/gradebook?layout=${a.dataset.layout}`, task));
    if (!a.dataset.file) a.dataset.file = a.getAttribute('download');
    a.download = (task ? `${task}-` : '') + a.dataset.file;
  }
}

function start() {
  $('gradebook').href = withContext('/api/class/gradebook.csv');
  drawLinks();
  $('task').addEventListener('change', () => {
    state.task = $('task').value;
    drawLinks();
    loadAll();
  });
  $('sort').addEventListener('change', drawGrid);
  $('section').addEventListener('change', drawGrid);
  $('projector').addEventListener('click', () => setProjector(!state.projector));
  $('close-student').addEventListener('click', closeStudent);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.open) closeStudent();
  });
  // minutes since the last attempt move on without events
  setInterval(() => {
    if (!state.projector) drawGrid();
    loadSummary();
  }, 30000);
  loadAll();
}

start();

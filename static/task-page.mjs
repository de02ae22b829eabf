// task-page.mjs - one exercise's page (task.html, at /tasks/ID): its title,
// brief, API table, visible input and starter from GET /api/tasks/ID, and
// its verdicts from its own submissions route, shown as one grid of
// output.planes × output.n cells per sweep value, with what the verdict
// adds (its named mistake, where it fails, the compiler's messages). DOM;
// the reading is exercise.mjs's and verdict.mjs's, the brief
// markdown.mjs's, the grids grid.mjs's, the verdict's details
// verdict-details.mjs's.

import { errorText, request, submitSource, utf8Length } from './api.mjs';
import { h } from './dom.mjs';
import { loadEditor } from './editor.mjs';
import { exerciseIdFromPath, exerciseNote, exerciseUrl, readExercise } from './exercise.mjs';
import { buildGridsOf, formatNumber, halfSummary, hiddenWord } from './grid.mjs';
import { renderMarkdown } from './markdown.mjs';
import { verdictDetails } from './verdict-details.mjs';
import { readVerdict } from './verdict.mjs';

const $ = (id) => document.getElementById(id);

function showExercise(ex) {
  document.title = `${ex.title}${ex.subtitle ? ` · ${ex.subtitle}` : ''}`;
  $('task-title').textContent = ex.title;
  $('task-course').textContent = ex.course || '';
  $('task-subtitle').textContent = ex.subtitle;
  $('task-brief').replaceChildren(...renderMarkdown(ex.brief, h));
  $('brief-section').hidden = !ex.brief;
  $('api-rows').replaceChildren(...ex.api.map((a) => h('tr', {},
    h('td', {}, h('code', {}, a.name)), h('td', {}, h('code', {}, a.type)), h('td', {}, a.meaning))));
  $('api-note').textContent = exerciseNote(ex);
  $('visible-rows').replaceChildren(...ex.visible.map((row, p) => h('tr', {},
    h('th', { scope: 'row' }, `${ex.input.name}[${p}]`),
    ...row.map((v) => h('td', {}, formatNumber(v))))));
  $('api-section').hidden = false;
}

function showGrids(verdict, ex) {
  const grids = buildGridsOf(verdict, { n: ex.output.n, planes: ex.output.planes, param: ex.parameter.name });
  $('result-grids').replaceChildren(...grids.map((g) => h('section', { className: 'result-table' },
    h('h3', {}, `${ex.parameter.name} = ${g.half}: ${g.passed ? 'right' : 'wrong'}`),
    h('p', {}, halfSummary(g, hiddenWord(ex))),
    h('table', {}, h('tbody', {}, ...g.planes.map((row) => h('tr', {},
      h('th', { scope: 'row' }, row.name),
      ...row.cells.map((c) => h('td', { className: `cell ${c.state}`, title: c.label, 'aria-label': c.label },
        c.gotText)))))))));
}

/* The verdict's diagnosis, summary and diagnostics under its message; the
 * diagnostics are marked in the editor too while it holds the code graded. */
function showDetails(verdict, source, editor) {
  const { nodes, placed } = verdictDetails(readVerdict(verdict), source, h);
  $('result-details').replaceChildren(...nodes);
  if (editor) editor.setDiagnostics(editor.getValue() === source ? placed : []);
}

function showOutcome(outcome, ex, source = '', editor = null) {
  $('result-section').hidden = false;
  // what a test (and a style) reads: the verdict's slug, or the kind of failure
  $('result-section').dataset.state = outcome.kind === 'verdict'
    ? String(outcome.verdict.status && outcome.verdict.status.slug) : outcome.kind;
  if (outcome.kind === 'verdict') {
    const v = outcome.verdict;
    $('result-status').textContent = v.status && typeof v.status.description === 'string'
      ? v.status.description : 'Graded';
    $('result-message').textContent = typeof v.message === 'string' ? v.message : '';
    showDetails(v, source, editor);
    showGrids(v, ex);
    return;
  }
  showDetails(null, '', editor);
  $('result-grids').replaceChildren();
  $('result-message').textContent = '';
  $('result-status').textContent = outcome.kind === 'network'
    ? 'No answer from the server; check the connection and run again.'
    : errorText(outcome, `The server could not grade this (${outcome.status || outcome.kind}).`);
}

async function start() {
  const status = $('task-status');
  const id = exerciseIdFromPath(location.pathname);
  const r = id ? await request(fetch, exerciseUrl(id)) : null;
  const ex = r && r.ok ? readExercise(r.body) : null;
  if (!ex) {
    status.textContent = r && !r.ok
      ? errorText(r.error, 'This exercise could not be loaded; reload the page.')
      : 'This exercise could not be read; reload the page.';
    return;
  }
  status.textContent = '';
  showExercise(ex);
  $('workspace').hidden = false;
  const run = $('run');
  let busy = false;
  let editor = null;
  const submit = async () => {
    if (busy || !editor) return;
    const source = editor.getValue();
    if (utf8Length(source) > ex.max_source_bytes) {
      showOutcome({ kind: 'http', message: `The kernel is over ${ex.max_source_bytes} bytes.` }, ex, source, editor);
      return;
    }
    busy = true;
    run.disabled = true;
    $('result-section').hidden = false;
    $('result-section').dataset.state = 'running';
    $('result-status').textContent = 'Grading…';
    showOutcome(await submitSource(fetch, source, { url: ex.submit_url }), ex, source, editor);
    busy = false;
    run.disabled = false;
  };
  editor = await loadEditor({ parent: $('editor'), doc: ex.starter, signature: ex.signature,
    closing: '}', label: `${ex.title}: the kernel's body`, onRun: submit });
  run.addEventListener('click', submit);
  document.body.dataset.ready = 'true';
}

start();

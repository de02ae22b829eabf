// app.mjs - wires the exercise page: loads the task, the editor and the
// saved progress, runs submissions and shows their outcome. The logic it
// calls lives in small pure modules that node tests without a DOM.

import { fetchCourseFile, fetchTask, submitSource, utf8Length } from './api.mjs';
import { checklistState, checklistSummary } from './checklist.mjs';
import { EMPTY_COURSE, nextStep, parseCourse } from './course.mjs';
import { nextStepParagraph, renderCourseLinks } from './course-view.mjs';
import { placeDiagnostics, verdictDiagnostics } from './diagnostics.mjs';
import { h, richText } from './dom.mjs';
import { loadEditor } from './editor.mjs';
import { buildGrids } from './grid.mjs';
import { formatComplex, formatReal, pairOf, referencePass, twiddleText } from './network.mjs';
import { createNetworkView } from './network-view.mjs';
import { createProgress } from './progress.mjs';
import { renderGrids, renderResultTables } from './results-view.mjs';
import { DEFAULT_TASK, mergeTask } from './task-defaults.mjs';
import {
  announcement, formatDevice, formatTimings, outcomeView, runningView, verdictView,
} from './verdict-view.mjs';
import { defaultWorkedCell, workedCellOnShow } from './worked-cell.mjs';
import { renderWorkedCell } from './worked-cell-view.mjs';

const $ = (id) => document.getElementById(id);

const state = {
  task: DEFAULT_TASK,
  editor: null,
  progress: null,
  running: false,
  verdict: null,          // the verdict on show, or null
  grids: [],
  gridView: null,
  network: null,
  // The output picked in the network or the grids; the worked cell follows
  // it. plane is null only when nothing is picked.
  selection: { half: 2, index: null, plane: null },
  course: EMPTY_COURSE,
  retryTimer: null,
  runClock: null,         // the waiting state's timer while a run is out
  editedDuringRun: false, // the student kept typing while the run was out
};

function getStorage() {
  try {
    const s = window.localStorage;
    const probe = '__butterfly_probe__';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

// ---- the task ------------------------------------------------------------

function renderTask(task) {
  $('task-title').textContent = task.title;
  $('task-subtitle').textContent = task.subtitle;
  $('course-position').textContent = task.subtitle;
  document.title = `${task.title} · ${task.subtitle}`;
  $('api-body').replaceChildren(...task.api.map((a) => h('tr', {},
    h('td', {}, h('code', {}, a.name)), h('td', {}, h('code', {}, a.type || '')), h('td', {}, a.meaning || ''))));
  $('spectrum-body').replaceChildren(...task.visible[0].map((re, k) => h('tr', {},
    h('th', { scope: 'row' }, String(k)), h('td', {}, formatReal(re, 4)), h('td', {}, formatReal(task.visible[1][k], 4)))));
  $('hidden-count').textContent = String(task.hidden_per_half);
  $('tolerance').textContent = `${task.tolerance.atol} + ${task.tolerance.rtol}·|expected|`;
}

// ---- the checklist and the passed flag -------------------------------------

const STATE_WORDS = { pass: 'done', fail: 'not yet: failing', unknown: 'not checked yet' };

function renderChecklist(verdict) {
  const s = checklistState(verdict);
  for (const li of document.querySelectorAll('[data-req]')) {
    const st = s[li.dataset.req] || 'unknown';
    li.dataset.state = st;
    const words = li.querySelector(':scope > .req-state');
    if (words) words.textContent = ` (${STATE_WORDS[st]})`;
  }
  $('checklist-summary').textContent = verdict ? `${checklistSummary(s)} by your last run.` : 'Run your kernel to check them.';
}

function renderPassed(passed) {
  $('passed-badge').hidden = !passed;
  $('task-passed').hidden = !passed;
}

// ---- the network picture and the selection --------------------------------

function failingNodes() {
  const failing = new Set();
  for (const g of state.grids) {
    const stage = state.task.halves.indexOf(g.half) + 1;
    for (const plane of g.planes) {
      for (const c of plane.cells) if (c.state !== 'pass') failing.add(`${stage}:${c.x}`);
    }
  }
  return failing;
}

/* Picks an output (and a plane) everywhere at once. options.focus moves
 * the focus to the network node; options.quiet keeps the figure's live
 * words silent, for a pick the page makes itself after a run, when the
 * verdict is what should be heard. */
function select(sel, options = {}) {
  const index = sel.index ?? null;
  state.selection = { half: sel.half, index, plane: index === null ? null : (sel.plane ?? 0) };
  for (const radio of document.querySelectorAll('input[name="pass-half"]')) {
    radio.checked = Number(radio.value) === state.selection.half;
  }
  state.network.update(state.selection, failingNodes(), options);
  if (state.gridView) state.gridView.setSelected(state.selection);
  const info = $('selection-info');
  if (options.quiet) info.setAttribute('aria-live', 'off');
  renderSelectionInfo();
  if (options.quiet) setTimeout(() => info.setAttribute('aria-live', 'polite'), 0);
  renderWorked();
}

/* After a result arrives: the picture and the worked cell go to its first
 * wrong cell (to its pass only, when that cell is on a hidden spectrum). */
function pointAtFirstWrong() {
  const wc = state.verdict ? defaultWorkedCell(state.verdict, state.grids, state.task.visible) : null;
  const quiet = { quiet: true };
  if (wc && wc.spectrum === 'visible') select({ half: wc.half, index: wc.i, plane: wc.plane }, quiet);
  else if (wc) select({ half: wc.half, index: null }, quiet);
  else select({ half: state.selection.half, index: null }, quiet);
}

function renderWorked() {
  const panel = $('worked');
  const show = workedCellOnShow(state.verdict, state.grids, state.task.visible, state.selection);
  panel.hidden = show === null;
  if (show) renderWorkedCell(panel, $('worked-body'), show.wc, show.intro);
}

function renderSelectionInfo() {
  const box = $('selection-info');
  const { half, index } = state.selection;
  if (index === null) {
    box.replaceChildren(h('p', {}, `Pass for half = ${half}: pick one of its outputs (the right-hand column of the highlighted band) to see which two inputs it reads.`));
    return;
  }
  const p = pairOf(index, half);
  const spec = state.task.visible;
  const expected = referencePass(spec, half);
  const a = formatComplex(spec[0][p.base], spec[1][p.base]);
  const b = formatComplex(spec[0][p.base + half], spec[1][p.base + half]);
  const rows = [
    ['j', `(${index} / ${half}) % 2 = ${p.j}`],
    ['base', `${index} − ${p.j}·${half} = ${p.base}`],
    ['r', `${index} % ${half} = ${p.r}`],
    ['reads', `a = element ${p.base}, b = element ${p.base + half}`],
    ['w', `${twiddleText(p.r, half)} = ${formatComplex(p.w.re, p.w.im)}`],
    ['returns', p.lower ? 'a + w·b' : 'a − w·b'],
  ];
  const dl = h('dl', {});
  for (const [k, v] of rows) dl.append(h('dt', {}, k), h('dd', {}, v));
  // What the last run gave for this output is the worked cell's to say.
  box.replaceChildren(
    h('p', {}, h('strong', {}, `Output ${index}, half = ${half}`),
      ` — the ${p.lower ? 'lower' : 'upper'} member of the pair {${p.inputs.join(', ')}}`),
    dl,
    h('p', {}, `With the visible spectrum: a = ${a}, b = ${b}, so the output should be ` +
      `${formatComplex(expected[0][index], expected[1][index])}.`));
}

// ---- showing outcomes -------------------------------------------------------

function setVerdictBox(tone, title, detail, extra = [], kind = '') {
  const box = $('verdict');
  box.dataset.tone = tone;
  box.dataset.kind = kind;
  box.replaceChildren(
    h('p', { id: 'verdict-title', className: 'verdict-title' }, title),
    detail ? h('p', { id: 'verdict-detail', className: 'verdict-detail' }, ...richText(detail)) : null,
    ...extra);
}

/* Says the outcome in the live region, brings the verdict into view and
 * puts the focus on it: the page follows the run. Except when the student
 * went on typing while it was out: then the live region alone says it,
 * and neither the caret nor the page is moved from under their hands. */
function followOutcome(view) {
  announce(announcement(view));
  if (state.editedDuringRun) return;
  const box = $('verdict');
  const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  // With grids the student wants them below the verdict; otherwise the
  // editor's marks matter, so scroll no further than needed.
  box.scrollIntoView({ block: view.showGrids ? 'start' : 'nearest', behavior: reduce ? 'auto' : 'smooth' });
  box.focus({ preventScroll: true });
}

function announce(text) {
  const region = $('announcer');
  // Emptied first, so that the same words twice in a row are said twice.
  region.textContent = '';
  setTimeout(() => { region.textContent = text; }, 50);
}

/* The last result stays on show, dimmed and out of reach, while the next
 * run is out, so that the two are never mistaken for each other. */
function markStale(stale) {
  const body = $('result-body');
  const any = stale && state.verdict !== null;
  body.dataset.stale = String(any);
  body.inert = any;
  $('stale-note').hidden = !any;
}

function clearResult() {
  markStale(false);
  state.verdict = null;
  state.grids = [];
  state.gridView = null;
  $('grids').replaceChildren();
  $('grid-options').hidden = true;
  $('diagnosis').hidden = true;
  $('diagnosis').replaceChildren();
  $('worked').hidden = true;
  $('result-extra').hidden = true;
  $('compile-log-box').hidden = true;
  showDiagnostics([], '');
}

const DIAGNOSTICS_TITLES = {
  compile: 'Compiler messages',
  rejected: 'Why the grader refused it',
  loop: 'Where your kernel got stuck',
};

function showDiagnostics(diagnostics, source, kind = '') {
  const placed = placeDiagnostics(diagnostics, source);
  const current = state.editor ? state.editor.getValue() : '';
  // Marks go on the editor only when they belong to the text in it.
  if (state.editor) state.editor.setDiagnostics(source === current ? placed : []);
  $('diagnostics-title').textContent = DIAGNOSTICS_TITLES[kind] || 'Messages about your code';
  const list = $('diagnostics-list');
  list.replaceChildren(...placed.map((d) => {
    const link = h('button', { type: 'button', className: 'diag-link' }, ...richText(d.text));
    link.addEventListener('click', () => state.editor && state.editor.goTo(d.afterCode ? d.line - 1 : d.line));
    return h('li', { 'data-line': d.line, 'data-severity': d.severity }, link,
      d.original ? h('span', { className: 'diag-original' }, 'The compiler’s own words: ', h('code', {}, d.original)) : null);
  }));
  $('diagnostics').hidden = placed.length === 0;
}

/* A button in the verdict box that takes the keyboard back to the code:
 * to the loop's line for an endless loop. */
function backToCode(line) {
  const button = h('button', { type: 'button', className: 'back-to-code' },
    line ? `Show line ${line} in the editor` : 'Back to your code');
  button.addEventListener('click', () => {
    if (!state.editor) return;
    $('editor').scrollIntoView({ block: 'nearest' });
    if (line) state.editor.goTo(line);
    else state.editor.focus();
  });
  return button;
}

function showDiagnosis(verdict) {
  const box = $('diagnosis');
  const d = verdict.diagnosis;
  if (d && typeof d === 'object' && (d.title || d.explanation)) {
    const parts = [h('h3', {}, d.title || 'What went wrong')];
    if (d.explanation) parts.push(h('p', {}, ...richText(d.explanation)));
    if (d.hint) {
      const hintP = h('p', { className: 'hint-line' }, ...richText(d.hint));
      const m = /hint\s+([123])/i.exec(d.hint);
      if (m) {
        const link = h('a', { href: `#hint-${m[1]}` }, `Open hint ${m[1]}`);
        link.addEventListener('click', () => { $(`hint-${m[1]}`).open = true; });
        hintP.append(' ', link);
      }
      parts.push(hintP);
    }
    box.dataset.id = d.id || '';
    box.replaceChildren(...parts);
    box.hidden = false;
  } else if (typeof verdict.summary === 'string' && verdict.summary) {
    box.dataset.id = '';
    box.replaceChildren(h('p', {}, h('strong', {}, 'Where it fails: '), ...richText(verdict.summary)));
    box.hidden = false;
  } else {
    box.hidden = true;
    box.replaceChildren();
  }
}

function formatWhen(ms) {
  try {
    return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  } catch {
    return new Date(ms).toISOString();
  }
}

/* Shows a verdict and returns its view. meta: {source, savedAt (a
 * restored result)}. */
function showVerdict(verdict, { source = '', savedAt = null } = {}) {
  clearResult();
  state.verdict = verdict;
  const view = verdictView(verdict);
  const extra = [];
  if (view.kind === 'accepted') extra.push(nextStepParagraph(nextStep(state.course, state.task.subtitle)));
  if (savedAt) {
    const changed = state.editor && source !== state.editor.getValue();
    extra.push(h('p', { className: 'restored' }, `Saved result of your run on ${formatWhen(savedAt)}` +
      `${changed ? '; you have changed the code since.' : '.'}`));
  }
  if (view.kind !== 'accepted') extra.push(backToCode(view.loop ? view.loop.line : null));
  setVerdictBox(view.tone, `${view.icon} ${view.title}`, view.detail, extra, view.cause || view.kind);
  showDiagnosis(verdict);
  if (view.showGrids) {
    state.grids = buildGrids(verdict);
    state.gridView = renderGrids($('grids'), state.grids, { onSelect: (sel) => select(sel) });
    renderResultTables($('result-table'), state.grids);
    $('grid-options').hidden = false;
  }
  const facts = [];
  const device = formatDevice(verdict.device);
  if (device) facts.push(`Graded on ${device}`);
  const timings = formatTimings(verdict.timings_ms);
  if (timings) facts.push(timings);
  if (Number.isFinite(verdict.seed)) facts.push(`seed ${verdict.seed}`);
  $('timings').textContent = facts.join(' · ');
  $('result-extra').hidden = !(view.showGrids || facts.length);
  $('result-table').closest('details').hidden = !view.showGrids;
  showDiagnostics(verdictDiagnostics(verdict), source, view.cause || view.kind);
  if (typeof verdict.compile_log === 'string' && verdict.compile_log) {
    $('compile-log').textContent = verdict.compile_log +
      (verdict.compile_log_truncated ? '\n[the log was cut short]' : '');
    $('compile-log-box').hidden = false;
  }
  renderChecklist(verdict);
  pointAtFirstWrong();
  return view;
}

/* Shows an outcome that is not a verdict and returns its view. */
function showOutcome(outcome) {
  clearResult();
  const view = outcomeView(outcome);
  setVerdictBox(view.tone, `${view.icon} ${view.title}`, view.detail, [], outcome.kind);
  if (view.retryAfter) startRetryCountdown(view.retryAfter);
  select(state.selection, { quiet: true });
  return view;
}

/* The waiting state: the time since Run, counted on screen only (the
 * live region says "running" once, not every tenth of a second). */
function startRunClock() {
  const started = performance.now();
  const first = runningView(0);
  setVerdictBox('running', first.title, first.detail, [], 'running');
  const title = $('verdict-title');
  const detail = $('verdict-detail');
  state.runClock = setInterval(() => {
    const view = runningView(performance.now() - started);
    title.textContent = view.title;
    detail.textContent = view.detail;
  }, 100);
}

function stopRunClock() {
  if (state.runClock) clearInterval(state.runClock);
  state.runClock = null;
}

function startRetryCountdown(seconds) {
  stopRetryCountdown();
  let left = seconds;
  const detail = $('verdict').querySelector('.verdict-detail');
  state.retryTimer = setInterval(() => {
    left -= 1;
    if (!detail.isConnected) return stopRetryCountdown();
    detail.textContent = left > 0
      ? `Every worker is busy with other kernels. Try again in ${left} second${left === 1 ? '' : 's'}.`
      : 'Every worker was busy with other kernels. You can run again now.';
    if (left <= 0) stopRetryCountdown();
  }, 1000);
}

function stopRetryCountdown() {
  if (state.retryTimer) clearInterval(state.retryTimer);
  state.retryTimer = null;
}

// ---- actions ----------------------------------------------------------------

async function run() {
  if (state.running || !state.editor) return;
  stopRetryCountdown();
  const source = state.editor.getValue();
  const size = utf8Length(source);
  if (size > state.task.max_source_bytes) {
    followOutcome(showOutcome({ kind: 'too-large', limit: state.task.max_source_bytes, size }));
    return;
  }
  state.running = true;
  const button = $('run');
  button.setAttribute('aria-busy', 'true');
  button.setAttribute('aria-disabled', 'true');
  button.textContent = 'Running…';
  state.editedDuringRun = false;
  markStale(true);
  startRunClock();
  announce('Running your kernel.');
  try {
    const outcome = await submitSource(fetch, source);
    stopRunClock();
    if (outcome.kind === 'verdict') {
      state.progress.saveResult(outcome.verdict, source);
      document.dispatchEvent(new CustomEvent('butterfly:verdict', { detail: { verdict: outcome.verdict } }));
      const view = showVerdict(outcome.verdict, { source });
      if (outcome.verdict.passed === true && outcome.verdict.status.id === 3) renderPassed(true);
      followOutcome(view);
    } else {
      followOutcome(showOutcome(outcome));
    }
  } catch (error) {
    console.error(error);
    stopRunClock();
    clearResult();
    const view = { title: 'The page could not show this result', showGrids: false,
      detail: `${error && error.message ? error.message : error}. Run again; if it keeps happening, tell your instructor.` };
    setVerdictBox('error', `! ${view.title}`, view.detail, [], 'page-error');
    followOutcome(view);
  } finally {
    state.running = false;
    button.removeAttribute('aria-busy');
    button.removeAttribute('aria-disabled');
    button.textContent = 'Run';
  }
}

function resetToStarter() {
  // eslint-disable-next-line no-alert
  const ok = window.confirm('Replace your code with the starter? Your current draft will be lost.');
  if (!ok) return;
  state.editor.setValue(state.task.starter);
  showDiagnostics([], '');
  state.editor.focus();
  $('save-state').textContent = 'Reset to the starter.';
}

let saveNoticeTimer = null;

function onEdit(text) {
  if (state.running) state.editedDuringRun = true;
  const ok = state.progress.saveDraft(text);
  const note = $('save-state');
  if (!ok) {
    note.textContent = 'This browser is not saving your draft (storage is off or full).';
    return;
  }
  clearTimeout(saveNoticeTimer);
  saveNoticeTimer = setTimeout(() => { note.textContent = 'Draft saved in this browser.'; }, 400);
}

// ---- start --------------------------------------------------------------------

async function main() {
  state.progress = createProgress(getStorage(), DEFAULT_TASK.id);
  const saved = state.progress.load();
  renderPassed(saved.passed);
  renderChecklist(null);

  state.network = createNetworkView($('network-svg'), {
    halves: DEFAULT_TASK.halves,
    // An output node stands for both planes: keep the plane on show.
    onPick: (sel, options) => select({ ...sel, plane: state.selection.plane ?? 0 }, options),
  });
  for (const radio of document.querySelectorAll('input[name="pass-half"]')) {
    radio.addEventListener('change', () => {
      if (radio.checked) select({ half: Number(radio.value), index: state.selection.index, plane: state.selection.plane });
    });
  }
  select(state.selection, { quiet: true });

  $('show-expected').addEventListener('change', (event) => {
    $('grids').dataset.expected = event.target.checked ? 'on' : 'off';
  });
  $('grids').dataset.expected = $('show-expected').checked ? 'on' : 'off';

  const [loaded, courseFile] = await Promise.all([fetchTask(fetch), fetchCourseFile(fetch)]);
  state.course = parseCourse(courseFile);
  renderCourseLinks($('course-links'), state.course);
  if (loaded.ok) {
    state.task = mergeTask(loaded.task);
  } else {
    const view = outcomeView(loaded.outcome);
    setVerdictBox('busy', 'The task could not be loaded from the grader',
      `${view.detail} The page shows its own copy of the task; Run needs the grader.`);
  }
  renderTask(state.task);

  const host = $('editor');
  host.replaceChildren();
  state.editor = await loadEditor({
    parent: host,
    doc: saved.draft ?? state.task.starter,
    signature: state.task.signature,
    closing: '}',
    label: 'Kernel body',
    describedBy: 'editor-help',
    onChange: onEdit,
    onRun: () => { run(); },
  });
  host.dataset.kind = state.editor.kind;

  $('run').disabled = false;
  $('reset').disabled = false;
  $('run').addEventListener('click', () => { run(); });
  $('reset').addEventListener('click', resetToStarter);
  // history.mjs asks for an earlier attempt's code (see its header)
  document.addEventListener('butterfly:load-source', (event) => {
    state.editor.setValue(event.detail.source);
    state.editor.focus();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
  });

  if (saved.result) {
    showVerdict(saved.result.verdict, { source: saved.result.source ?? '', savedAt: saved.result.savedAt ?? Date.now() });
  }
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  console.error(error);
  setVerdictBox('error', '! The page failed to start', `${error && error.message ? error.message : error}. Reload the page.`);
});

// app.mjs - wires the exercise page: loads the task from the server, the
// editor and the saved progress, runs (and cancels) submissions and hands
// their outcome to the views. What the page holds is in page-state.mjs,
// how it is shown in page-views.mjs; the logic lives in small pure modules
// that node tests without a DOM. A module that adds to the page (the
// records, history.mjs) follows two events on document instead of
// being called from here: 'butterfly:verdict' after each run, and
// 'butterfly:load-source' to put code in the editor; and, so that a run
// is never recorded as nobody's or someone else's, 'butterfly:before-run'
// (cancelable: the records hold the run while a question waits),
// 'butterfly:run' (the answer came: run now), 'butterfly:sign-in-pending'
// (the server refused a run for a waiting sign-in) and
// 'butterfly:draft-state' (body's data-draft: "starter" while the editor
// holds the starter, else "own"). All requests go through api.mjs.

import { fetchCourseFile, fetchTask, submitSource, utf8Length } from './api.mjs';
import { parseCourse } from './course.mjs';
import { renderCourseLinks } from './course-view.mjs';
import { loadEditor } from './editor.mjs';
import { currentLaunch } from './launch.mjs';
import { createNetworkView } from './network-view.mjs';
import { createState } from './page-state.mjs';
import {
  $, announce, clearResult, followOutcome, markStale, renderChecklist, renderPassed, renderTask, select,
  setVerdictBox, showDiagnostics, showOtherAttempt, showOutcome, showVerdict, startRunClock, stopRetryCountdown, stopRunClock,
} from './page-views.mjs';
import { createProgress } from './progress.mjs';
import { readTask } from './task.mjs';
import { readVerdict } from './verdict.mjs';
import { outcomeView } from './verdict-view.mjs';

const state = createState();

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

// ---- actions ----------------------------------------------------------------

function setRunButton(running) {
  const button = $('run');
  if (running) {
    button.setAttribute('aria-busy', 'true');
    button.textContent = 'Cancel';
    button.dataset.action = 'cancel';
  } else {
    button.removeAttribute('aria-busy');
    button.textContent = 'Run';
    button.dataset.action = 'run';
  }
}

/* Cancels the run in flight: the request is aborted, so the server sees
 * its client leave and cancels the job. */
function cancel() {
  if (state.running && state.abort) state.abort.abort();
}

async function run() {
  if (!state.editor) return;
  if (state.running) {
    cancel();
    return;
  }
  // the records may hold the run for a question first (history.mjs)
  if (!document.dispatchEvent(new CustomEvent('butterfly:before-run', { cancelable: true }))) return;
  stopRetryCountdown(state);
  const source = state.editor.getValue();
  const size = utf8Length(source);
  const limit = state.task ? state.task.max_source_bytes : Infinity;
  if (size > limit) {
    followOutcome(state, showOutcome(state, { kind: 'too-large', limit, size }));
    return;
  }
  state.running = true;
  state.abort = typeof AbortController === 'function' ? new AbortController() : null;
  setRunButton(true);
  state.editedDuringRun = false;
  markStale(state, true);
  startRunClock(state);
  announce('Running your kernel. Press Cancel to stop it.');
  try {
    const outcome = await submitSource(fetch, source, { signal: state.abort ? state.abort.signal : null, launch: currentLaunch() });
    stopRunClock(state);
    const model = outcome.kind === 'verdict' ? readVerdict(outcome.verdict) : null;
    if (model) {
      state.progress.saveResult(outcome.verdict, source);
      // history.mjs follows the verdicts (see its header)
      document.dispatchEvent(new CustomEvent('butterfly:verdict', { detail: { verdict: outcome.verdict } }));
      const view = showVerdict(state, model, { source });
      if (model.passed) renderPassed(true);
      followOutcome(state, view);
    } else if (outcome.kind === 'http' && outcome.code === 'sign_in_pending') {
      // nothing was kept: the records ask their question, and the focus
      // goes there, not to the results
      announce(showOutcome(state, outcome).title);
      document.dispatchEvent(new CustomEvent('butterfly:sign-in-pending'));
    } else {
      followOutcome(state, showOutcome(state, outcome.kind === 'verdict' ? { kind: 'bad-response', status: 200 } : outcome));
    }
  } catch (error) {
    console.error(error);
    stopRunClock(state);
    clearResult(state);
    const view = { title: 'The page could not show this result', showGrids: false,
      detail: `${error && error.message ? error.message : error}. Run again; if it keeps happening, tell your instructor.` };
    setVerdictBox('error', `! ${view.title}`, view.detail, [], 'page-error');
    followOutcome(state, view);
  } finally {
    state.running = false;
    state.abort = null;
    setRunButton(false);
  }
}

function resetToStarter() {
  // eslint-disable-next-line no-alert
  const ok = window.confirm('Replace your code with the starter? Your current draft will be lost.');
  if (!ok || !state.task) return;
  state.editor.setValue(state.task.starter);
  markDraft(state.task.starter);
  showDiagnostics(state, [], '');
  state.editor.focus();
  $('save-state').textContent = 'Reset to the starter.';
}

let saveNoticeTimer = null;

/* body's data-draft: whether the editor holds the starter untouched (a
 * browser with no draft of its own), for the records' offer of the
 * latest attempt. */
function markDraft(text) {
  const kind = state.task && text === state.task.starter ? 'starter' : 'own';
  if (document.body.dataset.draft === kind) return;
  document.body.dataset.draft = kind;
  document.dispatchEvent(new CustomEvent('butterfly:draft-state'));
}

function onEdit(text) {
  markDraft(text);
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

/* On a phone the table of names folds, so that the verdict follows the
 * editor; on a wide screen it stays open beside it. */
function foldApiOnPhones() {
  const box = $('api-details');
  if (!box || !window.matchMedia) return;
  const narrow = window.matchMedia('(max-width: 47.99rem)');
  box.open = !narrow.matches;
  narrow.addEventListener('change', () => { box.open = !narrow.matches; });
}

async function main() {
  // The task's id is the page's own (the URL it serves); the rest comes
  // from the server's definition.
  state.progress = createProgress(getStorage(), 'butterfly');
  const saved = state.progress.load();
  renderPassed(saved.passed);
  renderChecklist(null);
  foldApiOnPhones();

  $('show-expected').addEventListener('change', (event) => {
    $('grids').dataset.expected = event.target.checked ? 'on' : 'off';
  });
  $('grids').dataset.expected = $('show-expected').checked ? 'on' : 'off';

  const [loaded, courseFile] = await Promise.all([fetchTask(fetch), fetchCourseFile(fetch)]);
  state.course = parseCourse(courseFile);
  renderCourseLinks($('course-links'), state.course);
  state.task = loaded.ok ? readTask(loaded.task) : null;
  if (state.task) {
    renderTask(state.task);
  } else {
    const view = outcomeView(loaded.ok ? { kind: 'bad-response', status: 200 } : loaded.outcome);
    setVerdictBox('busy', 'The task could not be loaded from the grader',
      `${view.detail} Reload the page to try again; your draft is kept in this browser.`);
  }

  state.network = createNetworkView($('network-svg'), {
    halves: state.task ? state.task.halves : [1, 2, 4],
    // An output node stands for both planes: keep the plane on show.
    onPick: (sel, options) => select(state, { ...sel, plane: state.selection.plane ?? 0 }, options),
  });
  for (const radio of document.querySelectorAll('input[name="pass-half"]')) {
    radio.addEventListener('change', () => {
      if (radio.checked) select(state, { half: Number(radio.value), index: state.selection.index, plane: state.selection.plane });
    });
  }
  select(state, state.selection, { quiet: true });

  const host = $('editor');
  host.replaceChildren();
  state.editor = await loadEditor({
    parent: host,
    doc: saved.draft ?? (state.task ? state.task.starter : ''),
    signature: state.task ? state.task.signature : '',
    closing: '}',
    label: 'Kernel body',
    describedBy: 'editor-help',
    onChange: onEdit,
    onRun: () => { run(); },
  });
  host.dataset.kind = state.editor.kind;
  markDraft(state.editor.getValue());

  $('run').disabled = false;
  $('reset').disabled = !state.task;
  $('run').addEventListener('click', () => { run(); });
  document.addEventListener('butterfly:run', () => { if (!state.running) run(); });
  $('reset').addEventListener('click', resetToStarter);
  // history.mjs asks for an earlier attempt's code (see its header)
  // An attempt's code from the records (history.mjs), with its record when
  // there is one: the results then show that attempt's saved verdict, and
  // otherwise say that what they show is another attempt's.
  document.addEventListener('butterfly:load-source', (event) => {
    const { source, record } = event.detail;
    state.editor.setValue(source);
    markDraft(source);
    const model = record && !state.running ? readVerdict(record) : null;
    if (model) {
      showVerdict(state, model, { source, loaded: true,
        savedAt: Number.isFinite(record.received_ms) ? record.received_ms : null });
    } else if (!state.running) {
      showOtherAttempt(state);
    }
    state.editor.focus();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
    if (event.key === 'Escape' && state.running && event.target === $('run')) cancel();
  });

  if (saved.result) {
    const model = readVerdict(saved.result.verdict);
    if (model) showVerdict(state, model, { source: saved.result.source ?? '', savedAt: saved.result.savedAt ?? Date.now() });
  }
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  console.error(error);
  setVerdictBox('error', '! The page failed to start', `${error && error.message ? error.message : error}. Reload the page.`);
});

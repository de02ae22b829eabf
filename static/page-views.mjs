// page-views.mjs - the exercise page's views: each renders a part of the
// page from the state (page-state.mjs) and the verdict model (verdict.mjs).
// DOM only; the words come from the pure modules.

import { checklistNotes, checklistState, checklistSummary } from './checklist.mjs';
import { nextStep } from './course.mjs';
import { nextStepParagraph } from './course-view.mjs';
import { DIAGNOSTICS_TITLES, placeDiagnostics, verdictDiagnostics } from './diagnostics.mjs';
import { h, richText } from './dom.mjs';
import { buildGrids } from './grid.mjs';
import { formatReal, pairOf, twiddleText } from './network.mjs';
import { failingNodes } from './page-state.mjs';
import { renderGrids, renderResultTables } from './results-view.mjs';
import { summaryParagraph } from './verdict-details.mjs';
import {
  announcement, formatDevice, formatTimings, outcomeView, runningView, verdictView,
} from './verdict-view.mjs';
import { gradersWorkedCell, otherPlane, workedCellOnShow } from './worked-cell.mjs';
import { renderWorkedCell } from './worked-cell-view.mjs';

export const $ = (id) => document.getElementById(id);

// ---- the task ------------------------------------------------------------

export function renderTask(task) {
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

export function renderChecklist(model) {
  const s = checklistState(model);
  for (const li of document.querySelectorAll('[data-req]')) {
    const st = s[li.dataset.req] || 'unknown';
    li.dataset.state = st;
    const words = li.querySelector(':scope > .req-state');
    if (words) words.textContent = ` (${STATE_WORDS[st]})`;
  }
  const notes = checklistNotes(model);
  $('checklist-summary').textContent = model
    ? `${checklistSummary(s)} by your last run.${notes.length ? ` ${notes.join(' ')}` : ''}`
    : 'Run your kernel to check them.';
}

export function renderPassed(passed) {
  $('passed-badge').hidden = !passed;
  $('task-passed').hidden = !passed;
}

// ---- the network picture and the selection --------------------------------

/* Picks an output (and a plane) everywhere at once. options.focus moves
 * the focus to the network node; options.quiet keeps the figure's live
 * words silent, for a pick the page makes itself after a run, when the
 * verdict is what should be heard. */
export function select(state, sel, options = {}) {
  const index = sel.index ?? null;
  state.selection = { half: sel.half, index, plane: index === null ? null : (sel.plane ?? 0) };
  for (const radio of document.querySelectorAll('input[name="pass-half"]')) {
    radio.checked = Number(radio.value) === state.selection.half;
  }
  if (state.network) state.network.update(state.selection, failingNodes(state), options);
  if (state.gridView) state.gridView.setSelected(state.selection);
  const info = $('selection-info');
  if (options.quiet) info.setAttribute('aria-live', 'off');
  renderSelectionInfo(state);
  if (options.quiet) setTimeout(() => info.setAttribute('aria-live', 'polite'), 0);
  renderWorked(state);
}

/* After a result arrives: the picture and the worked cell go to the cell
 * the grader worked (to its pass only, when it is on a hidden spectrum). */
export function pointAtWorkedCell(state) {
  const wc = state.model ? state.model.workedCell : null;
  const quiet = { quiet: true };
  if (wc && wc.spectrum === 'visible') select(state, { half: wc.half, index: wc.i, plane: wc.plane }, quiet);
  else if (wc) select(state, { half: wc.half, index: null }, quiet);
  else select(state, { half: state.selection.half, index: null }, quiet);
}

export function renderWorked(state) {
  const panel = $('worked');
  const show = workedCellOnShow(state.model, state.selection);
  panel.hidden = show === null;
  if (show) renderWorkedCell(panel, $('worked-body'), show.wc, show.intro, otherPlane(state.model, show.wc));
}

/* The picked output's pair, from its index alone (no values: what the
 * last run gave for it is the grader's worked cell to say). */
export function renderSelectionInfo(state) {
  const box = $('selection-info');
  const { half, index, plane } = state.selection;
  if (index === null) {
    box.replaceChildren(h('p', {}, `Pass for half = ${half}: pick one of its outputs (the right-hand column of the highlighted band) to see which two inputs it reads.`));
    return;
  }
  const p = pairOf(index, half);
  const rows = [
    ['j', `(${index} / ${half}) % 2 = ${p.j}`],
    ['base', `${index} − ${p.j}·${half} = ${p.base}`],
    ['r', `${index} % ${half} = ${p.r}`],
    ['reads', `a = element ${p.base}, b = element ${p.base + half}`],
    ['w', twiddleText(p.r, half)],
    ['returns', p.lower ? 'a + w·b' : 'a − w·b'],
  ];
  const dl = h('dl', {});
  for (const [k, v] of rows) dl.append(h('dt', {}, k), h('dd', {}, v));
  const worked = gradersWorkedCell(state.model, { half, i: index, plane: plane ?? 0 });
  box.replaceChildren(
    h('p', {}, h('strong', {}, `Output ${index}, half = ${half}`),
      ` — the ${p.lower ? 'lower' : 'upper'} member of the pair {${p.inputs.join(', ')}}`),
    dl,
    worked && worked.says ? h('p', {}, `Your last run: ${worked.says}`) : null);
}

// ---- showing outcomes -------------------------------------------------------

export function setVerdictBox(tone, title, detail, extra = [], kind = '') {
  const box = $('verdict');
  box.dataset.tone = tone;
  box.dataset.kind = kind;
  box.replaceChildren(
    h('p', { id: 'verdict-title', className: 'verdict-title' }, title),
    detail ? h('p', { id: 'verdict-detail', className: 'verdict-detail' }, ...richText(detail)) : null,
    ...extra);
}

export function announce(text) {
  const region = $('announcer');
  // Emptied first, so that the same words twice in a row are said twice.
  region.textContent = '';
  setTimeout(() => { region.textContent = text; }, 50);
}

/* Says the outcome in the live region, brings the verdict into view and
 * puts the focus on it: the page follows the run. On a wide screen the
 * verdict sits beside the editor, so both stay on screen. Except when the
 * student went on typing while it was out: then the live region alone
 * says it, and neither the caret nor the page is moved from under their
 * hands. */
export function followOutcome(state, view) {
  announce(announcement(view));
  if (state.editedDuringRun) return;
  const box = $('verdict');
  const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  // Beside the editor (a wide screen), the verdict goes to the top, and the
  // editor, kept in view, with it; in one column, grids want the verdict
  // at the top, marks in the editor want no more scrolling than needed.
  const wide = window.matchMedia && window.matchMedia('(min-width: 75rem)').matches;
  box.scrollIntoView({ block: wide || view.showGrids ? 'start' : 'nearest', behavior: reduce ? 'auto' : 'smooth' });
  box.focus({ preventScroll: true });
}

/* The last result stays on show, dimmed and out of reach, while the next
 * run is out, so that the two are never mistaken for each other. */
export function markStale(state, stale) {
  const body = $('result-body');
  const any = stale && state.model !== null;
  body.dataset.stale = String(any);
  body.inert = any;
  $('stale-note').hidden = !any;
}

export function clearResult(state) {
  markStale(state, false);
  $('other-attempt-note').hidden = true;
  state.model = null;
  state.grids = [];
  state.gridView = null;
  $('grids').replaceChildren();
  $('grid-options').hidden = true;
  $('diagnosis').hidden = true;
  $('diagnosis').replaceChildren();
  $('worked').hidden = true;
  $('result-extra').hidden = true;
  $('compile-log-box').hidden = true;
  showDiagnostics(state, [], '');
}

export function showDiagnostics(state, diagnostics, source, kind = '') {
  const placed = placeDiagnostics(diagnostics, source);
  const current = state.editor ? state.editor.getValue() : '';
  // Marks go on the editor only when they belong to the text in it.
  if (state.editor) state.editor.setDiagnostics(source === current ? placed : []);
  $('diagnostics-title').textContent = DIAGNOSTICS_TITLES[kind] || DIAGNOSTICS_TITLES.other;
  const list = $('diagnostics-list');
  list.replaceChildren(...placed.map((d) => {
    const link = h('button', { type: 'button', className: 'diag-link' }, ...richText(d.text));
    link.addEventListener('click', () => state.editor && state.editor.goTo(d.afterCode ? d.line - 1 : d.line, d.column));
    return h('li', { 'data-line': d.line, 'data-severity': d.severity }, link,
      d.original ? h('details', { className: 'diag-original' }, h('summary', {}, 'More'),
        'The compiler’s own words: ', h('code', {}, d.original)) : null);
  }));
  $('diagnostics').hidden = placed.length === 0;
}

/* A button in the verdict box that takes the keyboard back to the code:
 * to the loop's line for a loop past the budget. */
function backToCode(state, line) {
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

/* The diagnosis: a title, one sentence, one hint with a link to it, and
 * the rest behind "More". */
function showDiagnosis(model) {
  const box = $('diagnosis');
  const d = model.diagnosis;
  if (d) {
    const parts = [h('h3', {}, d.title)];
    if (d.explanation) parts.push(h('p', { className: 'diagnosis-where' }, ...richText(d.explanation)));
    if (d.hint) {
      const hintP = h('p', { className: 'hint-line' }, ...richText(d.hint));
      if (d.hintNumber) {
        const link = h('a', { href: `#hint-${d.hintNumber}` }, `Open hint ${d.hintNumber}`);
        link.addEventListener('click', () => { $(`hint-${d.hintNumber}`).open = true; });
        hintP.append(' ', link);
      }
      parts.push(hintP);
    }
    if (d.more) {
      parts.push(h('details', { className: 'diagnosis-more' }, h('summary', {}, 'More'),
        h('p', {}, ...richText(d.more))));
    }
    box.dataset.id = d.id;
    box.dataset.step = d.step || '';
    box.replaceChildren(...parts);
    box.hidden = false;
  } else if (model.summary) {
    box.dataset.id = '';
    box.dataset.step = '';
    box.replaceChildren(summaryParagraph(model.summary, h));
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

/* Shows a verdict model and returns its view. meta: {source, savedAt (a
 * restored result, or with loaded an attempt loaded from the records)}. */
export function showVerdict(state, model, { source = '', savedAt = null, loaded = false } = {}) {
  clearResult(state);
  state.model = model;
  const view = verdictView(model);
  const extra = [];
  if (view.kind === 'accepted' && state.task) extra.push(nextStepParagraph(nextStep(state.course, state.task.subtitle)));
  if (loaded) {
    extra.push(h('p', { className: 'restored' }, savedAt
      ? `The saved result of the attempt you loaded, run on ${formatWhen(savedAt)}.`
      : 'The saved result of the attempt you loaded.'));
  } else if (savedAt) {
    const changed = state.editor && source !== state.editor.getValue();
    extra.push(h('p', { className: 'restored' }, `Saved result of your run on ${formatWhen(savedAt)}` +
      `${changed ? '; you have changed the code since.' : '.'}`));
  }
  if (view.kind !== 'accepted') extra.push(backToCode(state, view.loop ? view.loop.line : null));
  setVerdictBox(view.tone, `${view.icon} ${view.title}`, view.detail, extra, view.cause || view.kind);
  showDiagnosis(model);
  if (view.showGrids) {
    state.grids = buildGrids(model);
    state.gridView = renderGrids($('grids'), state.grids, { onSelect: (sel) => select(state, sel) });
    renderResultTables($('result-table'), state.grids);
    $('grid-options').hidden = false;
  }
  const facts = [];
  const device = formatDevice(model.device);
  if (device) facts.push(`Graded on ${device}`);
  const timings = formatTimings(model.timings);
  if (timings) facts.push(timings);
  if (model.seed !== null) facts.push(`seed ${model.seed}`);
  $('timings').textContent = facts.join(' · ');
  $('result-extra').hidden = !(view.showGrids || facts.length);
  $('result-table').closest('details').hidden = !view.showGrids;
  showDiagnostics(state, verdictDiagnostics(model), source, view.cause || view.kind);
  if (model.compileLog) {
    $('compile-log').textContent = model.compileLog +
      (model.compileLogTruncated ? '\n[the log was cut short]' : '');
    $('compile-log-box').hidden = false;
  }
  renderChecklist(model);
  pointAtWorkedCell(state);
  return view;
}

/* After an attempt's code is loaded without a verdict the page can show:
 * the results on show are another attempt's, and said so, and the
 * compiler's list and marks, which name lines of that other code, go. */
export function showOtherAttempt(state) {
  showDiagnostics(state, [], '');
  $('compile-log-box').hidden = true;
  const shown = state.model !== null || $('verdict').dataset.tone !== 'none';
  $('other-attempt-note').hidden = !shown;
}

/* Shows an outcome that is not a verdict and returns its view. */
export function showOutcome(state, outcome) {
  clearResult(state);
  const view = outcomeView(outcome);
  setVerdictBox(view.tone, `${view.icon} ${view.title}`, view.detail, [], outcome.kind);
  if (view.retryAfter) startRetryCountdown(state, view.retryAfter);
  select(state, state.selection, { quiet: true });
  return view;
}

/* The waiting state: the time since Run, counted on screen only (the
 * live region says "running" once, not every tenth of a second). */
export function startRunClock(state) {
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

export function stopRunClock(state) {
  if (state.runClock) clearInterval(state.runClock);
  state.runClock = null;
}

export function startRetryCountdown(state, seconds) {
  stopRetryCountdown(state);
  let left = seconds;
  const detail = $('verdict').querySelector('.verdict-detail');
  state.retryTimer = setInterval(() => {
    left -= 1;
    if (!detail.isConnected) return stopRetryCountdown(state);
    detail.textContent = left > 0
      ? `Every worker is busy with other kernels. Try again in ${left} second${left === 1 ? '' : 's'}.`
      : 'Every worker was busy with other kernels. You can run again now.';
    if (left <= 0) stopRetryCountdown(state);
  }, 1000);
}

export function stopRetryCountdown(state) {
  if (state.retryTimer) clearInterval(state.retryTimer);
  state.retryTimer = null;
}

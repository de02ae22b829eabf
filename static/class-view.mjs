// class-view.mjs - what the class view draws: a student's tile, the
// counts, one student's attempts. DOM only; class.mjs owns the state.

import { h } from '/static/dom.mjs';
import { lineDiff } from '/static/class-diff.mjs';
import { scoreNote } from '/static/class-score.mjs';
import { progressRows } from '/static/class-exercises.mjs';

// The verdict in words and an icon (never colour alone).
const ICONS = {
  accepted: '✓', wrong_answer: '✗', compilation_error: '⚠', time_limit_exceeded: '⏱',
  rejected: '⊘', internal_error: '?',
};

export function verdictIcon(status) {
  if (!status) return '–';
  if (ICONS[status.slug]) return ICONS[status.slug];
  return status.slug && status.slug.startsWith('runtime') ? '💥' : '•';
}

export function verdictWords(status) {
  return status ? status.name : 'No attempt yet';
}

/* Minutes from ms to now_ms, in words. */
export function since(ms, nowMs) {
  if (ms === null || ms === undefined) return 'never';
  const min = Math.max(0, Math.floor((nowMs - ms) / 60000));
  return min === 0 ? 'under a minute ago' : `${min} min ago`;
}

/* One tile of the roster grid: a button that opens the student. */
export function tile(t, nowMs, onOpen) {
  const slug = t.last_status ? t.last_status.slug : 'none';
  const state = t.stuck ? 'stuck' : t.accepted ? 'done' : t.silent ? 'silent' : 'trying';
  const stateWords = { stuck: 'Stuck', done: 'Passed', silent: 'Silent', trying: 'Working' }[state];
  const button = h('button', { type: 'button', className: 'tile-open', 'data-student': t.id },
    h('span', { className: 'tile-name' }, t.name || t.id,
      t.verified ? null : h('span', { className: 'unverified' }, ' (unverified name)')),
    h('span', { className: `tile-state state-${state}` }, stateWords),
    h('span', { className: `tile-verdict verdict-${slug}` },
      h('span', { 'aria-hidden': 'true', className: 'icon' }, verdictIcon(t.last_status)), ' ',
      verdictWords(t.last_status)),
    h('span', { className: 'tile-facts' },
      `${t.attempts} attempt${t.attempts === 1 ? '' : 's'} · last ${since(t.last_ms, nowMs)}`
      + ` · best ${t.best_points}/${t.max_points || '–'}`),
    // in words: attempts after the due date (docs/LTI.md, butterfly-admin class due)
    t.late ? h('span', { className: 'tile-late' }, `${t.late} late`) : null,
    t.mistake ? h('span', { className: 'tile-mistake' }, t.mistake) : null,
    t.section ? h('span', { className: 'tile-section' }, `Section ${t.section}`) : null,
    // in words and an icon, never colour alone
    scoreNote(t.score_not_sent) ? h('span', { className: 'tile-score-unsent' },
      h('span', { 'aria-hidden': 'true', className: 'icon' }, '⚠'), ' ',
      scoreNote(t.score_not_sent)) : null);
  button.addEventListener('click', () => onOpen(t.id));
  return h('li', { className: `tile ${state}`, 'data-student': t.id }, button);
}

/* The line about the course's roster (the summary's roster: how its last
 * read from the platform went), '' when the view is of no course's. */
export function rosterLine(r) {
  if (!r) return '';
  const n = `${r.learners} learner${r.learners === 1 ? '' : 's'}`;
  switch (r.state) {
    case 'read': return `The course's roster was read from the platform: ${n}; those who have not launched yet are silent.`;
    case 'partial': return `The course's roster was read in part: ${n}. ${r.message}`;
    case 'refused': return `The platform did not give the course's roster (${r.message}) The class shows the students who have launched.`;
    default: return "The course's roster is being read from the platform.";
  }
}

/* The progress table's rows: a header of the exercises, then a row per
 * student with a cell per exercise (passed: in words and a mark). */
export function progressTable(tiles, exercises) {
  const t = progressRows(tiles, exercises);
  const head = h('tr', {}, h('th', { scope: 'col' }, 'Student'),
    ...t.header.map((x) => h('th', { scope: 'col' }, x)));
  return [h('thead', {}, head), h('tbody', {}, ...t.rows.map((r) => h('tr', { 'data-student': r.id },
    h('th', { scope: 'row' }, r.name),
    ...r.cells.map((c) => h('td', { className: c.passed ? 'passed' : c.tried ? 'tried' : 'none' }, c.text)))))];
}

/* The counts of the summary as <dt>/<dd> pairs. */
export function counts(s) {
  const items = [['Students', s.students], ['Submitted', s.submitted], ['Accepted', s.accepted],
    ['Stuck', s.stuck], ['Silent', s.silent], ['Late attempts', s.late || 0]];
  return items.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-count': k.toLowerCase() }, String(v))]);
}

function workedCell(w) {
  if (!w) return null;
  const c = (z) => `${z.re} ${z.im < 0 ? '−' : '+'} ${Math.abs(z.im)}i`;
  return h('div', { className: 'worked' },
    h('p', {}, `Worked cell: half ${w.half}, ${w.spectrum} spectrum, i = ${w.i}, plane ${w.plane}`),
    h('p', {}, `a = ${c(w.a)}, b = ${c(w.b)}, w = ${c(w.w)}; due ${w.due}`),
    h('p', {}, `expected ${w.expected}, got ${w.got}`
      + (w.got_matches ? ` (what ${w.got_matches} gives)` : '')));
}

function diffBlock(before, after) {
  const rows = lineDiff(before, after);
  if (!rows.some((r) => r.op !== ' ')) return h('p', { className: 'muted' }, 'Same code as the attempt before.');
  const words = { ' ': 'same', '-': 'removed', '+': 'added' };
  return h('pre', { className: 'diff', 'aria-label': 'What changed from the attempt before' },
    ...rows.map((r) => h('span', { className: `diff-line diff-${words[r.op]}` },
      h('span', { className: 'diff-op' }, r.op === ' ' ? '  ' : `${r.op} `), r.text, '\n')));
}

/* One student's attempts, oldest first, each with its diff to the one before. */
export function studentPanel(data) {
  const t = data.student;
  const list = h('ol', { className: 'attempts' });
  data.attempts.forEach((a, k) => {
    const when = new Date(a.received_ms).toLocaleTimeString();
    const mistake = a.diagnosis ? a.diagnosis.title
      : (a.diagnostics && a.diagnostics.length ? `line ${a.diagnostics[0].line}: ${a.diagnostics[0].message}` : null);
    list.append(h('li', { className: 'attempt' },
      h('h3', {}, `Attempt ${k + 1} · ${when} · `,
        h('span', { 'aria-hidden': 'true' }, verdictIcon(a.status)), ` ${a.status.name} · ${a.points}/${a.max_points}`,
        a.late ? h('span', { className: 'attempt-late' }, ' · late') : null),
      mistake ? h('p', {}, mistake) : null,
      a.message ? h('p', { className: 'muted' }, a.message) : null,
      workedCell(a.worked_cell),
      h('details', {}, h('summary', {}, 'Code'), h('pre', { className: 'code' }, a.source)),
      k > 0 ? h('details', { open: true }, h('summary', {}, 'Changes from the attempt before'),
        diffBlock(data.attempts[k - 1].source, a.source)) : null));
  });
  return h('div', {},
    h('p', {}, t.name, t.verified ? '' : ' (unverified name)', t.section ? ` · Section ${t.section}` : '',
      ` · ${t.attempts} attempts · best ${t.best_points}/${t.max_points}`),
    data.attempts.length ? list : h('p', {}, 'No attempts yet.'));
}

// verdict-details.mjs - what a verdict says beyond its status and message,
// as an exercise's page (task-page.mjs) shows it under them: the named
// mistake the outputs proved (diagnosis), where the kernel fails (summary)
// and the compiler's messages, one per line of the body. Pure: it builds
// with the h() it is given (dom.mjs's on the page, a stand-in in tests),
// and every piece of the verdict's text is a text child, never markup
// (a verdict quotes the student's code and an author's words).

import { richText } from './dom.mjs';
import { DIAGNOSTICS_TITLES, placeDiagnostics, verdictDiagnostics } from './diagnostics.mjs';

/* How a hint is introduced, as the text report says it (grader/common/report.c). */
export const HINT_LEAD = 'Look at: ';
/* How a summary is introduced, on both pages. */
export const SUMMARY_LEAD = 'Where it fails: ';

/*
 * The paragraph of a verdict's summary (where it fails, in words): one p
 * built with h. The butterfly's page shows it the same way.
 */
export function summaryParagraph(summary, h) {
  return h('p', {}, h('strong', {}, SUMMARY_LEAD), ...richText(summary, h));
}

/*
 * The box of a diagnosis ({id, title, explanation, hint} as verdict.mjs
 * reads it): the title as an h3, the explanation's paragraph, and
 * "Look at: HINT" when there is a hint. Classes as the butterfly's page
 * uses them, so both read alike.
 */
export function diagnosisBox(d, h) {
  return h('div', { className: 'diagnosis', 'data-id': d.id },
    h('h3', {}, d.title),
    d.explanation ? h('p', { className: 'diagnosis-where' }, ...richText(d.explanation, h)) : null,
    d.hint ? h('p', { className: 'hint-line' }, HINT_LEAD, ...richText(d.hint, h)) : null);
}

/*
 * The list of diagnostics placed on source (diagnostics.mjs), under the
 * title for kind ('compile', 'rejected', 'loop'): "Line 4, column 11:
 * MESSAGE" per entry, the compiler's own words folded under it when the
 * grader rewrote them. Null when there are none.
 */
export function diagnosticsBox(placed, kind, h) {
  if (!placed.length) return null;
  return h('div', { className: 'diagnostics' },
    h('h3', {}, DIAGNOSTICS_TITLES[kind] || DIAGNOSTICS_TITLES.other),
    h('ul', {}, ...placed.map((d) => h('li', { 'data-line': d.line, 'data-severity': d.severity },
      ...richText(d.text, h),
      d.original ? h('details', { className: 'diag-original' }, h('summary', {}, 'More'),
        'The compiler’s own words: ', h('code', {}, d.original)) : null))));
}

/*
 * What a verdict model (verdict.mjs's readVerdict) adds under its status
 * and message, for the body source that was graded: {nodes, placed}.
 * nodes: the diagnosis box, else the summary's paragraph, then the
 * diagnostics' list (a Compilation Error's, a Rejected's, a loop's line);
 * placed: those diagnostics placed on source, for the editor's marks.
 */
export function verdictDetails(model, source, h) {
  const placed = model ? placeDiagnostics(verdictDiagnostics(model), source) : [];
  const kind = model && model.kind === 'time-limit' && model.loop ? 'loop' : (model ? model.kind : '');
  const nodes = [];
  if (model && model.diagnosis) nodes.push(diagnosisBox(model.diagnosis, h));
  else if (model && model.summary) nodes.push(summaryParagraph(model.summary, h));
  const list = diagnosticsBox(placed, kind, h);
  if (list) nodes.push(list);
  return { nodes, placed };
}

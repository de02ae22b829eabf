// checklist.mjs - which requirements of the brief the last result shows
// as met. Pure.
//
// The grader checks outputs, not code, so the first three requirements
// (how base and r are found, reading all four numbers, the signs) can only
// be confirmed all at once by an accepted verdict. Each "right for half = h"
// item follows its own half. Nothing is ever ticked from a guess: without a
// result, or for a half the result does not cover, the state is 'unknown'.

export const REQUIREMENT_IDS = Object.freeze([
  'indices', 'planes', 'signs', 'halves', 'half-1', 'half-2', 'half-4',
]);

const ACCEPTED = 3;

/*
 * Returns {id: 'pass' | 'fail' | 'unknown'} for every id in
 * REQUIREMENT_IDS, from a verdict (or null when nothing was run).
 */
export function checklistState(verdict) {
  const state = Object.fromEntries(REQUIREMENT_IDS.map((id) => [id, 'unknown']));
  if (!verdict || typeof verdict !== 'object') return state;
  const accepted = verdict.status && verdict.status.id === ACCEPTED && verdict.passed === true;
  const halves = Array.isArray(verdict.halves) ? verdict.halves : [];
  for (const h of halves) {
    const id = `half-${h.half}`;
    if (id in state) state[id] = h.passed === true ? 'pass' : 'fail';
  }
  const each = ['half-1', 'half-2', 'half-4'].map((id) => state[id]);
  if (each.every((s) => s === 'pass')) state.halves = 'pass';
  else if (each.some((s) => s === 'fail')) state.halves = 'fail';
  if (accepted) {
    for (const id of REQUIREMENT_IDS) state[id] = 'pass';
  }
  return state;
}

/* "2 of 4 requirements met" over the four top-level items. */
export function checklistSummary(state) {
  const top = ['indices', 'planes', 'signs', 'halves'];
  const met = top.filter((id) => state[id] === 'pass').length;
  return `${met} of ${top.length} requirements met`;
}

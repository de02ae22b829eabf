// checklist.mjs - which requirements of the brief the last result shows
// as met. Pure.
//
// The grader checks outputs, not code, so the first three requirements
// (how base and r are found, reading all four numbers, the signs) can only
// be confirmed all at once by an accepted verdict. Each "right for half = h"
// item follows its own half, for a Wrong Answer too, and a Wrong Answer's
// notes say what else its cells proved (a plane right in every half).
// Nothing is ever ticked from a guess: without a result, or for a half the
// result does not cover, the state is 'unknown'.

import { PLANES } from './grid.mjs';

export const REQUIREMENT_IDS = Object.freeze([
  'indices', 'planes', 'signs', 'halves', 'half-1', 'half-2', 'half-4',
]);

/*
 * Returns {id: 'pass' | 'fail' | 'unknown'} for every id in
 * REQUIREMENT_IDS, from a verdict model (verdict.mjs; null when nothing
 * was run).
 */
export function checklistState(model) {
  const state = Object.fromEntries(REQUIREMENT_IDS.map((id) => [id, 'unknown']));
  if (!model) return state;
  for (const h of model.halves) {
    const id = `half-${h.half}`;
    if (id in state) state[id] = h.passed === true ? 'pass' : 'fail';
  }
  const each = ['half-1', 'half-2', 'half-4'].map((id) => state[id]);
  if (each.every((s) => s === 'pass')) state.halves = 'pass';
  else if (each.some((s) => s === 'fail')) state.halves = 'fail';
  if (model.passed) {
    for (const id of REQUIREMENT_IDS) state[id] = 'pass';
  }
  return state;
}

/*
 * What a Wrong Answer's cells proved beyond the halves, as sentences:
 * "The real plane is right on the visible spectrum in every half." (only
 * where every visible cell of that plane passed in every half run).
 */
export function checklistNotes(model) {
  if (!model || model.kind !== 'wrong' || !model.halves.length) return [];
  const notes = [];
  for (let p = 0; p < PLANES.length; p++) {
    const right = model.halves.every((h) => Array.isArray(h.cells) &&
      h.cells.filter((c) => c && c.y === p).length > 0 &&
      h.cells.filter((c) => c && c.y === p).every((c) => c.passed === true));
    if (right) notes.push(`The ${PLANES[p]} plane is right on the visible spectrum in every half.`);
  }
  const passed = model.halves.filter((h) => h.passed === true).map((h) => h.half);
  if (passed.length && passed.length < model.halves.length) {
    notes.push(`half = ${passed.join(' and ')} ${passed.length > 1 ? 'are' : 'is'} right, hidden spectra included.`);
  }
  return notes;
}

/* "2 of 4 requirements met" over the four top-level items. */
export function checklistSummary(state) {
  const top = ['indices', 'planes', 'signs', 'halves'];
  const met = top.filter((id) => state[id] === 'pass').length;
  return `${met} of ${top.length} requirements met`;
}

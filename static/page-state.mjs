// page-state.mjs - what the exercise page holds between events: the task,
// the editor, the verdict model on show (verdict.mjs), the grids built
// from it, the selection, and the run in flight. The views read it; only
// app.mjs and the views' setters change it.

import { EMPTY_COURSE } from './course.mjs';

export function createState() {
  return {
    task: null,             // task.mjs's readTask of the server's answer, once it came
    editor: null,
    progress: null,
    running: false,
    abort: null,            // the AbortController of the run in flight
    model: null,            // the verdict model on show, or null
    grids: [],
    gridView: null,
    network: null,
    // The output picked in the network or the grids; the worked cell
    // follows it. plane is null only when nothing is picked.
    selection: { half: 2, index: null, plane: null },
    course: EMPTY_COURSE,
    retryTimer: null,
    runClock: null,         // the waiting state's timer while a run is out
    editedDuringRun: false, // the student kept typing while the run was out
  };
}

/* The network nodes ("stage:index") of the grids' failing cells. */
export function failingNodes(state) {
  const failing = new Set();
  const halves = state.task ? state.task.halves : [];
  for (const g of state.grids) {
    const stage = halves.indexOf(g.half) + 1;
    for (const plane of g.planes) {
      for (const c of plane.cells) if (c.state !== 'pass') failing.add(`${stage}:${c.x}`);
    }
  }
  return failing;
}

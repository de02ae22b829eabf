// task.mjs - the task as the server defines it (GET /api/tasks/butterfly,
// built from grader/common/task.c): the page keeps no copy of its own.
// readTask() checks the answer's shape, field by field. Pure.

const isString = (v) => typeof v === 'string';
const isPlane = (p) => Array.isArray(p) && p.length > 0 && p.every(Number.isFinite);

/*
 * The server's task with every field it sends kept as it is, or null when
 * a field the page needs is missing or of the wrong shape: id, title,
 * subtitle, signature, starter (strings); api ([{name, type, meaning}]);
 * visible (two planes of numbers); halves (ints); hidden_per_half,
 * max_source_bytes, loop_budget (ints); tolerance ({atol, rtol}).
 */
export function readTask(raw) {
  if (!raw || typeof raw !== 'object') return null;
  const ok = ['id', 'title', 'subtitle', 'signature', 'starter'].every((k) => isString(raw[k])) &&
    Array.isArray(raw.api) && raw.api.every((a) => a && isString(a.name)) &&
    Array.isArray(raw.visible) && raw.visible.length === 2 && raw.visible.every(isPlane) &&
    raw.visible[0].length === raw.visible[1].length &&
    Array.isArray(raw.halves) && raw.halves.length > 0 && raw.halves.every(Number.isInteger) &&
    Number.isInteger(raw.hidden_per_half) && Number.isInteger(raw.max_source_bytes) && raw.max_source_bytes > 0 &&
    raw.tolerance && Number.isFinite(raw.tolerance.atol) && Number.isFinite(raw.tolerance.rtol);
  if (!ok) return null;
  return { ...raw };
}

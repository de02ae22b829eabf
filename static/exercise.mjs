// exercise.mjs - an exercise as the server defines it (GET /api/tasks/{id},
// from exercises/ID/exercise.json) and the course's list of them (GET
// /api/tasks), read for the template page (task.html) and the course
// index (tasks.html): the page keeps no copy of any exercise. Pure.

const isString = (v) => typeof v === 'string';
const isCount = (v) => Number.isInteger(v) && v > 0;
/* the registry's ids (grader/common/exercise/exercise.h: EX_ID_MAX) */
const ID = /^[a-z0-9_-]{1,32}$/;

/* The exercise id of a page's path, /tasks/ID (a trailing / allowed), or
 * null for any other path. */
export function exerciseIdFromPath(pathname) {
  const m = /^\/tasks\/([^/]+)\/?$/.exec(typeof pathname === 'string' ? pathname : '');
  return m && ID.test(m[1]) ? m[1] : null;
}

/* The address of exercise id's document. */
export function exerciseUrl(id) {
  return `/api/tasks/${encodeURIComponent(id)}`;
}

/*
 * The server's exercise, or null when a field the page needs is missing
 * or of the wrong shape: id, title, signature, starter, submit_url
 * (strings; brief and subtitle may be empty); api ([{name, type,
 * meaning}]); input {name, n, planes} and output {n, planes} (counts);
 * parameter {name, values (ints)}; visible (input.planes rows of input.n
 * numbers); tolerance {atol, rtol}; loop_budget, max_source_bytes.
 */
export function readExercise(raw) {
  if (!raw || typeof raw !== 'object') return null;
  const { input, output, parameter, visible, tolerance } = raw;
  const ok = ['id', 'title', 'signature', 'starter', 'submit_url'].every((k) => isString(raw[k])) &&
    ID.test(raw.id) && raw.submit_url.startsWith('/') &&
    Array.isArray(raw.api) && raw.api.every((a) => a && isString(a.name) && isString(a.type) && isString(a.meaning)) &&
    input && isString(input.name) && isCount(input.n) && isCount(input.planes) &&
    output && isCount(output.n) && isCount(output.planes) &&
    parameter && isString(parameter.name) && Array.isArray(parameter.values) &&
    parameter.values.length > 0 && parameter.values.every(Number.isInteger) &&
    Array.isArray(visible) && visible.length === input.planes &&
    visible.every((row) => Array.isArray(row) && row.length === input.n && row.every(Number.isFinite)) &&
    tolerance && Number.isFinite(tolerance.atol) && Number.isFinite(tolerance.rtol) &&
    Number.isInteger(raw.loop_budget) && isCount(raw.max_source_bytes);
  if (!ok) return null;
  return {
    ...raw,
    subtitle: isString(raw.subtitle) ? raw.subtitle : '',
    brief: isString(raw.brief) ? raw.brief : '',
  };
}

/*
 * The course index: the server's list (already in course order) grouped
 * by course, [{course, exercises: [{id, title, subtitle, page, example}]}],
 * the groups in the order their first exercise comes; an exercise of no
 * course is in the group whose course is ''. Entries without an id, a
 * title or a page address on this server are left out.
 */
export function courseIndex(list) {
  const groups = [];
  const byCourse = new Map();
  for (const t of Array.isArray(list) ? list : []) {
    if (!t || !isString(t.id) || !ID.test(t.id) || !isString(t.title) ||
        !isString(t.page) || !t.page.startsWith('/')) continue;
    const course = isString(t.course) ? t.course : '';
    if (!byCourse.has(course)) {
      const g = { course, exercises: [] };
      byCourse.set(course, g);
      groups.push(g);
    }
    byCourse.get(course).exercises.push({
      id: t.id, title: t.title, subtitle: isString(t.subtitle) ? t.subtitle : '',
      page: t.page, example: t.example === true,
    });
  }
  return groups;
}

/* The words under the API table: the sweep, the sizes, how close is
 * right and the loop budget, from the definition. */
export function exerciseNote(ex) {
  const values = ex.parameter.values.join(', ');
  return `${ex.parameter.name} takes ${values}; the input ${ex.input.name} is ` +
    `${ex.input.planes} × ${ex.input.n} numbers; one thread writes each of the ` +
    `${ex.output.planes} × ${ex.output.n} output cells; a cell is right within ` +
    `${ex.tolerance.atol} + ${ex.tolerance.rtol} × |expected|; each thread may take ` +
    `${ex.loop_budget} loop iterations.`;
}

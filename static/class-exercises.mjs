// class-exercises.mjs - the class view's exercises: the choice of one
// (?task=ID on its requests), each exercise's line of the summary, and
// each student's progress across them (a row per student, a cell per
// exercise). Pure: no DOM, tested in node (tests/page/).

/* path with ?task=ID added when an exercise is chosen ('' : all of them). */
export function withTask(path, task) {
  if (!task) return path;
  return path + (path.includes('?') ? '&' : '?') + `task=${encodeURIComponent(task)}`;
}

/* The words of one exercise's line in the summary (an entry of the
 * summary's "exercises"). */
export function exerciseLine(x) {
  const tried = `${x.submitted} student${x.submitted === 1 ? '' : 's'} tried it`;
  return `${x.title}: ${tried}, ${x.accepted} passed, ${x.records} `
    + `attempt${x.records === 1 ? '' : 's'}`;
}

/* A student's cell for exercise id from their tile's progress: its text
 * ("9/9 · 2 attempts ✓", "–" when never tried) and whether it passed. */
export function progressCell(tile, id) {
  const p = tile.progress && tile.progress[id];
  if (!p || !p.attempts) return { text: '–', passed: false, tried: false };
  const n = `${p.attempts} attempt${p.attempts === 1 ? '' : 's'}`;
  return {
    text: `${p.best_points}/${p.max_points} · ${n}${p.accepted ? ' · passed' : ''}`,
    passed: p.accepted,
    tried: true,
  };
}

/* The progress table: the header (the exercises' titles) and a row per
 * tile (sorted by name, then id), each its name and a cell per exercise. */
export function progressRows(tiles, exercises) {
  const header = exercises.map((x) => x.title);
  const rows = [...tiles]
    .sort((a, b) => (a.name || '').localeCompare(b.name || '') || a.id.localeCompare(b.id))
    .map((t) => ({ id: t.id, name: t.name || t.id, cells: exercises.map((x) => progressCell(t, x.id)) }));
  return { header, rows };
}

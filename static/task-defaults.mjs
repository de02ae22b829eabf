// task-defaults.mjs - the task as the page knows it before the server has
// answered, or when it cannot answer: the same data GET /api/tasks/butterfly
// serves. The server's answer always wins.

export const DEFAULT_TASK = Object.freeze({
  id: 'butterfly',
  title: 'The Butterfly: One Thread, One Output',
  subtitle: 'Task 2 of 6',
  signature: 'float butterfly(/* this, half, spectrum */) {',
  starter:
    '// One thread computes one output cell: index this.thread.x,\n' +
    '// plane this.thread.y (0 real, 1 imaginary).\n' +
    'int i = this.thread.x;\n' +
    '\n' +
    '// Which member of the pair am I, where is its lower member, and\n' +
    '// where am I inside the half-block?\n' +
    'int j = 0;     // TODO\n' +
    'int base = 0;  // TODO\n' +
    'int r = 0;     // TODO\n' +
    '\n' +
    '// a = spectrum[.][base], b = spectrum[.][base + half],\n' +
    '// w = exp(-i * PI * r / half). Return a + w*b at the lower\n' +
    '// member and a - w*b at the upper one.\n' +
    'return spectrum[this.thread.y][i];\n',
  api: [
    { name: 'this.thread.x', type: 'int', meaning: 'output index i, 0..7' },
    { name: 'this.thread.y', type: 'int', meaning: 'plane of the output cell: 0 real, 1 imaginary' },
    { name: 'half', type: 'int', meaning: "the pass's half-block size: 1, 2 or 4" },
    { name: 'spectrum[p][k]', type: 'float', meaning: 'plane p (0 real, 1 imaginary) of input element k' },
    { name: 'PI', type: 'float', meaning: 'pi' },
  ],
  visible: [
    [1.0, -0.5, 2.25, 0.75, -1.5, 3.0, 0.375, -2.125],
    [0.5, 1.25, -0.875, 2.0, -1.0, 0.125, 1.625, -0.25],
  ],
  halves: [1, 2, 4],
  hidden_per_half: 8,
  tolerance: { atol: 0.005, rtol: 0.001 },
  max_source_bytes: 65536,
});

/* The server's task over the defaults, field by field, keeping a default
 * wherever the server's value has the wrong shape. */
export function mergeTask(server) {
  const t = { ...DEFAULT_TASK };
  if (!server || typeof server !== 'object') return t;
  for (const key of ['id', 'title', 'subtitle', 'signature', 'starter']) {
    if (typeof server[key] === 'string') t[key] = server[key];
  }
  if (Array.isArray(server.api) && server.api.every((a) => a && typeof a.name === 'string')) t.api = server.api;
  if (Array.isArray(server.visible) && server.visible.length === 2 &&
      server.visible.every((p) => Array.isArray(p) && p.length === 8 && p.every(Number.isFinite))) {
    t.visible = server.visible;
  }
  if (Array.isArray(server.halves) && server.halves.length && server.halves.every(Number.isInteger)) t.halves = server.halves;
  if (Number.isInteger(server.hidden_per_half)) t.hidden_per_half = server.hidden_per_half;
  if (server.tolerance && Number.isFinite(server.tolerance.atol) && Number.isFinite(server.tolerance.rtol)) {
    t.tolerance = server.tolerance;
  }
  if (Number.isInteger(server.max_source_bytes) && server.max_source_bytes > 0) t.max_source_bytes = server.max_source_bytes;
  return t;
}

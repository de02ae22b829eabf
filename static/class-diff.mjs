// class-diff.mjs - a line diff of two attempts (longest common
// subsequence), for the class view's history. Pure: no DOM.

// Lines past this are compared as one block each side (a kernel body is
// small; this bounds the table at 2,000 x 2,000 cells).
const MAX_LINES = 2000;

/*
 * The diff of text a (before) and b (after) as [{op, text}], op ' ' kept,
 * '-' removed, '+' added, in the order a reader goes through them.
 */
export function lineDiff(a, b) {
  const x = String(a).split('\n');
  const y = String(b).split('\n');
  if (x.length > MAX_LINES || y.length > MAX_LINES) {
    return [...x.map((t) => ({ op: '-', text: t })), ...y.map((t) => ({ op: '+', text: t }))];
  }
  const n = x.length;
  const m = y.length;
  // lcs[i][j]: the longest common subsequence of x[i..] and y[j..]
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: ' ', text: x[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ op: '-', text: x[i++] });
    } else {
      out.push({ op: '+', text: y[j++] });
    }
  }
  while (i < n) out.push({ op: '-', text: x[i++] });
  while (j < m) out.push({ op: '+', text: y[j++] });
  return out;
}

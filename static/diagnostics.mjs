// diagnostics.mjs - compile errors placed on the body the student wrote.
// The grader numbers lines from the body's first line; a line one past the
// body's last means "after your code", at the fixed closing brace. Pure.

/* The heading over the list of diagnostics, by what they are about (a
 * verdict's kind, or 'loop' for a loop past the budget); `other` for the
 * rest. Both pages title the list from here. */
export const DIAGNOSTICS_TITLES = Object.freeze({
  compile: 'Compiler messages',
  rejected: 'Why the grader refused it',
  loop: 'Where your kernel ran past the loop budget',
  other: 'Messages about your code',
});

/*
 * Returns one entry per diagnostic:
 *   {line, column, severity, message, original, afterCode, from, to, text}
 * where line is clamped into the body (1..lines), from/to are character
 * offsets into the body for an editor mark (the rest of the word at the
 * column, a point for the column just past the line's end, or the whole
 * line when no column is known; the end of the body for afterCode;
 * columns count UTF-16 code units, as the grader does), text is the sentence shown in the list, and original is
 * the compiler's own words when the grader rewrote them (else null).
 */
export function placeDiagnostics(diagnostics, body) {
  const text = typeof body === 'string' ? body : '';
  const lines = text.split('\n');
  // As the grader counts: a final newline ends the last line rather than
  // starting one, and the closing brace is the line after the last.
  const bodyLines = text === '' ? 0 : (text.endsWith('\n') ? lines.length - 1 : lines.length);
  const starts = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const list = Array.isArray(diagnostics) ? diagnostics : [];
  return list.map((d) => {
    const severity = ['error', 'warning', 'info'].includes(d && d.severity) ? d.severity : 'error';
    // The grader's own checks may start the message with "line N: "; the
    // list says where already.
    const message = d && typeof d.message === 'string' ? d.message.replace(/^line \d+:\s*/i, '') : 'error';
    const original = d && typeof d.original === 'string' && d.original.trim() && d.original.trim() !== message
      ? d.original.trim() : null;
    let line = d && Number.isInteger(d.line) ? d.line : 1;
    const afterCode = line > bodyLines;
    if (line < 1) line = 1;
    let from;
    let to;
    let column = d && Number.isInteger(d.column) && d.column >= 1 ? d.column : null;
    if (afterCode) {
      from = text.length;
      to = text.length;
      column = null;
    } else {
      const lineText = lines[line - 1];
      const start = starts[line - 1];
      if (column !== null && column === lineText.length + 1) {
        // Just past the line's code (a missing ';'): a point at its end.
        from = start + lineText.length;
        to = from;
      } else if (column !== null && column <= lineText.length) {
        const rest = lineText.slice(column - 1);
        const word = /^[A-Za-z0-9_.]+/.exec(rest);
        from = start + column - 1;
        to = from + (word ? word[0].length : 1);
      } else {
        // The whole line, less its indentation; an empty line gets a point.
        const indent = /^\s*/.exec(lineText)[0].length;
        from = start + Math.min(indent, lineText.length);
        to = start + lineText.length;
      }
    }
    const where = afterCode
      ? 'After your code (at the closing brace)'
      : `Line ${line}${column !== null ? `, column ${column}` : ''}`;
    return { line: afterCode ? bodyLines + 1 : line,
      column, severity, message, original, afterCode, from, to, text: `${where}: ${message}` };
  });
}

/*
 * The diagnostics of a verdict model (verdict.mjs) to place on the body:
 * its own list, plus one on the line of a loop past the budget (model.loop)
 * when the list has nothing there, so the editor marks that line whatever
 * the grader's version sends.
 */
export function verdictDiagnostics(model) {
  const list = model ? model.diagnostics.filter((d) => d && typeof d === 'object') : [];
  const loop = model ? model.loop : null;
  if (loop && !list.some((d) => d.line === loop.line)) {
    const limit = loop.limit !== null ? `more than ${loop.limit} times` : 'past the budget';
    return [...list, { line: loop.line, column: null, severity: 'error', message: `this loop ran ${limit}` }];
  }
  return list;
}

// helpers.mjs - fixtures for the page's unit tests, stored beside this
// file: verdicts the real grader produced for three of tests/samples
// (correct, wrong twiddle sign, compile error on line 4), and verdicts in
// the contract's newer fields written by hand until the grader sends them
// (docs/VERDICT.md plus worked_cell, worked_cells, loop): the wrong twiddle
// sign and the copied visible answers with their worked cells, and an
// endless loop. fixture('NAME') reads verdict-NAME.json.
import { readFileSync } from 'node:fs';

export function fixture(name) {
  return JSON.parse(readFileSync(new URL(`./verdict-${name}.json`, import.meta.url), 'utf8'));
}

/* A Storage look-alike; with `failing` every call throws, as Safari's
 * private mode and a full quota do. */
export function fakeStorage({ failing = false } = {}) {
  const map = new Map();
  const guard = () => {
    if (failing) throw new Error('QuotaExceededError');
  };
  return {
    map,
    getItem(k) { guard(); return map.has(k) ? map.get(k) : null; },
    setItem(k, v) { guard(); map.set(k, String(v)); },
    removeItem(k) { guard(); map.delete(k); },
  };
}

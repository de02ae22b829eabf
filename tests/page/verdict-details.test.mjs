import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HINT_LEAD, SUMMARY_LEAD, verdictDetails } from '../../static/verdict-details.mjs';
import { readVerdict } from '../../static/verdict.mjs';
import { fixture } from './helpers.mjs';

// An exercise's page (/tasks/ID) shows, under a verdict's status and
// message, what a student reads to fix the kernel: the named mistake its
// outputs proved (title, explanation, "Look at: HINT"), else where it
// fails, and a Compilation Error's messages, one per line of the body.

/* A stand-in for dom.mjs's h(): plain objects, so that what the page
 * would build can be read whole. */
const h = (tag, attrs = {}, ...children) => ({ tag, attrs,
  children: children.filter((c) => c !== null && c !== undefined && c !== false) });
const textOf = (n) => (typeof n === 'string' ? n : n.children.map(textOf).join(''));
const all = (n, pred, out = []) => {
  if (typeof n === 'string') return out;
  if (pred(n)) out.push(n);
  for (const c of n.children) all(c, pred, out);
  return out;
};
const root = (nodes) => h('div', {}, ...nodes);

/* A mistake's header line (// title: ..., // hint: ...), as the exercise's author wrote it. */
function header(file, key) {
  const lines = readFileSync(new URL(`../../exercises/${file}`, import.meta.url), 'utf8').split('\n');
  return lines.filter((l) => l.startsWith(`// ${key}: `)).map((l) => l.slice(key.length + 5)).join(' ');
}

test('a named mistake: its title as a heading, its explanation, and "Look at:" its hint', () => {
  const { nodes, placed } = verdictDetails(readVerdict(fixture('bit_reversal-wrong_mirrored')), '', h);
  assert.deepEqual(placed, []);
  assert.equal(nodes.length, 1);
  const box = nodes[0];
  assert.equal(box.attrs.className, 'diagnosis');
  assert.equal(box.attrs['data-id'], 'mirrored');
  const [title, explanation, hint] = box.children;
  assert.equal(title.tag, 'h3');
  assert.equal(textOf(title), header('bit_reversal/mistakes/mirrored.glsl', 'title'));
  assert.equal(textOf(explanation), header('bit_reversal/mistakes/mirrored.glsl', 'explanation'));
  assert.equal(textOf(hint), HINT_LEAD + header('bit_reversal/mistakes/mirrored.glsl', 'hint').replace(/`/g, ''));
  assert.ok(textOf(hint).startsWith('Look at: Write k in binary'));
  // the hint's `bits` is code, as the grader's messages quote it
  assert.deepEqual(all(hint, (n) => n.tag === 'code').map(textOf), ['bits']);
});

test('a mistake without a hint has no "Look at:" line', () => {
  const raw = fixture('bit_reversal-wrong_mirrored');
  const { nodes } = verdictDetails(readVerdict({ ...raw, diagnosis: { ...raw.diagnosis, hint: '' } }), '', h);
  assert.equal(nodes[0].children.length, 2);
  assert.ok(!textOf(root(nodes)).includes(HINT_LEAD));
});

test('a Wrong Answer without a diagnosis says where it fails; with neither, nothing is added', () => {
  const raw = fixture('bit_reversal-wrong_mirrored');
  const { nodes } = verdictDetails(readVerdict({ ...raw, diagnosis: null, summary: 'Wrong on hidden inputs only.' }), '', h);
  assert.equal(nodes.length, 1);
  assert.equal(textOf(nodes[0]), `${SUMMARY_LEAD}Wrong on hidden inputs only.`);
  assert.deepEqual(verdictDetails(readVerdict({ ...raw, diagnosis: null, summary: null }), '', h).nodes, []);
  assert.deepEqual(verdictDetails(readVerdict(fixture('correct')), '', h).nodes, []);
  assert.deepEqual(verdictDetails(null, '', h).nodes, []);
});

test('a Compilation Error lists every diagnostic on its own line of the body', () => {
  const source = readFileSync(new URL('./bit_reversal-two_errors.glsl', import.meta.url), 'utf8');
  const { nodes, placed } = verdictDetails(readVerdict(fixture('bit_reversal-two_errors')), source, h);
  assert.deepEqual(placed.map((d) => [d.line, d.column]), [[2, 11], [3, 23]]);
  assert.equal(nodes.length, 1);
  const [title, list] = nodes[0].children;
  assert.equal(textOf(title), 'Compiler messages');
  const items = list.children;
  assert.deepEqual(items.map((li) => li.attrs['data-line']), [2, 3]);
  assert.ok(textOf(items[0]).startsWith("Line 2, column 11: 'nope' is not declared"), textOf(items[0]));
  assert.ok(textOf(items[1]).startsWith("Line 3, column 23: 'alsonope' is not declared"), textOf(items[1]));
  // the compiler's own words, folded under the plain ones
  assert.ok(textOf(items[0]).includes("'nope' : undeclared identifier"));
});

test('a verdict\'s text stays text: markup in it is a text child, never an attribute or element', () => {
  const raw = fixture('bit_reversal-wrong_mirrored');
  const evil = '<img src=x onerror=alert(1)>';
  const { nodes } = verdictDetails(readVerdict({ ...raw,
    diagnosis: { id: '"><b>', title: evil, explanation: evil, hint: evil } }), '', h);
  const tags = all(root(nodes), () => true).map((n) => n.tag);
  assert.deepEqual(tags, ['div', 'div', 'h3', 'p', 'p']);
  assert.deepEqual(nodes[0].children.map(textOf), [evil, evil, HINT_LEAD + evil]);
});

// hints.test.mjs - the hint a diagnosis links to is the hint its text
// names (issue 32 item 6): one table (HINTS in verdict.mjs), checked
// against the page's hints and the grader's names, for every step of the
// recipe and every hint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HINTS, hintNumberOf, readVerdict } from '../../static/verdict.mjs';

const read = (rel) => readFileSync(new URL(rel, import.meta.url), 'utf8');
const STEPS = ['i', 'j', 'base', 'r', 'read', 'w', 'wb', 'sign', 'plane'];

test('the table is the page\'s hints and the grader\'s names, each step covered by one hint', () => {
  const html = read('../../static/index.html');
  const summaries = [...html.matchAll(/<details id="hint-(\d)">\s*<summary>([^<]*)<\/summary>/g)]
    .map(([, n, name]) => ({ number: Number(n), name }));
  assert.deepEqual(summaries, HINTS.map(({ number, name }) => ({ number, name })));
  const family = read('../../grader/engine/diagnosis/family.c');
  const names = family.slice(family.indexOf('hint_names[]'), family.indexOf('};', family.indexOf('hint_names[]')));
  assert.deepEqual([...names.matchAll(/"(Hint [^"]*)"/g)].map((x) => x[1]), HINTS.map((h) => h.name));
  const owners = STEPS.map((s) => HINTS.filter((h) => h.steps.includes(s)).length);
  assert.deepEqual(owners, STEPS.map(() => 1), 'every step in exactly one hint');
  // and the steps are the contract's (docs/VERDICT.md)
  const contract = read('../../docs/VERDICT.md').match(/`step` is the recipe step it leads with \(([^)]*)\)/)[1];
  assert.deepEqual(contract.split(',').map((x) => x.trim().replace(/`/g, '')), STEPS);
});

test('every step with every hint: the link is the hint the text names', () => {
  for (const step of STEPS) {
    for (const h of HINTS) {
      const text = `${h.name} do this and that`;
      assert.equal(hintNumberOf(step, text), h.number, `${step} with "${text}"`);
      const d = readVerdict({ status: { id: 4, slug: 'wrong_answer' }, diagnosis: { id: 'x', step, title: 't', hint: text } }).diagnosis;
      assert.equal(d.hintNumber, h.number);
    }
    // a text that names no hint: the hint that covers the step
    const covering = HINTS.find((h) => h.steps.includes(step)).number;
    assert.equal(hintNumberOf(step, 'Check the sign.'), covering);
    assert.equal(hintNumberOf(step, null), covering);
  }
  assert.equal(hintNumberOf(null, null), null);
  assert.equal(hintNumberOf('elsewhere', 'Look again.'), null);
});

test('the grader\'s verdicts on tests/samples/mistakes: the link matches the text, the starter\'s too', () => {
  const verdicts = JSON.parse(read('./mistake-verdicts.json'));
  let seen = 0;
  for (const [name, raw] of Object.entries(verdicts)) {
    const d = readVerdict(raw).diagnosis;
    if (!d || !d.hint) continue;
    seen += 1;
    const named = Number(d.hint.match(/^Hint (\d)/)[1]);
    assert.equal(d.hintNumber, named, `${name}: the text says hint ${named}, the link ${d.hintNumber}`);
  }
  assert.ok(seen >= 30, `${seen} hints`);
  // the starter (it returns its own input): its step is the plane, its hint 1
  const starter = readVerdict(verdicts.copies_input).diagnosis;
  assert.equal(starter.step, 'plane');
  assert.match(starter.hint, /^Hint 1 — which pair am I in\?/);
  assert.equal(starter.hintNumber, 1);
});

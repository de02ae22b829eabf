// e2e.mjs - the exercise page end to end, in headless Chromium driven by
// playwright-core, against a running server.
//
//   BUTTERFLY_URL=http://127.0.0.1:PORT/ node tests/browser/e2e.mjs
//
// Env: BUTTERFLY_URL (required) the server's root; BUTTERFLY_ARTIFACTS
// (default /tmp) where screenshots go; CHROMIUM (default /usr/bin/chromium).
// Prints one line per check and ends with "N passed, M failed"; exits 1
// when a check failed, 2 when it could not start.

import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = path.resolve(here, '..', 'samples');
const sample = (name) => readFileSync(path.join(samples, `${name}.glsl`), 'utf8');

const base = process.env.BUTTERFLY_URL;
if (!base) {
  console.error('e2e: set BUTTERFLY_URL to the server, e.g. http://127.0.0.1:8080/');
  process.exit(2);
}
const root = new URL('/', base).href;
const origin = new URL(root).origin;
const artifacts = process.env.BUTTERFLY_ARTIFACTS || '/tmp';
mkdirSync(artifacts, { recursive: true });
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const RUN_TIMEOUT = 60000;

function check(cond, message) {
  if (!cond) throw new Error(message);
}

const results = [];
async function step(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`FAIL ${name}: ${error && error.message ? error.message.split('\n')[0] : error}`);
    if (page) await shot(`fail-${results.length}`).catch(() => {});
  }
}

let browser;
let context;
let page;
const foreign = [];
const pageErrors = [];
const consoleErrors = [];

async function shot(name, options = {}) {
  await page.screenshot({ path: path.join(artifacts, `butterfly-${name}.png`), fullPage: true, ...options });
}

async function waitReady() {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
}

/* Replaces the editor's text as a student would: select all, then type. */
async function typeBody(body) {
  const kind = await page.getAttribute('#editor', 'data-kind');
  if (kind === 'codemirror') {
    await page.click('#editor .cm-content');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(body);
  } else {
    await page.fill('#editor textarea', body);
  }
}

async function editorText() {
  return page.evaluate(() => {
    const ta = document.querySelector('#editor textarea');
    if (ta) return ta.value;
    return [...document.querySelectorAll('#editor .cm-content .cm-line')].map((l) => l.textContent).join('\n');
  });
}

async function run({ keyboard = false } = {}) {
  if (keyboard) await page.keyboard.press('ControlOrMeta+Enter');
  else await page.click('#run');
  await page.waitForFunction(() => {
    const v = document.querySelector('#verdict');
    return v.dataset.tone !== 'running' && !document.querySelector('#run[aria-busy]');
  }, null, { timeout: RUN_TIMEOUT });
}

async function cellStates(half) {
  return page.$$eval(`.half-grid[data-half="${half}"] .cell`, (cells) => cells.map((c) => ({
    x: Number(c.dataset.x), y: Number(c.dataset.y), state: c.dataset.state,
    green: c.classList.contains('pass'), label: c.getAttribute('aria-label'),
    mark: c.querySelector('.mark').textContent,
  })));
}

async function main() {
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // Console errors include Content-Security-Policy refusals and failed loads.
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });

  await step('the page loads with its brief, editor, API table and network', async () => {
    await page.goto(root);
    await waitReady();
    check((await page.textContent('h1')).includes('The Butterfly: One Thread, One Output'), 'title');
    check((await page.textContent('#task-subtitle')).includes('Task 2 of 6'), 'subtitle');
    check(await page.getAttribute('#editor', 'data-kind') === 'codemirror', 'CodeMirror editor (is static/editor.bundle.js built?)');
    const text = await editorText();
    check(text.includes('int i = this.thread.x;'), 'the starter is in the editor');
    check((await page.textContent('.cm-fixed-signature')).includes('float butterfly('), 'the fixed signature line');
    check((await page.$$('#api-body tr')).length >= 5, 'the API table');
    check((await page.$$('#network svg .net-node')).length === 32, '32 nodes in the network');
    check((await page.$$('#network svg .net-edge')).length === 48, '48 edges in the network');
    check((await page.$$('.hints details:not([open])')).length === 3, 'three hints, all closed');
    check((await page.$$('.course-tasks li')).length === 6, 'six tasks listed');
    check(await page.getAttribute('.course-tasks li:nth-child(2)', 'aria-current') === 'step', 'task 2 marked');
    await shot('1-start');
  });

  await step('the correct body: every cell of every half green, every requirement ticked', async () => {
    await typeBody(sample('correct'));
    await run();
    check((await page.textContent('#verdict')).includes('Accepted'), `verdict: ${await page.textContent('#verdict')}`);
    for (const half of [1, 2, 4]) {
      const cells = await cellStates(half);
      check(cells.length === 16, `half ${half}: 16 cells, got ${cells.length}`);
      const red = cells.filter((c) => !c.green || c.state !== 'pass' || c.mark !== '✓');
      check(red.length === 0, `half ${half}: ${red.length} cells not green`);
    }
    const states = await page.$$eval('[data-req]', (lis) => lis.map((li) => li.dataset.state));
    check(states.length === 7 && states.every((s) => s === 'pass'), `requirements: ${states.join(',')}`);
    const ticks = await page.$$eval('[data-req] > .tick', (ts) => ts.map((t) => getComputedStyle(t, '::before').content));
    check(ticks.every((t) => t.includes('✓')), 'each requirement shows a ✓');
    check(await page.isVisible('#passed-badge'), 'the passed badge shows');
    await shot('2-correct');
  });

  await step('the wrong twiddle sign: half 1 green, halves 2 and 4 red', async () => {
    await typeBody(sample('wrong_twiddle_sign'));
    await run({ keyboard: true });
    check((await page.textContent('#verdict')).includes('Wrong answer'), 'Wrong answer verdict');
    const h1 = await cellStates(1);
    check(h1.length === 16 && h1.every((c) => c.green), 'half 1 all green');
    for (const half of [2, 4]) {
      const cells = await cellStates(half);
      const red = cells.filter((c) => !c.green);
      check(red.length > 0 && red.every((c) => c.mark === '✗'), `half ${half} has red ✗ cells`);
      check(await page.getAttribute(`.half-grid[data-half="${half}"]`, 'data-passed') === 'false', `half ${half} marked wrong`);
    }
    const req = await page.$$eval('[data-req]', (lis) => Object.fromEntries(lis.map((li) => [li.dataset.req, li.dataset.state])));
    check(req['half-1'] === 'pass' && req['half-2'] === 'fail' && req['half-4'] === 'fail', `checklist ${JSON.stringify(req)}`);
    const wrongCell = (await cellStates(2)).find((c) => !c.green);
    check(/expected .*, got .*, wrong$/.test(wrongCell.label), `aria-label: ${wrongCell.label}`);
    // Hover shows expected and got.
    await page.hover(`.cell[data-half="2"][data-x="${wrongCell.x}"][data-y="${wrongCell.y}"]`);
    const tip = await page.locator(`.cell[data-half="2"][data-x="${wrongCell.x}"][data-y="${wrongCell.y}"] .tip`);
    check(await tip.isVisible(), 'tooltip on hover');
    check(/expected[\s\S]*got/.test(await tip.textContent()), 'tooltip text');
    // The same data as an accessible table: 3 halves x 16 rows.
    await page.click('.result-table summary');
    const rows = await page.$$eval('#result-table tbody tr', (trs) => trs.map((tr) => tr.lastElementChild.textContent));
    check(rows.length === 48, `table rows: ${rows.length}`);
    check(rows.filter((t) => t.includes('wrong')).length === (await page.$$('.cell.fail')).length, 'table agrees with the grid');
    await shot('3-wrong-twiddle');
  });

  await step('a compile error: a marker on line 4 with the message', async () => {
    const body = sample('compile_error_line3');
    const line = Number(/error-line:\s*(\d+)/.exec(body)[1]);
    await typeBody(body);
    await run();
    check((await page.textContent('#verdict')).includes('Compilation error'), 'Compilation error verdict');
    const marked = await page.$$eval('#editor .cm-content .cm-line', (lines) => lines
      .map((l, k) => (l.classList.contains('cm-errorLine') ? k + 1 : 0)).filter(Boolean));
    check(marked.length === 1 && marked[0] === line, `error line marked: ${marked} (want ${line})`);
    check(await page.$('#editor .cm-lintRange-error') !== null, 'the error range is underlined');
    check((await page.$$('#editor .cm-gutter-lint .cm-lint-marker-error')).length === 1, 'one marker in the gutter');
    const gutterLine = await page.evaluate(() => {
      const m = document.querySelector('#editor .cm-lint-marker-error').getBoundingClientRect();
      const nums = [...document.querySelectorAll('#editor .cm-lineNumbers .cm-gutterElement')];
      const hit = nums.find((n) => { const r = n.getBoundingClientRect(); return r.top <= m.top + 2 && r.bottom >= m.bottom - 2; });
      return hit ? hit.textContent : null;
    });
    check(gutterLine === String(line), `gutter marker beside line number ${gutterLine}`);
    const listed = await page.textContent('#diagnostics-list');
    check(listed.includes(`Line ${line}`) && listed.includes('undefined_name'), `listed: ${listed}`);
    await shot('4-compile-error');
  });

  await step('reload: the draft and the last result are back', async () => {
    const before = await editorText();
    await page.reload();
    await waitReady();
    const after = await editorText();
    check(after === before, 'the draft is back');
    const verdict = await page.textContent('#verdict');
    check(verdict.includes('Compilation error') && verdict.includes('Saved result'), `restored verdict: ${verdict}`);
    check((await page.$$('#editor .cm-line.cm-errorLine')).length === 1, 'the marker is back');
    // A restored wrong answer brings its grids back too.
    await typeBody(sample('wrong_twiddle_sign'));
    await run();
    await page.reload();
    await waitReady();
    check((await editorText()).includes('cos(PI * float(r)'), 'the new draft is back');
    check((await cellStates(1)).every((c) => c.green), 'half 1 green after reload');
    check((await cellStates(2)).some((c) => !c.green), 'half 2 red after reload');
    check(await page.isVisible('#passed-badge'), 'the passed flag survives');
    await shot('5-reloaded');
  });

  await step('select a cell: the picture highlights its two inputs', async () => {
    await page.click('.cell[data-half="2"][data-x="5"][data-y="0"]');
    const inputs = () => page.$$eval('#network .net-node.is-input', (ns) => ns.map((n) => `${n.dataset.stage}:${n.dataset.index}`).sort());
    let got = await inputs();
    check(JSON.stringify(got) === JSON.stringify(['1:5', '1:7']), `inputs for i=5, half=2: ${got}`);
    check(await page.$eval('#network .net-node.is-output', (n) => `${n.dataset.stage}:${n.dataset.index}`) === '2:5', 'output node');
    const selected = await page.$$eval('#network .net-edge.selected', (es) => es.map((e) => `${e.dataset.from}->${e.dataset.to}`).sort());
    check(JSON.stringify(selected) === JSON.stringify(['5->5', '7->5']), `selected edges ${selected}`);
    const info = await page.textContent('#selection-info');
    check(/j\s*\(5 \/ 2\) % 2 = 0/.test(info) && info.includes('= 5') && /r\s*5 % 2 = 1/.test(info), `info: ${info}`);
    check(await page.isChecked('input[name="pass-half"][value="2"]'), 'pass half = 2 chosen');
    // From the picture: output 6 of the pass for half = 4 reads 2 and 6.
    await page.click('#network .net-node[data-stage="3"][data-index="6"]');
    got = await inputs();
    check(JSON.stringify(got) === JSON.stringify(['2:2', '2:6']), `inputs for i=6, half=4: ${got}`);
    check(await page.getAttribute('.cell[data-half="4"][data-x="6"][data-y="0"]', 'aria-pressed') === 'true', 'the grid follows the picture');
    // With the keyboard: up from output 6 selects output 5 (reads 1 and 5).
    await page.focus('#network .net-node[data-stage="3"][data-index="6"]');
    await page.keyboard.press('ArrowUp');
    got = await inputs();
    check(JSON.stringify(got) === JSON.stringify(['2:1', '2:5']), `after ArrowUp: ${got}`);
    await page.locator('#results').screenshot({ path: path.join(artifacts, 'butterfly-6-selection.png') });
  });

  await step('keyboard, reset, phone width, no external requests', async () => {
    // Arrow keys move between cells of a grid.
    await page.focus('.cell[data-half="1"][data-x="0"][data-y="0"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => `${document.activeElement.dataset.x},${document.activeElement.dataset.y}`);
    check(focused === '1,1', `arrow keys: focus on ${focused}`);
    // Reset asks first: dismissing keeps the draft, accepting restores the starter.
    const draft = await editorText();
    page.once('dialog', (d) => d.dismiss());
    await page.click('#reset');
    check(await editorText() === draft, 'dismissed reset keeps the draft');
    let asked = '';
    page.once('dialog', (d) => { asked = d.message(); d.accept(); });
    await page.click('#reset');
    check(asked.length > 0, 'reset asked');
    check((await editorText()).includes('int j = 0;     // TODO'), 'accepted reset restores the starter');
    // Readable at 360 px, light and dark, with no sideways scrolling of the page.
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 360, height: 780 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(overflow <= 0, `${scheme}: page wider than 360 px by ${overflow}`);
      await shot(`7-phone-${scheme}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    check(foreign.length === 0, `requests to other hosts: ${foreign.slice(0, 3).join(' ')}`);
    check(pageErrors.length === 0, `page errors: ${pageErrors.slice(0, 3).join(' | ')}`);
    check(consoleErrors.length === 0, `console errors: ${consoleErrors.slice(0, 3).join(' | ')}`);
  });
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  console.log(`FAIL setup: ${error && error.message ? error.message.split('\n')[0] : error}`);
  results.push({ name: 'setup', ok: false });
  exitCode = 2;
} finally {
  if (browser) await browser.close().catch(() => {});
}
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`screenshots in ${artifacts}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? (exitCode || 1) : 0);

// e2e.mjs - the exercise page end to end, in headless Chromium driven by
// playwright-core, against a running server.
//
//   BUTTERFLY_URL=http://127.0.0.1:PORT/ node tests/browser/e2e.mjs
//
// Env: BUTTERFLY_URL (required) the server's root; BUTTERFLY_ARTIFACTS
// (default /tmp) where screenshots go, its old butterfly-*.png removed first
// when set; CHROMIUM (default /usr/bin/chromium).
// Prints one line per check and ends with "N passed, M failed"; exits 1
// when a check failed, 2 when it could not start.

import { readFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = path.resolve(here, '..', 'samples');
const sample = (name) => readFileSync(path.join(samples, `${name}.glsl`), 'utf8');
// Verdicts in the contract's newer fields (worked cells, endless loops),
// written by hand in tests/page/ until the grader sends them; the page is
// shown them by answering its submission in place of the server.
const verdictFixture = (name) => readFileSync(path.resolve(here, '..', 'page', `verdict-${name}.json`), 'utf8');
const SUBMIT_ROUTE = '**/api/tasks/butterfly/submissions';
const LOOP_BODY = 'int n = 0;\nfor (int k = 0; k < 1; k += 0) { n++; }\nreturn float(n);\n';

const base = process.env.BUTTERFLY_URL;
if (!base) {
  console.error('e2e: set BUTTERFLY_URL to the server, e.g. http://127.0.0.1:8080/');
  process.exit(2);
}
const root = new URL('/', base).href;
const origin = new URL(root).origin;
const artifacts = process.env.BUTTERFLY_ARTIFACTS || '/tmp';
mkdirSync(artifacts, { recursive: true });
// Screenshots of an earlier run would pass for this one's; cleared only in
// a folder of our own, never in the shared default.
if (process.env.BUTTERFLY_ARTIFACTS) {
  for (const f of readdirSync(artifacts)) if (/^butterfly-.*\.png$/.test(f)) rmSync(path.join(artifacts, f));
}
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

/* Runs with the server's answer replaced by `body` (a JSON string). */
async function runAnswered(body, options) {
  await page.route(SUBMIT_ROUTE, (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
  try {
    await run(options);
  } finally {
    await page.unroute(SUBMIT_ROUTE);
  }
}

/* Where an element is on the page (not the viewport, which may scroll). */
async function rect(selector) {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left + scrollX, right: r.right + scrollX, top: r.top + scrollY, bottom: r.bottom + scrollY };
  });
}

async function inViewport(selector) {
  return page.$eval(selector, (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; });
}

/* The worked-cell panel: its data attributes, its text and its steps. */
async function worked() {
  return page.$eval('#worked', (w) => ({
    hidden: w.hidden, ...w.dataset, text: w.textContent.replace(/\s+/g, ' '),
    steps: Object.fromEntries([...w.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent])),
  }));
}

/* How many columns of the editor's font its text area shows, and whether
 * it wraps long lines instead. */
async function editorColumns() {
  return page.evaluate(() => {
    const line = document.querySelector('#editor .cm-line');
    const scroller = document.querySelector('#editor .cm-scroller');
    if (!line || !scroller) {
      const ta = document.querySelector('#editor textarea');
      const cs = getComputedStyle(ta);
      const probe = document.createElement('span');
      probe.style.font = cs.font;
      probe.textContent = 'x'.repeat(10);
      document.body.append(probe);
      const ch = probe.getBoundingClientRect().width / 10;
      probe.remove();
      return { room: ta.clientWidth / ch, wraps: cs.whiteSpace !== 'pre' && cs.overflowWrap !== 'normal' };
    }
    const probe = document.createElement('span');
    probe.textContent = 'x'.repeat(10);
    line.append(probe);
    const ch = probe.getBoundingClientRect().width / 10;
    probe.remove();
    const gutters = document.querySelector('#editor .cm-gutters');
    const pad = parseFloat(getComputedStyle(line).paddingLeft) + parseFloat(getComputedStyle(line).paddingRight);
    const room = (scroller.clientWidth - (gutters ? gutters.getBoundingClientRect().width : 0) - pad) / ch;
    return { room, wraps: Boolean(document.querySelector('#editor .cm-lineWrapping')) };
  });
}

/* The selectors' shown elements that something else lies over: each is
 * scrolled to the middle of the window and the topmost element at its
 * centre must be itself or inside it. */
async function coveredControls(selectors) {
  return page.evaluate(async (list) => {
    const out = [];
    for (const s of list) {
      for (const el of document.querySelectorAll(s)) {
        if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
        el.scrollIntoView({ block: 'center' });
        await new Promise((resolve) => { requestAnimationFrame(() => resolve()); });
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) continue;
        const top = document.elementFromPoint(r.left + Math.min(r.width / 2, 20), r.top + r.height / 2);
        if (top && top !== el && !el.contains(top)) out.push(`${s} under ${top.tagName.toLowerCase()}.${top.className}`);
      }
    }
    return out;
  }, selectors);
}

/* Whether the worked cell's picture, as the browser draws it, has no two
 * labels (text boxes) overlapping. */
async function pictureLabelsApart() {
  return page.evaluate(() => {
    for (const svg of document.querySelectorAll('#worked svg.worked-picture')) {
      const boxes = [...svg.querySelectorAll('text')].map((t) => t.getBBox());
      for (let x = 0; x < boxes.length; x++) {
        for (let y = x + 1; y < boxes.length; y++) {
          const p = boxes[x], q = boxes[y];
          if (p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height) return false;
        }
      }
    }
    return true;
  });
}

/* WCAG contrast of the comment in the fixed signature line on its background. */
async function signatureCommentContrast() {
  return page.evaluate(() => {
    const line = document.querySelector('.cm-fixed-signature');
    const comment = [...line.querySelectorAll('span > span')].find((s) => s.textContent.startsWith('/*'));
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => {
      const [r, g, b] = rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [hi, lo] = [lum(getComputedStyle(comment).color), lum(getComputedStyle(line).backgroundColor)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  });
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
  // Reduced motion: the page then scrolls to the verdict at once, so a
  // check never measures it halfway.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
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
    // Issue 14: no invented names of other tasks; the course list is the
    // instructor's (static/course.json), empty as shipped.
    check((await page.textContent('#course-position')) === 'Task 2 of 6', 'the course section keeps "Task 2 of 6"');
    check(await page.$eval('#course-links', (l) => l.hidden && l.children.length === 0), 'no course links by default');
    const pageText = await page.textContent('body');
    for (const invented of ['Bit Reversal', 'Chaining the Passes', 'Twiddles from a Table', 'The Inverse Transform', 'Convolution Through']) {
      check(!pageText.includes(invented), `invented task name on the page: ${invented}`);
    }
    // The network figure sits beside the text that introduces it.
    const fig = await rect('#network');
    const brief = await rect('.brief-text');
    check(fig.left >= brief.right, `figure beside the brief: figure left ${fig.left}, text right ${brief.right}`);
    check(fig.top < brief.bottom && fig.bottom > brief.top, 'figure level with the text about it');
    await shot('1-start');
  });

  await step('the task is the server\'s own: every field of /api/tasks/butterfly read and shown', async () => {
    const check2 = await page.evaluate(async () => {
      const answer = await (await fetch('/api/tasks/butterfly')).json();
      const { readTask } = await import('/static/task.mjs');
      const read = readTask(answer);
      const shown = {
        title: document.querySelector('h1').textContent,
        subtitle: document.querySelector('#task-subtitle').textContent,
        api: [...document.querySelectorAll('#api-body tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
        spectrum: [...document.querySelectorAll('#spectrum-body tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
        hidden: document.querySelector('#hidden-count').textContent,
        tolerance: document.querySelector('#tolerance').textContent,
        halves: [...document.querySelectorAll('input[name="pass-half"]')].map((r) => Number(r.value)),
      };
      return { answer, read, shown };
    });
    const { answer, read, shown } = check2;
    const fields = ['id', 'title', 'subtitle', 'signature', 'starter', 'api', 'visible', 'halves', 'hidden_per_half',
      'tolerance', 'max_source_bytes', 'loop_budget', 'submit_url'];
    for (const f of fields) check(f in answer, `the server's task has ${f}`);
    for (const f of Object.keys(answer)) {
      check(JSON.stringify(read[f]) === JSON.stringify(answer[f]), `the page read ${f} as the server sent it`);
    }
    check(shown.title === answer.title && shown.subtitle === answer.subtitle, 'title and subtitle shown');
    check(JSON.stringify(shown.api) === JSON.stringify(answer.api.map((a) => [a.name, a.type, a.meaning])), 'the API table');
    const fmt = (v) => String(Number(v.toFixed(4))).replace('-', '\u2212');
    check(JSON.stringify(shown.spectrum) === JSON.stringify(answer.visible[0].map((re, k) => [String(k), fmt(re), fmt(answer.visible[1][k])])),
      `the visible spectrum: ${JSON.stringify(shown.spectrum)}`);
    check(shown.hidden === String(answer.hidden_per_half), 'hidden spectra per half');
    check(shown.tolerance === `${answer.tolerance.atol} + ${answer.tolerance.rtol}·|expected|`, `tolerance: ${shown.tolerance}`);
    check(JSON.stringify(shown.halves) === JSON.stringify(answer.halves), 'the passes');
    check((await page.textContent('.cm-fixed-signature')).includes(answer.signature), 'the signature line');
    check((await editorText()).trimEnd() === answer.starter.trimEnd(), 'the starter in the editor');
  });

  await step('accessibility findings: the signature comment\'s contrast, no aria-label on plain text', async () => {
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      const ratio = await signatureCommentContrast();
      check(ratio >= 4.5, `${scheme}: the comment in the signature line has contrast ${ratio.toFixed(2)}:1`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // aria-label names widgets and landmarks; on a <p>, <div> or <span>
    // without a role it is not allowed and often not read.
    const plain = await page.$$eval('[aria-label]', (els) => els
      .filter((e) => !e.hasAttribute('role') && ['P', 'DIV', 'SPAN', 'CODE', 'PRE', 'VAR', 'EM', 'STRONG'].includes(e.tagName))
      .map((e) => e.outerHTML.slice(0, 60)));
    check(plain.length === 0, `aria-label on plain elements: ${plain.join(' | ')}`);
    check((await page.textContent('.formula')).replace(/\s+/g, ' ').includes('times'), 'the formula reads "w times b"');
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
    // The page follows the run: the verdict in view, focused and announced.
    check(await page.evaluate(() => document.activeElement && document.activeElement.id) === 'verdict', 'focus on the verdict');
    check(await inViewport('#verdict'), 'the verdict is in view');
    await page.waitForFunction(() => document.querySelector('#announcer').textContent.startsWith('Accepted'), null, { timeout: 2000 });
    // Accepted points to a next step; with no course file, in words.
    const next = await page.textContent('#verdict .next-step');
    check(/Next step:.*task 3 of 6/.test(next), `next step: ${next}`);
    await shot('2-correct');
  });

  await step('the wrong twiddle sign: half 1 green, halves 2 and 4 red', async () => {
    await typeBody(sample('wrong_twiddle_sign'));
    await run({ keyboard: true });
    check((await page.textContent('#verdict')).includes('Wrong answer'), 'Wrong answer verdict');
    // Beside the code: right after Run, the verdict and the editor are on
    // screen together (the editor stays in view beside the results).
    const seen = await page.evaluate(() => {
      const r = (sel) => { const b = document.querySelector(sel).getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; };
      return { verdict: r('#verdict'), editor: r('#editor'), h: window.innerHeight, y: scrollY };
    });
    check(seen.verdict.top >= 0 && seen.verdict.top < seen.h && seen.editor.bottom > 0 && seen.editor.top < seen.h,
      `the verdict and the editor on screen together: ${JSON.stringify(seen)}`);
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
    await page.click('.result-table summary');   // closed again, so later screenshots stay short
    // Each cell shows the expected value under the one got (1280 px wide),
    // and a switch hides them.
    const shown = await page.$eval('.cell[data-half="2"][data-x="1"][data-y="0"]', (c) => ({
      got: c.querySelector('.value').textContent, expected: c.querySelector('.expected').textContent,
      visible: getComputedStyle(c.querySelector('.expected')).display !== 'none' }));
    check(shown.got === '−2.5' && shown.expected === '1.5' && shown.visible, `cell 1 of half 2 shows ${JSON.stringify(shown)}`);
    await page.uncheck('#show-expected');
    check(!(await page.isVisible('.cell[data-half="2"][data-x="1"][data-y="0"] .expected')), 'the switch hides the expected values');
    await page.check('#show-expected');
    // The diagnosis: a title, one sentence, one hint, the rest behind More.
    const diag = await page.$eval('#diagnosis', (d) => ({ id: d.dataset.id, step: d.dataset.step,
      title: d.querySelector('h3').textContent, where: d.querySelector('.diagnosis-where').textContent,
      more: d.querySelector('.diagnosis-more') !== null && !d.querySelector('.diagnosis-more').open,
      hint: d.querySelector('.hint-line a').getAttribute('href') }));
    check(diag.id === 'twiddle_sign' && diag.step === 'w' && diag.title === 'The twiddle turns the wrong way' &&
      diag.hint === '#hint-2' && diag.more && !/^Every cell, on the visible/.test(diag.where), `diagnosis ${JSON.stringify(diag)}`);
    // The worked cell: the grader's, where only the flipped twiddle fits
    // (half = 4, output 1), in the kernel's own numbers (its w solved from
    // the two planes), with its picture.
    let w = await worked();
    check(!w.hidden && w.half === '4' && w.i === '1' && w.plane === '0' && w.matches === 'a_plus_conj_wb', `worked cell ${JSON.stringify(w)}`);
    check(w.text.includes('with its own numbers: your w is e^(iπ/4) where e^(−iπ/4) is due') && !w.text.includes('check j'), `worked text: ${w.text}`);
    const pic = await page.$eval('#worked figure.worked-figure', (f) => ({ role: f.getAttribute('role'),
      values: f.querySelectorAll('svg.values line.arrow').length, twiddle: f.querySelectorAll('svg.twiddle line.arrow').length,
      words: f.getAttribute('aria-label'), legend: f.querySelector('.worked-legend').textContent }));
    check(pic.role === 'img' && pic.values === 6 && pic.twiddle === 2 && pic.words.startsWith('Arrows from 0 in the complex plane: a = ') &&
      pic.words.includes('your w = 0.707 + 0.707i'), `picture ${JSON.stringify(pic)}`);
    check(pic.legend.includes('due: a + w·b = 1.71 − 0.783i') && pic.legend.includes('yours = 1.533 + 3.46i'),
      `the legend names both results with their numbers: ${pic.legend}`);
    check(await page.getAttribute('.cell[data-half="4"][data-x="1"][data-y="0"]', 'aria-pressed') === 'true', 'the worked cell is marked in the grid');
    // Beside the code: at 1280 px the verdict sits right of the editor,
    // and both are on screen after Run.
    const ed = await rect('#editor');
    const vd = await rect('#verdict');
    check(vd.left >= ed.right, `the verdict beside the editor: verdict left ${vd.left}, editor right ${ed.right}`);
    const note = await page.textContent('#checklist-summary');
    check(note.includes('half = 1 is right'), `the checklist says what the run proved: ${note}`);
    // Clicking a cell works that cell instead.
    await page.click('.cell[data-half="4"][data-x="6"][data-y="1"]');
    w = await worked();
    check(w.half === '4' && w.i === '6' && w.plane === '1' && w.text.includes('The cell you picked'), `after a click: ${JSON.stringify(w)}`);
    await page.click('#worked .worked-details summary');
    check(w.steps.j.startsWith('(6 / 4) % 2 = 1: the upper member') && w.steps.base === '6 − 1·4 = 2', `worked steps: ${JSON.stringify(w.steps)}`);
    await shot('3-wrong-twiddle');
  });

  await step('1366×768 and 1920×1080: nothing lies over anything, the editor holds 72 columns, the hint link opens the hint named', async () => {
    for (const [width, height] of [[1366, 768], [1920, 1080]]) {
      await page.setViewportSize({ width, height });
      const fit = await editorColumns();
      check(fit.wraps || fit.room >= 72, `${width}: the editor shows ${fit.room.toFixed(1)} columns`);
      const covered = await coveredControls(['#run', '#reset', '#diagnosis h3', '.hint-line a', '#worked-title',
        '.worked-legend', '#grid-options', '.hints summary', '#elsewhere-title', '#course-title', '.page-footer p']);
      check(covered.length === 0, `${width}: covered: ${covered.join('; ')}`);
      check(await pictureLabelsApart(), `${width}: the picture's drawn labels overlap`);
      // the link, clicked as a student would (no force: the click fails when anything lies over it)
      await page.evaluate(() => { for (const d of document.querySelectorAll('.hints details')) d.open = false; });
      await page.click('#diagnosis .hint-line a', { timeout: 5000 });
      const open = await page.$$eval('.hints details', (ds) => ds.filter((d) => d.open).map((d) => d.id));
      const named = (await page.textContent('#diagnosis .hint-line')).match(/^Hint (\d)/)[1];
      check(open.join() === `hint-${named}`, `${width}: the text names hint ${named}, open: ${open.join()}`);
    }
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.$eval('#worked', (e) => e.scrollIntoView());
    await shot('3b-worked-1366x768', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step('while a run is out: the last result is dimmed and the time counts up', async () => {
    await page.route(SUBMIT_ROUTE, async (route) => {
      await new Promise((resolve) => { setTimeout(resolve, 4000); });
      await route.continue();
    });
    try {
      await page.click('#run');
      await page.waitForTimeout(600);
      const first = await page.textContent('#verdict .verdict-title');
      const stale = await page.$eval('#result-body', (b) => ({ stale: b.dataset.stale, inert: b.inert }));
      check(stale.stale === 'true' && stale.inert, `the previous results are marked stale: ${JSON.stringify(stale)}`);
      check(await page.isVisible('#stale-note'), 'a note says they are from the previous run');
      const opacity = await page.$eval('.grids-block', (g) => Number(getComputedStyle(g).opacity));
      check(opacity < 0.6, `the previous grids are dimmed (opacity ${opacity})`);
      await page.waitForTimeout(1000);
      const later = await page.textContent('#verdict .verdict-title');
      await page.locator('#results').screenshot({ path: path.join(artifacts, 'butterfly-4-running.png') });
      const secs = (t) => Number((/Running… ([\d.]+) s/.exec(t) || [])[1]);
      check(secs(first) >= 0.3 && secs(later) >= secs(first) + 0.7, `elapsed time: "${first}" then "${later}"`);
      await page.waitForFunction(() => document.querySelector('#verdict').dataset.tone !== 'running', null, { timeout: RUN_TIMEOUT });
    } finally {
      await page.unroute(SUBMIT_ROUTE);
    }
    check(await page.$eval('#result-body', (b) => b.dataset.stale) === 'false', 'fresh results are not stale');
    check(!(await page.isVisible('#stale-note')), 'the note goes with the run');
    check(await page.evaluate(() => document.activeElement.id) === 'verdict', 'focus on the verdict');
  });

  await step('typing while a run is out: the verdict is announced but the caret stays in the editor', async () => {
    await page.route(SUBMIT_ROUTE, async (route) => {
      await new Promise((resolve) => { setTimeout(resolve, 1500); });
      await route.continue();
    });
    try {
      await page.click('#run');
      await page.click('#editor .cm-content');
      await page.keyboard.press('ControlOrMeta+End');
      await page.keyboard.type('// still typing');
      await page.waitForFunction(() => document.querySelector('#verdict').dataset.tone !== 'running', null, { timeout: RUN_TIMEOUT });
      await page.keyboard.type(' and more');
    } finally {
      await page.unroute(SUBMIT_ROUTE);
    }
    check(await page.evaluate(() => document.activeElement.classList.contains('cm-content')), 'focus stays in the editor');
    check((await editorText()).includes('// still typing and more'), 'every key went into the editor');
    await page.waitForFunction(() => document.querySelector('#announcer').textContent.startsWith('Wrong answer'), null, { timeout: 2000 });
    await typeBody(sample('wrong_twiddle_sign'));
  });

  await step('worked cells from the grader: its words, and picking a cell works that one', async () => {
    await runAnswered(verdictFixture('wrong_twiddle_sign-worked'));
    let w = await worked();
    check(w.half === '4' && w.i === '1' && w.matches === 'a_plus_conj_wb', `worked cell ${JSON.stringify(w)}`);
    await page.click('.cell[data-half="4"][data-x="2"][data-y="0"]');
    w = await worked();
    // The diagnosis is the twiddle: the cell never sends the student to j.
    const said = await page.textContent('#worked .worked-outcome');
    check(w.half === '4' && w.i === '2' && said.includes('which is the real part of a − w·b') &&
      !said.includes('other member') && !said.includes('check j'), `picked: ${said}`);
    await page.locator('#results').screenshot({ path: path.join(artifacts, 'butterfly-5-worked-cell.png') });
    // Right on every visible cell, wrong on a hidden spectrum.
    await runAnswered(verdictFixture('hardcoded_visible-worked'));
    w = await worked();
    check(w.spectrum === 'hidden' && w.text.includes('hidden random spectra') && w.text.includes('your kernel returned 0.5'), `hidden: ${w.text}`);
    check((await page.$$('.cell.fail')).length === 0, 'every visible cell is green');
    await page.locator('#results').screenshot({ path: path.join(artifacts, 'butterfly-5-worked-hidden.png') });
  });

  await step('Run can be cancelled: the request is aborted and the page says so', async () => {
    let aborted = false;
    await page.route(SUBMIT_ROUTE, async (route) => {
      await new Promise((resolve) => { setTimeout(resolve, 3000); });
      try {
        await route.continue();
      } catch {
        aborted = true;
      }
    });
    page.once('requestfailed', () => { aborted = true; });
    try {
      await page.click('#run');
      await page.waitForTimeout(300);
      check((await page.textContent('#run')) === 'Cancel', 'the Run button offers Cancel while grading');
      await page.click('#run');
      await page.waitForFunction(() => document.querySelector('#verdict').dataset.kind === 'cancelled', null, { timeout: 5000 });
      check((await page.textContent('#verdict')).includes('Run cancelled'), 'the verdict says the run was cancelled');
      check((await page.textContent('#run')) === 'Run', 'the button is Run again');
      await page.waitForTimeout(3200);
      check(aborted, 'the request was aborted');
    } finally {
      await page.unroute(SUBMIT_ROUTE);
    }
  });

  await step('a loop past the budget: it ran more than N times, its line marked; a plain timeout reads differently', async () => {
    await typeBody(LOOP_BODY);
    await runAnswered(verdictFixture('endless_loop'));
    const verdict = await page.textContent('#verdict');
    check(await page.getAttribute('#verdict', 'data-kind') === 'loop', 'the verdict is about a loop');
    check(verdict.includes('a loop ran more than 10,000 times') && verdict.includes('line 2') &&
      !/never end|wrong answer/i.test(verdict), `verdict: ${verdict}`);
    const marked = await page.$$eval('#editor .cm-content .cm-line', (lines) => lines
      .map((l, k) => (l.classList.contains('cm-errorLine') ? k + 1 : 0)).filter(Boolean));
    check(marked.length === 1 && marked[0] === 2, `the loop's line is marked: ${marked}`);
    check((await page.textContent('#diagnostics-title')) === 'Where your kernel ran past the loop budget', 'the list says what it holds');
    check((await page.textContent('#diagnostics-list')).includes('Line 2: this loop ran more than 10000 times'), 'the loop listed');
    check(await page.isHidden('#worked') && (await page.$$('.half-grid')).length === 0, 'no grids or worked cell for a loop');
    await shot('6-endless-loop');
    // The button in the verdict takes the keyboard to the loop's line.
    await page.focus('#verdict .back-to-code');
    await page.keyboard.press('Enter');
    const at = await page.evaluate(() => ({ inEditor: document.activeElement.classList.contains('cm-content'),
      line: document.querySelector('#editor .cm-activeLine') && document.querySelector('#editor .cm-activeLine').textContent }));
    check(at.inEditor && at.line.startsWith('for (int k'), `after "Show line 2": ${JSON.stringify(at)}`);
    const plain = { ...JSON.parse(verdictFixture('endless_loop')), loop: null, diagnostics: [],
      message: 'Your kernel did not finish in time.' };
    await runAnswered(JSON.stringify(plain));
    check(await page.getAttribute('#verdict', 'data-kind') === 'time-limit', 'a plain timeout');
    const words = await page.textContent('#verdict');
    check(!words.includes('a loop ran') && words.includes('did not finish in time'), `plain timeout: ${words}`);
    check((await page.$$('#editor .cm-line.cm-errorLine')).length === 0, 'no line marked for a plain timeout');
  });

  await step('a message in plain words keeps the compiler\'s own beside it', async () => {
    const body = sample('compile_error_line3');
    await typeBody(body);
    const v = JSON.parse(verdictFixture('compile_error_line3'));
    v.diagnostics[0] = { ...v.diagnostics[0], message: '`undefined_name` is not declared anywhere above this line',
      original: "'undefined_name' : undeclared identifier" };
    await runAnswered(JSON.stringify(v));
    const item = await page.textContent('#diagnostics-list li');
    check(item.includes('Line 4, column 11: undefined_name is not declared') && item.includes("The compiler’s own words: 'undefined_name' : undeclared identifier"), `listed: ${item}`);
    check(await page.$eval('#diagnostics-list li details.diag-original', (d) => !d.open), "glslang's own words are behind More");
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
    // The grader's column: the undeclared name underlined, not the line.
    const underlined = await page.$$eval('#editor .cm-lintRange-error', (rs) => rs.map((r) => r.textContent).join(''));
    check(underlined === 'undefined_name', `the error's token is underlined: ${underlined}`);
    check((await page.$$('#editor .cm-gutter-lint .cm-lint-marker-error')).length === 1, 'one marker in the gutter');
    const gutterLine = await page.evaluate(() => {
      const m = document.querySelector('#editor .cm-lint-marker-error').getBoundingClientRect();
      const nums = [...document.querySelectorAll('#editor .cm-lineNumbers .cm-gutterElement')];
      const hit = nums.find((n) => { const r = n.getBoundingClientRect(); return r.top <= m.top + 2 && r.bottom >= m.bottom - 2; });
      return hit ? hit.textContent : null;
    });
    check(gutterLine === String(line), `gutter marker beside line number ${gutterLine}`);
    // The message on the line itself, without a hover: touch and keyboard.
    const onLine = await page.$$eval('#editor .cm-lineMessage', (ms) => ms.map((m) => m.textContent));
    check(onLine.length === 1 && onLine[0].startsWith(`Line ${line}`) && onLine[0].includes('undefined_name'), `message on the line: ${onLine}`);
    const listed = await page.textContent('#diagnostics-list');
    check(listed.includes(`Line ${line}`) && listed.includes('undefined_name'), `listed: ${listed}`);
    await shot('7-compile-error');
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
    await shot('8-reloaded');
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
    await page.locator('#network').screenshot({ path: path.join(artifacts, 'butterfly-9-network.png') });
  });

  await step('keyboard alone: Ctrl+Enter runs, focus lands on the verdict, Tab and Enter go back to the code', async () => {
    await typeBody(sample('wrong_twiddle_sign'));
    await run({ keyboard: true });
    check(await page.evaluate(() => document.activeElement.id) === 'verdict', 'focus on the verdict after a keyboard run');
    await page.keyboard.press('Tab');
    check(await page.evaluate(() => document.activeElement.classList.contains('back-to-code')), 'Tab reaches "Back to your code"');
    await page.keyboard.press('Enter');
    check(await page.evaluate(() => document.activeElement.classList.contains('cm-content')), 'Enter puts the focus in the editor');
  });

  await step('the course file: the instructor\'s links, and Accepted points to the next task', async () => {
    const course = { links: [
      { title: 'Course home', url: 'https://lms.example.edu/fft' },
      { title: 'Task 2: The Butterfly', current: true },
      { title: 'Task 3', url: '/course/task-3' },
      { title: 'Sneaky', url: 'javascript:alert(1)' },
    ], next: { title: 'Task 3: the whole FFT', url: '/course/task-3' } };
    await page.route('**/static/course.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(course) }));
    try {
      await page.reload();
      await waitReady();
      const links = await page.$$eval('#course-links li', (lis) => lis.map((li) => {
        const a = li.querySelector('a');
        return { text: li.textContent, href: a ? a.getAttribute('href') : null, current: li.querySelector('[aria-current="page"]') !== null };
      }));
      check(links.length === 4, `links: ${JSON.stringify(links)}`);
      check(links[0].href === 'https://lms.example.edu/fft' && links[1].current && links[1].href === null, `links: ${JSON.stringify(links)}`);
      check(links[3].href === null, 'a javascript: link is shown as text, not as a link');
      await runAnswered(verdictFixture('correct'));
      const next = await page.$eval('#verdict .next-step a', (a) => ({ text: a.textContent, href: a.getAttribute('href') }));
      check(next.text === 'Task 3: the whole FFT' && next.href === '/course/task-3', `next step ${JSON.stringify(next)}`);
      await page.locator('#verdict').screenshot({ path: path.join(artifacts, 'butterfly-10-next-step.png') });
      await page.locator('#course').screenshot({ path: path.join(artifacts, 'butterfly-10-course-links.png') });
    } finally {
      await page.unroute('**/static/course.json');
    }
    await page.reload();
    await waitReady();
  });

  await step('a tab opened by an LTI launch names its launch with each run, after a reload too; another tab does not', async () => {
    const tag = '5.0123456789abcdef0123456789abcdef';
    const seen = [];
    await page.route(SUBMIT_ROUTE, (route) => {
      seen.push(route.request().headers()['x-butterfly-launch'] || null);
      return route.fulfill({ status: 200, contentType: 'application/json', body: verdictFixture('correct') });
    });
    let other = null;
    try {
      await page.goto(`${root}#launch=${tag}`);   // where the server lands a launch
      await waitReady();
      await run();
      await page.goto(root);   // the same tab, the fragment gone
      await waitReady();
      await run();
      other = await context.newPage();
      await other.goto(root);
      const kept = await other.evaluate(() => sessionStorage.getItem('butterfly:launch'));
      check(kept === null, `a tab that no launch opened has no launch: ${kept}`);
    } finally {
      await page.unroute(SUBMIT_ROUTE);
      if (other) await other.close();
      await page.evaluate(() => sessionStorage.clear());
    }
    check(seen.length === 2 && seen[0] === tag && seen[1] === tag, `the runs named the launch: ${JSON.stringify(seen)}`);
    await page.reload();
    await waitReady();
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
    // With a wrong answer on show, so the worked cell is on the phone too.
    await typeBody(sample('wrong_twiddle_sign'));
    await run();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 360, height: 780 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(overflow <= 0, `${scheme}: page wider than 360 px by ${overflow}`);
      // One column: the figure after the text that introduces it, the
      // worked cell between the verdict and the grids.
      const fig = await rect('#network');
      check(fig.top >= (await rect('.brief-text')).bottom, 'phone: the figure below its text');
      const w = await rect('#worked');
      check(w.top >= (await rect('#verdict')).bottom && w.bottom <= (await rect('.half-grid[data-half="1"]')).top, 'phone: worked cell above the grids');
      // The verdict follows the editor; the table of names is folded.
      const toolbar = await rect('.toolbar');
      const verdictBox = await rect('#verdict');
      const api = await rect('.api-column');
      check(api.bottom - api.top < 120, `phone: the table of names folded (${api.bottom - api.top} px)`);
      check(verdictBox.top - toolbar.bottom < 400, `phone: the verdict ${verdictBox.top - toolbar.bottom} px after the editor`);
      // Every cell's number shows without a tap.
      const values = await page.$$eval('.half-grid[data-half="2"] .cell .value', (vs) => vs.map((v) => getComputedStyle(v).display !== 'none' && v.getBoundingClientRect().width > 0));
      check(values.length === 16 && values.every(Boolean), 'phone: every cell shows its number');
      await shot(`11-phone-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });
    check(foreign.length === 0, `requests to other hosts: ${foreign.slice(0, 3).join(' ')}`);
    check(pageErrors.length === 0, `page errors: ${pageErrors.slice(0, 3).join(' | ')}`);
    check(consoleErrors.length === 0, `console errors: ${consoleErrors.slice(0, 3).join(' | ')}`);
  });

  await step('without JavaScript: the notice and the brief, nothing left loading', async () => {
    const plain = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const p = await plain.newPage();
    try {
      await p.goto(root);
      check(await p.isVisible('.noscript'), 'the notice shows');
      check((await p.textContent('.noscript')).includes('need JavaScript'), 'the notice says why');
      check(await p.isVisible('text=One thread, one output cell') && await p.isVisible('.hints'), 'the brief shows');
      check(await p.isVisible('#api-body'), 'the table of names shows');
      for (const sel of ['#editor', '.loading', '#run', '#results', '#network', '#checklist-summary']) {
        check(!(await p.isVisible(sel)), `${sel} is hidden without JavaScript`);
      }
      check((await p.$$('#spectrum-body tr')).length === 8, 'the visible spectrum is in the page itself');
      await p.screenshot({ path: path.join(artifacts, 'butterfly-12-no-javascript.png'), fullPage: true });
    } finally {
      await plain.close();
    }
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

// exercises.mjs - the course index and an exercise's template page in
// headless Chromium, against a running server (issue 33 item 7): open
// /tasks, follow each exercise's link with the keyboard, see its title,
// brief and API table from its definition, run the starter and see a
// verdict; at a phone's width nothing overflows; on bit_reversal, a
// solution with a named mistake shows that mistake's title, explanation
// and hint, and a Compilation Error each message on its line; no request
// leaves the server.
//
//   BUTTERFLY_URL=http://127.0.0.1:PORT/ BUTTERFLY_E2E=exercises.mjs tests/browser/run.sh
//
// Prints one line per check and ends with "N passed, M failed"; exits 1
// when a check failed, 2 when it could not start.

import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const base = process.env.BUTTERFLY_URL;
if (!base) {
  console.error('exercises: set BUTTERFLY_URL to the server, e.g. http://127.0.0.1:8080/');
  process.exit(2);
}
const root = new URL('/', base).href;
const origin = new URL(root).origin;
const RUN_TIMEOUT = 60000;

function check(cond, message) {
  if (!cond) throw new Error(message);
}

const results = [];
async function step(name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push(true);
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    results.push(false);
    console.log(`FAIL ${name}: ${error && error.message ? error.message.split('\n')[0] : error}`);
  }
}

let browser;
try {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
} catch (error) {
  console.error(`exercises: cannot start Chromium: ${error.message}`);
  process.exit(2);
}
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
const foreign = [];
const pageErrors = [];
page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) foreign.push(r.url()); });
page.on('pageerror', (e) => pageErrors.push(String(e)));

const listed = await (await fetch(new URL('/api/tasks', root))).json();

await step('the index lists every served exercise, in the server\'s order', async () => {
  await page.goto(new URL('/tasks', root).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  const links = await page.$$eval('#tasks a', (as) => as.map((a) => a.getAttribute('href')));
  check(JSON.stringify(links) === JSON.stringify(listed.map((t) => t.page)), `links ${links}`);
});

for (const t of listed) {
  await step(`${t.id}: followed by the keyboard, its page shows its definition`, async () => {
    await page.goto(new URL('/tasks', root).href);
    await page.waitForSelector('body[data-ready="true"]');
    await page.focus(`#tasks a[href="${t.page}"]`);
    await Promise.all([page.waitForURL(new URL(t.page, root).href), page.keyboard.press('Enter')]);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    const def = await (await fetch(new URL(t.url, root))).json();
    check(await page.textContent('#task-title') === def.title, 'title');
    const names = await page.$$eval('#api-rows tr td:first-child', (tds) => tds.map((td) => td.textContent));
    check(JSON.stringify(names) === JSON.stringify(def.api.map((a) => a.name)), `api ${names}`);
    // the text area holds the whole starter; CodeMirror draws the lines in
    // view (a long starter's first ones), each a .cm-line
    const shown = await page.evaluate(() => {
      const ta = document.querySelector('#editor textarea');
      if (ta) return { whole: true, text: ta.value };
      const lines = [...document.querySelectorAll('#editor .cm-content .cm-line')];
      return { whole: false, text: lines.map((l) => l.textContent).join('\n') };
    });
    const flat = (t) => t.replace(/\s+/g, '');
    check(flat(shown.text).length > 0 && (shown.whole ? flat(shown.text) === flat(def.starter)
      : flat(def.starter).startsWith(flat(shown.text))), 'the starter is in the editor');
  });

  await step(`${t.id}: the starter runs from the keyboard and gets a verdict`, async () => {
    await page.focus('#run');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => {
      const s = document.querySelector('#result-section').dataset.state;
      return s && s !== 'running';
    }, null, { timeout: RUN_TIMEOUT });
    const state = await page.$eval('#result-section', (e) => e.dataset.state);
    check(['accepted', 'wrong_answer', 'internal_error', 'compilation_error', 'rejected'].includes(state), `state ${state}`);
    check((await page.textContent('#result-status')).length > 0, 'the verdict is said in words');
  });

  await step(`${t.id}: at a phone's width nothing is wider than the screen`, async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    await page.setViewportSize({ width: 1280, height: 900 });
    check(wide <= 360, `scroll width ${wide}`);
  });
}

/* A file of the exercises' folder, as the check on load reads it. */
const exerciseFile = (path) => readFileSync(new URL(`../../exercises/${path}`, import.meta.url), 'utf8');

/* Replaces the editor's text as a student would: select all, then type
 * (CodeMirror when the bundle loaded, else the plain text area). */
async function typeBody(body) {
  if (await page.$('#editor .cm-content')) {
    await page.click('#editor .cm-content');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(body);
  } else {
    await page.fill('#editor textarea', body);
  }
}

/* The page's width at a phone's, then back to the desktop's. */
async function phoneScrollWidth() {
  await page.setViewportSize({ width: 360, height: 740 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize({ width: 1280, height: 900 });
  return wide;
}

/* Opens /tasks/ID, runs body with the Run button, and answers the verdict's slug. */
async function runOnTask(id, body) {
  await page.goto(new URL(`/tasks/${id}`, root).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await typeBody(body);
  await page.click('#run');
  await page.waitForFunction(() => {
    const s = document.querySelector('#result-section').dataset.state;
    return s && s !== 'running';
  }, null, { timeout: RUN_TIMEOUT });
  return page.$eval('#result-section', (e) => e.dataset.state);
}

await step('bit_reversal: a named mistake shows its title, its explanation and "Look at:" its hint', async () => {
  const solution = exerciseFile('bit_reversal/solutions/wrong_mirrored.glsl');
  // the solution's body, without its expect line (the check on load's, not the student's)
  const state = await runOnTask('bit_reversal', solution.replace(/^\/\/ expect:.*\n/, ''));
  check(state === 'wrong_answer', `state ${state}`);
  const header = exerciseFile('bit_reversal/mistakes/mirrored.glsl').split('\n');
  const title = header.find((l) => l.startsWith('// title: ')).slice('// title: '.length);
  const heading = page.locator('#result-details .diagnosis h3');
  await heading.waitFor({ state: 'visible', timeout: 5000 });
  check(await heading.textContent() === title, `title ${await heading.textContent()}`);
  check((await page.textContent('#result-details .diagnosis-where')).startsWith('The kernel reads each block'), 'explanation');
  check((await page.textContent('#result-details .hint-line')).startsWith('Look at: Write k in binary'), 'hint');
  const wide = await phoneScrollWidth();
  check(wide <= 360, `at a phone's width: scroll width ${wide}`);
});

await step('bit_reversal: a Compilation Error lists each message on its line', async () => {
  const state = await runOnTask('bit_reversal', 'int i = this.thread.x;\nfloat a = nope;\nreturn points[0][i] + alsonope;\n');
  check(state === 'compilation_error', `state ${state}`);
  await page.locator('#result-details .diagnostics').waitFor({ state: 'visible', timeout: 5000 });
  const items = await page.$$eval('#result-details .diagnostics li', (lis) => lis.map((li) => li.textContent));
  check(items.length === 2 && items[0].startsWith('Line 2, column 11:') && items[1].startsWith('Line 3, column 23:'),
    `messages ${JSON.stringify(items)}`);
  const wide = await phoneScrollWidth();
  check(wide <= 360, `at a phone's width: scroll width ${wide}`);
});

await step('an id not served: the page says so, without an error', async () => {
  const resp = await page.goto(new URL('/tasks/no_such_exercise', root).href);
  check(resp.status() === 404, `status ${resp.status()}`);
});

await step('no request left the server, no script error', async () => {
  check(foreign.length === 0, `foreign ${foreign}`);
  check(pageErrors.length === 0, `errors ${pageErrors}`);
});

await browser.close();
const failed = results.filter((ok) => !ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// class.mjs - the instructor's live class view (static/class.html) in
// headless Chromium, used as an instructor would: it starts its own
// butterfly-server on a SQLite store (it must restart it), signs in with
// the instructor's address, and submits as students over HTTP.
//
//   BUTTERFLY_SERVER=build/server/butterfly-server node tests/browser/class.mjs
//
// The grid updates within a second of a submission; the stuck student
// rises to the top; a student's history and diff open with the keyboard
// alone; projector mode shows no name; the view survives the server's
// restart and fills in what it missed; axe finds nothing serious; a
// tablet's and a phone's width. Prints one line per check and ends with
// "N passed, M failed".

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const sample = (name) => readFileSync(path.resolve(here, '..', 'samples', `${name}.glsl`), 'utf8');
const binary = process.env.BUTTERFLY_SERVER;
if (!binary) {
  console.error('class: set BUTTERFLY_SERVER to the butterfly-server program');
  process.exit(2);
}
const state = mkdtempSync(path.join(os.tmpdir(), 'butterfly-class-'));
const results = [];
const cookies = new Map();
let server = null;
let port = 0;
let token = '';
let browser;
let page;

function check(cond, message) {
  if (!cond) throw new Error(message);
}

async function step(name, fn) {
  try {
    const note = await fn();
    results.push({ name, ok: true });
    console.log(`ok   ${name}${note ? ` (${note})` : ''}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`FAIL ${name}: ${error && error.message ? error.message.split('\n')[0] : error}`);
  }
}

/* Starts the server (on `port` again after a restart); resolves once it
 * printed its instructor's address. */
function startServer() {
  return new Promise((resolve, reject) => {
    const args = ['--port', String(port), '--workers', '1', '--database',
      `sqlite:${path.join(state, 'records.sqlite')}`, '--stuck-repeats', '3', '--heartbeat-s', '2'];
    const child = spawn(binary, args, { env: { ...process.env, BUTTERFLY_QUIET: '1' },
      stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start in 30 s')), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      const listen = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      const inst = out.match(/\/class\?token=([0-9a-f]+)/);
      if (listen && /page: /.test(out)) {
        port = Number(listen[1]);
        if (inst) token = inst[1];
        clearTimeout(timer);
        server = child;
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}

function stopServer() {
  return new Promise((resolve) => {
    if (!server) return resolve();
    server.removeAllListeners('exit');
    server.on('exit', () => resolve());
    server.kill('SIGTERM');
    server = null;
  });
}

const api = (p) => `http://127.0.0.1:${port}${p}`;

async function cookieOf(name) {
  if (!cookies.has(name)) {
    const r = await fetch(api('/api/session'), { method: 'POST', body: JSON.stringify({ name }),
      headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'butterfly' } });
    check(r.ok, `session for ${name}: ${r.status}`);
    cookies.set(name, r.headers.get('set-cookie').split(';')[0]);
  }
  return cookies.get(name);
}

/* Submits as student name; resolves with the verdict once answered. */
async function submit(name, body) {
  const r = await fetch(api('/api/tasks/butterfly/submissions'), { method: 'POST', body,
    headers: { 'Content-Type': 'text/plain', Cookie: await cookieOf(name), 'X-Requested-With': 'butterfly' } });
  check(r.ok, `submission for ${name}: ${r.status}`);
  const v = await r.json();
  check(v.recorded === true, `not recorded: ${JSON.stringify(v.record_error)}`);
  return v;
}

const tileNames = () => page.$$eval('#grid .tile-name', (els) => els.map((e) => e.firstChild.textContent));

/* Presses Tab until the focused element matches sel, a CSS selector, and
 * holds text when given (keyboard only). */
async function tabTo(sel, text = null, max = 80) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const hit = await page.evaluate(([s, t]) => {
      const a = document.activeElement;
      return Boolean(a && a.matches(s) && (t === null || a.textContent.includes(t)));
    }, [sel, text]);
    if (hit) return;
  }
  throw new Error(`Tab never reached ${sel} ${text || ''}`);
}

async function main() {
  await startServer();
  // a first student, before the page opens
  await submit('Ada', sample('starter'));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  // axe is added as a script: the page's CSP (rightly) allows none
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 },
    reducedMotion: 'reduce', bypassCSP: true });
  page = await context.newPage();

  await step('the instructor\'s address opens the view, without its token', async () => {
    await page.goto(api(`/class?token=${token}`));
    check(!page.url().includes('token'), `the address: ${page.url()}`);
    await page.waitForFunction(() => /Live/.test(document.getElementById('live').textContent), null, { timeout: 15000 });
    check((await tileNames()).includes('Ada'), 'Ada is not on the grid');
  });

  await step('the grid updates within a second of a submission', async () => {
    const v = await submit('Bob', sample('compile_error_line3'));
    const t0 = Date.now();
    await page.waitForFunction(() => [...document.querySelectorAll('#grid .tile-name')]
      .some((e) => e.firstChild.textContent === 'Bob'), null, { timeout: 1000 });
    const ms = Date.now() - t0;
    const text = await page.$eval('#grid li[data-student] .tile-verdict', () =>
      [...document.querySelectorAll('#grid li')].find((li) => li.textContent.includes('Bob')).textContent);
    check(/Compilation Error/.test(text), `Bob's tile says ${text}`);
    return `${ms} ms after the answer to ${v.id.slice(0, 8)}`;
  });

  await step('the stuck student rises to the top', async () => {
    await submit('Cy', sample('correct'));
    for (let i = 0; i < 3; i++) await submit('Dee', sample('wrong_twiddle_sign'));
    await page.waitForFunction(() => {
      const first = document.querySelector('#grid li');
      return first && first.textContent.includes('Dee') && /Stuck/.test(first.textContent);
    }, null, { timeout: 5000 });
    const thresholds = await page.textContent('#thresholds');
    check(/3 times in a row/.test(thresholds), `the thresholds shown: ${thresholds}`);
    const unverified = await page.textContent('#grid li:first-child');
    check(/unverified/.test(unverified), 'an open lab\'s name is not marked unverified');
  });

  await step('a student\'s history and diff open with the keyboard alone', async () => {
    await submit('Bob', sample('wrong_twiddle_sign'));
    await page.waitForFunction(() => [...document.querySelectorAll('#grid li')]
      .some((li) => li.textContent.includes('Bob') && /Wrong Answer/.test(li.textContent)));
    await page.click('body', { position: { x: 1, y: 1 } });   // focus starts at the page
    await tabTo('#grid button.tile-open', 'Bob');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#student:not([hidden]) .attempt');
    const attempts = await page.$$eval('#student .attempt', (els) => els.length);
    check(attempts === 2, `${attempts} attempts shown`);
    check(await page.$('#student .diff .diff-added') !== null, 'no added line in the diff');
    check(await page.$('#student .worked') !== null, 'no worked cell for the Wrong Answer');
    const focused = await page.evaluate(() => document.activeElement.id);
    check(focused === 'student-heading', `focus is on ${focused}`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#student', { state: 'hidden' });
    const back = await page.evaluate(() => document.activeElement.textContent);
    check(/Bob/.test(back), `focus went back to ${back}`);
  });

  await step('projector mode shows no name and no code', async () => {
    await tabTo('#projector');
    await page.keyboard.press('Enter');
    await page.waitForSelector('body.projector');
    const text = await page.textContent('body');
    for (const name of ['Ada', 'Bob', 'Cy', 'Dee']) check(!text.includes(name), `${name} is on the projector`);
    check(await page.$('pre') === null, 'code on the projector');
    check(await page.$('#chart svg polyline') !== null, 'no chart');
    check(/Stuck/.test(await page.textContent('#counts')), 'no counts');
    check(!(await page.isVisible('#gradebooks')), 'the gradebooks on the projector');
    await page.keyboard.press('Enter');   // the button keeps the focus: leave
    await page.waitForSelector('body:not(.projector)');
    check((await tileNames()).includes('Dee'), 'the grid did not come back');
  });

  await step('a gradebook button per layout, by keyboard, each with its note (an open lab: Canvas and Moodle refused)', async () => {
    const got = [];
    for (const [label, layout, file] of [['Gradebook (CSV)', 'default', 'gradebook.csv'],
      ['Canvas import', 'canvas', 'gradebook-canvas.csv'], ['Moodle import', 'moodle', 'gradebook-moodle.csv']]) {
      await tabTo('#gradebooks a', label);
      const a = await page.evaluate(() => {
        const e = document.activeElement;
        return { href: e.getAttribute('href'), note: e.parentElement.querySelector('.note').textContent };
      });
      check(a.href === `/api/class/gradebook?layout=${layout}`, `${label} links to ${a.href}`);
      check(a.note.trim().length > 20, `${label} has no note`);
      // what the link downloads, with the page's own cookie
      const r = await page.evaluate(async (href) => {
        const res = await fetch(href, { credentials: 'same-origin' });
        return { status: res.status, type: res.headers.get('content-type'),
          disposition: res.headers.get('content-disposition'), text: await res.text() };
      }, a.href);
      if (layout !== 'default') {
        // an open lab (these students typed their names): the learning
        // systems' files are refused, as the note beside the button says
        check(r.status === 409 && JSON.parse(r.text).error.code === 'open_lab',
          `${label} in an open lab: ${r.status} ${r.text.slice(0, 80)}`);
        check(/open lab/.test(a.note) && /refused/.test(a.note), `${label}'s note: ${a.note}`);
        got.push(`${layout} refused (open lab)`);
        continue;
      }
      check(r.status === 200 && r.type.startsWith('text/csv'), `${label}: ${r.status} ${r.type}`);
      check(r.disposition === `attachment; filename="${file}"`, `${label}: ${r.disposition}`);
      check(r.text.includes('Dee'), `${label}'s file lacks Dee`);
      got.push(`${layout} ${r.text.split('\r\n').length - 2} rows`);
    }
    return got.join(', ');
  });

  await step('the view survives a restart and fills in what it missed', async () => {
    // the view cannot reconnect until the submission made meanwhile is in
    await page.route('**/api/class/events*', (route) => route.abort());
    // the sign-in older than the new server's first read of the tokens
    // (CREDENTIALS_REFRESH_S): the restart's new token must not end it
    await page.waitForTimeout(4000);
    await stopServer();
    await page.waitForFunction(() => /Reconnecting/.test(document.getElementById('live').textContent));
    await startServer();
    await submit('Fay', sample('correct'));
    await page.unroute('**/api/class/events*');
    await page.waitForFunction(() => [...document.querySelectorAll('#grid .tile-name')]
      .some((e) => e.firstChild.textContent === 'Fay'), null, { timeout: 15000 });
    await page.waitForFunction(() => /Live/.test(document.getElementById('live').textContent));
  });

  await step('axe finds nothing serious', async () => {
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const found = await page.evaluate(async () => (await window.axe.run(document)).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.length}`));
    check(found.length === 0, found.join('; '));
  });

  await step('a row per student in the progress table; an exercise chosen: the gradebooks\' links and names follow it', async () => {
    const rows = await page.$$eval('#progress tbody tr', (trs) => trs.map((r) => r.textContent));
    check(rows.length === (await tileNames()).length && rows.some((r) => r.includes('Dee')),
      `the progress table: ${rows.join(' | ')}`);
    const head = await page.$$eval('#progress thead th', (ths) => ths.map((t) => t.textContent));
    // a column per exercise the server serves, in its order
    const served = await page.evaluate(async () => {
      const got = await (await fetch('/api/tasks')).json();
      return (Array.isArray(got) ? got : got.tasks).map((t) => t.title);
    });
    check(head.length === served.length + 1 && head.slice(1).join('|') === served.join('|'),
      `the progress header: ${head}, the server's exercises: ${served}`);
    await page.selectOption('#task', 'butterfly');
    await page.waitForFunction(() => document.querySelector('#gradebooks a[data-layout="canvas"]')
      .getAttribute('href').endsWith('&task=butterfly'));
    const dl = await page.$eval('#gradebooks a[data-layout="default"]', (a) => a.download);
    check(dl === 'butterfly-gradebook.csv', `the download's name: ${dl}`);
    await page.waitForFunction(() => (document.querySelectorAll('#grid .tile-name').length > 0));
    check((await tileNames()).includes('Dee'), 'the butterfly\'s tiles are all there');
    await page.selectOption('#task', '');
    await page.waitForFunction(() => document.querySelector('#gradebooks a[data-layout="canvas"]')
      .getAttribute('href') === '/api/class/gradebook?layout=canvas');
  });

  for (const [what, width, height] of [['a tablet', 820, 1180], ['a phone', 360, 800]]) {
    await step(`readable at ${what}'s width`, async () => {
      await page.setViewportSize({ width, height });
      const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      check(over <= 1, `the page overflows by ${over}px`);
      const w = await page.$eval('#grid li', (li) => li.getBoundingClientRect().width);
      check(w >= 200, `a tile is ${w}px wide`);
      const font = await page.$eval('.tile-facts', (e) => parseFloat(getComputedStyle(e).fontSize));
      check(font >= 13, `facts at ${font}px`);
      const note = await page.$eval('#gradebooks .note', (e) => parseFloat(getComputedStyle(e).fontSize));
      check(note >= 13, `the gradebooks' notes at ${note}px`);
      if (process.env.BUTTERFLY_ARTIFACTS) {
        await page.screenshot({ path: `${process.env.BUTTERFLY_ARTIFACTS}/class-${width}.png`, fullPage: true });
      }
    });
  }
}

try {
  await main();
} catch (error) {
  console.log(`FAIL setup: ${error && error.message ? error.message.split('\n')[0] : error}`);
  results.push({ name: 'setup', ok: false });
} finally {
  if (browser) await browser.close().catch(() => {});
  await stopServer();
  rmSync(state, { recursive: true, force: true });
}
const passed = results.filter((r) => r.ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length - passed ? 1 : 0);

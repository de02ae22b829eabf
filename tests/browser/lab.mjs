// lab.mjs - a lab laptop: students with a roster's personal links take
// turns on one browser profile, as on a shared PC, in headless Chromium
// against a server this script starts on a SQLite store with a roster
// imported (butterfly-admin).
//
//   BUTTERFLY_SERVER=build/server/butterfly-server \
//   BUTTERFLY_ADMIN=build/grader/butterfly-admin node tests/browser/lab.mjs
//
// At 1366×768, 1920×1080 and a phone's width, every button clicked for
// real (no force: a click fails when anything lies over its target): the
// first student opens his link and presses Run before answering (the run
// waits for "Sign in as NAME?", then goes, saved as his); the next opens
// hers on the same page, signed in as him (the top of the page says so,
// her Run waits, Sign out then asks for her, and her run is hers); a
// second browser of hers is offered her latest code; Load this code and a
// hint link; the keyboard alone (the question comes before the editor in
// the tab order) and axe on the top bar. Then nothing lies over anything
// from 360 px to 2560 px.
// Prints one line per check and ends with "N passed, M failed".

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const sample = (name) => readFileSync(path.resolve(here, '..', 'samples', `${name}.glsl`), 'utf8');
const binary = process.env.BUTTERFLY_SERVER;
const admin = process.env.BUTTERFLY_ADMIN;
if (!binary || !admin) {
  console.error('lab: set BUTTERFLY_SERVER and BUTTERFLY_ADMIN to the programs');
  process.exit(2);
}
const state = mkdtempSync(path.join(os.tmpdir(), 'butterfly-lab-'));
const database = `sqlite:${path.join(state, 'records.sqlite')}`;
const SIZES = [['1366×768', 1366, 768], ['1920×1080', 1920, 1080], ['phone', 390, 844]];
const results = [];
let server = null;
let root = '';
let browser;
let page;

function check(cond, message) {
  if (!cond) throw new Error(message);
}

async function step(name, fn) {
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`ok   ${name}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`FAIL ${name}: ${error && error.message ? error.message.split('\n')[0] : error}`);
  }
}

/* The roster's links by id (butterfly-admin links: id,name,link). */
function importRoster() {
  const roster = path.join(state, 'roster.csv');
  const rows = ['id,name,section'];
  SIZES.forEach((_, i) => rows.push(`a${i},Al ${i},A`, `b${i},Bea ${i},B`));
  rows.push('k1,Kim One,A', 'k2,Kai Two,B');   // the keyboard's round
  writeFileSync(roster, `${rows.join('\n')}\n`);
  execFileSync(admin, ['--database', database, 'class', 'import', roster], { stdio: 'ignore', timeout: 60000 });
  const out = execFileSync(admin, ['--database', database, 'links'], { encoding: 'utf8', timeout: 60000 });
  const links = new Map();
  for (const line of out.split(/\r?\n/).slice(1)) {
    const m = line.match(/^([^,]+),.*\?k=([0-9A-Za-z_-]+)/);
    if (m) links.set(m[1], m[2]);
  }
  return links;
}

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['--port', '0', '--workers', '2', '--database', database],
      { env: { ...process.env, BUTTERFLY_QUIET: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start in 30 s')), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      const listen = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\//);
      if (listen && /page: /.test(out)) {
        root = `${listen[1]}/`;
        clearTimeout(timer);
        server = child;
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}

// killed from outside (with_server.py's or run.sh's time limit) or ended
// by an error nothing caught: the server goes too, not left behind
process.on('exit', () => { if (server) server.kill('SIGKILL'); });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    if (server) server.kill('SIGKILL');
    rmSync(state, { recursive: true, force: true });
    process.exit(1);
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

let submissions = 0;   // POSTs of a kernel the page sent

async function setBody(text) {
  await page.evaluate((t) => {
    document.dispatchEvent(new CustomEvent('butterfly:load-source', { detail: { source: t } }));
  }, text);
}

async function editorText() {
  return page.evaluate(() => {
    const ta = document.querySelector('#editor textarea');
    if (ta) return ta.value;
    return [...document.querySelectorAll('#editor .cm-content .cm-line')].map((l) => l.textContent).join('\n');
  });
}

/* Whether the element lies wholly in the first screen (the page
 * scrolled to its top). */
async function inFirstScreen(selector) {
  return page.evaluate((s) => {
    window.scrollTo(0, 0);
    const el = document.querySelector(s);
    if (!el || !el.getClientRects().length) return `${s} not shown`;
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth + 0.5
      ? '' : `${s} at ${Math.round(r.top)}..${Math.round(r.bottom)} of ${window.innerHeight}`;
  }, selector);
}

async function firstScreen(selectors) {
  const out = [];
  for (const s of selectors) {
    const why = await inFirstScreen(s);
    if (why) out.push(why);
  }
  return out;
}

async function open(token) {
  await page.goto(`${root}?k=${token}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  // the records' section (on the page before the top bar too), once what
  // GET /api/me answered is on show
  await page.waitForSelector('#history:not([hidden])', { timeout: 10000 });
  await page.waitForSelector('#history[data-ready="true"]', { timeout: 10000 });
}

async function waitNote() {
  await page.waitForFunction(() => document.getElementById('record-note').textContent !== '', null, { timeout: 60000 });
  return page.textContent('#record-note');
}

async function clearNote() {
  await page.evaluate(() => { document.getElementById('record-note').textContent = ''; });
}

async function focused() {
  return page.evaluate(() => document.activeElement && document.activeElement.id);
}

/* Every shown control and heading that something else lies over: each is
 * scrolled to the middle of the screen (and to its top and bottom edge)
 * and the topmost element at its centre must be itself or inside it. */
async function covered() {
  return page.evaluate(async () => {
    const out = [];
    const all = document.querySelectorAll('button, a[href], summary, input, select, label, h1, h2, h3, .history-who, #record-note');
    const frame = () => new Promise((resolve) => { requestAnimationFrame(() => resolve()); });
    for (const el of all) {
      if (!el.getClientRects().length || el.closest('[hidden], .visually-hidden, details:not([open]) > :not(summary)')) continue;
      for (const block of ['center', 'start', 'end']) {
        el.scrollIntoView({ block });
        await frame();
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1 || r.bottom <= 0 || r.top >= window.innerHeight) continue;
        const x = r.left + Math.min(r.width / 2, 20);
        const y = Math.min(Math.max(r.top + r.height / 2, 0), window.innerHeight - 1);
        const top = document.elementFromPoint(x, y);
        if (top && top !== el && !el.contains(top) && !top.contains(el)) {
          out.push(`${el.tagName.toLowerCase()}#${el.id || ''}.${el.className} (${block}) under ${top.tagName.toLowerCase()}.${top.className}`);
          break;
        }
      }
    }
    window.scrollTo(0, 0);
    return out;
  });
}

/* The laptop's two students in turn, at one size. */
async function lab(label, width, height, k, links) {
  const al = `Al ${k}`;
  const bea = `Bea ${k}`;
  await step(`${label}: ${al} opens his link and presses Run first: the run waits for "Sign in as ${al}?", then goes as his`, async () => {
    await page.setViewportSize({ width, height });
    await open(links.get(`a${k}`));
    const first = await firstScreen(['#history-who', '#history-confirm-text', '#history-confirm-yes', '#history-confirm-no']);
    check(first.length === 0, `not in the first screen: ${first.join('; ')}`);
    check((await page.textContent('#history-confirm-text')).includes(`signs this page in as ${al}. Is that you?`), 'the question');
    check((await page.textContent('#history-confirm-yes')) === `Sign in as ${al}`, 'the yes button names him');
    await setBody(sample('wrong_twiddle_sign'));
    const before = submissions;
    await page.click('#run', { timeout: 5000 });
    await page.waitForFunction(() => /^Not run yet/.test(document.getElementById('signin-status').textContent));
    check(submissions === before, 'a run went before the question was answered');
    check(await focused() === 'history-confirm-yes', `the focus is on ${await focused()}`);
    await clearNote();
    await page.click('#history-confirm-yes', { timeout: 5000 });
    const note = await waitNote();
    check(note === 'Saved to your attempts.', `the note: ${note}`);
    check(submissions === before + 1, `${submissions - before} runs went`);
    await page.waitForFunction(() => document.querySelectorAll('#history-list li').length === 1);
    check((await page.textContent('#history-who')) === `Signed in as ${al} (section A).`, 'the top says who, with the section');
    const top = await firstScreen(['#history-who', '#history-sign-out']);
    check(top.length === 0, `not in the first screen: ${top.join('; ')}`);
  });

  await step(`${label}: the hint link and Load this code take a real click`, async () => {
    await page.waitForSelector('#diagnosis .hint-line a', { timeout: 10000 });
    await page.evaluate(() => { for (const d of document.querySelectorAll('.hints details')) d.open = false; });
    await page.click('#diagnosis .hint-line a', { timeout: 5000 });
    const named = (await page.textContent('#diagnosis .hint-line')).match(/^Hint (\d)/)[1];
    const opened = await page.$$eval('.hints details', (ds) => ds.filter((d) => d.open).map((d) => d.id));
    check(opened.join() === `hint-${named}`, `hint ${named} named, open: ${opened.join()}`);
    await setBody('return 0.0;\n');
    await page.evaluate(() => { document.getElementById('history-status').textContent = ''; });
    await page.click('#history-list li:nth-child(1) .history-load', { timeout: 5000 });
    await page.waitForFunction(() => /in the editor/.test(document.getElementById('history-status').textContent));
    check((await editorText()).includes('int j = (i / half) % 2;'), 'his attempt is in the editor');
  });

  await step(`${label}: ${bea}'s link on ${al}'s page: the top says "sign out first", her Run waits, Sign out asks for her, her run is hers`, async () => {
    await open(links.get(`b${k}`));
    const text = await page.textContent('#signin-other-text');
    check(text === `This page is signed in as ${al}. The link is for ${bea}: sign out first.`, `the notice: ${text}`);
    const first = await firstScreen(['#history-who', '#signin-other-text', '#signin-other-out']);
    check(first.length === 0, `not in the first screen: ${first.join('; ')}`);
    check(!(await page.isVisible('#history-confirm')), 'no "Sign in as" while he is signed in');
    const buttons = await page.$$eval('#signin button', (bs) => bs.filter((b) => b.getClientRects().length).map((b) => b.textContent));
    check(buttons.join() === 'Sign out', `one button: ${buttons.join(', ')}`);
    await setBody(sample('correct'));
    const before = submissions;
    await page.click('#run', { timeout: 5000 });
    await page.waitForFunction(() => /^Not run yet/.test(document.getElementById('signin-status').textContent));
    check(submissions === before, 'her run went as his');
    check(await focused() === 'signin-other-out', `the focus is on ${await focused()}`);
    await page.click('#signin-other-out', { timeout: 5000 });
    await page.waitForSelector('#history-confirm:not([hidden])');
    check((await page.textContent('#history-confirm-yes')) === `Sign in as ${bea}`, 'it asks for her');
    check(await focused() === 'history-confirm-yes', `the focus is on ${await focused()}`);
    check((await page.textContent('#history-who')).startsWith('Not signed in'), 'signed out');
    await clearNote();
    await page.click('#history-confirm-yes', { timeout: 5000 });
    const note = await waitNote();
    check(note === 'Saved to your attempts.', `the note: ${note}`);
    check(submissions === before + 1, `${submissions - before} runs went`);
    check((await page.textContent('#history-who')) === `Signed in as ${bea} (section B).`, 'the top says her, with her section');
    await page.waitForFunction(() => document.querySelectorAll('#history-list li').length === 1);
    const row = await page.textContent('#history-list li');
    check(row.includes('Accepted'), `her one attempt is her run: ${row}`);
  });

  await step(`${label}: Sign out takes a real click, and says "Not signed in" at the top`, async () => {
    await page.click('#history-sign-out', { timeout: 5000 });
    await page.waitForFunction(() => /^Not signed in/.test(document.getElementById('history-who').textContent));
    check(!(await page.isVisible('#history-list')), 'her attempts are gone from the page');
  });
}

async function main() {
  const links = importRoster();
  check(links.size === 2 * SIZES.length + 2, `links: ${links.size}`);
  await startServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  // one profile: the lab laptop
  // bypassCSP: axe is added as a script, which the page's CSP (rightly) refuses
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, reducedMotion: 'reduce', bypassCSP: true });
  page = await context.newPage();
  const foreign = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(root)) foreign.push(req.url());
    if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/tasks/butterfly/submissions') submissions += 1;
  });

  for (const [k, [label, width, height]] of SIZES.entries()) await lab(label, width, height, k, links);

  await step('the keyboard alone: Tab reaches the question before the editor; Sign out then Sign in as the next; axe finds nothing serious', async () => {
    await page.setViewportSize({ width: 1366, height: 768 });
    /* Tabs from the top of the page until id has the focus (at most 12:
     * the skip link and the top bar come first). */
    const tabTo = async (id) => {
      await page.evaluate(() => { document.activeElement.blur(); window.scrollTo(0, 0); });
      await page.focus('body');
      for (let n = 0; n < 12; n += 1) {
        await page.keyboard.press('Tab');
        const at = await focused();
        if (at === id) return;
        check(at !== 'run' && !(await page.evaluate(() => !!document.activeElement.closest('#editor'))), `the editor came before ${id}`);
      }
      throw new Error(`12 tabs did not reach ${id}`);
    };
    await open(links.get('k1'));
    await tabTo('history-confirm-yes');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('history-who').textContent === 'Signed in as Kim One (section A).');
    await open(links.get('k2'));
    await tabTo('signin-other-out');
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      const found = await page.evaluate(async () => (await window.axe.run(document.getElementById('signin'))).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.length}`));
      check(found.length === 0, `${scheme}: ${found.join('; ')}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Enter');
    await page.waitForSelector('#history-confirm:not([hidden])');
    check(await focused() === 'history-confirm-yes', `the focus is on ${await focused()}`);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('history-who').textContent === 'Signed in as Kai Two (section B).');
  });

  await step('the server\'s 409 sign_in_pending (a link opened in another tab since): the page asks, and the run goes once answered', async () => {
    // another tab of this profile opens Kim's link: the pending cookie
    // comes, this page still shows Kai with nothing waiting
    await page.request.get(`${root}?k=${links.get('k1')}`, { maxRedirects: 0 });
    await setBody(sample('correct'));
    // the server's side is tests/records' (a pending browser's submission
    // is refused, nothing kept): here its answer is played
    await page.route('**/api/tasks/butterfly/submissions', (route) => route.fulfill({ status: 409,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'sign_in_pending', message: 'Answer the sign-in question first.' } }) }));
    try {
      await page.click('#run', { timeout: 5000 });
      await page.waitForSelector('#signin-other:not([hidden])', { timeout: 10000 });
    } finally {
      await page.unroute('**/api/tasks/butterfly/submissions');
    }
    check((await page.textContent('#signin-other-text')) ===
      'This page is signed in as Kai Two. The link is for Kim One: sign out first.', 'the notice');
    check((await page.textContent('#verdict-title')).includes('Not run yet'), `the verdict: ${await page.textContent('#verdict-title')}`);
    await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'signin-other-out');
    await clearNote();
    await page.click('#signin-other-out', { timeout: 5000 });
    await page.click('#history-confirm-yes', { timeout: 5000 });
    check((await waitNote()) === 'Saved to your attempts.', 'the held run went as Kim\'s');
    check((await page.textContent('#history-who')) === 'Signed in as Kim One (section A).', 'the top says Kim');
    await page.click('#history-sign-out', { timeout: 5000 });
    await page.waitForFunction(() => /^Not signed in/.test(document.getElementById('history-who').textContent));
  });

  await step('Run pressed before the page knows who it is for waits, then asks', async () => {
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    // GET /api/me held until Run was pressed: deterministic, whatever the speed
    await page.route('**/api/me', async (route) => { await gate; await route.continue().catch(() => {}); });
    try {
      await page.goto(`${root}?k=${links.get('k2')}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
      await setBody(sample('correct'));
      const before = submissions;
      await page.click('#run', { timeout: 5000 });
      check(submissions === before, 'a run went before the page knew who it was for');
      release();
      await page.waitForSelector('#history-confirm:not([hidden])', { timeout: 10000 });
      await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'history-confirm-yes');
      check(submissions === before, 'a run went before the question was answered');
      await clearNote();
      await page.click('#history-confirm-yes', { timeout: 5000 });
      check((await waitNote()) === 'Saved to your attempts.', 'saved as hers');
      check(submissions === before + 1, `${submissions - before} runs went`);
      await page.click('#history-sign-out', { timeout: 5000 });
      await page.waitForFunction(() => /^Not signed in/.test(document.getElementById('history-who').textContent));
    } finally {
      release();
      await page.unroute('**/api/me');
    }
  });

  await step('a second browser continues where she left off: her latest attempt\'s code is offered, not the starter', async () => {
    const other = await browser.newContext({ viewport: { width: 1366, height: 768 }, reducedMotion: 'reduce' });
    const mine = page;
    page = await other.newPage();
    try {
      await open(links.get('b0'));
      await page.click('#history-confirm-yes', { timeout: 5000 });
      await page.waitForSelector('#history-latest:not([hidden])', { timeout: 10000 });
      const first = await firstScreen(['#history-latest']);
      check(first.length === 0, `not in the first screen: ${first.join('; ')}`);
      const starter = await editorText();
      check(!starter.includes('int j = (i / half) % 2;'), 'the editor starts with the starter');
      await page.click('#history-latest', { timeout: 5000 });
      await page.waitForFunction(() => /latest attempt/.test(document.getElementById('signin-status').textContent));
      check((await editorText()).trim() === sample('correct').trim(), 'her latest code is in the editor');
      check(!(await page.isVisible('#history-latest')), 'the offer is gone once taken');
    } finally {
      page = mine;
      await other.close();
    }
  });

  await step('from 360 px to 2560 px nothing lies over anything (signed in, with results and attempts)', async () => {
    // signed in again with a result on show and attempts listed
    await open(links.get('a0'));
    await page.click('#history-confirm-yes', { timeout: 5000 });
    await page.waitForFunction(() => document.querySelectorAll('#history-list li').length >= 1);
    await setBody(sample('wrong_twiddle_sign'));
    await clearNote();
    await page.click('#run', { timeout: 5000 });
    await waitNote();
    const found = [];
    for (const width of [360, 412, 600, 768, 960, 1024, 1199, 1200, 1280, 1366, 1440, 1920, 2560]) {
      await page.setViewportSize({ width, height: width < 800 ? 800 : Math.round(width * 0.5625) });
      const over = await covered();
      if (over.length) found.push(`${width}: ${over.slice(0, 3).join('; ')}`);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (wide > 1) found.push(`${width}: the page is ${wide} px wider than the screen`);
    }
    check(found.length === 0, found.join(' | '));
  });

  await step('no request beyond the server', async () => {
    check(foreign.length === 0, `requests elsewhere: ${foreign.join(', ')}`);
  });
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

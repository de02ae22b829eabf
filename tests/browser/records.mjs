// records.mjs - the page's records (static/history.mjs) in headless
// Chromium against a server that keeps them (with_server.py starts one on
// a SQLite store in a temporary folder).
//
//   BUTTERFLY_URL=http://127.0.0.1:PORT/ node tests/browser/records.mjs
//
// An open lab's name given with the keyboard alone; a run listed with its
// verdict and points; an earlier attempt's code loaded back into the
// editor; "Not saved" plainly when the server could not keep a run; a name
// of HTML shown as text; readable at a phone's width; a link for someone
// else explained, signing out with the keyboard, Run asking for the name
// first, and a link on a signed-out page asking first (lab.mjs plays the
// roster's links on a shared PC). Prints one line per check and ends with "N passed, M
// failed".

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const sample = (name) => readFileSync(path.resolve(here, '..', 'samples', `${name}.glsl`), 'utf8');
const base = process.env.BUTTERFLY_URL;
if (!base) {
  console.error('records: set BUTTERFLY_URL');
  process.exit(2);
}
const root = new URL('/', base).href;
const results = [];
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

/* The selectors' shown elements that something else lies over (the
 * topmost element at each one's centre, scrolled to the middle, is not
 * itself nor inside it). */
async function coveredControls(selectors) {
  return page.evaluate(async (list) => {
    const out = [];
    for (const s of list) {
      for (const el of document.querySelectorAll(s)) {
        if (!el.getClientRects().length) continue;
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

async function runAndWait() {
  await page.evaluate(() => { document.getElementById('record-note').textContent = ''; });
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('record-note').textContent !== '', null, { timeout: 60000 });
}

async function main() {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  page = await context.newPage();
  await page.goto(root);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });

  await step('an open lab asks for a name; the keyboard alone gives it', async () => {
    await page.waitForSelector('#history:not([hidden])', { timeout: 10000 });
    check(await page.isVisible('#history-name-form'), 'the name form shows');
    await page.focus('#history-name');
    await page.keyboard.type('<b>Ada</b>');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /Signed in as/.test(document.getElementById('history-who').textContent));
    const who = await page.textContent('#history-who');
    check(who.includes('<b>Ada</b>') && who.includes('not checked'), `the name as text, marked unverified: ${who}`);
    check((await page.$$('#history-who b')).length === 0, 'no HTML made of the name');
    check(!(await page.isVisible('#history-name-form')), 'the name form is gone once signed in');
    check(await page.isVisible('#history-sign-out'), 'Sign out is offered');
  });

  await step('a run is saved and listed with its verdict and points', async () => {
    await setBody(sample('correct'));
    await runAndWait();
    check((await page.textContent('#record-note')).startsWith('Saved'), 'the note says saved');
    await page.waitForFunction(() => document.querySelectorAll('#history-list li').length === 1);
    const row = await page.textContent('#history-list li');
    check(row.includes('Accepted') && row.includes('9 / 9'), `the row: ${row}`);
  });

  await step('an earlier attempt\'s code comes back into the editor (keyboard)', async () => {
    await setBody('return 0.0;\n');
    await runAndWait();
    await page.waitForFunction(() => document.querySelectorAll('#history-list li').length === 2);
    // the older attempt is the second row: newest first
    await page.focus('#history-list li:nth-child(2) .history-load');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /in the editor/.test(document.getElementById('history-status').textContent));
    const text = await editorText();
    check(text.includes('int j = (i / half) % 2;'), `the editor holds the correct body: ${text.slice(0, 60)}`);
  });

  await step('Load this code shows that attempt\'s saved verdict, clicked without force at 1366×768 and 1920×1080', async () => {
    await setBody('return 1.0\n');
    await runAndWait();
    await page.waitForFunction(() => document.querySelectorAll('#history-list li').length === 3);
    check(await page.isVisible('#diagnostics'), 'the compile error is listed');
    for (const [width, height] of [[1366, 768], [1920, 1080]]) {
      await page.setViewportSize({ width, height });
      const covered = await coveredControls(['#history-title', '#history-who', '#history-sign-out', '.history-load',
        '#history-status', '#elsewhere-title', '#course-title']);
      check(covered.length === 0, `${width}: covered: ${covered.join('; ')}`);
      // rows newest first: the compile error, return 0.0, the correct body
      await page.evaluate(() => { document.getElementById('history-status').textContent = ''; });
      await page.click('#history-list li:nth-child(3) .history-load', { timeout: 5000 });
      await page.waitForFunction(() => /in the editor/.test(document.getElementById('history-status').textContent));
      const shown = await page.evaluate(() => ({ title: document.getElementById('verdict-title').textContent,
        note: (document.querySelector('#verdict .restored') || {}).textContent || '',
        diagnostics: !document.getElementById('diagnostics').hidden,
        other: !document.getElementById('other-attempt-note').hidden }));
      check(shown.title.includes('Accepted') && shown.note.startsWith('The saved result of the attempt you loaded') &&
        !shown.diagnostics && !shown.other, `${width}: after loading the correct attempt: ${JSON.stringify(shown)}`);
      await page.evaluate(() => { document.getElementById('history-status').textContent = ''; });
      await page.click('#history-list li:nth-child(1) .history-load', { timeout: 5000 });
      await page.waitForFunction(() => /in the editor/.test(document.getElementById('history-status').textContent));
      const again = await page.evaluate(() => ({ title: document.getElementById('verdict-title').textContent,
        items: document.querySelectorAll('#diagnostics-list li').length, diagnostics: !document.getElementById('diagnostics').hidden }));
      check(again.title.includes('Compilation error') && again.diagnostics && again.items > 0,
        `${width}: the compile error's own verdict: ${JSON.stringify(again)}`);
    }
    // code from elsewhere, with no record: the results say they are another attempt's
    await setBody('return 2.0;\n');
    const other = await page.evaluate(() => ({ note: !document.getElementById('other-attempt-note').hidden,
      diagnostics: !document.getElementById('diagnostics').hidden }));
    check(other.note && !other.diagnostics, `code with no record: ${JSON.stringify(other)}`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step('"Not saved" plainly when the server could not keep the run', async () => {
    const real = await (await page.request.post(new URL('/api/tasks/butterfly/submissions', root).href, {
      headers: { 'Content-Type': 'text/plain', 'X-Requested-With': 'butterfly' }, data: 'return 0.0;',
    })).json();
    delete real.recorded;
    await page.route('**/api/tasks/butterfly/submissions', (route) => route.fulfill({
      status: 200, contentType: 'application/json',
      body: JSON.stringify({ ...real, recorded: false, record_error: { code: 'full', message: 'the disk is full' } }),
    }));
    await page.click('#run');
    await page.waitForFunction(() => document.getElementById('record-note').textContent.startsWith('Not saved'),
      null, { timeout: 60000 });
    await page.unroute('**/api/tasks/butterfly/submissions');
    const note = await page.textContent('#record-note');
    check(note.startsWith('Not saved') && note.includes('the disk is full'), `the note: ${note}`);
    check(await page.isVisible('#record-note'), 'it shows');
  });

  await step('readable at a phone\'s width', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    const over = await page.evaluate(() => {
      const s = document.getElementById('history');
      return s.scrollWidth - s.clientWidth;
    });
    check(over <= 1, `the attempts overflow by ${over}px`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step('a link for someone else changes nothing and says why; Sign out with the keyboard', async () => {
    // the server sends a page that is signed in already here from a link
    // that is someone else's (tests/records checks that redirect)
    await page.goto(new URL('/?signin=other', root).href);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => /someone else/.test(document.getElementById('signin-status').textContent));
    check(!page.url().includes('signin='), `the address: ${page.url()}`);
    const said = await page.textContent('#signin-status');
    check(said.includes('signed in as <b>Ada</b>'), `it names who the page is signed in as: ${said}`);
    await page.focus('#history-sign-out');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /Signed out/.test(document.getElementById('signin-status').textContent));
    check(await page.isVisible('#history-name-form'), 'the name form shows again');
    check(!(await page.isVisible('#history-sign-out')), 'no Sign out button once signed out');
    check(!(await page.isVisible('#history-list')), 'the attempts are no longer listed');
    const me = await (await page.request.get(new URL('/api/me', root).href)).json();
    check(me.kind === 'none', `the server's answer: ${JSON.stringify(me)}`);
  });

  await step('in an open lab Run asks for the name first, and the run then goes as theirs', async () => {
    let posts = 0;
    const count = (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/tasks/butterfly/submissions') posts += 1;
    };
    page.on('request', count);
    try {
      await setBody(sample('correct'));
      await page.evaluate(() => { document.getElementById('record-note').textContent = ''; });
      await page.click('#run', { timeout: 5000 });
      await page.waitForFunction(() => /^Not run yet: first give your name/.test(document.getElementById('signin-status').textContent));
      check(posts === 0, 'a run went as nobody\'s');
      check(await page.evaluate(() => document.activeElement.id) === 'history-name', 'the focus is on the name');
      await page.keyboard.type('Cal');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('record-note').textContent !== '', null, { timeout: 60000 });
      check((await page.textContent('#record-note')) === 'Saved to your attempts.', 'saved as theirs');
      check(posts === 1, `${posts} runs went`);
      await page.waitForFunction(() => document.querySelectorAll('#history-list li').length === 1);
      check((await page.textContent('#history-who')).startsWith('Signed in as Cal'), 'the top says who');
      await page.click('#history-sign-out', { timeout: 5000 });
      await page.waitForFunction(() => /Signed out/.test(document.getElementById('signin-status').textContent));
    } finally {
      page.off('request', count);
    }
  });

  await step('a link on a signed-out page asks "Sign in as NAME?" first; Not me by keyboard', async () => {
    // whom the link is for comes from GET /api/me (tests/records checks
    // the server's side: the pending cookie, the same-origin answer)
    await page.route('**/api/me', (route) => route.fulfill({
      status: 200, contentType: 'application/json',
      body: JSON.stringify({ kind: 'none', name: '', records: true, pending: { kind: 'student', name: 'Cy <b>One</b>', id: 'c1' } }),
    }));
    await page.goto(new URL('/?signin=confirm', root).href);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#history-confirm:not([hidden])');
    await page.unroute('**/api/me');
    const q = await page.textContent('#history-confirm-text');
    check(q.includes('as Cy <b>One</b>. Is that you?'), `the question names the link's student as text: ${q}`);
    check((await page.$$('#history-confirm b')).length === 0, 'no HTML made of the name');
    check((await page.textContent('#history-confirm-yes')).includes('Sign in as Cy'), 'the yes button names them too');
    check(!(await page.isVisible('#history-name-form')), 'no name form while it asks');
    await page.focus('#history-confirm-no');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /not yours/.test(document.getElementById('signin-status').textContent));
    check(!(await page.isVisible('#history-confirm')), 'the question is gone');
  });

  await step('a personal-link address loses its token; a bad link says so', async () => {
    await page.goto(new URL('/?k=00ff', root).href);
    await page.waitForSelector('body[data-ready="true"]');
    check(!page.url().includes('k='), `the address: ${page.url()}`);
    await page.waitForFunction(() => /not valid/.test(document.getElementById('signin-status').textContent));
  });
}

try {
  await main();
} catch (error) {
  console.log(`FAIL setup: ${error && error.message ? error.message.split('\n')[0] : error}`);
  results.push({ name: 'setup', ok: false });
} finally {
  if (browser) await browser.close().catch(() => {});
}
const passed = results.filter((r) => r.ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length - passed ? 1 : 0);

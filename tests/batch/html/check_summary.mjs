// check_summary.mjs - the batch's class report in headless Chromium.
//
//   node check_summary.mjs OUT ARTIFACTS
//
// Opens OUT/summary.html from disk at a desktop and a phone width and for
// print, takes screenshots (and a PDF) into ARTIFACTS, and checks that
// every figure the page shows is summary.json's, that every student's link
// opens their report, that text from students is shown as text, and that
// the page asks nothing of any other host. CHROMIUM (default
// /usr/bin/chromium) is the browser. Prints one line per check and ends
// with "N passed, M failed"; exits 1 when a check failed.

import { readFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [out, artifacts] = process.argv.slice(2);
if (!out || !artifacts) {
  console.error('usage: node check_summary.mjs OUT ARTIFACTS');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
const gradebook = readFileSync(path.join(out, 'gradebook.csv'), 'utf8');
const pageUrl = pathToFileURL(path.join(out, 'summary.html')).href;

function check(cond, message) {
  if (!cond) throw new Error(message);
}

const results = [];
async function step(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`ok   ${name}`);
  } catch (error) {
    results.push(false);
    console.log(`FAIL ${name}: ${error && error.message ? error.message.split('\n')[0] : error}`);
  }
}

const texts = (page, selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent.trim()));
const text = (page, selector) => page.$eval(selector, (e) => e.textContent.trim());

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(pageUrl);

  await step('the desktop screenshot', async () => {
    await page.screenshot({ path: path.join(artifacts, 'summary-desktop.png'), fullPage: true });
    check(statSync(path.join(artifacts, 'summary-desktop.png')).size > 10000, 'an empty screenshot');
  });

  await step('the figures are summary.json\'s', async () => {
    check(await text(page, '[data-figure=rows]') === String(summary.rows), 'rows');
    check(Math.abs(Number(await text(page, '[data-figure=mean_score]')) - summary.mean_score) <= 0.006,
      'mean score');
    check(await text(page, '[data-figure=full_score]') === String(summary.full_score), 'full points');
    check(await text(page, '[data-figure=zero_score]') === String(summary.zero_score), 'no points');
    check(await text(page, '[data-figure=seed]') === String(summary.seed), 'seed');
  });

  await step('the verdicts are summary.json\'s', async () => {
    const shown = await page.$$eval('#verdicts tbody tr', (rows) =>
      rows.map((r) => [r.dataset.status, r.querySelector('[data-count]').textContent.trim()]));
    const want = summary.verdicts.map((v) => [v.status, String(v.count)]);
    check(JSON.stringify(shown) === JSON.stringify(want), `${JSON.stringify(shown)} != ${JSON.stringify(want)}`);
    const bars = await page.$$eval('#verdicts svg rect', (r) => r.length);
    check(bars === want.length, `${bars} bars for ${want.length} verdicts`);
    const box = await (await page.$('#verdicts svg')).boundingBox();
    check(box && box.width > 300 && box.height > 10, 'the verdicts chart is not drawn');
  });

  await step('the pass rate per half is summary.json\'s', async () => {
    for (const h of summary.halves) {
      const row = `#halves tr[data-half="${h.half}"]`;
      check(await text(page, `${row} [data-figure=passed]`) === String(h.passed), `half ${h.half} passed`);
      check(await text(page, `${row} [data-figure=visible_passed]`) === String(h.visible_passed), 'visible');
      check(await text(page, `${row} [data-figure=hidden_passed]`) === String(h.hidden_passed), 'hidden');
      const pct = parseFloat(await text(page, `${row} [data-figure=pass_rate]`));
      check(Math.abs(pct / 100 - h.pass_rate) <= 0.0011, `half ${h.half}: ${pct}% for ${h.pass_rate}`);
    }
  });

  await step('the points distribution is summary.json\'s', async () => {
    const shown = await page.$$eval('#points tbody tr', (rows) =>
      rows.map((r) => Number(r.querySelector('[data-count]').textContent)));
    check(JSON.stringify(shown) === JSON.stringify(summary.points), `${shown} != ${summary.points}`);
    check(shown.reduce((a, b) => a + b, 0) === summary.rows, 'the distribution does not add up');
    const box = await (await page.$('#points svg')).boundingBox();
    check(box && box.width > 300 && box.height > 50, 'the histogram is not drawn');
  });

  await step('the most common mistakes and compile errors, each with an example', async () => {
    for (const [id, list, key] of [['mistakes', summary.diagnoses, 'id'],
      ['compile-errors', summary.compile_errors, 'message']]) {
      const shown = await page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => ({
        key: r.dataset.key,
        count: r.querySelector('[data-count]').textContent.trim(),
        link: r.querySelector('td:last-child a') ? r.querySelector('td:last-child a').getAttribute('href') : null,
        example: r.querySelector('td:last-child').textContent.trim(),
      })));
      check(shown.length === list.length, `${id}: ${shown.length} rows for ${list.length}`);
      list.forEach((e, i) => {
        check(shown[i].key === e[key] && shown[i].count === String(e.count), `${id} row ${i}`);
        check(shown[i].link && existsSync(path.join(out, decodeURIComponent(shown[i].link))),
          `${id} row ${i}: the example's link ${shown[i].link}`);
        check(shown[i].example.length > 10, `${id} row ${i}: no example`);
      });
    }
    check(summary.diagnoses.length > 0 && summary.compile_errors.length > 0, 'the class has both');
  });

  await step('every student has a row, linked to their report', async () => {
    const rows = await page.$$eval('#students tbody tr', (trs) => trs.map((r) => ({
      id: r.dataset.id,
      shown: r.querySelector('td').textContent,
      href: r.querySelector('td a') ? r.querySelector('td a').getAttribute('href') : null,
      points: r.querySelector('[data-points]').dataset.points,
    })));
    check(rows.length === summary.rows, `${rows.length} rows for ${summary.rows}`);
    const linked = rows.filter((r) => r.href);
    check(linked.length >= summary.rows - 2, 'students without a link');
    for (const r of linked) check(existsSync(path.join(out, decodeURIComponent(r.href))), `no ${r.href}`);
    // the gradebook's points, student by student
    const total = rows.reduce((a, r) => a + Number(r.points), 0);
    check(Math.abs(total / summary.rows - summary.mean_score) <= 0.0006, 'the points do not add up');
    // text from students is text: no markup of theirs gets in
    const hostile = rows.find((r) => r.id.includes('<b>'));
    check(hostile && hostile.shown === hostile.id, 'the id with markup is not shown as text');
    check(await page.$$eval('#students b, #students script, #students img', (e) => e.length) === 0,
      'a student\'s markup became elements');
    check(gradebook.includes('%41'), 'the class has the id "%41"');
  });

  await step('a student\'s report opens from the table', async () => {
    const link = page.locator('#students tbody tr[data-id="%41"] td a');
    await link.click();
    await page.waitForLoadState();
    check(page.url().endsWith('/reports/%252541.html'), page.url());   // key %2541
    check(await text(page, 'h1') === '%41', 'the report of "%41" is another\'s');
    check(await page.$$eval('#tests tbody tr', (r) => r.length) === 6, 'six tests');
    await page.screenshot({ path: path.join(artifacts, 'student-report.png'), fullPage: true });
    await page.goBack();
  });

  await step('a phone: one column, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(pageUrl);
    const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    check(scroll <= inner, `the page is ${scroll} px wide on a ${inner} px screen`);
    const hidden = await page.$eval('#students th.wide', (e) => getComputedStyle(e).display);
    check(hidden === 'none', 'the students table keeps every column on a phone');
    await page.screenshot({ path: path.join(artifacts, 'summary-phone.png'), fullPage: true });
  });

  await step('print: no navigation, no link colours, a PDF', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ media: 'print' });
    check(await page.$eval('.no-print', (e) => getComputedStyle(e).display) === 'none', 'navigation printed');
    check(await page.$eval('#students td a', (e) => getComputedStyle(e).textDecorationLine) === 'none',
      'links underlined in print');
    await page.pdf({ path: path.join(artifacts, 'summary.pdf'), format: 'A4' });
    check(statSync(path.join(artifacts, 'summary.pdf')).size > 10000, 'an empty PDF');
    await page.emulateMedia({ media: 'screen' });
  });

  await step('no request to any other host, no error', async () => {
    const foreign = requests.filter((u) => !u.startsWith('file://'));
    check(foreign.length === 0, `requests: ${foreign.join(', ')}`);
    check(errors.length === 0, `errors: ${errors.join('; ')}`);
    const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
    check(csp.includes("default-src 'none'"), csp);
  });

  await browser.close();
  const failed = results.filter((r) => !r).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

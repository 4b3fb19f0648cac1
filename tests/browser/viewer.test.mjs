// The viewer as a person uses it, in headless Debian Chromium driven by playwright-core: load the
// page, hover a cell, zoom with the wheel, pan with a drag; after each, the numbers the page shows
// equal `xtfq grid`'s for the same request, computed separately by the command line. Screenshots
// go to $XTFQ_ARTIFACTS. Run by ctest (`node --test`), with $XTFQ_CLI the built xtfq.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './chromium.mjs';

const cli = process.env.XTFQ_CLI;
const artifacts = process.env.XTFQ_ARTIFACTS || join(tmpdir(), 'xtfq-artifacts');
let dir, server, url, browser;

function xtfq(...args) {
  return execFileSync(cli, args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });
}

before(async () => {
  assert.ok(cli, 'XTFQ_CLI names the built xtfq');
  dir = mkdtempSync(join(tmpdir(), 'xtfq-browser-'));
  mkdirSync(artifacts, { recursive: true });
  xtfq('gen', 'darshan', '200000', '--ranks', '64', '--files', '200', '-o', 'd.darshan');
  xtfq('import', 'd.darshan', '-o', 'd.xtfq');
  xtfq('gen', 'jobstats', '--targets', '6', '--jobs', '80', '--samples', '30', '-o', 'js');
  xtfq('import', 'js', '-o', 'js.xtfq');
  server = spawn(cli, ['serve', 'd.xtfq', 'js.xtfq', '--port', '0'], { cwd: dir });
  url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/\S+/);
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`xtfq serve exited with ${code}`)));
  });
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The page's /api/grid requests for its heatmap (those with rows: the bandwidth timeline asks one
// row), in the order it made them, and their answers by URL.
function watchGrids(page) {
  const seen = { urls: [], answers: new Map() };
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/api/grid' && u.searchParams.has('rows')) seen.urls.push(r.url());
  });
  page.on('response', async (r) => {
    if (new URL(r.url()).pathname !== '/api/grid' || r.status() !== 200) return;
    seen.answers.set(r.url(), await r.json());
  });
  return seen;
}

// Waits until the page has made at least `count` grid requests, made no new one for 400 ms, and has
// the answer of its last: the grid it draws.
async function settle(page, seen, count) {
  let n = -1;
  for (let i = 0; i < 300; ++i) {
    const last = seen.urls[seen.urls.length - 1];
    if (seen.urls.length >= count && seen.urls.length === n && seen.answers.has(last)) break;
    n = seen.urls.length;
    await page.waitForTimeout(400);
  }
  const last = seen.urls[seen.urls.length - 1];
  assert.ok(seen.urls.length >= count && seen.answers.has(last), `${seen.urls.length} grid requests, ${count} expected`);
  await page.waitForTimeout(200);  // drawn
  return { params: Object.fromEntries(new URL(last).searchParams), grid: seen.answers.get(last) };
}

// The command line's answer to the page's request.
function cliGrid(params) {
  const args = ['grid', 'd.xtfq', '--cols', params.cols, '--rows', params.rows, '--metric', params.metric, '--op',
    params.op, '--format', 'json'];
  if (params.snap === '1') args.push('--snap');
  if (params.time) args.push('--time', params.time);
  return JSON.parse(xtfq(...args));
}

// Hovers cell (r, c) of the canvas and returns what the page says of it.
async function hover(page, grid, r, c) {
  const box = await page.locator('#heat').boundingBox();
  await page.mouse.move(box.x + (c + 0.5) * box.width / grid.cols, box.y + (r + 0.5) * box.height / grid.rows.length);
  return page.locator('#hover').innerText();
}

// A cell with records, and its numbers on the page against the command line's.
async function checkCell(page, last) {
  const g = last.grid, want = cliGrid(last.params);
  assert.deepEqual(want.time.edges, g.time.edges, 'the page drew the command line\'s columns');
  assert.deepEqual(want.count, g.count, 'and its counts');
  let cell = null;
  for (let r = 0; r < g.rows.length && !cell; ++r) {
    for (let c = 0; c < g.cols; ++c) if (want.count[r][c] > 0) { cell = [r, Math.min(g.cols - 1, c + 1)]; break; }
  }
  assert.ok(cell, 'a cell with records');
  const [r, c] = cell;
  const text = await hover(page, g, r, c);
  assert.match(text, new RegExp(`records ${want.count[r][c]}\\b`));
  const v = want.metrics[0].values[r][c];
  assert.match(text, new RegExp(`${want.metrics[0].name} ${v === null ? '-' : String(v).replace('.', '\\.')}\\b`));
  assert.match(text, new RegExp(`rank ${want.rows[r][0]}\\.\\.${want.rows[r][1] - 1}`));
}

test('the viewer loads, hovers, zooms and pans with the command line\'s numbers', async () => {
  const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const seen = watchGrids(page);
  const timeline = page.waitForResponse((r) => {
    const u = new URL(r.url());
    return u.pathname === '/api/grid' && !u.searchParams.has('rows');
  });
  await page.goto(url);
  let last = await settle(page, seen, 1);
  // The bandwidth timeline: the bytes of every rank on the heatmap's own columns.
  const tl = await timeline;
  const tp = Object.fromEntries(new URL(tl.url()).searchParams);
  const tg = await tl.json();
  assert.deepEqual(tg.time.edges, last.grid.time.edges);
  const twant = JSON.parse(xtfq('grid', 'd.xtfq', '--cols', tp.cols, '--time', tp.time, '--metric', 'bytes', '--op',
    tp.op, '--format', 'json'));
  assert.deepEqual(tg.metrics[0].values, twant.metrics[0].values);
  await page.waitForFunction(() => document.getElementById('status').innerText.includes('window'));
  assert.equal(await page.locator('#error').innerText(), '');
  await checkCell(page, last);
  await page.screenshot({ path: join(artifacts, 'viewer-loaded.png') });

  // The wheel zooms in around the cursor: a narrower window.
  const box = await page.locator('#heat').boundingBox();
  const before = last.grid.time.edges_s;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -300);
  last = await settle(page, seen, 2);
  const zoomed = last.grid.time.edges_s;
  assert.ok(zoomed[zoomed.length - 1] - zoomed[0] < before[before.length - 1] - before[0], 'zoomed in');
  await checkCell(page, last);
  await page.screenshot({ path: join(artifacts, 'viewer-zoomed.png') });

  // A drag pans: the window moves, its width stays.
  const n = seen.urls.length;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 150, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  last = await settle(page, seen, n + 1);
  const panned = last.grid.time.edges_s;
  assert.ok(panned[0] > zoomed[0], 'panned later in time');
  await checkCell(page, last);
  await page.screenshot({ path: join(artifacts, 'viewer-panned.png') });

  // Reset: the whole run again.
  const m = seen.urls.length;
  await page.click('#reset');
  last = await settle(page, seen, m + 1);
  assert.deepEqual(last.grid.time.edges_s, before);

  // Keys: + zooms in around the middle.
  await page.focus('#heat');
  const k = seen.urls.length;
  await page.keyboard.press('+');
  last = await settle(page, seen, k + 1);
  const keyed = last.grid.time.edges_s;
  assert.ok(keyed[keyed.length - 1] - keyed[0] < before[before.length - 1] - before[0], 'the key zoomed in');
  await checkCell(page, last);

  // Shift + drag selects a region: its statistics are xtfq query's for the same window and ranks.
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/query');
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.7, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const response = await answered;
  const q = { params: Object.fromEntries(new URL(response.url()).searchParams), answer: await response.json() };
  await page.waitForFunction(() => document.getElementById('selection').innerText.startsWith('selection:'));
  const want = JSON.parse(xtfq('query', 'd.xtfq', '--time', q.params.time, '--ranks', q.params.ranks, '--format', 'json'));
  assert.deepEqual(q.answer, want, 'the selection\'s statistics are the command line\'s');
  const shown = await page.locator('#selection').innerText();
  assert.match(shown, new RegExp(`read: ${want.read.ops} ops, ${want.read.bytes} bytes`));
  assert.match(shown, new RegExp(`write: ${want.write.ops} ops, ${want.write.bytes} bytes`));
  assert.ok(want.read.ops + want.write.ops > 0, 'the selection holds segments');
  await page.screenshot({ path: join(artifacts, 'viewer-selection.png') });
  assert.deepEqual(errors, []);
});

test('the API refuses a request without the token, and the page says so', async () => {
  const page = await browser.newPage();
  await page.goto(url.replace(/\?token=.*/, ''));
  await page.waitForFunction(() => document.getElementById('error').innerText.length > 0);
  assert.match(await page.locator('#error').innerText(), /token/);
  await page.screenshot({ path: join(artifacts, 'viewer-no-token.png') });
});

test('the job_stats view: targets by time, and the top jobs of the window as xtfq query gives them', async () => {
  const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('store').options.length === 2);
  const of = (path) => (r) => {
    const u = new URL(r.url());
    return u.pathname === path && u.searchParams.get('store') === '1';
  };
  const grid = page.waitForResponse(of('/api/grid')), top = page.waitForResponse(of('/api/query'));
  await page.selectOption('#store', '1');
  const g = await grid, q = await top;
  const gp = Object.fromEntries(new URL(g.url()).searchParams), qp = Object.fromEntries(new URL(q.url()).searchParams);
  const gj = await g.json(), qj = await q.json();
  assert.equal(gp.by, 'target');
  const gwant = JSON.parse(xtfq('grid', 'js.xtfq', '--cols', gp.cols, '--by', 'target', '--metric', gp.metric, '--op',
    gp.op, '--format', 'json'));
  gwant.plan.pages_read = gj.plan.pages_read;
  assert.deepEqual(gj, gwant, 'the targets x time grid is the command line\'s');
  const qwant = JSON.parse(xtfq('query', 'js.xtfq', '--jobstats', '--by', 'job', '--op', qp.op, '--top', qp.top,
    '--sort', qp.sort, '--time', qp.time, '--format', 'json'));
  assert.deepEqual(qj, qwant, 'the top jobs are the command line\'s');
  await page.waitForFunction(() => document.querySelectorAll('#top tr').length > 1);
  const firstJob = await page.locator('#top tr:nth-child(2) td:first-child').innerText();
  assert.equal(firstJob, qwant.groups[0].job);
  assert.equal(await page.locator('#error').innerText(), '');
  await page.screenshot({ path: join(artifacts, 'viewer-jobstats.png') });
  assert.deepEqual(errors, []);
});

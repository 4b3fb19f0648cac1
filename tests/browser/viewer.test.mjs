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
    try {
      seen.answers.set(r.url(), await r.json());
    } catch {
      // a tile the page aborted (a newer view replaced it) or left behind: it has no body to read
    }
  });
  return seen;
}

// Waits until the page has made at least `count` grid requests, made no new one for 400 ms, and has
// the answer of its last: the grid it draws, once the page has taken it in (its state holds that
// grid's columns, rows and source; until then it has no view to zoom or pan, and a key pressed
// earlier does nothing: under the sanitizers the page lags the response that long).
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
  const want = seen.answers.get(last);
  await page.waitForFunction(
    (w) => state.grid && state.t1 !== null &&
      JSON.stringify([state.grid.time.edges, state.grid.rows, state.grid.source]) === w,
    JSON.stringify([want.time.edges, want.rows, want.source]), { timeout: 60000 });
  await page.waitForTimeout(200);  // drawn
  return { params: Object.fromEntries(new URL(last).searchParams), grid: seen.answers.get(last) };
}

// The command line's answer to the page's request.
function cliGrid(params) {
  const args = ['grid', 'd.xtfq', '--cols', params.cols, '--rows', params.rows, '--op', params.op, '--format', 'json'];
  if (params.metric) args.push('--metric', params.metric);
  if (params.snap === '1') args.push('--snap');
  if (params.fit === '1') args.push('--fit-rows');
  for (const k of ['time', 'ranks', 'module', 'log']) if (params[k] !== undefined) args.push(`--${k}`, params[k]);
  return JSON.parse(xtfq(...args));
}

// Hovers cell (r, c) of the canvas, where the page draws it (the view's window: a snapped grid's
// edges sit where they fall), and returns what the page says of it; null when it is out of view.
async function hover(page, grid, r, c) {
  const box = await page.locator('#heat').boundingBox();
  const at = await page.evaluate(([r, c]) => {
    const g = state.grid, t = (g.time.edges_s[c] + g.time.edges_s[c + 1]) / 2, [lo, hi] = rowEdges(g, r);
    // (the box includes the canvas's border; the page's coordinates start inside it)
    return [xOf(t), (yOf(g, lo) + yOf(g, hi)) / 2, heat.clientLeft, heat.clientTop, heat.width, heat.height];
  }, [r, c]);
  if (at[0] < 1 || at[0] > at[4] - 1 || at[1] < 1 || at[1] > at[5] - 1) return null;
  await page.mouse.move(box.x + at[2] + at[0], box.y + at[3] + at[1]);
  return page.locator('#hover').innerText();
}

// A cell with records, and its numbers on the page against the command line's.
async function checkCell(page, last) {
  const g = last.grid, want = cliGrid(last.params);
  assert.deepEqual(want.time.edges, g.time.edges, 'the page drew the command line\'s columns');
  assert.deepEqual(want.count, g.count, 'and its counts');
  let cell = null, text = null;
  for (let r = 0; r < g.rows.length && !cell; ++r) {
    for (let c = 0; c < g.cols && !cell; ++c) {
      if (want.count[r][c] > 0 && (text = await hover(page, g, r, c)) !== null) cell = [r, c];
    }
  }
  assert.ok(cell, 'a cell with records in view');
  const [r, c] = cell;
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
    tp.op, '--module', tp.module, '--log', tp.log, '--format', 'json'));
  assert.deepEqual(tg.metrics[0].values, twant.metrics[0].values);
  await page.waitForFunction(() => document.getElementById('status').innerText.includes('cells'));
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

  // Shift + drag selects a region: its statistics are xtfq query's for the same window and ranks,
  // its top files xtfq query --per-file --top 10's, its segments xtfq segments'.
  const answered = page.waitForResponse((r) => {
    const u = new URL(r.url());
    return u.pathname === '/api/query' && !u.searchParams.has('per_file');
  });
  const filesAnswered = page.waitForResponse((r) => new URL(r.url()).searchParams.has('per_file'));
  const segsAnswered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/segments');
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.7, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const response = await answered;
  const q = { params: Object.fromEntries(new URL(response.url()).searchParams), answer: await response.json() };
  await page.waitForFunction(() => document.getElementById('selection').innerText.startsWith('selection:'));
  const want = JSON.parse(xtfq('query', 'd.xtfq', '--time', q.params.time, '--ranks', q.params.ranks, '--module',
    q.params.module, '--log', q.params.log, '--format', 'json'));
  assert.deepEqual(q.answer, want, 'the selection\'s statistics are the command line\'s');
  const shown = await page.locator('#selection').innerText();
  // The headline is the command line's wall-clock bandwidth (4 significant digits), then the counts.
  for (const op of ['read', 'write']) {
    const o = want[op], mibs = Number(o.bw_mib_s).toPrecision(4).replace('.', '\\.');
    assert.match(shown, new RegExp(`${op}: ${mibs} MiB/s over the selection; ${o.ops} ops, ${o.bytes} B started`));
  }
  const perf = want.darshan_perf;
  assert.ok(shown.includes(`Darshan's agg_perf_by_slowest (${perf.module}, whole run): ` +
    `${perf.agg_perf_by_slowest.toFixed(2)} MiB/s`), 'Darshan\'s own figure, as the command line gives it');
  assert.ok(want.read.ops + want.write.ops > 0, 'the selection holds segments');
  const files = await filesAnswered, fj = await files.json();
  const fwant = JSON.parse(xtfq('query', 'd.xtfq', '--time', q.params.time, '--ranks', q.params.ranks, '--per-file',
    '--top', '10', '--module', q.params.module, '--log', q.params.log, '--format', 'json'));
  assert.deepEqual(fj, fwant, 'the top files are the command line\'s');
  await page.waitForFunction(() => document.querySelectorAll('#files tr').length > 1);
  assert.match(await page.locator('#files caption').innerText(), new RegExp(`of ${fwant.files_in_window} files`));
  const segs = await segsAnswered, sj = await segs.json(), sp = Object.fromEntries(new URL(segs.url()).searchParams);
  const segCli = (offset) => JSON.parse(xtfq('segments', 'd.xtfq', '--time', sp.time, '--ranks', sp.ranks, '--op', sp.op,
    '--offset', String(offset), '--limit', sp.limit, '--module', sp.module, '--log', sp.log, '--format', 'json'));
  assert.deepEqual(sj, segCli(0), 'the segments are the command line\'s');
  await page.waitForFunction(() => document.querySelectorAll('#segments tr').length > 1);
  const firstRow = await page.locator('#segments tr:nth-child(2)').innerText();
  assert.match(firstRow, new RegExp(`${sj.segments[0].op}\\s+${sj.segments[0].rank}\\s+${sj.segments[0].start_s.toFixed(6)}`));
  await page.screenshot({ path: join(artifacts, 'viewer-selection.png') });
  // The next page of segments.
  const page2 = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/segments');
  await page.click('#segnext');
  const p2 = await (await page2).json();
  assert.deepEqual(p2, segCli(Number(sp.limit)), 'the second page is the command line\'s');

  // Zoom to the selection: the view becomes its window and ranks, drawn with the command line's numbers.
  const z = seen.urls.length;
  await page.click('#zoomsel');
  last = await settle(page, seen, z + 1);
  assert.equal(last.params.ranks, q.params.ranks);
  await checkCell(page, last);
  // Alt + wheel zooms the ranks.
  const a = seen.urls.length;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 4);
  await page.keyboard.down('Alt');
  await page.mouse.wheel(0, -300);
  await page.keyboard.up('Alt');
  last = await settle(page, seen, a + 1);
  const [r1, r2] = last.params.ranks.split(':').map(Number), [s1, s2] = q.params.ranks.split(':').map(Number);
  assert.ok(r2 - r1 < s2 - s1, 'fewer ranks in view');
  await checkCell(page, last);
  await page.screenshot({ path: join(artifacts, 'viewer-ranks-zoomed.png') });

  // A module without DXT (STDIO here): the estimate from counter records, labelled as such.
  await page.click('#reset');
  const s = seen.urls.length;
  await page.selectOption('#module', 'STDIO');
  last = await settle(page, seen, s + 1);
  assert.equal(last.grid.estimate, true);
  await checkCell(page, last);
  await page.waitForFunction(() => document.getElementById('estimate').innerText.startsWith('estimate:'));
  await page.screenshot({ path: join(artifacts, 'viewer-stdio-estimate.png') });
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
  const heatmap = page.waitForResponse(of('/api/heatmap'));
  await page.selectOption('#store', '1');
  const g = await grid, q = await top;
  const gp = Object.fromEntries(new URL(g.url()).searchParams), qp = Object.fromEntries(new URL(q.url()).searchParams);
  const gj = await g.json(), qj = await q.json();
  assert.equal(gp.by, 'target');
  const gwant = JSON.parse(xtfq('grid', 'js.xtfq', '--cols', gp.cols, '--by', 'target', '--metric', gp.metric, '--op',
    gp.op, '--format', 'json'));
  gwant.plan.pages_read = gj.plan.pages_read;
  assert.deepEqual(gj, gwant, 'the targets x time grid is the command line\'s');
  // The top jobs: the view's window snapped onto the summaries' bins and read from their cells.
  assert.equal(qp.snap, '1');
  const qwant = JSON.parse(xtfq('query', 'js.xtfq', '--jobstats', '--by', 'job', '--op', qp.op, '--top', qp.top,
    '--sort', qp.sort, '--time', qp.time, '--snap', '--format', 'json'));
  assert.deepEqual(qj, qwant, 'the top jobs are the command line\'s');
  const qscan = JSON.parse(xtfq('query', 'js.xtfq', '--jobstats', '--by', 'job', '--op', qp.op, '--time',
    `${qj.t1}:${qj.t2}`, '--scan', '--format', 'json'));
  assert.ok(qj.summary_cells > 0 && qj.steps_read < qscan.steps_read,
    `the top jobs come from the summaries' cells (${qj.summary_cells} cells and ${qj.steps_read} steps, a scan ${qscan.steps_read})`);
  await page.waitForFunction(() => document.querySelectorAll('#top tr').length > 1);
  if (qj.snapped) {
    assert.match(await page.locator('#top caption').innerText(), /the view on the summaries' bins/);
  }
  const firstJob = await page.locator('#top tr:nth-child(2) td:first-child').innerText();
  assert.equal(firstJob, qwant.groups[0].job === '-' ? '(no job id)' : qwant.groups[0].job);
  assert.equal(await page.locator('#error').innerText(), '');
  // The z_b(t, k) heatmap is xtfq heatmap's for the same window and cells.
  const zr = await heatmap;
  const zp = Object.fromEntries(new URL(zr.url()).searchParams);
  const zwant = JSON.parse(xtfq('heatmap', 'js.xtfq', '--jobstats', '--op', zp.op, '--time', zp.time, '--cell', zp.cell,
    '--format', 'json'));
  assert.deepEqual(await zr.json(), zwant, 'z_b is the command line\'s');
  await page.waitForFunction(() => document.getElementById('zblabel').innerText.startsWith('z_2'));
  await page.screenshot({ path: join(artifacts, 'viewer-jobstats.png') });

  // A click on the top job filters the view to it: its grid and top list are the command line's.
  const fg = page.waitForResponse((r) => of('/api/grid')(r) && new URL(r.url()).searchParams.has('job'));
  const fq = page.waitForResponse((r) => of('/api/query')(r) && new URL(r.url()).searchParams.has('job'));
  const clicked = await page.locator('#top a[data-job]').first().getAttribute('data-job');
  await page.locator('#top a[data-job]').first().click();
  const fgr = await fg, fgp = Object.fromEntries(new URL(fgr.url()).searchParams), fgj = await fgr.json();
  assert.equal(fgp.job, clicked);
  const fgwant = JSON.parse(xtfq('grid', 'js.xtfq', '--cols', fgp.cols, '--by', 'target', '--metric', fgp.metric, '--op',
    fgp.op, '--time', fgp.time, '--job', fgp.job, '--format', 'json'));
  fgwant.plan.pages_read = fgj.plan.pages_read;
  assert.deepEqual(fgj, fgwant, 'the job\'s grid is the command line\'s');
  const fqr = await fq, fqp = Object.fromEntries(new URL(fqr.url()).searchParams);
  assert.deepEqual(await fqr.json(), JSON.parse(xtfq('query', 'js.xtfq', '--jobstats', '--by', 'job', '--op', fqp.op,
    '--top', fqp.top, '--sort', fqp.sort, '--time', fqp.time, '--job', fqp.job, '--snap', '--format', 'json')));
  await page.waitForFunction(() => document.getElementById('jobfilter').innerText.includes('job'));
  await page.screenshot({ path: join(artifacts, 'viewer-jobstats-job.png') });
  // Top classes instead of jobs.
  await page.click('#clearjob');
  const cq = page.waitForResponse((r) => of('/api/query')(r) && new URL(r.url()).searchParams.get('by') === 'class');
  await page.selectOption('#by', 'class');
  const cqr = await cq, cqp = Object.fromEntries(new URL(cqr.url()).searchParams);
  assert.deepEqual(await cqr.json(), JSON.parse(xtfq('query', 'js.xtfq', '--jobstats', '--by', 'class', '--op', cqp.op,
    '--top', cqp.top, '--sort', cqp.sort, '--time', cqp.time, '--snap', '--format', 'json')));
  await page.waitForFunction(() => document.querySelector('#top caption').innerText.startsWith('top job-id classes'));
  // Rows of jobs: the largest jobs by time, snapped onto the summaries' bins and read from their
  // cells, as the command line gives them.
  const jg = page.waitForResponse((r) => of('/api/grid')(r) && new URL(r.url()).searchParams.get('by') === 'job');
  await page.selectOption('#rowsby', 'job');
  const jgr = await jg, jgp = Object.fromEntries(new URL(jgr.url()).searchParams), jgj = await jgr.json();
  assert.equal(jgp.snap, '1');
  const jgwant = JSON.parse(xtfq('grid', 'js.xtfq', '--cols', jgp.cols, '--rows', jgp.rows, '--by', 'job', '--snap',
    '--metric', jgp.metric, '--op', jgp.op, '--time', jgp.time, '--format', 'json'));
  jgwant.plan.pages_read = jgj.plan.pages_read;
  assert.deepEqual(jgj, jgwant, 'the jobs x time grid is the command line\'s');
  assert.match(jgj.exactness, /summaries' cells/);
  assert.ok(jgj.rows.length > 1);
  await page.waitForFunction(() => document.getElementById('status').innerText.includes('summary cells'));
  await page.screenshot({ path: join(artifacts, 'viewer-jobstats-byjob.png') });
  await page.selectOption('#rowsby', 'target');
  // A view inside the summarised time: the top jobs' window moves onto the summaries' bins and is
  // read from their cells alone, as xtfq query --snap gives it, and the caption says which window.
  // (the query of the view before it, asked when the rows went back to targets, may answer after
  // this wait begins: only a query that starts inside the new view is its answer)
  const t0 = await page.evaluate(() => state.t1);
  const iq = page.waitForResponse((r) => {
    const sp = new URL(r.url()).searchParams;
    return of('/api/query')(r) && sp.get('by') === 'class' && Number(sp.get('time').split(':')[0]) > t0;
  });
  await page.evaluate((t) => { state.t1 = t + 600; state.t2 = t + 1800; load(); }, t0);
  const iqr = await iq, iqp = Object.fromEntries(new URL(iqr.url()).searchParams), iqj = await iqr.json();
  assert.deepEqual(iqj, JSON.parse(xtfq('query', 'js.xtfq', '--jobstats', '--by', 'class', '--op', iqp.op,
    '--top', iqp.top, '--sort', iqp.sort, '--time', iqp.time, '--snap', '--format', 'json')));
  assert.equal(iqj.snapped, true, JSON.stringify(iqj.notes));
  assert.equal(iqj.steps_read, 0);
  await page.waitForFunction(() => document.querySelector('#top caption').innerText.includes('the view on the summaries\' bins'));
  await page.screenshot({ path: join(artifacts, 'viewer-jobstats-snapped-top.png') });
  // A view with no rate step in it (after the last collection): said, no script error.
  await page.evaluate(() => { state.t1 = state.t2 + 86400; state.t2 = state.t1 + 600; load(); });
  await page.waitForFunction(() => document.getElementById('range').innerText.startsWith('nothing to draw') ||
    document.getElementById('range').innerText.startsWith('no data') || document.getElementById('error').innerText !== '');
  await page.screenshot({ path: join(artifacts, 'viewer-jobstats-empty.png') });
  assert.deepEqual(errors, []);
});

// What a lane canvas of the job view holds: the top of its plot (below the strip of its label), the
// pixels in a bar's colour (read blue, write orange) in that strip and in the plot, the rows of the
// plot holding any, and the dark (text) pixels of the strip.
function laneInk(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id), top = Number(c.dataset.plotTop);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const out = { top, head: 0, plot: 0, rows: 0, text: 0 };
    for (let y = 0; y < c.height; ++y) {
      let inRow = 0;
      for (let x = 0; x < c.width; ++x) {
        const i = 4 * (y * c.width + x), near = (r, g, b) => Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) +
          Math.abs(d[i + 2] - b) < 60;
        if (near(0x1f, 0x77, 0xb4) || near(0xff, 0x7f, 0x0e)) ++inRow;
        else if (y < top && d[i] + d[i + 1] + d[i + 2] < 300) ++out.text;
      }
      if (y < top) out.head += inRow;
      else out.plot += inRow, out.rows += inRow > 0;
    }
    return out;
  }, id);
}

test('the job view: one job on one time axis, with the command line\'s totals', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
  const errors = [], consoleErrors = [], failed = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  const want = JSON.parse(xtfq('job', '4242001', 'd.xtfq', 'js.xtfq', '--windows', '40', '--format', 'json'));
  const u = new URL(url);
  u.pathname = '/job.html';
  u.searchParams.set('job', '4242001');
  u.searchParams.set('windows', '40');
  await page.goto(u.toString());
  await page.waitForSelector('[data-testid=darshan-read]');
  const cell = (id) => page.locator(`[data-testid=${id}]`).innerText();
  assert.equal(await cell('darshan-read'), String(want.totals.darshan.read_bytes));
  assert.equal(await cell('darshan-write'), String(want.totals.darshan.write_bytes));
  assert.equal(await cell('darshan-ops'), String(want.totals.darshan.ops));
  // The job_stats store holds no series of this job, and no store holds Slurm profiles: the page says so.
  assert.equal(await cell('jobstats-read'), 'NA');
  assert.equal(await cell('slurm-read'), 'NA');
  assert.equal(await cell('slurm-fs-read'), 'NA');
  assert.equal(await cell('slurm-net-in'), 'NA');
  const sources = await page.locator('#sources').innerText();
  assert.match(sources, /jobstats js\.xtfq: no series of job 4242001/);
  assert.match(sources, /slurm +no store given holds Slurm profiles/);
  assert.match(await page.locator('#span').innerText(), new RegExp(`\\(${want.span.t2 - want.span.t1} s\\)`));
  // The job's own lanes are drawn (saying when they hold nothing of it); the node-wide Slurm ones only
  // when some window has their series, which no store here holds.
  for (const id of ['darshan', 'jobstats', 'slurm', 'xaxis']) assert.ok(await page.locator(`#${id}`).isVisible(), id);
  for (const k of ['slurm_fs', 'slurm_net']) {
    assert.equal(await page.locator(`#${k}`).isVisible(), want.windows.some((w) => w[k]), `the ${k} lane`);
  }
  // Each lane's label has a strip of its own above the plot: no bar is drawn in it.
  const ink = await laneInk(page, 'darshan');
  assert.ok(ink.top > 0 && ink.text > 0 && ink.head === 0 && ink.plot > 0, JSON.stringify(ink));
  // Hovering a window of the Darshan lane gives that window's rates.
  const box = await page.locator('#darshan').boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + 20);
  const w = want.windows.find((v) => v.t1 <= (want.span.t1 + want.span.t2) / 2 && (want.span.t1 + want.span.t2) / 2 < v.t2);
  const r = (w.darshan.read_bytes / 1048576 / (w.t2 - w.t1)).toFixed(2);
  assert.match(await page.locator('#hover').innerText(), new RegExp(`darshan: read ${r.replace('.', '\\.')} MiB/s`));
  await page.screenshot({ path: join(artifacts, 'viewer_job.png') });
  // Loading the page asked nothing that failed (no 404: favicon, asset or API), and logged no error.
  await page.waitForLoadState('networkidle');
  assert.deepEqual(failed, []);
  assert.deepEqual(consoleErrors, []);

  // The node-wide Slurm series, and a lane of little traffic, as the page draws them: no store here holds
  // Slurm profiles, so the server's answer for the job is served with a made-up Slurm part. Window 0's
  // Darshan read is the lane's max (its bar reaches the strip of the label); Slurm tasks moved 10 KiB
  // in one window, under the shared floor: that lane's one bar is a pixel or two tall, not its height.
  const fake = structuredClone(want);
  fake.windows[0].darshan.read_bytes = 2 * Math.max(...want.windows.flatMap((v) => v.darshan ?
    [v.darshan.read_bytes, v.darshan.write_bytes] : []));
  const sum = (k, f) => fake.windows.reduce((s, v) => s + (v[k] ? v[k][f] : 0), 0);
  fake.windows.forEach((v, i) => {
    const d = v.t2 - v.t1;
    v.slurm = i === 3 ? { read_bytes: 10240, write_bytes: 0, cpu_s: 1.5, samples: 3 } : null;
    v.slurm_fs = i % 2 ? null : { read_bytes: 3e6 * d + 0.4, write_bytes: 1e6 * d * (i % 5), reads: 10.5, writes: 3 };
    v.slurm_net = { in_bytes: 2e6 * d * (1 + i % 3), out_bytes: 5e5 * d, in_packets: 100.25, out_packets: 50 };
  });
  fake.totals.slurm = { read_bytes: 10240, write_bytes: 0, cpu_s: 1.5, samples: 3 };
  fake.totals.slurm_fs = { read_bytes: sum('slurm_fs', 'read_bytes'), write_bytes: sum('slurm_fs', 'write_bytes'),
    reads: sum('slurm_fs', 'reads'), writes: sum('slurm_fs', 'writes') };
  fake.totals.slurm_net = { in_bytes: sum('slurm_net', 'in_bytes'), out_bytes: sum('slurm_net', 'out_bytes'),
    in_packets: sum('slurm_net', 'in_packets'), out_packets: sum('slurm_net', 'out_packets') };
  await page.route(/\/api\/job\?/, (route) => route.fulfill({ json: fake }));
  await page.click('#show');
  await page.waitForSelector('#slurm_net', { state: 'visible' });
  for (const id of ['slurm_fs', 'slurm_net', 'l3', 'l4']) assert.ok(await page.locator(`#${id}`).isVisible(), id);
  assert.match(await page.locator('#l3').innerText(), /Slurm file system \(node-wide\)/);
  assert.match(await page.locator('#l4').innerText(), /Slurm network \(node-wide\)/);
  const t = fake.totals;
  assert.equal(await cell('slurm-read'), '10240');
  assert.equal(await cell('slurm-fs-read'), String(Math.round(t.slurm_fs.read_bytes)));
  assert.equal(await cell('slurm-fs-write'), String(Math.round(t.slurm_fs.write_bytes)));
  assert.equal(await cell('slurm-fs-ops'), String(Math.round(t.slurm_fs.reads + t.slurm_fs.writes)));
  assert.equal(await cell('slurm-net-in'), String(Math.round(t.slurm_net.in_bytes)));
  assert.equal(await cell('slurm-net-out'), String(Math.round(t.slurm_net.out_bytes)));
  assert.equal(await cell('slurm-net-packets'), String(Math.round(t.slurm_net.in_packets + t.slurm_net.out_packets)));
  for (const id of ['darshan', 'jobstats', 'slurm', 'slurm_fs', 'slurm_net']) {
    const k = await laneInk(page, id);
    assert.equal(k.head, 0, `no bar in the label strip of ${id}: ${JSON.stringify(k)}`);
  }
  const full = await laneInk(page, 'darshan'), tiny = await laneInk(page, 'slurm');
  assert.ok(full.rows > 60, `the heavy lane's bars span its height: ${JSON.stringify(full)}`);
  assert.ok(tiny.rows > 0 && tiny.rows <= 2, `10 KiB in a window draws small: ${JSON.stringify(tiny)}`);
  // Hovering the network lane gives its window's in and out rates.
  const nbox = await page.locator('#slurm_net').boundingBox();
  await page.mouse.move(nbox.x + nbox.width * 0.5, nbox.y + 40);
  const nw = fake.windows.find((v) => v.t1 === w.t1);
  const nin = (nw.slurm_net.in_bytes / 1048576 / (nw.t2 - nw.t1)).toFixed(2).replace('.', '\\.');
  assert.match(await page.locator('#hover').innerText(), new RegExp(`slurm_net \\(node-wide\\): in ${nin} MiB/s`));
  await page.screenshot({ path: join(artifacts, 'viewer_job_slurm.png') });
  await page.unroute(/\/api\/job\?/);

  // A job no store holds: the page shows the server's reason, and nothing else of a job (no lane, no axis,
  // no totals). The server's 404 for it (docs/viewer.md) is the one failed request, and the console's one error.
  await page.fill('#job', '77');
  await page.click('#show');
  await page.waitForFunction(() => document.getElementById('error').textContent.length > 0);
  assert.match(await page.locator('#error').innerText(), /no store holds anything of job 77/);
  for (const id of ['darshan', 'jobstats', 'slurm', 'slurm_fs', 'slurm_net', 'xaxis', 'l0']) {
    assert.equal(await page.locator(`#${id}`).isVisible(), false, `${id} hidden`);
  }
  for (const id of ['span', 'sources', 'totals', 'notes']) {
    assert.equal(await page.locator(`#${id}`).innerText(), '', `${id} empty`);
  }
  await page.screenshot({ path: join(artifacts, 'viewer_job_unknown.png') });
  assert.equal(failed.length, 1, failed.join('\n'));
  assert.match(failed[0], /^404 .*\/api\/job\?id=77&/);
  assert.ok(consoleErrors.every((e) => e.includes('/api/job?id=77&')), consoleErrors.join('\n'));
  assert.deepEqual(errors, []);
  await page.close();
});

// The viewer's latency as a person zooming sees it (docs/benchmarks.md, "Viewer"): `xtfq serve` on
// one store, headless Chromium (tests/browser's playwright-core) loading the page, then a scripted
// session of 10 wheel zooms in at random points, 10 drags and 10 zooms out, each waiting for the
// page to settle. Reports the first paint (navigation to the first heatmap drawn) and the p50, p99
// and max of the heatmap tiles' latency (request sent to answer received, from the browser's
// resource timing). `cold`: the store is dropped from the OS page cache before the server starts.
//
//   node bench/viewer_latency.mjs build/xtfq STORE [cold]
import { spawn, execFileSync } from 'node:child_process';
import { launchChromium } from '../tests/browser/chromium.mjs';
const [cli, store, mode] = process.argv.slice(2);
if (!cli || !store) {
  console.error('usage: node bench/viewer_latency.mjs XTFQ STORE [cold]');
  process.exit(2);
}
if (mode === 'cold') {
  execFileSync('python3', ['-c', `import os; fd = os.open(${JSON.stringify(store)}, os.O_RDONLY); ` +
    'os.fdatasync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)']);
}
const server = spawn(cli, ['serve', store, '--port', '0']);
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => { out += d; const m = out.match(/http:\/\/\S+/); if (m) resolve(m[0]); });
  server.on('exit', (c) => reject(new Error(`xtfq serve exited with ${c}`)));
});
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
const tiles = [];
let aborted = 0;  // tiles a newer view made stale, aborted by the page
page.on('requestfailed', (r) => {
  const u = new URL(r.url());
  if (u.pathname === '/api/grid' && u.searchParams.has('rows')) ++aborted;
});
page.on('requestfinished', (r) => {
  const u = new URL(r.url());
  if (u.pathname !== '/api/grid' || !u.searchParams.has('rows')) return;
  const t = r.timing();
  tiles.push(t.responseEnd - t.requestStart);
});
const t0 = Date.now();
await page.goto(url);
await page.waitForFunction(() => document.getElementById('status').innerText.includes('cells'), null, { timeout: 600000 });
const firstPaint = Date.now() - t0;
const box = await page.locator('#heat').boundingBox();
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
async function idle() {
  let n = -1;
  while (tiles.length + aborted !== n) { n = tiles.length + aborted; await page.waitForTimeout(300); }
}
for (let i = 0; i < 10; ++i) {
  await page.mouse.move(box.x + box.width * (0.2 + 0.6 * random()), box.y + box.height / 2);
  await page.mouse.wheel(0, -300);
  await idle();
}
for (let i = 0; i < 10; ++i) {
  const x = box.x + box.width / 2, y = box.y + box.height / 2, dx = (random() - 0.5) * 300;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y, { steps: 3 });
  await page.mouse.up();
  await idle();
}
for (let i = 0; i < 10; ++i) {
  await page.mouse.wheel(0, 300);
  await idle();
}
const sorted = [...tiles].sort((a, b) => a - b);
const pct = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
console.log(JSON.stringify({ store, mode: mode || 'warm', first_paint_ms: firstPaint, tiles: sorted.length, aborted,
  p50_ms: +pct(0.5).toFixed(1), p99_ms: +pct(0.99).toFixed(1), max_ms: +sorted[sorted.length - 1].toFixed(1) }));
await browser.close();
server.kill('SIGTERM');

// Screenshots of the viewer for the demo: opens the URL that `xtfq serve` printed in headless
// Chromium (tests/browser's playwright-core), waits for the heatmap, and writes OUT.png; with a
// store number, selects that store first (its view: Darshan or job_stats).
//
//   node scripts/viewer_screenshot.mjs URL OUT.png [STORE]
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../tests/browser/package.json'));
const { chromium } = require('playwright-core');
const [url, out, store] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node scripts/viewer_screenshot.mjs URL OUT.png [STORE]');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1300, height: 760 } });
await page.goto(url);
await page.waitForFunction(() => document.getElementById('status').innerText.includes('window'), null, { timeout: 120000 });
if (store !== undefined) {
  await page.selectOption('#store', store);
  await page.waitForFunction((s) => document.getElementById('status').innerText.includes('job_stats') ||
    document.getElementById('store').value === s, store);
}
await page.waitForTimeout(1500);  // the timeline and the side panel
await page.screenshot({ path: out });
await browser.close();

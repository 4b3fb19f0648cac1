// Screenshots of the viewer for the demo: opens the URL that `xtfq serve` printed in headless
// Chromium (tests/browser's playwright-core), waits for the heatmap, and writes OUT.png; with a
// store number, selects that store first (its view: Darshan or job_stats); with job=ID, the job
// view of that job.
//
//   node scripts/viewer_screenshot.mjs URL OUT.png [STORE | job=ID]
import { launchChromium } from '../tests/browser/chromium.mjs';
const [url, out, store] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node scripts/viewer_screenshot.mjs URL OUT.png [STORE]');
  process.exit(2);
}
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1300, height: 760 } });
if (store !== undefined && store.startsWith('job=')) {
  // The job view of one job (job=ID): its three lanes and totals.
  const u = new URL(url);
  u.pathname = '/job.html';
  u.searchParams.set('job', store.slice(4));
  await page.goto(u.toString());
  await page.waitForSelector('[data-testid=darshan-read]', { timeout: 120000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: out });
  await browser.close();
  process.exit(0);
}
await page.goto(url);
await page.waitForFunction(() => document.getElementById('status').innerText.includes('cells'), null, { timeout: 120000 });
if (store !== undefined) {
  await page.selectOption('#store', store);
  await page.waitForFunction((s) => document.getElementById('status').innerText.includes('job_stats') ||
    document.getElementById('store').value === s, store);
}
await page.waitForTimeout(1500);  // the timeline and the side panel
await page.screenshot({ path: out });
await browser.close();

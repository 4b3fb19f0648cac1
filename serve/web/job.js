// The job view (docs/viewer.md): one job's Darshan windows, job_stats rates with its share of its
// top target, and Slurm task series on one time axis, from /api/job (the JSON of `xtfq job
// --format json`). Read bars above the axis of each lane, write bars below.
'use strict';
const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
const $ = (id) => document.getElementById(id);
const MiB = 1048576;
let answer = null;

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const utc = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z').replace('T', ' ');
const rate = (bytes, w) => bytes / MiB / (w.t2 - w.t1);

// Per window: [read, write] MiB/s of a lane, or null when its source has nothing.
function laneValues(w, lane) {
  if (lane === 'darshan') return w.darshan ? [rate(w.darshan.read_bytes, w), rate(w.darshan.write_bytes, w)] : null;
  if (lane === 'slurm') return w.slurm ? [rate(w.slurm.read_bytes, w), rate(w.slurm.write_bytes, w)] : null;
  if (!w.jobstats.length) return null;
  let r = 0, wr = 0;
  for (const t of w.jobstats) r += t.job_read_bytes, wr += t.job_write_bytes;
  return [rate(r, w), rate(wr, w)];
}

// The target where the job moved the most in a window, and its share there.
function topTarget(w) {
  let top = null;
  for (const t of w.jobstats) {
    if (!top || t.job_read_bytes + t.job_write_bytes > top.job_read_bytes + top.job_write_bytes) top = t;
  }
  return top && top.job_read_bytes + top.job_write_bytes > 0 ? top : null;
}

function drawLane(lane) {
  const c = $(lane), g = c.getContext('2d'), W = c.width, H = c.height, mid = H / 2;
  g.clearRect(0, 0, W, H);
  g.fillStyle = '#fafafa';
  g.fillRect(0, 0, W, H);
  const a = answer, span = a.span.t2 - a.span.t1;
  const vals = a.windows.map((w) => laneValues(w, lane));
  if (vals.every((v) => v === null)) {
    g.fillStyle = '#888';
    g.fillText('nothing of this job', 8, mid + 4);
    return;
  }
  const max = Math.max(1e-9, ...vals.filter((v) => v).flat());
  a.windows.forEach((w, i) => {
    const v = vals[i];
    if (!v) return;
    const x0 = (w.t1 - a.span.t1) / span * W, x1 = (w.t2 - a.span.t1) / span * W;
    g.fillStyle = '#1f77b4';
    g.fillRect(x0, mid - v[0] / max * (mid - 2), Math.max(1, x1 - x0 - 1), v[0] / max * (mid - 2));
    g.fillStyle = '#ff7f0e';
    g.fillRect(x0, mid, Math.max(1, x1 - x0 - 1), v[1] / max * (mid - 2));
    if (lane === 'jobstats') {
      const top = topTarget(w), s = top && top.share;
      if (s !== null && s !== undefined) {
        g.fillStyle = '#2ca02c';
        g.fillRect(x0, H - 3 - s * (H - 6), Math.max(1, x1 - x0 - 1), 2);
      }
    }
  });
  g.strokeStyle = '#999';
  g.beginPath();
  g.moveTo(0, mid + 0.5);
  g.lineTo(W, mid + 0.5);
  g.stroke();
  g.fillStyle = '#333';
  g.fillText(`read ↑ max ${max.toPrecision(4)} MiB/s`, 4, 11);
  g.fillText('write ↓', 4, H - 4);
}

function drawAxis() {
  const c = $('xaxis'), g = c.getContext('2d'), W = c.width, a = answer, span = a.span.t2 - a.span.t1;
  g.clearRect(0, 0, W, c.height);
  g.fillStyle = '#333';
  g.strokeStyle = '#333';
  for (let k = 0; k <= 4; ++k) {
    const x = k / 4 * (W - 1), t = a.span.t1 + k / 4 * span;
    g.beginPath();
    g.moveTo(x + 0.5, 0);
    g.lineTo(x + 0.5, 6);
    g.stroke();
    const label = utc(Math.round(t)).slice(11);
    g.fillText(label, Math.min(W - g.measureText(label).width, Math.max(0, x - 24)), 18);
  }
  g.fillText(`${utc(a.span.t1)} UTC, ${a.windows.length} windows of ${a.window_s} s`, 0, 32);
}

function show() {
  const a = answer;
  $('span').textContent = `job ${a.job}: ${utc(a.span.t1)} to ${utc(a.span.t2)} (${a.span.t2 - a.span.t1} s)`;
  $('sources').textContent = a.sources.map((s) => `${s.kind.padEnd(8)} ${s.store ? s.store + ': ' : ''}${s.detail}`).join('\n');
  const t = a.totals, cell = (id, v) => `<td data-testid="${id}">${v === null || v === undefined ? 'NA' : v}</td>`;
  let js = null;
  if (t.jobstats.length) {
    js = { r: 0, w: 0 };
    for (const x of t.jobstats) js.r += x.job_read_bytes, js.w += x.job_write_bytes;
  }
  let rows = '<table><caption>the job over its span (bytes)</caption><tr><th>source</th><th>read</th><th>written</th><th>ops / CPU s</th></tr>';
  rows += `<tr><td>Darshan</td>${cell('darshan-read', t.darshan && t.darshan.read_bytes)}${cell('darshan-write', t.darshan && t.darshan.write_bytes)}${cell('darshan-ops', t.darshan && t.darshan.ops)}</tr>`;
  // job_stats totals are integrals of rates (fractions of bytes at window edges): shown rounded.
  rows += `<tr><td>job_stats</td>${cell('jobstats-read', js && Math.round(js.r))}${cell('jobstats-write', js && Math.round(js.w))}<td></td></tr>`;
  rows += `<tr><td>Slurm tasks</td>${cell('slurm-read', t.slurm && t.slurm.read_bytes)}${cell('slurm-write', t.slurm && t.slurm.write_bytes)}${cell('slurm-cpu', t.slurm && t.slurm.cpu_s.toFixed(2))}</tr>`;
  rows += '</table>';
  if (t.jobstats.length) {
    rows += '<table><caption>job_stats targets: the job\'s share of each one\'s bytes</caption><tr><th>target</th><th>job read</th><th>job written</th><th>share</th></tr>';
    for (const x of t.jobstats) {
      rows += `<tr><td>${esc(x.target)}</td><td>${Math.round(x.job_read_bytes)}</td><td>${Math.round(x.job_write_bytes)}</td><td>${x.share === null ? 'NA' : (100 * x.share).toFixed(1) + '%'}</td></tr>`;
    }
    rows += '</table>';
  }
  $('totals').innerHTML = rows;
  $('notes').textContent = a.notes.map((n) => '# ' + n).join('\n');
  for (const lane of ['darshan', 'jobstats', 'slurm']) drawLane(lane);
  drawAxis();
}

async function load() {
  const id = $('job').value.trim();
  $('error').textContent = '';
  if (!/^[0-9]+$/.test(id)) {
    $('error').textContent = 'give a job id (digits)';
    return;
  }
  const q = new URLSearchParams({ id, windows: $('windows').value.trim() || '60' });
  if (token) q.set('token', token);
  history.replaceState(null, '', `?${new URLSearchParams({ job: id, windows: q.get('windows'), ...(token ? { token } : {}) })}`);
  const r = await fetch(`/api/job?${q}`);
  const body = await r.json();
  if (!r.ok) {
    answer = null;
    $('error').textContent = body.error;
    $('sources').textContent = $('totals').textContent = $('notes').textContent = '';
    return;
  }
  answer = body;
  show();
}

// The hovered window's numbers, lane by lane.
for (const lane of ['darshan', 'jobstats', 'slurm']) {
  $(lane).addEventListener('mousemove', (e) => {
    if (!answer) return;
    const c = $(lane), x = (e.offsetX - c.clientLeft) / c.clientWidth;
    const t = answer.span.t1 + x * (answer.span.t2 - answer.span.t1);
    const w = answer.windows.find((v) => v.t1 <= t && t < v.t2);
    if (!w) return;
    const v = laneValues(w, lane), top = lane === 'jobstats' ? topTarget(w) : null;
    $('hover').textContent = `${utc(w.t1)} to ${utc(w.t2)}\n${lane}: ` +
      (v ? `read ${v[0].toFixed(2)} MiB/s, write ${v[1].toFixed(2)} MiB/s` : 'nothing') +
      (top ? `\ntop target ${top.target}: share ${top.share === null ? 'NA' : (100 * top.share).toFixed(1) + '%'}` : '');
  });
  $(lane).addEventListener('mouseleave', () => { $('hover').textContent = ''; });
}
$('show').addEventListener('click', load);
$('job').addEventListener('keydown', (e) => { if (e.key === 'Enter') load(); });
$('back').href = token ? `index.html?token=${encodeURIComponent(token)}` : 'index.html';
if (params.get('windows')) $('windows').value = params.get('windows');
if (params.get('job')) {
  $('job').value = params.get('job');
  load();
}

// The job view (docs/viewer.md): one job's Darshan windows, job_stats rates with its share of its
// top target, and Slurm task series on one time axis, from /api/job (the JSON of `xtfq job
// --format json`), and, when the answer has them, the node-wide Slurm file system and network
// series (every process on the node, not only the job's). Read (in) bars above the axis of each
// lane, write (out) bars below; each lane's label sits in a strip above its plot, never over a bar.
'use strict';
const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
const $ = (id) => document.getElementById(id);
const MiB = 1048576;
let answer = null;
let asked = 0;  // the latest request: an older answer arriving after it is dropped

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const utc = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z').replace('T', ' ');
const rate = (bytes, w) => bytes / MiB / (w.t2 - w.t1);
const mibs = (v) => (v === 0 ? '0' : v >= 1000 ? v.toFixed(0) : v >= 1 ? v.toPrecision(4) : v.toPrecision(2));
const round = (v) => (v === null || v === undefined ? v : Math.round(v));

// The lanes, top to bottom: the canvas's id, its label cell, what its bars above and below are,
// and whether it is shown only when some window has its series (the node-wide Slurm ones).
const LANES = [
  { id: 'darshan', label: 'l0', up: 'read', down: 'write' },
  { id: 'jobstats', label: 'l1', up: 'read', down: 'write' },
  { id: 'slurm', label: 'l2', up: 'read', down: 'write' },
  { id: 'slurm_fs', label: 'l3', up: 'read', down: 'write', optional: true },
  { id: 'slurm_net', label: 'l4', up: 'in', down: 'out', optional: true },
];
const laneOf = (id) => LANES.find((l) => l.id === id);

// Each lane canvas: a strip of HEAD pixels on top for its label and scale, then the plot.
const HEAD = 16;

// The scale. Each lane scales to its own maximum (the lanes measure different things), but not
// below a floor shared by every lane: 1% of the largest lane maximum, and at least 1 MiB/s. A lane
// whose maximum is under the floor (a 10 KB read in one window) draws at the floor's scale, small,
// instead of filling its height like a heavy lane; its label says so. A bar that is not zero is
// at least 1 pixel tall, so that little traffic still shows.
const FLOOR_SHARE = 0.01, FLOOR_MIBS = 1;

// Per window: [read, write] (network: [in, out]) MiB/s of a lane, or null when its source has nothing.
function laneValues(w, lane) {
  if (lane === 'darshan') return w.darshan ? [rate(w.darshan.read_bytes, w), rate(w.darshan.write_bytes, w)] : null;
  if (lane === 'slurm') return w.slurm ? [rate(w.slurm.read_bytes, w), rate(w.slurm.write_bytes, w)] : null;
  if (lane === 'slurm_fs') {
    const f = w.slurm_fs;
    return f ? [rate(f.read_bytes || 0, w), rate(f.write_bytes || 0, w)] : null;
  }
  if (lane === 'slurm_net') {
    const n = w.slurm_net;
    return n ? [rate(n.in_bytes || 0, w), rate(n.out_bytes || 0, w)] : null;
  }
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

// Whether a lane is drawn: the job's own lanes always (saying when they have nothing of the job),
// the node-wide ones only when some window has their series.
const shown = (lane) => !lane.optional || answer.windows.some((w) => laneValues(w, lane.id) !== null);

// Draws a lane with `scale` MiB/s at full half-height; `max` is its own maximum, `floor` the shared one.
function drawLane(lane, vals, max, floor) {
  const c = $(lane.id), g = c.getContext('2d'), W = c.width, H = c.height;
  const mid = HEAD + (H - HEAD) / 2, half = (H - HEAD) / 2 - 2, scale = Math.max(max, floor);
  c.dataset.plotTop = HEAD;
  g.clearRect(0, 0, W, H);
  g.fillStyle = '#f0f0f0';
  g.fillRect(0, 0, W, HEAD);
  g.fillStyle = '#fafafa';
  g.fillRect(0, HEAD, W, H - HEAD);
  g.strokeStyle = '#ccc';
  g.beginPath();
  g.moveTo(0, HEAD - 0.5);
  g.lineTo(W, HEAD - 0.5);
  g.stroke();
  g.font = '10px system-ui, sans-serif';
  g.textBaseline = 'middle';
  const a = answer, span = a.span.t2 - a.span.t1;
  if (vals.every((v) => v === null)) {
    g.fillStyle = '#888';
    g.fillText('nothing of this job', 8, mid);
    return;
  }
  const bar = (v) => (v > 0 ? Math.max(1, v / scale * half) : 0);
  a.windows.forEach((w, i) => {
    const v = vals[i];
    if (!v) return;
    const x0 = (w.t1 - a.span.t1) / span * W, x1 = (w.t2 - a.span.t1) / span * W, bw = Math.max(1, x1 - x0 - 1);
    g.fillStyle = '#1f77b4';
    g.fillRect(x0, mid - bar(v[0]), bw, bar(v[0]));
    g.fillStyle = '#ff7f0e';
    g.fillRect(x0, mid, bw, bar(v[1]));
    if (lane.id === 'jobstats') {
      const top = topTarget(w), s = top && top.share;
      if (s !== null && s !== undefined) {
        g.fillStyle = '#2ca02c';
        g.fillRect(x0, H - 3 - s * (H - HEAD - 6), bw, 2);
      }
    }
  });
  g.strokeStyle = '#999';
  g.beginPath();
  g.moveTo(0, mid + 0.5);
  g.lineTo(W, mid + 0.5);
  g.stroke();
  g.fillStyle = '#333';
  const what = `${lane.up} ↑ ${lane.down} ↓ · scale: half-height = ${mibs(scale)} MiB/s`;
  let label = max >= floor ? `${what}, this lane's max` : `${what}, the shared floor (1% of the top lane's max, ` +
    `at least ${FLOOR_MIBS} MiB/s); this lane's max is ${mibs(max)} MiB/s`;
  if (g.measureText(label).width > W - 8) label = max >= floor ? what : `${what} (floor); this lane's max ${mibs(max)}`;
  g.fillText(label, 4, HEAD / 2);
}

function drawLanes() {
  const drawn = LANES.filter(shown);
  for (const lane of LANES) $(lane.id).hidden = $(lane.label).hidden = !drawn.includes(lane);
  const vals = new Map(drawn.map((l) => [l.id, answer.windows.map((w) => laneValues(w, l.id))]));
  const top = (xs) => xs.reduce((m, x) => Math.max(m, x), 0);
  const max = new Map(drawn.map((l) => [l.id, top(vals.get(l.id).filter((v) => v).flat())]));
  const floor = Math.max(FLOOR_MIBS, FLOOR_SHARE * top([...max.values()]));
  for (const lane of drawn) drawLane(lane, vals.get(lane.id), max.get(lane.id), floor);
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
  const fs = t.slurm_fs, net = t.slurm_net;
  let rows = '<table><caption>the job over its span (bytes)</caption><tr><th>source</th><th>read</th><th>written</th><th>ops / CPU s</th></tr>';
  rows += `<tr><td>Darshan</td>${cell('darshan-read', t.darshan && t.darshan.read_bytes)}${cell('darshan-write', t.darshan && t.darshan.write_bytes)}${cell('darshan-ops', t.darshan && t.darshan.ops)}</tr>`;
  // job_stats totals are integrals of rates (fractions of bytes at window edges): shown rounded; so
  // are Slurm's (a sample that straddles a window edge counts in proportion).
  rows += `<tr><td>job_stats</td>${cell('jobstats-read', js && Math.round(js.r))}${cell('jobstats-write', js && Math.round(js.w))}<td></td></tr>`;
  rows += `<tr><td>Slurm tasks</td>${cell('slurm-read', t.slurm && round(t.slurm.read_bytes))}` +
    `${cell('slurm-write', t.slurm && round(t.slurm.write_bytes))}` +
    `${cell('slurm-cpu', t.slurm && t.slurm.cpu_s.toFixed(2))}</tr>`;
  rows += '</table>';
  // The node-wide Slurm series, apart: every process on the node, not only the job's (NA without them).
  const sum = (x, k1, k2) => (x && x[k1] !== null && x[k1] !== undefined ? Math.round(x[k1] + x[k2]) : null);
  rows += '<table><caption>node-wide Slurm: every process on the node (bytes)</caption>' +
    '<tr><th>series</th><th>read / in</th><th>written / out</th><th>ops / packets</th></tr>';
  rows += `<tr><td>file system</td>${cell('slurm-fs-read', fs && round(fs.read_bytes))}` +
    `${cell('slurm-fs-write', fs && round(fs.write_bytes))}${cell('slurm-fs-ops', sum(fs, 'reads', 'writes'))}</tr>`;
  rows += `<tr><td>network</td>${cell('slurm-net-in', net && round(net.in_bytes))}` +
    `${cell('slurm-net-out', net && round(net.out_bytes))}` +
    `${cell('slurm-net-packets', sum(net, 'in_packets', 'out_packets'))}</tr>`;
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
  $('lanes').hidden = false;
  drawLanes();
  drawAxis();
}

// Nothing of a job on the page: no lanes, no axis, no numbers; only `why` (the server's reason).
function fail(why) {
  answer = null;
  $('lanes').hidden = true;
  $('error').textContent = why;
  for (const id of ['span', 'hover', 'sources', 'totals', 'notes']) $(id).textContent = '';
}

async function load() {
  const id = $('job').value.trim(), mine = ++asked;
  $('error').textContent = '';
  if (!/^[0-9]+$/.test(id)) {
    fail('give a job id (digits)');
    return;
  }
  const q = new URLSearchParams({ id, windows: $('windows').value.trim() || '60' });
  if (token) q.set('token', token);
  history.replaceState(null, '', `?${new URLSearchParams({ job: id, windows: q.get('windows'), ...(token ? { token } : {}) })}`);
  let r, body;
  try {
    r = await fetch(`/api/job?${q}`);
    body = await r.json();
  } catch (e) {
    if (mine === asked) fail(`/api/job: ${r ? `${r.status} ${r.statusText}, not JSON` : e.message}`);
    return;
  }
  if (mine !== asked) return;
  if (!r.ok) {
    fail(body.error || `/api/job: ${r.status} ${r.statusText}`);
    return;
  }
  answer = body;
  show();
}

// The hovered window's numbers, lane by lane.
for (const { id: lane, up, down } of LANES) {
  $(lane).addEventListener('mousemove', (e) => {
    if (!answer) return;
    const c = $(lane), x = (e.offsetX - c.clientLeft) / c.clientWidth;
    const t = answer.span.t1 + x * (answer.span.t2 - answer.span.t1);
    const w = answer.windows.find((v) => v.t1 <= t && t < v.t2);
    if (!w) return;
    const v = laneValues(w, lane), top = lane === 'jobstats' ? topTarget(w) : null;
    $('hover').textContent = `${utc(w.t1)} to ${utc(w.t2)}\n${lane}${laneOf(lane).optional ? ' (node-wide)' : ''}: ` +
      (v ? `${up} ${v[0].toFixed(2)} MiB/s, ${down} ${v[1].toFixed(2)} MiB/s` : 'nothing') +
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

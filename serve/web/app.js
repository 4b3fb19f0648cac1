// The xtfq viewer: a rank x time heatmap of one Darshan log, drawn from /api/grid tiles whose
// size follows the canvas (its pixels), never the trace. Wheel zooms time around the cursor,
// drag pans, reset goes back to the whole run; hover gives a cell's exact numbers; shift + drag
// selects a region, whose statistics come from /api/query (the numbers of `xtfq query`).
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
const heat = $('heat'), ctx = heat.getContext('2d');
const state = { store: 0, stores: [], t1: null, t2: null, grid: null, pending: null, select: null, picked: null };

function api(path, params) {
  const q = new URLSearchParams(params);
  if (token) q.set('token', token);
  return fetch(`${path}?${q}`).then(async (r) => {
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || r.statusText);
    return j;
  });
}

// A colour from a value in [0, 1]: viridis (dark purple to yellow), linear between its anchors.
const viridis = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137],
  [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];
function colour(x) {
  const f = Math.min(1, Math.max(0, x)) * (viridis.length - 1), i = Math.min(viridis.length - 2, Math.floor(f));
  const a = viridis[i], b = viridis[i + 1], t = f - i;
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * t));
}

function draw() {
  const g = state.grid;
  if (!g) return;
  const m = g.metrics[0], rows = g.rows.length, cols = g.cols;
  let lo = Infinity, hi = -Infinity;
  for (const row of m.values) for (const v of row) if (v !== null && v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const img = ctx.createImageData(cols, rows);
  for (let r = 0; r < rows; ++r) {
    for (let c = 0; c < cols; ++c) {
      const v = m.values[r][c], i = 4 * (r * cols + c);
      if (v === null || !(v > 0)) { img.data.set([255, 255, 255, 255], i); continue; }
      const x = hi > lo ? (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : 1;  // log scale
      img.data.set([...colour(x), 255], i);
    }
  }
  const off = new OffscreenCanvas(cols, rows);
  off.getContext('2d').putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.clearRect(0, 0, heat.width, heat.height);
  ctx.drawImage(off, 0, 0, heat.width, heat.height);
  const lg = $('legend').getContext('2d');
  for (let x = 0; x < 160; ++x) { lg.fillStyle = `rgb(${colour(x / 159).join(',')})`; lg.fillRect(x, 0, 1, 12); }
  $('range').textContent = isFinite(lo) ? `${lo.toPrecision(3)} .. ${hi.toPrecision(3)} ${m.unit} (log)` : 'no data';
  drawAxes(g);
  drawSelection();
  const s0 = g.time.edges_s[0], s1 = g.time.edges_s[cols];
  $('status').textContent = `${g.source}\nwindow ${s0.toFixed(3)} .. ${s1.toFixed(3)} s, ${cols} x ${rows} cells` +
    `${g.snapped ? ' (snapped)' : ''}\nread: ${g.plan.how}, ${g.plan.pages_read} pages\n${g.exactness}`;
}

// Ticks of the time axis (seconds from the job's start, and the wall clock at the ends) and of
// the rank axis (the rows' first ranks).
function drawAxes(g) {
  const xa = $('xaxis').getContext('2d'), ya = $('yaxis').getContext('2d');
  xa.clearRect(0, 0, 800, 40), ya.clearRect(0, 0, 64, 512);
  xa.fillStyle = ya.fillStyle = '#222', xa.font = ya.font = '11px system-ui, sans-serif';
  const s0 = g.time.edges_s[0], s1 = g.time.edges_s[g.cols];
  for (let i = 0; i <= 5; ++i) {
    const x = Math.min(798, Math.round(i * 800 / 5)), t = s0 + (s1 - s0) * i / 5;
    xa.fillRect(x, 0, 1, 5);
    xa.textAlign = i === 0 ? 'left' : i === 5 ? 'right' : 'center';
    // job_stats times are epoch seconds: the wall clock (UTC)
    xa.fillText(kind() === 'jobstats' ? new Date(t * 1000).toISOString().slice(11, 19) : `${t.toPrecision(6)} s`, x, 16);
  }
  if (g.time.job_start_epoch !== undefined) {
    const wall = (t) => new Date((g.time.job_start_epoch + t) * 1000).toISOString().replace('.000Z', 'Z');
    xa.textAlign = 'left', xa.fillText(wall(s0), 0, 32);
    xa.textAlign = 'right', xa.fillText(wall(s1), 798, 32);
  }
  ya.textAlign = 'right';
  const rows = g.rows.length, step = Math.max(1, Math.ceil(rows / 8));
  for (let r = 0; r < rows; r += step) {
    const y = Math.round(r * 512 / rows);
    ya.fillRect(58, y, 6, 1);
    ya.fillText(g.row_labels ? g.row_labels[r].slice(-9) : `${g.process} ${g.rows[r][0]}`, 56, Math.max(10, y + 10));
  }
}

// The selection's rectangle over the cells.
function drawSelection() {
  const sel = state.select;
  if (!sel) return;
  ctx.strokeStyle = '#e0245e', ctx.lineWidth = 2;
  ctx.strokeRect(Math.min(sel.x0, sel.x1), Math.min(sel.y0, sel.y1), Math.abs(sel.x1 - sel.x0), Math.abs(sel.y1 - sel.y0));
}

// A selection's window and ranks (whole cells) and its statistics from /api/query.
function pick(sel) {
  const g = state.grid;
  const c0 = Math.max(0, Math.floor(Math.min(sel.x0, sel.x1) / heat.width * g.cols));
  const c1 = Math.min(g.cols, Math.ceil(Math.max(sel.x0, sel.x1) / heat.width * g.cols));
  const r0 = Math.max(0, Math.floor(Math.min(sel.y0, sel.y1) / heat.height * g.rows.length));
  const r1 = Math.min(g.rows.length, Math.ceil(Math.max(sel.y0, sel.y1) / heat.height * g.rows.length));
  if (c1 <= c0 || r1 <= r0) return;
  // The window in ns from the job's start, as the grid's edges are: exactly the selected cells.
  const p = { store: state.store, time: `${g.time.edges[c0]}ns:${g.time.edges[c1]}ns`,
    ranks: `${g.rows[r0][0]}:${g.rows[r1 - 1][1]}` };
  state.picked = p;
  $('selection').textContent = 'reading ...';
  api('/api/query', p).then((q) => {
    if (state.picked !== p) return;
    const f = (v, d = 4) => (v === null || v === undefined ? 'NA' : Number(v).toPrecision(d));
    const lines = [`selection: ${p.time} ranks ${p.ranks}`, q.answered];
    for (const op of ['read', 'write']) {
      const o = q[op];
      lines.push(`${op}: ${o.ops} ops, ${o.bytes} bytes, ${f(o.bw_mib_s)} MiB/s, busy ${f(o.busy_s)} s`);
      if (o.percentiles) {
        const d = o.percentiles.duration_s;
        lines.push(`  duration p50 ${d.p50 ? d.p50.map((x) => f(x, 3)).join('..') : 'NA'} s, ` +
          `p99 ${d.p99 ? d.p99.map((x) => f(x, 3)).join('..') : 'NA'} s`);
      }
    }
    const im = q.rank_imbalance;
    if (im) lines.push(`ranks with I/O ${im.ranks}, bytes per rank ${im.min_bytes}..${im.max_bytes}, ` +
      `slowest rank ${im.slowest_rank}`);
    $('selection').textContent = lines.join('\n');
  }).catch((e) => { if (state.picked === p) $('selection').textContent = e.message; });
}

// The metrics and ops a kind of store offers.
const choices = {
  darshan: { metric: ['bytes', 'ops', 'busy', 'duration.p99'], op: ['all', 'read', 'write'] },
  jobstats: { metric: ['rate', 'total'], op: ['write_bytes', 'read_bytes', 'open', 'getattr'] },
  arrays: { metric: ['count'], op: ['all'] },
};
function kind() { const s = state.stores[state.store]; return s ? s.kind : 'darshan'; }
function setChoices() {
  for (const id of ['metric', 'op']) {
    const sel = $(id);
    sel.replaceChildren(...choices[kind()][id].map((v) => { const o = document.createElement('option'); o.textContent = v; return o; }));
  }
}

function load() {
  const darshan = kind() === 'darshan';
  for (const id of ['timeline', 'tllabel', 'selection']) $(id).style.display = darshan ? '' : 'none';
  // Half the canvas's pixels a cell, and no more rows than the log has ranks (job_stats: every
  // target, the rows the grid gives).
  const s = state.stores[state.store], ranks = s && s.logs && s.logs.length ? s.logs[0].nprocs : 256;
  const cols = Math.min(1000, Math.floor(heat.width / 2));
  const rows = Math.max(1, Math.min(128, Math.floor(heat.height / 4), ranks));
  const p = { store: state.store, cols, metric: $('metric').value, op: $('op').value };
  if (kind() === 'jobstats') p.by = 'target';
  else p.rows = rows, p.snap = 1;
  if (state.t1 !== null) p.time = `${state.t1}:${state.t2}`;
  const mine = {};
  state.pending = mine;
  api('/api/grid', p).then((g) => {
    if (state.pending !== mine) return;  // a newer request replaced this one
    state.grid = g;
    if (state.t1 === null) { state.t1 = g.time.edges_s[0]; state.t2 = g.time.edges_s[g.cols]; }
    $('error').textContent = '';
    draw();
    if (kind() === 'darshan') timeline(g, mine);
    if (kind() === 'jobstats') topJobs(g, mine);
  }).catch((e) => {
    if (state.pending !== mine) return;
    // No picture of another request under the error: the page says only what went wrong.
    state.grid = null;
    ctx.clearRect(0, 0, heat.width, heat.height);
    for (const id of ['xaxis', 'yaxis', 'timeline', 'legend']) $(id).getContext('2d').clearRect(0, 0, 800, 600);
    for (const id of ['range', 'status', 'tllabel', 'top']) $(id).textContent = '';
    $('hover').textContent = '';
    $('error').textContent = e.message;
  });
}

// The bandwidth of the whole range on the grid's own columns: a grid of one row over exactly the
// same edges (bytes per column), drawn as bars under the heatmap in MiB/s.
function timeline(g, mine) {
  const p = { store: state.store, cols: g.cols, op: $('op').value, metric: 'bytes',
    time: `${g.time.edges[0]}ns:${g.time.edges[g.cols]}ns` };
  api('/api/grid', p).then((t) => {
    if (state.pending !== mine) return;
    const v = t.metrics[0].values[0], tl = $('timeline').getContext('2d');
    const rate = v.map((x, c) => (x === null ? 0 : x / (t.time.edges_s[c + 1] - t.time.edges_s[c]) / 1048576));
    const top = Math.max(...rate, 0);
    tl.clearRect(0, 0, 800, 90);
    tl.fillStyle = '#3b6ea5';
    for (let c = 0; c < rate.length; ++c) {
      const h = top > 0 ? Math.round(86 * rate[c] / top) : 0;
      tl.fillRect(Math.floor(c * 800 / rate.length), 90 - h, Math.max(1, Math.ceil(800 / rate.length)), h);
    }
    $('tllabel').textContent = `MiB/s\nmax ${top.toPrecision(3)}`;
    state.timeline = t;
  }).catch((e) => { if (state.pending === mine) $('error').textContent = e.message; });
}

// job_stats: the ten jobs with the largest total of the op in the visible window (xtfq query).
function topJobs(g, mine) {
  const p = { store: state.store, by: 'job', op: $('op').value, top: 10, sort: $('op').value,
    time: `${g.time.edges[0]}:${g.time.edges[g.cols]}` };
  api('/api/query', p).then((q) => {
    if (state.pending !== mine) return;
    const op = $('op').value, f = (v) => (v === null || v === undefined ? 'NA' : Number(v).toPrecision(4));
    const rows = q.groups.map((grp) => {
      const o = grp.ops[op] || {};
      return `<tr><td>${grp.job}</td><td>${f(o.total)}</td><td>${f(o.rate_mean)}</td><td>${f(o.rate_max)}</td></tr>`;
    });
    $('top').innerHTML = `<table><caption>top jobs by ${op} in the window</caption><tr><th>job</th><th>total</th>` +
      `<th>mean rate</th><th>peak rate</th></tr>${rows.join('')}</table>`;
  }).catch((e) => { if (state.pending === mine) $('error').textContent = e.message; });
}

heat.addEventListener('mousemove', (e) => {
  const g = state.grid;
  if (!g) return;
  const c = Math.floor(e.offsetX / heat.width * g.cols), r = Math.floor(e.offsetY / heat.height * g.rows.length);
  if (c < 0 || c >= g.cols || r < 0 || r >= g.rows.length) return;
  const lines = [g.row_labels ? `${g.process} ${g.row_labels[r]}` : `${g.process} ${g.rows[r][0]}..${g.rows[r][1] - 1}`,
    `t ${g.time.edges_s[c].toFixed(6)} .. ${g.time.edges_s[c + 1].toFixed(6)} s`, `records ${g.count ? g.count[r][c] : '-'}`];
  for (const m of g.metrics) lines.push(`${m.name} ${m.values[r][c] === null ? '-' : m.values[r][c]} ${m.unit}`);
  $('hover').textContent = lines.join('\n');
});
heat.addEventListener('wheel', (e) => {
  e.preventDefault();
  if (state.t1 === null) return;
  zoom(e.deltaY > 0 ? 1.25 : 0.8, state.t1 + (e.offsetX / heat.width) * (state.t2 - state.t1));
}, { passive: false });
let drag = null;
heat.addEventListener('mousedown', (e) => {
  if (e.shiftKey && kind() === 'darshan') {
    state.select = { x0: e.offsetX, y0: e.offsetY, x1: e.offsetX, y1: e.offsetY, active: true };
    return;
  }
  drag = { x: e.offsetX, t1: state.t1, t2: state.t2 };
});
window.addEventListener('mouseup', () => {
  drag = null;
  if (state.select && state.select.active) {
    state.select.active = false;
    pick(state.select);
  }
});
heat.addEventListener('mousemove', (e) => {
  if (state.select && state.select.active) {
    state.select.x1 = e.offsetX, state.select.y1 = e.offsetY;
    draw();
    return;
  }
  if (!drag || state.t1 === null) return;
  const dt = (e.offsetX - drag.x) / heat.width * (drag.t2 - drag.t1);
  state.t1 = drag.t1 - dt, state.t2 = drag.t2 - dt;
  load();
});
function zoom(f, at) {
  if (state.t1 === null) return;
  state.t1 = at - (at - state.t1) * f;
  state.t2 = at + (state.t2 - at) * f;
  load();
}
function reset() { state.t1 = state.t2 = null; state.select = null; load(); }
$('reset').addEventListener('click', reset);
// Keys: + and - zoom around the middle, the arrows pan a tenth, 0 and Escape reset.
heat.addEventListener('keydown', (e) => {
  if (state.t1 === null) return;
  const w = state.t2 - state.t1, mid = state.t1 + w / 2;
  if (e.key === '+' || e.key === '=') zoom(0.8, mid);
  else if (e.key === '-') zoom(1.25, mid);
  else if (e.key === 'ArrowLeft') { state.t1 -= w / 10, state.t2 -= w / 10; load(); }
  else if (e.key === 'ArrowRight') { state.t1 += w / 10, state.t2 += w / 10; load(); }
  else if (e.key === '0' || e.key === 'Escape') reset();
  else return;
  e.preventDefault();
});
for (const id of ['metric', 'op']) $(id).addEventListener('change', load);
$('store').addEventListener('change', () => {
  state.store = Number($('store').value);
  state.t1 = state.t2 = null, state.select = null;
  $('top').innerHTML = '';
  setChoices();
  load();
});

api('/api/stores', {}).then((j) => {
  state.stores = j.stores;
  for (const s of j.stores) {
    const o = document.createElement('option');
    o.value = s.store, o.textContent = `${s.store}: ${s.path} (${s.kind})`;
    $('store').appendChild(o);
  }
  setChoices();
  load();
}).catch((e) => { $('error').textContent = e.message; });

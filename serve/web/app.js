// The xtfq viewer: a rank x time heatmap of one Darshan log, drawn from /api/grid tiles whose
// size follows the canvas (its pixels), never the trace. Wheel zooms time around the cursor,
// drag pans, reset goes back to the whole run; hover gives a cell's exact numbers.
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
const heat = $('heat'), ctx = heat.getContext('2d');
const state = { store: 0, stores: [], t1: null, t2: null, grid: null, pending: null };

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
  const s0 = g.time.edges_s[0], s1 = g.time.edges_s[cols];
  $('status').textContent = `${g.source}\nwindow ${s0.toFixed(3)} .. ${s1.toFixed(3)} s, ${cols} x ${rows} cells` +
    `${g.snapped ? ' (snapped)' : ''}\nread: ${g.plan.how}, ${g.plan.pages_read} pages\n${g.exactness}`;
}

function load() {
  // Half the canvas's pixels a cell, and no more rows than the log has ranks.
  const s = state.stores[state.store], ranks = s && s.logs && s.logs.length ? s.logs[0].nprocs : 256;
  const cols = Math.min(1000, Math.floor(heat.width / 2));
  const rows = Math.max(1, Math.min(256, Math.floor(heat.height / 2), ranks));
  const p = { store: state.store, cols, rows, metric: $('metric').value, op: $('op').value, snap: 1 };
  if (state.t1 !== null) p.time = `${state.t1}:${state.t2}`;
  const mine = {};
  state.pending = mine;
  api('/api/grid', p).then((g) => {
    if (state.pending !== mine) return;  // a newer request replaced this one
    state.grid = g;
    if (state.t1 === null) { state.t1 = g.time.edges_s[0]; state.t2 = g.time.edges_s[g.cols]; }
    $('error').textContent = '';
    draw();
  }).catch((e) => { if (state.pending === mine) $('error').textContent = e.message; });
}

heat.addEventListener('mousemove', (e) => {
  const g = state.grid;
  if (!g) return;
  const c = Math.floor(e.offsetX / heat.width * g.cols), r = Math.floor(e.offsetY / heat.height * g.rows.length);
  if (c < 0 || c >= g.cols || r < 0 || r >= g.rows.length) return;
  const lines = [`${g.process} ${g.rows[r][0]}..${g.rows[r][1] - 1}`,
    `t ${g.time.edges_s[c].toFixed(6)} .. ${g.time.edges_s[c + 1].toFixed(6)} s`, `records ${g.count ? g.count[r][c] : '-'}`];
  for (const m of g.metrics) lines.push(`${m.name} ${m.values[r][c] === null ? '-' : m.values[r][c]} ${m.unit}`);
  $('hover').textContent = lines.join('\n');
});
heat.addEventListener('wheel', (e) => {
  e.preventDefault();
  if (state.t1 === null) return;
  const f = e.deltaY > 0 ? 1.25 : 0.8, at = state.t1 + (e.offsetX / heat.width) * (state.t2 - state.t1);
  state.t1 = at - (at - state.t1) * f;
  state.t2 = at + (state.t2 - at) * f;
  load();
}, { passive: false });
let drag = null;
heat.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, t1: state.t1, t2: state.t2 }; });
window.addEventListener('mouseup', () => { drag = null; });
heat.addEventListener('mousemove', (e) => {
  if (!drag || state.t1 === null) return;
  const dt = (e.offsetX - drag.x) / heat.width * (drag.t2 - drag.t1);
  state.t1 = drag.t1 - dt, state.t2 = drag.t2 - dt;
  load();
});
$('reset').addEventListener('click', () => { state.t1 = state.t2 = null; load(); });
for (const id of ['metric', 'op']) $(id).addEventListener('change', load);
$('store').addEventListener('change', () => { state.store = Number($('store').value); state.t1 = state.t2 = null; load(); });

api('/api/stores', {}).then((j) => {
  state.stores = j.stores;
  for (const s of j.stores) {
    const o = document.createElement('option');
    o.value = s.store, o.textContent = `${s.store}: ${s.path} (${s.kind})`;
    $('store').appendChild(o);
  }
  load();
}).catch((e) => { $('error').textContent = e.message; });

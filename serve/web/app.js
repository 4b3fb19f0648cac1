// The xtfq viewer (docs/viewer.md): pictures drawn from /api/grid tiles whose size follows the
// canvas (its pixels), never the trace. Darshan: a rank x time heatmap of one log; wheel zooms time
// around the cursor (Alt + wheel: ranks), drag pans, reset goes back to the whole run; hover gives
// a cell's exact numbers; shift + drag selects a region: its statistics (/api/query, the numbers
// of `xtfq query`), its top files and its segments (/api/segments, paged). job_stats: a targets x
// time heatmap, the targets' rate lines, the top jobs (uids, nodes, classes) of the visible window,
// a click on a job filters everything to it, and the z_b(t, k) heatmap of rates.
// Requests that a newer view made stale are aborted (the server drops them unanswered).
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
const heat = $('heat'), ctx = heat.getContext('2d');
const W = heat.width, H = heat.height;
const state = {
  store: 0, stores: [], log: null, t1: null, t2: null, r1: null, r2: null, job: null,
  grid: null, select: null, picked: null, segOffset: 0, controllers: [], generation: 0,
};

// GET path?params (with the token); `signal` aborts it.
function api(path, params, signal) {
  const q = new URLSearchParams(params);
  if (token) q.set('token', token);
  return fetch(`${path}?${q}`, { signal }).then(async (r) => {
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || r.statusText);
    return j;
  });
}
// A request of the current view: aborted when the view changes.
function viewApi(path, params) {
  const c = new AbortController();
  state.controllers.push(c);
  return api(path, params, c.signal);
}
function abortStale() {
  for (const c of state.controllers) c.abort();
  state.controllers = [];
}
const aborted = (e) => e && e.name === 'AbortError';

// A colour from a value in [0, 1]: viridis (dark purple to yellow), linear between its anchors.
const viridis = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137],
  [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];
function colour(x) {
  const f = Math.min(1, Math.max(0, x)) * (viridis.length - 1), i = Math.min(viridis.length - 2, Math.floor(f));
  const a = viridis[i], b = viridis[i + 1], t = f - i;
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * t));
}
const lines = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const num = (v, d = 4) => (v === null || v === undefined ? 'NA' : Number(v).toPrecision(d));
// A round tick step near `raw` seconds: 1, 2 or 5 times a power of ten; for the wall clock, whole
// seconds, minutes, hours or days.
function niceStep(raw, clock) {
  if (clock && raw >= 1) {
    const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
      172800, 604800, 2592000, 7776000, 31536000];
    return steps.find((s) => s >= raw) || 31536000 * Math.ceil(raw / 31536000);
  }
  const p = 10 ** Math.floor(Math.log10(raw)), m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
// A time for a label: six significant digits, no trailing zeros.
const tick = (t) => String(Number(Number(t).toPrecision(6)));
const utc = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z').replace('T', ' ');
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function kind() { const s = state.stores[state.store]; return s ? s.kind : 'darshan'; }
function logInfo() {
  const s = state.stores[state.store];
  return s && s.logs ? s.logs.find((l) => l.log === state.log) || s.logs[0] : null;
}

// Where a time (the grid's seconds) and a row edge fall on the canvas: the view's window, not the
// grid's, so that a snapped grid (moved onto whole bins) sits where its cells really are.
const xOf = (t) => (t - state.t1) / (state.t2 - state.t1) * W;
const tOf = (x) => state.t1 + x / W * (state.t2 - state.t1);
function rowSpan(g) {
  if (kind() === 'jobstats') return [0, g.rows.length];
  return state.r1 !== null ? [state.r1, state.r2] : [g.rows[0][0], g.rows[g.rows.length - 1][1]];
}
function yOf(g, rank) { const [a, b] = rowSpan(g); return (rank - a) / (b - a) * H; }
function rowEdges(g, r) { return kind() === 'jobstats' ? [r, r + 1] : g.rows[r]; }
// The cell under a canvas point: [column, row], or null.
function cellAt(g, x, y) {
  const t = tOf(x), e = g.time.edges_s;
  const c = Math.floor((t - e[0]) / (e[g.cols] - e[0]) * g.cols);
  if (c < 0 || c >= g.cols) return null;
  for (let r = 0; r < g.rows.length; ++r) {
    const [lo, hi] = rowEdges(g, r);
    if (y >= yOf(g, lo) && y < yOf(g, hi)) return [c, r];
  }
  return null;
}
function shown(g) { return g.metrics.find((m) => m.name === $('metric').value) || g.metrics[0]; }

function draw() {
  const g = state.grid;
  ctx.clearRect(0, 0, W, H);
  if (!g) return;
  const m = shown(g), rows = g.rows.length, cols = g.cols;
  drawAxes(g);
  if (rows === 0 || cols === 0) {
    $('range').textContent = 'nothing to draw in view';
    $('status').textContent = `${g.source}\n${(g.notes || []).join('\n') || 'no rows in this window'}`;
    return;
  }
  let lo = Infinity, hi = -Infinity;
  for (const row of m.values) for (const v of row) if (v !== null && v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const img = new ImageData(cols, rows);
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
  const e = g.time.edges_s, x0 = xOf(e[0]), x1 = xOf(e[cols]);
  for (let r = 0; r < rows; ++r) {
    const [a, b] = rowEdges(g, r), y0 = yOf(g, a), y1 = yOf(g, b);
    ctx.drawImage(off, 0, r, cols, 1, x0, y0, x1 - x0, Math.max(1, y1 - y0));
  }
  const lg = $('legend').getContext('2d');
  for (let x = 0; x < 160; ++x) { lg.fillStyle = `rgb(${colour(x / 159).join(',')})`; lg.fillRect(x, 0, 1, 12); }
  $('range').textContent = isFinite(lo) ? `${m.name}: ${num(lo, 3)} .. ${num(hi, 3)} ${m.unit} (log scale)` : 'no data in view';
  drawSelection();
  $('estimate').textContent = g.estimate ? g.exactness : '';
  $('status').textContent = `${g.source}\ncells ${cols} x ${rows}${g.snapped ? ' (snapped onto whole bins)' : ''}: ` +
    `window ${tick(e[cols] - e[0])} s, ${tick((e[cols] - e[0]) / cols)} s a column\nread: ${g.plan.how}, ` +
    `${g.plan.pages_read} pages` + (g.estimate ? '' : `\n${g.exactness}`) +
    (g.notes && g.notes.length ? `\n${g.notes.join('\n')}` : '');
}

// Ticks of the time axis (seconds from the job's start, or the wall clock for job_stats, with the
// date and time at both ends) and of the rank axis.
function drawAxes(g) {
  const xa = $('xaxis').getContext('2d'), ya = $('yaxis').getContext('2d');
  xa.clearRect(0, 0, 800, 40), ya.clearRect(0, 0, 96, 512);
  xa.fillStyle = ya.fillStyle = '#222', xa.font = ya.font = '11px system-ui, sans-serif';
  const js = kind() === 'jobstats';
  // Round ticks, about six over the view: seconds from the job's start (Darshan), or the wall
  // clock (job_stats, with the date when the view spans more than a day).
  const span = state.t2 - state.t1, tstep = niceStep(span / 6, js);
  xa.textAlign = 'center';
  for (let t = Math.ceil(state.t1 / tstep) * tstep; t <= state.t2; t += tstep) {
    const x = Math.round(xOf(t));
    if (x < 0 || x > W - 1) continue;
    xa.fillRect(x, 0, 1, 5);
    const label = js ? (span > 86400 ? utc(t).slice(0, 16) : utc(t).slice(11, 19))
      : `${Number(t.toPrecision(12))} s`;
    xa.fillText(label, Math.min(W - 30, Math.max(30, x)), 16);
  }
  const base = js ? 0 : g.time.job_start_epoch;
  if (base !== undefined) {
    xa.textAlign = 'left', xa.fillText(`${utc(base + state.t1)} UTC`, 0, 32);
    xa.textAlign = 'right', xa.fillText(utc(base + state.t2), W - 2, 32);
  }
  ya.textAlign = 'right';
  const rows = g.rows.length, step = Math.max(1, Math.ceil(rows / (js ? 16 : 8)));
  for (let r = 0; r < rows; r += step) {
    const y = Math.round(yOf(g, rowEdges(g, r)[0]));
    if (y < 0 || y > H) continue;
    ya.fillRect(90, y, 6, 1);
    const label = g.row_labels ? g.row_labels[r] : `${g.process} ${g.rows[r][0]}`;
    ya.fillText(label.length > 13 ? `…${label.slice(-12)}` : label, 88, Math.max(10, y + 10));
  }
}

function drawSelection() {
  const sel = state.select;
  if (!sel) return;
  ctx.strokeStyle = '#e0245e', ctx.lineWidth = 2;
  ctx.strokeRect(Math.min(sel.x0, sel.x1), Math.min(sel.y0, sel.y1), Math.abs(sel.x1 - sel.x0), Math.abs(sel.y1 - sel.y0));
}

// A selection's cells: the columns and rows it touches, as a window in ns (exactly the cells'
// edges) and a rank range.
function selectedCells(sel) {
  const g = state.grid;
  const a = cellAt(g, Math.max(0, Math.min(sel.x0, sel.x1)), Math.max(0, Math.min(sel.y0, sel.y1)));
  const b = cellAt(g, Math.min(W - 1, Math.max(sel.x0, sel.x1)), Math.min(H - 1, Math.max(sel.y0, sel.y1)));
  if (!a || !b) return null;
  return { time: `${g.time.edges[a[0]]}ns:${g.time.edges[b[0] + 1]}ns`, ranks: `${g.rows[a[1]][0]}:${g.rows[b[1]][1]}` };
}
function darshanParams() {
  const p = { store: state.store, module: $('module').value };
  if (state.log !== null) p.log = state.log;
  return p;
}

// The selection's statistics, then its top files, then its segments.
function pick(sel) {
  if (!state.grid || !state.grid.rows.length) return;
  const cells = selectedCells(sel);
  if (!cells) return;
  const p = { ...darshanParams(), ...cells };
  state.picked = p, state.segOffset = 0;
  $('selection').textContent = 'reading ...', $('files').innerHTML = '', $('segments').innerHTML = '';
  api('/api/query', p).then((q) => {
    if (state.picked !== p) return;
    const [a, b] = p.time.split(':').map((x) => Number(x.replace('ns', '')) / 1e9);
    const out = [`selection: ${tick(a)} .. ${tick(b)} s, ranks ${p.ranks}`, q.answered];
    for (const w of q.warnings) out.push(`warning: ${w}`);
    const dxt = q.source.startsWith('DXT');
    for (const op of ['read', 'write']) {
      const o = q[op];
      // The headline: bytes moved during the selection over its wall time (as `xtfq query` prints it);
      // bytes per busy second (summed over ranks) is a per-operation speed. Operations are null where
      // the answer has none (HEATMAP bins without exact counters).
      out.push(o.ops !== null
        ? `${op}: ${num(o.bw_mib_s)} MiB/s over the selection; ${o.ops} ops, ${o.bytes} B started, ` +
          `${num(o.mib_per_busy_s)} MiB per busy second, busy ${num(o.busy_s)} s`
        : `${op}: ${num(o.bw_mib_s)} MiB/s over the selection; ${o.bytes} B (heatmap bins hold no operations or times)`);
      if (o.percentiles) {
        const d = o.percentiles.duration_s, s = o.percentiles.size, r = (v) => (v ? v.map((x) => num(x, 3)).join('..') : 'NA');
        out.push(`  size p50 ${r(s.p50)} p99 ${r(s.p99)} B; duration p50 ${r(d.p50)} p99 ${r(d.p99)} s`);
      }
    }
    const dp = q.darshan_perf;
    if (dp && dp.agg_perf_by_slowest !== undefined) {
      out.push(`Darshan's agg_perf_by_slowest (${dp.module}, whole run): ${dp.agg_perf_by_slowest.toFixed(2)} MiB/s ` +
        `over agg_time_by_slowest ${num(dp.agg_time_by_slowest)} s (slowest rank ${dp.slowest_rank})`);
    }
    const im = q.rank_imbalance;
    if (im) out.push(`ranks with I/O ${im.ranks}, bytes per rank ${im.min_bytes}..${im.max_bytes} B` +
      (im.slowest_rank === null ? '' : `, slowest rank ${im.slowest_rank}`));
    $('selection').textContent = out.join('\n');
    const n = q.read.ops + q.write.ops;
    if (!dxt) $('files').textContent = `top files and segments: ${q.source} has no DXT segments to list`;
    else if (n <= 2000000) topFiles(p);
    else $('files').textContent = `top files: ${n} segments in the selection; per-file rows read them all (there is no index by file): select less`;
    if (dxt) segments(p);
  }).catch((e) => { if (state.picked === p) $('selection').textContent = e.message; });
}
function topFiles(p) {
  api('/api/query', { ...p, per_file: 1, top: 10 }).then((q) => {
    if (state.picked !== p) return;
    const rows = q.per_file.map((f) => `<tr><td title="${esc(f.name)}">${esc(f.name.length > 28 ? `…${f.name.slice(-27)}` : f.name)}</td>` +
      `<td>${f.read.bytes}</td><td>${f.write.bytes}</td><td>${f.read.ops + f.write.ops}</td></tr>`);
    $('files').innerHTML = `<table><caption>top ${q.per_file.length} of ${q.files_in_window} files by bytes</caption>` +
      `<tr><th>file</th><th>read B</th><th>written B</th><th>ops</th></tr>${rows.join('')}</table>`;
  }).catch((e) => { if (state.picked === p) $('files').textContent = e.message; });
}
// A page of the selection's segments, in time order; prev / next move by a page.
function segments(p) {
  const limit = 20, offset = state.segOffset;
  api('/api/segments', { ...p, op: $('op').value, offset, limit }).then((s) => {
    if (state.picked !== p) return;
    const rows = s.segments.map((g) => `<tr><td>${g.op}</td><td>${g.rank}</td><td>${g.start_s.toFixed(6)}</td>` +
      `<td>${num(g.duration_s, 3)}</td><td>${g.offset}</td><td>${g.length}</td><td title="${esc(g.file)}">${esc(g.file.split('/').pop())}</td></tr>`);
    const last = offset + s.segments.length;
    $('segments').innerHTML = `<table><caption>segments ${s.total ? offset + 1 : 0} to ${last} of ${s.total} ` +
      `<button id="segprev" ${offset === 0 ? 'disabled' : ''}>prev</button> <button id="segnext" ${last >= s.total || last + limit > 100000 ? 'disabled' : ''}>next</button></caption>` +
      `<tr><th>op</th><th>rank</th><th>start s</th><th>dur s</th><th>offset</th><th>length</th><th>file</th></tr>${rows.join('')}</table>`;
    $('segprev').onclick = () => { state.segOffset = Math.max(0, offset - limit); segments(p); };
    $('segnext').onclick = () => { state.segOffset = offset + limit; segments(p); };
  }).catch((e) => { if (state.picked === p) $('segments').textContent = e.message; });
}

// The choices a kind of store offers.
function setChoices() {
  const s = state.stores[state.store], js = kind() === 'jobstats';
  const fill = (id, values, labels) => $(id).replaceChildren(...values.map((v, i) => {
    const o = document.createElement('option');
    o.value = v, o.textContent = labels ? labels[i] : v;
    return o;
  }));
  fill('metric', js ? ['rate', 'total'] : ['bytes', 'ops', 'busy', 'ranks_busy', 'bytes.started', 'duration.p99', 'size.p99']);
  fill('op', js ? (s.ops && s.ops.length ? s.ops : ['write_bytes']) : ['all', 'read', 'write']);
  if (js && s.ops && s.ops.includes('write_bytes')) $('op').value = 'write_bytes';
  if (s && s.logs) fill('log', s.logs.map((l) => l.log), s.logs.map((l) => `${l.log}: job ${l.job}, ${l.nprocs} ranks, ${l.exe.split(' ')[0].split('/').pop()}`));
  for (const id of ['logl', 'modl', 'zoomsel', 'selection', 'files', 'segments']) $(id).style.display = js ? 'none' : '';
  for (const id of ['rowsl', 'byl', 'zb', 'zblabel', 'jobfilter', 'top']) $(id).style.display = js ? '' : 'none';
  state.log = s && s.logs && s.logs.length ? s.logs[0].log : null;
  setModules();
}
// The modules the log has, each with what it can draw; the first with DXT is chosen (else the first).
function setModules() {
  const l = logInfo();
  if (!l) return;
  const mods = ['POSIX', 'MPI-IO', 'STDIO'].filter((m) => l.draw && l.draw[m]);
  $('module').replaceChildren(...mods.map((m) => {
    const o = document.createElement('option');
    o.value = m, o.textContent = `${m} (${l.draw[m]})`;
    return o;
  }));
  const best = mods.find((m) => l.draw[m] === 'DXT') || mods[0];
  if (best) $('module').value = best;
}

function clearAll(message) {
  state.grid = null;
  ctx.clearRect(0, 0, W, H);
  for (const id of ['xaxis', 'yaxis', 'timeline', 'legend', 'zb']) $(id).getContext('2d').clearRect(0, 0, 800, 600);
  for (const id of ['range', 'status', 'tllabel', 'top', 'zblabel', 'estimate', 'hover']) $(id).textContent = '';
  $('error').textContent = message;
}

function load() {
  abortStale();
  $('hover').textContent = '';
  const l = logInfo();
  if (kind() === 'darshan' && l && !Object.keys(l.draw || {}).length) {
    clearAll(`log ${l.log} has no POSIX, MPI-IO or STDIO records to draw (its other modules: see xtfq info)`);
    return;
  }
  const gen = ++state.generation;
  const js = kind() === 'jobstats';
  const cols = Math.min(1000, Math.floor(W / 2));
  const p = { store: state.store, cols, op: $('op').value };
  const metric = $('metric').value;
  if (js) {
    // Rows of targets, or of the largest groups (a row each 8 pixels), snapped onto the job_stats
    // summaries' bins so that the cells come from them (the cost follows the pixels, not the steps).
    p.by = $('rowsby').value, p.metric = 'rate,total';
    if (p.by !== 'target') p.rows = Math.max(1, Math.min(64, Math.floor(H / 8))), p.snap = 1;
    if (state.job !== null) p.job = state.job;
  } else {
    Object.assign(p, darshanParams());
    // Half the canvas's pixels a row at most, and no more rows than the log (or the view) has ranks.
    const l = logInfo(), ranks = state.r1 !== null ? state.r2 - state.r1 : (l ? l.nprocs : 256);
    p.rows = Math.max(1, Math.min(128, Math.floor(H / 4), ranks)), p.snap = 1, p.fit = 1;
    if (state.r1 !== null) p.ranks = `${state.r1}:${state.r2}`;
    if (!['bytes', 'ops', 'busy'].includes(metric)) p.metric = metric;  // the defaults come without asking
  }
  // (whole ns for Darshan, whole seconds for job_stats: no rounding noise in the request)
  if (state.t1 !== null) {
    p.time = js ? `${Math.floor(state.t1)}:${Math.ceil(state.t2)}`
      : `${Math.round(state.t1 * 1e9)}ns:${Math.round(state.t2 * 1e9)}ns`;
  }
  viewApi('/api/grid', p).then((g) => {
    if (gen !== state.generation) return;
    state.grid = g;
    if (state.t1 === null) {
      state.t1 = g.time.edges_s[0], state.t2 = g.time.edges_s[g.cols];
      state.full = [state.t1, state.t2];
    }
    $('error').textContent = '';
    draw();
    if (js) { rateLines(g); topGroups(g, gen); zb(g, gen); } else timeline(g, gen);
  }).catch((e) => { if (!aborted(e) && gen === state.generation) clearAll(e.message); });
}

// The bandwidth of the view's ranks on the grid's own columns: a grid of one row over exactly the
// same edges (bytes per column), drawn as bars under the heatmap in MiB/s.
function timeline(g, gen) {
  const p = { ...darshanParams(), cols: g.cols, op: $('op').value, metric: 'bytes',
    time: `${g.time.edges[0]}ns:${g.time.edges[g.cols]}ns` };
  if (state.r1 !== null) p.ranks = `${state.r1}:${state.r2}`;
  viewApi('/api/grid', p).then((t) => {
    if (gen !== state.generation) return;
    const v = t.metrics[0].values[0], tl = $('timeline').getContext('2d'), e = t.time.edges_s;
    // HEATMAP bins count whole in the column of their start: bytes a column, not a rate.
    const bins = /HEATMAP\.\S+ of log/.test(t.source);
    const rate = v.map((x, c) => (x === null ? 0 : bins ? x : x / (e[c + 1] - e[c]) / 1048576));
    const top = Math.max(...rate, 0);
    tl.clearRect(0, 0, 800, 90);
    tl.fillStyle = '#3b6ea5';
    for (let c = 0; c < rate.length; ++c) {
      const h = top > 0 ? Math.round(86 * rate[c] / top) : 0, xa = xOf(e[c]), xb = xOf(e[c + 1]);
      tl.fillRect(xa, 90 - h, Math.max(1, xb - xa), h);
    }
    $('tllabel').textContent = bins ? `bytes a column\n(whole HEATMAP\nbins at their\nstart)\nmax ${num(top, 3)}`
      : `MiB/s, all ranks\n(bytes moved in\nthe column / its s)\nmax ${num(top, 3)}`;
    state.timeline = t;
  }).catch((e) => { if (!aborted(e) && gen === state.generation) $('error').textContent = e.message; });
}

// job_stats: the rate of each of the eight busiest targets of the view, as lines.
function rateLines(g) {
  const m = g.metrics.find((x) => x.name === 'rate'), e = g.time.edges_s, tl = $('timeline').getContext('2d');
  tl.clearRect(0, 0, 800, 90);
  const sums = m.values.map((row, r) => [row.reduce((a, v) => a + (v || 0), 0), r]).sort((a, b) => b[0] - a[0]).slice(0, 8);
  const top = Math.max(0, ...sums.flatMap(([, r]) => m.values[r].map((v) => v || 0)));
  sums.forEach(([, r], i) => {
    tl.strokeStyle = lines[i], tl.lineWidth = 1.5, tl.beginPath();
    m.values[r].forEach((v, c) => {
      const x = (xOf(e[c]) + xOf(e[c + 1])) / 2, y = 88 - (top > 0 ? 84 * (v || 0) / top : 0);
      if (c === 0) tl.moveTo(x, y); else tl.lineTo(x, y);
    });
    tl.stroke();
  });
  $('tllabel').innerHTML = `${esc(m.unit)}<br>max ${num(top, 3)}<br>` +
    sums.map(([, r], i) => `<span style="color:${lines[i]}">${esc(g.row_labels[r].length > 13 ? `…${g.row_labels[r].slice(-12)}` : g.row_labels[r])}</span>`).join('<br>');
}

// job_stats: the ten groups (jobs, uids, nodes, classes) with the largest total of the op in the
// view; a click on a job filters the view to it. By job, uid or class the window snaps onto the
// summaries' bins (read from their cells alone, whatever the steps at its ends), and the caption
// says the window it took.
function topGroups(g, gen) {
  const by = $('by').value, op = $('op').value;
  const p = { store: state.store, by, op, top: 10, sort: op, time: `${g.time.edges[0]}:${g.time.edges[g.cols]}`, snap: 1 };
  if (state.job !== null) p.job = state.job;
  viewApi('/api/query', p).then((q) => {
    if (gen !== state.generation) return;
    const unit = g.metrics.find((x) => x.name === 'total').unit;
    const rows = q.groups.map((grp) => {
      const o = (grp.ops || {})[op];  // none: the group has no rate step of the op in the view
      if (!o) return `<tr><td>${esc(grp[by])}</td><td colspan="3">no ${esc(op)} steps in view</td></tr>`;
      // ("-": series whose job id the file system did not have)
      const key = grp[by], link = key === '-' ? `(no ${by === 'class' ? 'class' : by + ' id'})`
        : by === 'job' ? `<a href="#" data-job="${esc(key)}">${esc(key)}</a>` : esc(key);
      return `<tr><td>${link}</td><td>${num(o.total)}</td><td>${num(o.rate_mean)}</td><td>${num(o.rate_max)}</td></tr>`;
    });
    const plural = { job: 'jobs', uid: 'uids', node: 'nodes', class: 'job-id classes' }[by];
    const where = q.snapped ? `in ${utc(q.t1)} to ${utc(q.t2)} (the view on the summaries' bins)` : 'in the view';
    $('top').innerHTML = `<table><caption>top ${plural} by ${esc(op)} ${where}${by === 'job' ? ' (click to filter)' : ''}</caption>` +
      `<tr><th>${by}</th><th>total ${esc(unit)}</th><th>mean ${esc(unit)}/s</th><th>peak ${esc(unit)}/s</th></tr>${rows.join('')}</table>`;
    for (const a of $('top').querySelectorAll('a[data-job]')) {
      a.onclick = (ev) => { ev.preventDefault(); setJob(a.dataset.job); };
    }
  }).catch((e) => { if (!aborted(e) && gen === state.generation) $('error').textContent = e.message; });
}
function setJob(job) {
  state.job = job;
  $('jobfilter').innerHTML = job === null ? '' : `job ${esc(job)} <button id="clearjob">show all jobs</button>`;
  if (job !== null) $('clearjob').onclick = () => setJob(null);
  load();
}

// job_stats: z_b(t, k), the number of series whose rate lies in [2^k, 2^(k+1)) in each cell of
// the view (xtfq heatmap --jobstats), cells of a whole number of seconds, about 200 of them.
function zb(g, gen) {
  const t1 = Math.floor(g.time.edges[0]), t2 = Math.ceil(g.time.edges[g.cols]);
  const cell = Math.max(1, Math.round((t2 - t1) / 200));
  const p = { store: state.store, op: $('op').value, time: `${t1}:${t2}`, cell };
  if (state.job !== null) p.job = state.job;
  viewApi('/api/heatmap', p).then((h) => {
    if (gen !== state.generation) return;
    const z = $('zb').getContext('2d');
    z.clearRect(0, 0, 800, 160);
    if (!h.cells.length) { $('zblabel').textContent = 'z_b: no rates in view'; return; }
    let kmin = Infinity, kmax = -Infinity, cmax = 0;
    for (const c of h.cells) kmin = Math.min(kmin, c.k), kmax = Math.max(kmax, c.k), cmax = Math.max(cmax, c.count);
    const rows = kmax - kmin + 1, rh = 160 / rows;
    for (const c of h.cells) {
      const xa = xOf(c.t), xb = xOf(c.t + h.cell);
      z.fillStyle = `rgb(${colour(cmax > 1 ? Math.log(c.count) / Math.log(cmax) : 1).join(',')})`;
      z.fillRect(xa, 160 - (c.k - kmin + 1) * rh, Math.max(1, xb - xa), Math.max(1, rh));
    }
    state.zb = h;
    $('zblabel').textContent = `z_2(t, k): series\nby rate (${$('op').value}/s)\n2^${kmax + 1} top\n2^${kmin} bottom\nmax ${cmax} a cell\nwhite: none\n${h.cell} s cells`;
  }).catch((e) => { if (!aborted(e) && gen === state.generation) $('zblabel').textContent = e.message; });
}

heat.addEventListener('mousemove', (e) => {
  const g = state.grid;
  if (!g || (state.select && state.select.active)) return;
  const at = cellAt(g, e.offsetX, e.offsetY);
  if (!at) { $('hover').textContent = ''; return; }
  const [c, r] = at;
  const span = kind() === 'jobstats' ? `${utc(g.time.edges_s[c])} .. ${utc(g.time.edges_s[c + 1]).slice(11)} UTC`
    : `t ${g.time.edges_s[c].toFixed(6)} .. ${g.time.edges_s[c + 1].toFixed(6)} s`;
  const out = [g.row_labels ? `${g.process} ${g.row_labels[r]}` : `${g.process} ${g.rows[r][0]}..${g.rows[r][1] - 1}`,
    span, `records ${g.count ? g.count[r][c] : '-'}`];
  for (const m of g.metrics) out.push(`${m.name} ${m.values[r][c] === null ? '-' : m.values[r][c]} ${m.unit}`);
  $('hover').textContent = out.join('\n');
  $('hover').style.left = `${Math.min(e.clientX + 16, window.innerWidth - 260)}px`;
  $('hover').style.top = `${e.clientY + 16}px`;
});
heat.addEventListener('mouseleave', () => { $('hover').textContent = ''; });
heat.addEventListener('wheel', (e) => {
  e.preventDefault();
  if (state.t1 === null || !state.grid) return;
  const f = e.deltaY > 0 ? 1.25 : 0.8;
  if (e.altKey && kind() === 'darshan') zoomRanks(f, e.offsetY);
  else zoom(f, tOf(e.offsetX));
}, { passive: false });
let drag = null;
heat.addEventListener('mousedown', (e) => {
  heat.focus();
  $('hover').textContent = '';
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
  const dt = (e.offsetX - drag.x) / W * (drag.t2 - drag.t1);
  state.t1 = drag.t1 - dt, state.t2 = drag.t2 - dt;
  clampView();
  state.select = null;
  load();
});
function zoom(f, at) {
  if (state.t1 === null) return;
  state.t1 = at - (at - state.t1) * f;
  state.t2 = at + (state.t2 - at) * f;
  clampView();
  state.select = null;
  load();
}
// The view stays within four times the data's span and overlaps it (the whole run: state.full).
function clampView() {
  if (!state.full) return;
  const [a, b] = state.full, span = Math.max(b - a, 1e-9);
  if (state.t2 - state.t1 > 4 * span) {
    const mid = (state.t1 + state.t2) / 2;
    state.t1 = mid - 2 * span, state.t2 = mid + 2 * span;
  }
  const w = state.t2 - state.t1;
  if (state.t1 > b) state.t1 = b - w / 2, state.t2 = b + w / 2;
  if (state.t2 < a) state.t1 = a - w / 2, state.t2 = a + w / 2;
}
// Zooms the rank axis around a canvas row (whole ranks, within the log's).
function zoomRanks(f, y) {
  const g = state.grid, l = logInfo(), [a, b] = rowSpan(g), n = l ? l.nprocs : b;
  const at = a + y / H * (b - a);
  let r1 = Math.floor(at - (at - a) * f), r2 = Math.ceil(at + (b - at) * f);
  r1 = Math.max(0, r1), r2 = Math.min(n, Math.max(r1 + 1, r2));
  state.r1 = r1 === 0 && r2 === n ? null : r1, state.r2 = state.r1 === null ? null : r2;
  state.select = null;
  load();
}
function reset() { state.t1 = state.t2 = state.r1 = state.r2 = null; state.select = null; load(); }
$('reset').addEventListener('click', reset);
// Zoom to the selection: its cells' window and ranks become the view.
$('zoomsel').addEventListener('click', () => {
  if (!state.select || !state.grid) return;
  const c = selectedCells(state.select);
  if (!c) return;
  const [a, b] = c.time.split(':').map((s) => Number(s.replace('ns', '')) / 1e9);
  const [r1, r2] = c.ranks.split(':').map(Number);
  state.t1 = a, state.t2 = b, state.r1 = r1, state.r2 = r2, state.select = null;
  load();
});
// Keys: + and - zoom around the middle, the arrows pan a tenth, 0 and Escape reset.
heat.addEventListener('keydown', (e) => {
  if (state.t1 === null) return;
  const w = state.t2 - state.t1, mid = state.t1 + w / 2;
  if (e.key === '+' || e.key === '=') zoom(0.8, mid);
  else if (e.key === '-') zoom(1.25, mid);
  else if (e.key === 'ArrowLeft') { state.t1 -= w / 10, state.t2 -= w / 10; clampView(); load(); }
  else if (e.key === 'ArrowRight') { state.t1 += w / 10, state.t2 += w / 10; clampView(); load(); }
  else if (e.key === '0' || e.key === 'Escape') reset();
  else return;
  e.preventDefault();
});
$('metric').addEventListener('change', () => {
  // A percentile is its own request (another family of summaries); the others are in the grid.
  if (state.grid && state.grid.metrics.some((m) => m.name === $('metric').value)) draw(); else load();
});
for (const id of ['op', 'module', 'by', 'rowsby']) $(id).addEventListener('change', load);
$('log').addEventListener('change', () => {
  state.log = Number($('log').value);
  state.t1 = state.t2 = state.r1 = state.r2 = null, state.select = null;
  setModules();
  load();
});
$('store').addEventListener('change', () => {
  state.store = Number($('store').value);
  state.t1 = state.t2 = state.r1 = state.r2 = null, state.select = null, state.job = null;
  $('top').innerHTML = '', $('jobfilter').innerHTML = '';
  setChoices();
  load();
});

api('/api/stores', {}).then((j) => {
  state.stores = j.stores;
  for (const s of j.stores) {
    const o = document.createElement('option');
    o.value = s.store, o.textContent = `${s.store}: ${s.path.split('/').pop()} (${s.kind})`;
    $('store').appendChild(o);
  }
  setChoices();
  load();
}).catch((e) => { $('error').textContent = e.message; });
// The job view keeps the token.
$('joblink').href = token ? `job.html?token=${encodeURIComponent(token)}` : 'job.html';

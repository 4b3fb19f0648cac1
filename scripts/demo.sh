#!/usr/bin/env bash
# The demo: builds xtfq, generates a synthetic Darshan log (format 3.41) of a 1024-rank MPI run
# with 10^6 DXT segments over 10^4 files (input read, collective checkpoints with straggler ranks,
# small per-rank diagnostics, read-back), imports it into a store, shows the store's layout and
# the log's job header printed back from the store as darshan-parser prints it, answers a time
# and rank window from the index, writes the signal spec file, then verifies every page; then
# generates Lustre job_stats snapshots, imports them, asks for the top writers of a window and
# draws the rate heatmap; last, serves both stores with `xtfq serve` and photographs the viewer
# (headless Chromium) into build/demo/viewer_*.png, the job view of one job across a Darshan log,
# the job_stats and a Slurm profile too.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc 2>/dev/null || echo 2)" --target xtfq
out=${XTFQ_DEMO_DIR:-build/demo}
rm -rf "$out" && mkdir -p "$out"
build/xtfq gen darshan 1e6 --ranks 1024 --files 10000 -o "$out/run.darshan"
build/xtfq import "$out/run.darshan" -o "$out/run.xtfq"
build/xtfq info "$out/run.xtfq" | cut -c1-160
TZ=UTC build/xtfq dump --header "$out/run.xtfq"
echo "# Darshan's signals for ranks 0-63 between 1000 s and 2000 s of the run, from the index:"
build/xtfq query "$out/run.xtfq" --time 1000:2000 --ranks 0:64
echo "# ranks x time: bytes read and written by 8 rows of 128 ranks, columns snapped onto the grid summaries, exact:"
build/xtfq grid "$out/run.xtfq" --cols 12 --rows 8 --metric bytes --snap
echo "# the signal spec v2.0 for the whole log: $out/run_signals_v2.txt; its job level:"
build/xtfq signals "$out/run.xtfq" -o "$out/run_signals_v2.txt"
grep -A4 "JOB LEVEL" "$out/run_signals_v2.txt"
build/xtfq check "$out/run.xtfq"
echo "# Lustre job_stats: 2.16-style snapshots of 16 targets every 120 s for 2 h, imported with rates:"
build/xtfq gen jobstats --targets 16 --jobs 400 --samples 60 --variant E2 -o "$out/jobstats"
build/xtfq import "$out/jobstats" -o "$out/jobstats.xtfq"
build/xtfq info "$out/jobstats.xtfq" | tail -3
echo "# the 5 jobs that wrote most between 00:30 and 01:30, from the rate steps:"
build/xtfq query "$out/jobstats.xtfq" --jobstats --time 2026-01-01T00:30:00Z:2026-01-01T01:30:00Z --by job --op write_bytes --top 5
build/xtfq heatmap "$out/jobstats.xtfq" --jobstats --op write_bytes --base 4 --format svg > "$out/jobstats_write_bytes.svg"
echo "# heatmap of write_bytes rates: $out/jobstats_write_bytes.svg"
build/xtfq check "$out/jobstats.xtfq"
echo "# one job on the wall clock: job 4000035 of the job_stats, its Darshan log and its Slurm profile"
echo "# (an influxdb capture of two tasks sampled every 30 s, written here) in one store, side by side:"
build/xtfq gen darshan 2e5 --ranks 64 --files 200 --job 4000035 --start 1767228000 --duration 2400 -o "$out/job.darshan"
awk 'BEGIN { for (k = 0; k < 80; ++k) for (task = 0; task < 2; ++task) {
  t = 1767228000 + 30 * k + 1; h = "c" task; tag = ",job=4000035,step=0,task=" task ",host=" h
  printf "CPUTime%s value=%.2f %d\nRSS%s value=%d %d\n", tag, 29 + (k % 3) * 0.3, t, tag, 900000 + 1000 * k, t
  printf "ReadMB%s value=%.2f %d\nWriteMB%s value=%.2f %d\n", tag, (k % 10 < 2) ? 512 : 0.5, t, tag, (k % 8 == 7) ? 1024 : 2, t } }' \
  > "$out/job_slurm_influx.txt"
build/xtfq import "$out/job.darshan" "$out/job_slurm_influx.txt" -o "$out/job.xtfq"
build/xtfq job 4000035 "$out/job.xtfq" "$out/jobstats.xtfq" --windows 12
echo "# its Slurm tasks over the job's first ten minutes, each sample's deltas prorated over its interval:"
build/xtfq query "$out/job.xtfq" --slurm --job 4000035 --by task --time 0s:10m
echo "# the viewer: xtfq serve on the stores, photographed in headless Chromium:"
build/xtfq serve "$out/run.xtfq" "$out/jobstats.xtfq" "$out/job.xtfq" --port 0 > "$out/serve.txt" &
serve=$!
trap 'kill $serve 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q http "$out/serve.txt" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$out/serve.txt")
node scripts/viewer_screenshot.mjs "$url" "$out/viewer_darshan.png"
node scripts/viewer_screenshot.mjs "$url" "$out/viewer_jobstats.png" 1
node scripts/viewer_screenshot.mjs "$url" "$out/viewer_job.png" job=4000035
kill $serve
echo "# screenshots: $out/viewer_darshan.png, $out/viewer_jobstats.png, $out/viewer_job.png"
echo "# to look yourself: build/xtfq serve $out/run.xtfq $out/jobstats.xtfq $out/job.xtfq, then open the URL it prints"
echo "# (on a remote machine: ssh -L 8765:127.0.0.1:8765 HOST first)"

#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang 14, ASan and UBSan, checksums not
# enforced) and runs each for a fixed number of inputs, starting from the inputs kept in
# tests/fuzz/<target>/. New corpus entries go to a temporary directory (removed at the end); a
# crash, leak, timeout or out-of-memory input is written to tests/fuzz/<target>/ (libFuzzer's
# crash-*, leak-*, timeout-*, oom-* names), where the ordinary test run replays it
# (tests/fuzz_regression_test.cpp). Prints, per target, the runs done, the coverage reached and
# the inputs kept; exits 1 if any target found something.
#
#   scripts/fuzz.sh [RUNS]          RUNS per target, default 20000 (or $FUZZ_RUNS)
#   FUZZ_TARGETS="fuzz_jobstats" scripts/fuzz.sh 1000    only these targets
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-${FUZZ_RUNS:-20000}}
targets=${FUZZ_TARGETS:-"fuzz_store_open fuzz_darshan_log fuzz_darshan_text fuzz_jobstats"}
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
work=$(mktemp -d "${TMPDIR:-/tmp}/xtfq-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
# The largest input each target is given (its seeds fit).
max_len() {
  case "$1" in
    fuzz_store_open) echo 65536 ;;
    fuzz_darshan_log) echo 8192 ;;
    fuzz_darshan_text) echo 131072 ;;
    fuzz_jobstats) echo 65536 ;;
    *) echo 65536 ;;
  esac
}
found=0
for t in $targets; do
  seeds="tests/fuzz/${t#fuzz_}"
  mkdir -p "$work/$t" "$seeds"
  before=$(find "$seeds" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  start=$(date +%s)
  status=0
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build-fuzz/$t" -runs="$runs" -max_len="$(max_len "$t")" -timeout=25 -rss_limit_mb=2048 \
    -artifact_prefix="$seeds/" -print_final_stats=1 "$work/$t" "$seeds" >"$work/$t.log" 2>&1 || status=$?
  after=$(find "$seeds" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$work/$t.log" | tail -1 | cut -d' ' -f2)
  printf '%-18s runs %-8s cov %-6s %ss  exit %s  new inputs kept %s\n' "$t" "${done_runs:-?}" "${cov:-?}" \
    "$(($(date +%s) - start))" "$status" "$((after - before))"
  if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
    found=1
    tail -40 "$work/$t.log"
  fi
done
if [ "$found" -ne 0 ]; then
  echo "fuzz: something was found; the inputs are in tests/fuzz/<target>/"
  exit 1
fi
echo "fuzz: $runs runs of each target, nothing found"

#!/usr/bin/env bash
# Checks the include matrix (scripts/check_layers.sh) and the formatting (scripts/check_format.sh),
# then builds and runs the test suite twice: the release build in the full tier, then the
# sanitizer build (AddressSanitizer and UndefinedBehaviorSanitizer, clang 14 at -O1) in the small
# tier (docs/testing.md, "Tiers"). Tests that need ../shared/data skip with a message when it is
# absent (ctest counts them as skipped), and fail instead when XTFQ_REQUIRE_SHARED=1 (as in CI).
# XTFQ_STRESS=1 runs the stress tier in the release pass instead of the full one.
#
# Prints the duration of each phase and the ten slowest tests of each pass, so that a change can
# see where the time goes.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
logs=build-logs
mkdir -p "$logs"
phases=()

# phase NAME COMMAND...: runs COMMAND and records how long it took; on a failure, prints the
# phases so far and exits with its status.
phase() {
  local name=$1 t0 status=0
  shift
  t0=$(date +%s)
  echo "== $name"
  "$@" || status=$?
  phases+=("$(printf '%-16s %5d s' "$name" $(($(date +%s) - t0)))")
  echo "== $name: $(($(date +%s) - t0)) s"
  if ((status != 0)); then
    summary
    echo "$name failed (exit $status)"
    exit "$status"
  fi
}

summary() {
  echo "== phases:"
  printf '   %s\n' "${phases[@]}"
}

# tests PRESET LOG: runs the preset's tests with their output in LOG too, then lists the ten
# slowest.
tests() {
  local status
  set +e
  ctest --preset "$1" 2>&1 | tee "$2"
  status=${PIPESTATUS[0]}
  set -e
  echo "-- the ten slowest tests of the $1 pass:"
  sed -nE 's/^.* Test +#[0-9]+: (.*[^ .]) \.+ *[^ ]+ +([0-9.]+) sec$/\2 \1/p' "$2" | sort -rn | head -10 |
    awk '{ t = $1; $1 = ""; printf "   %8.2f s %s\n", t, $0 }'
  return "$status"
}

release_preset=default
[[ ${XTFQ_STRESS:-} == 1 ]] && release_preset=stress

phase "checks" bash -c './scripts/check_layers.sh && ./scripts/check_format.sh'
phase "release build" bash -c "cmake --preset default >/dev/null && cmake --build --preset default -j $jobs"
phase "release tests" tests "$release_preset" "$logs/release-tests.log"
phase "sanitizer build" bash -c "cmake --preset asan >/dev/null && cmake --build --preset asan -j $jobs"
phase "sanitizer tests" tests asan "$logs/sanitizer-tests.log"

summary
echo "all tests passed (release and ASan/UBSan)"

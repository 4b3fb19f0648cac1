#!/usr/bin/env bash
# Checks the include matrix (scripts/check_layers.sh) and the formatting (scripts/check_format.sh),
# then builds and runs the whole test suite twice: the release build, then the same tests under
# AddressSanitizer and UndefinedBehaviorSanitizer. Tests that need ../shared/data skip with a
# message when it is absent (ctest counts them as skipped), and fail instead when
# XTFQ_REQUIRE_SHARED=1 (as in CI). Long stress and scale runs are opt-in: XTFQ_STRESS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
./scripts/check_layers.sh
./scripts/check_format.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan
echo "all tests passed (release and ASan/UBSan)"

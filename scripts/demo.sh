#!/usr/bin/env bash
# The demo: builds xtfq, generates a synthetic trace of 10^6 I/O events (the shape of Darshan DXT
# segments), imports it into a store (create, append, commit), reopens it and shows its layout,
# then verifies every page.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc 2>/dev/null || echo 2)" --target xtfq
out=${XTFQ_DEMO_DIR:-build/demo}
rm -rf "$out" && mkdir -p "$out"
build/xtfq gen events 1e6 -o "$out/events.bin"
build/xtfq import "$out/events.bin" -o "$out/events.xtfq"
build/xtfq info "$out/events.xtfq"
build/xtfq check "$out/events.xtfq"

#!/usr/bin/env bash
# Installs every Debian 12 package that xtfq's build, tests and benchmarks need.
# Idempotent: packages already present are skipped; safe to run again.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git
  clang-16 libclang-rt-16-dev             # the sanitizer build (the asan preset)
  clang-14 libclang-rt-14-dev             # the libFuzzer targets (the fuzz preset)
  clang-format-14                         # scripts/check_format.sh
  libboost-dev                            # Boost.Intrusive (cache), Boost.Interprocess (mmap), Boost.CRC
  liblz4-dev libzstd-dev zlib1g-dev libbz2-dev  # page compression, Darshan log regions
  libhdf5-dev hdf5-tools                   # Slurm HDF5 profiles; h5dump is the tests' reference
  libfmt-dev libcli11-dev nlohmann-json3-dev
  doctest-dev libbenchmark-dev
  chromium fonts-dejavu-core              # the viewer's browser tests (tests/browser), headless
)
# --slurm: also Debian's Slurm (one-node cluster for tests/slurm_real_test.cpp) with its HDF5 profile
# plugin and sh5util, and munge.
if [ "${1:-}" = "--slurm" ]; then
  pkgs+=(slurmctld slurmd slurm-client munge slurm-wlm-hdf5-plugin)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The browser tests' driver, playwright-core, at the version of tests/browser/package-lock.json
# (Node.js 20 and npm come with the machine; npm reaches its registry).
browser="$(cd "$(dirname "$0")/../tests/browser" && pwd)"
if [ ! -d "$browser/node_modules/playwright-core" ]; then
  (cd "$browser" && npm ci --no-audit --no-fund --loglevel=error)
fi

// Helpers shared by the benchmark programs: a scratch directory removed at exit, a store of
// generated events built from a fixed seed, dropping a file from the OS page cache, and the
// reader of a warm or cold iteration.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "query/core/store_reader.h"

namespace xtfq::bench {

// A directory under $XTFQ_BENCH_DIR (or $TMPDIR, or /tmp) for this process, removed at exit.
const std::string& ScratchDir();

// Builds (once per process and arguments) a store of `n` generated events with the given page
// size and returns its path.
std::string EventsStore(uint64_t n, uint32_t page_size);

// Asks the kernel to drop `path` from the page cache (posix_fadvise DONTNEED after fdatasync) and
// returns the fraction of its pages still resident afterwards (mincore), so a benchmark can say
// whether its "cold" reads really were cold.
double DropFromPageCache(const std::string& path);

// The reader of one iteration: `warm` itself, or, when `cold`, a new reader of `path` opened after
// the store is dropped from the page cache, the timer paused meanwhile (`resident` gets what the
// kernel kept). `fresh` holds the new reader for the iteration.
StoreReader& IterationReader(benchmark::State& state, bool cold, const std::string& path, const ReaderOptions& options,
                             StoreReader& warm, std::unique_ptr<StoreReader>& fresh, double& resident);

}  // namespace xtfq::bench

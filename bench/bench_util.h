// Helpers shared by the benchmark programs: a scratch directory removed at exit, a store of
// generated events built from a fixed seed, and dropping a file from the OS page cache.
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace xtfq::bench

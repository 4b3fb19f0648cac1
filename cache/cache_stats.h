// CacheStats: the counters of a PageCache, read by tests (exact for scripted access patterns) and
// by benchmarks (pages_read and cache_misses beside every timing).
//
// Thread-safety: value type (a copy of the atomic counters at one moment).
#pragma once

#include <cstdint>

namespace xtfq {

struct CacheStats {
  uint64_t hits = 0;        // fetches that found the page resident
  uint64_t misses = 0;      // fetches that did not
  uint64_t pages_read = 0;  // pages read from the source (a miss that lost a race reads anyway)
  uint64_t evictions = 0;   // resident pages dropped to stay within the budget
};

}  // namespace xtfq

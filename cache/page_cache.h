// PageCache: an LRU cache of verified pages over a PageSource, handing out RAII pins (PageRef).
//
// It knows nothing of what is in a page (SQLite's pcache is the model): B+tree state stays in the
// layers above. Frames live in a Boost.Intrusive unordered_set keyed by page id; unpinned frames
// also sit in an intrusive LRU list, most recently used at the front.
//
// Invariants (CheckInvariants):
//  1. A pinned frame is never in the LRU list and never evicted; an unpinned resident frame is
//     always in it.
//  2. Resident pages exceed the budget only while every resident page beyond it is pinned; each
//     unpin evicts down to the budget again.
//  3. Every resident page passed its source's checks (checksum, page id, header; a stored page's
//     decoding) when it entered the cache; a page that fails never enters, and the fetch returns
//     the error. Frames are keyed by PageKey: slot 5 and chain page 5 are different frames.
// Counters: a fetch is a hit or a miss; pages_read counts reads from the source; evictions counts
// frames dropped. For one thread they are exact; with several, a miss that loses the race to
// insert the same page reads it once more and drops its copy.
//
// Backends: with a pread source a frame owns a page-sized buffer; with an mmap source a plain page's
// frame points into the mapping, and a stored page is decoded into the frame's buffer.
//
// Thread-safety: Fetch, stats and PageRef release may be called from several threads at once;
// one mutex guards the table and the list, and reads from the source happen outside it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "cache/cache_frame.h"
#include "cache/cache_stats.h"
#include "cache/page_ref.h"
#include "store/page_source.h"
#include "store/result.h"

namespace xtfq {

class PageCache {
 public:
  static constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

  // `budget_bytes` is rounded down to whole pages, at least one.
  PageCache(PageSource& source, size_t budget_bytes);
  // REQUIRES: no PageRef of this cache is alive.
  ~PageCache();
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // Pins page `key`, reading and verifying it (and decoding a stored page) on a miss. A stored
  // page is read at `hint` when that is stored, else where the page map says (PageSource::Load).
  Result<PageRef> Fetch(PageKey key, Location hint = {});

  CacheStats stats() const;
  void ResetStats();
  size_t budget_pages() const { return budget_pages_; }
  size_t resident_pages() const;
  size_t pinned_pages() const;
  bool Resident(PageKey key) const;
  uint32_t page_size() const { return page_size_; }
  PageSource& source() { return source_; }
  Status CheckInvariants() const;

 private:
  friend class PageRef;

  struct KeyHash {
    size_t operator()(PageKey key) const { return std::hash<PageKey>()(key); }
  };
  struct KeyEqual {
    bool operator()(PageKey key, const CacheFrame& f) const { return key == f.key; }
  };
  using Lru = bi::list<CacheFrame>;
  using Table = bi::unordered_set<CacheFrame, bi::power_2_buckets<true>>;

  void Unpin(CacheFrame* frame);
  void EvictLocked();
  void GrowLocked();
  std::unique_ptr<CacheFrame> TakeSpareLocked();
  void KeepSpareLocked(std::unique_ptr<CacheFrame> frame);
  Status Load(CacheFrame& frame, PageKey key, Location hint);

  PageSource& source_;
  const uint32_t page_size_;
  const size_t budget_pages_;
  mutable std::mutex mu_;
  std::vector<Table::bucket_type> buckets_;
  std::unique_ptr<Table> table_;
  Lru lru_;
  size_t pinned_ = 0;
  std::vector<std::unique_ptr<CacheFrame>> spare_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, pages_read_{0}, evictions_{0};
};

}  // namespace xtfq

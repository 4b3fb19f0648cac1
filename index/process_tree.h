// ProcessTree: the read side of an array's P index (docs/format.md, "P index"): the process tree
// keyed by process id, whose level-0 entries name the per-process arrays and hold each process's
// totals, over the page cache.
//
// Range() descends once and walks the level-0 pages of the range; Totals() merges whole subtrees
// and reads at most two pages per level, so the totals of any process range cost O(log P) pages.
// Every page is checked for kind, level and array before it is used; a page that does not belong
// where the tree leads is an ErrorCode::kCorrupt error naming it.
//
// Thread-safety: one ProcessTree per thread; several may share a cache.
#pragma once

#include <cstdint>
#include <vector>

#include "cache/page_cache.h"
#include "store/catalogue.h"
#include "store/child_ref.h"
#include "store/summary.h"

namespace xtfq {

class ProcessTree {
 public:
  // REQUIRES: array.process_index; `catalogue` holds `array` and outlives the tree.
  ProcessTree(PageCache& cache, const Catalogue& catalogue, const ArrayDesc& array);

  size_t height() const { return array_.process_levels; }
  // The per-process arrays of the processes p1 <= p < p2, in process order. p2 == INT64_MAX is
  // the open end of a window (no upper bound: process INT64_MAX is in), as every window writes it.
  Result<std::vector<const ArrayDesc*>> Range(int64_t p1, int64_t p2);
  // The summary of every record of the processes p1 <= p < p2 (p2 == INT64_MAX: no upper bound).
  Result<Summary> Totals(int64_t p1, int64_t p2);

 private:
  // Whether `key` lies below the window's end p2 (always, for the open end INT64_MAX).
  static bool Below(int64_t key, int64_t p2);
  Result<PageRef> Fetch(size_t level, ChildRef child);
  // Keys in the subtree of page `id` are <= upper.
  Status TotalsIn(size_t level, ChildRef child, int64_t upper, int64_t p1, int64_t p2, Summary& out);

  PageCache& cache_;
  const Catalogue& catalogue_;
  const ArrayDesc& array_;
  uint32_t entry_width_;
};

}  // namespace xtfq

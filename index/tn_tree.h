// TnTree: the read side of an array's TN tree (docs/format.md, "TN tree") over the page cache.
//
// Record numbers (positions) follow from the entries' counts, so every operation is a descent
// from the root that touches one page per level (LowerBound, Record) or at most two (Aggregate,
// which merges the summaries of whole subtrees inside the range and reads records only in the two
// boundary leaves). Nothing iterates over the range itself.
//
// Each page is checked for kind, level and array before it is used; a page that does not belong
// where the tree leads is an ErrorCode::kCorrupt error naming it.
//
// Thread-safety: one TnTree per thread; several may share a cache.
#pragma once

#include <cstdint>
#include <span>

#include "cache/page_cache.h"
#include "store/array_desc.h"
#include "store/index_entry.h"
#include "store/summary.h"

namespace xtfq {

class TnTree {
 public:
  TnTree(PageCache& cache, const ArrayDesc& array);

  uint64_t size() const { return array_.record_count(); }
  size_t height() const { return array_.levels.size(); }
  const ArrayDesc& array() const { return array_; }

  // The position of the first record whose key is >= t; size() when there is none. The key is
  // the time field, or the record number for arrays without one.
  Result<uint64_t> LowerBound(int64_t t);
  // Copies the record at position n into `out`. REQUIRES: n < size(), out.size() == record width.
  Status Record(uint64_t n, std::span<std::byte> out);
  // The summary of the records at positions [lo, hi) (clamped to the array).
  Result<Summary> Aggregate(uint64_t lo, uint64_t hi);

 private:
  // Pins the page of `level` with logical id `id` and checks that it belongs there.
  Result<PageRef> Fetch(size_t level, PageId id);
  Status AggregateIn(size_t level, PageId id, uint64_t base, uint64_t lo, uint64_t hi, Summary& out);
  PageId Root() const { return array_.levels.back().open; }

  PageCache& cache_;
  const ArrayDesc& array_;
  uint32_t entry_width_;
};

}  // namespace xtfq

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

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "cache/page_cache.h"
#include "store/array_desc.h"
#include "store/child_ref.h"
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
  // Calls fn(record) for the records at positions [lo, hi) (clamped to the array) in order,
  // one descent per leaf page; stops at fn's first error, or when it returns false.
  Status ForEach(uint64_t lo, uint64_t hi, const std::function<Result<bool>(const std::byte*)>& fn);
  // As ForEach, for long passes: the leaves are found first from the index pages, then read and
  // decoded on a second thread ahead of fn (LeafPrefetch), straight from the source, not cached.
  Status Scan(uint64_t lo, uint64_t hi, const std::function<Result<bool>(const std::byte*)>& fn);
  // The summary of the records at positions [lo, hi) (clamped to the array).
  Result<Summary> Aggregate(uint64_t lo, uint64_t hi);
  // Summaries of the records with t1 <= key < t2 in `buckets` equal buckets (Bucket()), in one
  // pass: a subtree whose keys all fall in one bucket is merged whole, so only the pages that
  // straddle a bucket boundary are read, each once. REQUIRES: t1 < t2, buckets >= 1.
  Result<std::vector<Summary>> Histogram(int64_t t1, int64_t t2, uint32_t buckets);
  // Merges the records with t1 <= key < t2 into `out` (one bucket of Histogram, without allocating).
  Status AggregateTime(int64_t t1, int64_t t2, Summary& out);

  // The bucket of key t in [t1, t2) cut into `buckets`: floor((t - t1) * buckets / (t2 - t1)),
  // without overflow. REQUIRES: t1 <= t < t2.
  static uint32_t Bucket(int64_t t, int64_t t1, int64_t t2, uint32_t buckets);
  // The least key of bucket b (b == buckets gives t2).
  static int64_t BucketStart(uint32_t b, int64_t t1, int64_t t2, uint32_t buckets);

 private:
  // Pins the page of `level` with logical id `id` and checks that it belongs there.
  Result<PageRef> Fetch(size_t level, ChildRef child);
  // The leaf page holding position n, and n's slot in it. REQUIRES: n < size().
  Result<std::pair<PageRef, uint32_t>> Leaf(uint64_t n);
  // In a leaf of n records whose first has position `base_pos`: the slot of the first record whose
  // key is >= t (n when none).
  uint32_t FirstAtOrAfter(const std::byte* records, uint32_t n, uint64_t base_pos, int64_t t) const;
  Status AggregateIn(size_t level, ChildRef child, uint64_t base, uint64_t lo, uint64_t hi, Summary& out);
  struct Buckets {
    std::span<const int64_t> bounds;  // bounds[b] = BucketStart(b); bounds[n] = t2
    Summary* out;                     // n summaries
    // The bucket holding key t. REQUIRES: bounds.front() <= t < bounds.back().
    uint32_t Of(int64_t t) const {
      return static_cast<uint32_t>(std::upper_bound(bounds.begin(), bounds.end(), t) - bounds.begin() - 1);
    }
  };
  // Keys in the subtree of page `id` are in [lower, upper]; `base` is its first record's position.
  Status HistogramIn(size_t level, ChildRef child, int64_t lower, int64_t upper, uint64_t base, const Buckets& b);
  PageId Root() const { return array_.levels.back().open; }
  // Appends the leaves of page `child` of `level` (its first record at position `base`) that hold
  // positions in [lo, hi), with their positions (`count`: the records the entry above counts).
  struct LeafSpan {
    ChildRef child;
    uint64_t first = 0, count = 0;  // its records' positions
  };
  Status LeavesIn(size_t level, ChildRef child, uint64_t base, uint64_t lo, uint64_t hi, std::vector<LeafSpan>& out,
                  uint64_t count);

  PageCache& cache_;
  const ArrayDesc& array_;
  uint32_t entry_width_;
};

}  // namespace xtfq

// Primitives: the XTF access primitives over one array, answered from its TN tree
// (docs/architecture.md, "Primitives"):
//   Search(t)      the first record with time >= t        one descent
//   SearchAt(n)    the n-th record                        one descent
//   Size(t1, t2)   records with t1 <= t < t2              two descents, no iteration
//   Next(c, step)  the record `step` positions away       one descent, via the counts
//   Aggregate(t1, t2)  count, sum, min, max, sum of squares of each aggregate field
//   Histogram(t1, t2, B)  the same per bucket, bucket b = [t1 + b(t2-t1)/B, t1 + (b+1)(t2-t1)/B)
// Size, Aggregate and Histogram also take a process window p1 <= process < p2. The whole process
// range uses the array's own tree; a narrower one uses the P index (docs/format.md, "P index"):
// one descent of the process tree, then the same window on each of the R' per-process arrays
// (O(R' log N)), or, when the time window holds every record, the process tree's totals
// (O(log P)). Search and Next follow one process through ProcessArray().
// Every answer also has a flat-scan twin (Scan*) that reads every record, for tests and
// benchmarks. Windows are half-open. Arrays without a time field use the record number as time.
//
// Thread-safety: one Primitives per thread; several may share a cache.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "index/chain_cursor.h"
#include "index/process_tree.h"
#include "index/tn_tree.h"

namespace xtfq {

// A position in an array, with the record there (absent at the end).
struct Cursor {
  uint64_t position = 0;
  std::vector<std::byte> record;  // empty when position == size
  bool at_end() const { return record.empty(); }
};

class Primitives {
 public:
  // `catalogue` (holding `array`) is needed for process windows.
  Primitives(PageCache& cache, const ArrayDesc& array, const Catalogue* catalogue = nullptr)
      : cache_(cache), tree_(cache, array), catalogue_(catalogue) {}

  const ArrayDesc& array() const { return tree_.array(); }
  uint64_t size() const { return tree_.size(); }
  size_t height() const { return tree_.height(); }

  Result<Cursor> Search(int64_t t);
  Result<Cursor> SearchAt(uint64_t n);
  Result<uint64_t> Size(int64_t t1, int64_t t2, int64_t p1 = INT64_MIN, int64_t p2 = INT64_MAX);
  // The cursor `step` records after (before, when negative) `from`; clamps to [0, size], and
  // says so by the returned position.
  Result<Cursor> Next(const Cursor& from, int64_t step);
  Result<Summary> Aggregate(int64_t t1, int64_t t2, int64_t p1 = INT64_MIN, int64_t p2 = INT64_MAX);
  Result<std::vector<Summary>> Histogram(int64_t t1, int64_t t2, uint32_t buckets, int64_t p1 = INT64_MIN,
                                         int64_t p2 = INT64_MAX);
  // The per-process array of process p (kNotFound when p has no record), for Primitives over it.
  Result<const ArrayDesc*> ProcessArray(int64_t p);
  // The number of processes with records in p1 <= process < p2.
  Result<uint64_t> ProcessCount(int64_t p1, int64_t p2);

  // The scans filter p1 <= process < p2 as well when the array has a process field.
  Result<Cursor> ScanSearch(int64_t t);
  Result<uint64_t> ScanSize(int64_t t1, int64_t t2, int64_t p1 = INT64_MIN, int64_t p2 = INT64_MAX);
  Result<Summary> ScanAggregate(int64_t t1, int64_t t2, int64_t p1 = INT64_MIN, int64_t p2 = INT64_MAX);
  Result<std::vector<Summary>> ScanHistogram(int64_t t1, int64_t t2, uint32_t buckets, int64_t p1 = INT64_MIN,
                                             int64_t p2 = INT64_MAX);

  // Buckets as TnTree defines them.
  static uint32_t Bucket(int64_t t, int64_t t1, int64_t t2, uint32_t buckets) {
    return TnTree::Bucket(t, t1, t2, buckets);
  }
  static int64_t BucketStart(uint32_t b, int64_t t1, int64_t t2, uint32_t buckets) {
    return TnTree::BucketStart(b, t1, t2, buckets);
  }

 private:
  int64_t TimeOf(const std::byte* record, uint64_t position) const;
  static bool AllProcesses(int64_t p1, int64_t p2) { return p1 == INT64_MIN && p2 == INT64_MAX; }
  // The per-process arrays of p1 <= process < p2; an error when the array has no P index.
  Result<std::vector<const ArrayDesc*>> Processes(int64_t p1, int64_t p2);
  // Whether [t1, t2) holds every record of the array.
  Result<bool> CoversAll(int64_t t1, int64_t t2);
  // Whether the scans keep the record (its process is in [p1, p2)).
  bool InProcesses(const std::byte* record, int64_t p1, int64_t p2) const;
  // Visits every record in order with its position; stops early when `visit` returns false.
  template <class F>
  Status ScanAll(F&& visit);

  PageCache& cache_;
  TnTree tree_;
  const Catalogue* catalogue_;
  std::optional<std::pair<int64_t, int64_t>> span_;  // times of the first and last records
};

}  // namespace xtfq

// DxtSegments: the DXT segments of one array (layouts/darshan_layout.h, DxtSchema) that start in
// a time window [t1, t2) and lie in a rank range [p1, p2), read without visiting the rest of the
// array: through the P index (each rank's own time-ordered array, two descents a rank) when the
// range's ranks hold under an eighth of the window's segments, else through the window of the
// array itself (two descents), skipping other ranks. What a per-file row, a file filter and the
// viewer's drill-down read (there is no index by file).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "query/core/store_reader.h"

namespace xtfq {

struct DxtSegmentWindow {
  int64_t t1 = INT64_MIN, t2 = INT64_MAX;  // ns from the job's start, half-open
  int64_t p1 = INT64_MIN, p2 = INT64_MAX;  // ranks, half-open
};

class DxtSegments {
 public:
  // Calls visit on every segment of the window (in time order within a rank); adds the records
  // read to *records_read.
  static Status ForEach(StoreReader& reader, const ArrayDesc& array, const DxtSegmentWindow& w,
                        const std::function<void(const std::byte*)>& visit, uint64_t* records_read = nullptr);
  // The first n segments of the window in the order (start, rank, file, offset, length), as
  // records of DxtSchema's width laid end to end; reads about n records (plus the ties of the
  // n-th's start) and two descents a rank of the range.
  static Result<std::vector<std::byte>> First(StoreReader& reader, const ArrayDesc& array, const DxtSegmentWindow& w,
                                              uint64_t n, uint64_t* records_read = nullptr);
  // The order of First: whether segment record a comes before b.
  static bool Before(const std::byte* a, const std::byte* b);
};

}  // namespace xtfq

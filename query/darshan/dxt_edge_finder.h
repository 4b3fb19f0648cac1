// DxtEdgeFinder: the DXT segments of one array (DxtSchema) that cross given times, found without
// reading the others: a segment [start, start + duration) crosses a time e when start < e < its
// end. The TN tree's aggregates give each run of start times its count and its longest duration,
// so a run none of whose segments can reach the next time after its first start is skipped, and the
// others are halved until they hold at most kReadAtMost segments, which are read. The cost is
// O(log^2 N) descents a time plus the segments read, which are the crossing ones and their
// neighbours in time (query/darshan/dxt_window_spread.h, query/answers/grid_answer.h).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "query/core/primitives.h"
#include "query/core/store_reader.h"

namespace xtfq {

struct DxtSegment {
  int64_t t = 0, rank = 0;
  uint64_t file = 0;
  int64_t bytes = 0;
  double duration = 0;  // seconds
  double End() const { return static_cast<double>(t) + duration * 1e9; }
  static DxtSegment Decode(const std::byte* record);
};

class DxtEdgeFinder {
 public:
  static constexpr uint64_t kReadAtMost = 256;

  DxtEdgeFinder(StoreReader& reader, const ArrayDesc& array);

  // Calls visit once for each segment with lo <= start < hi that crosses one of `times` (sorted).
  Status Crossing(const std::vector<int64_t>& times, int64_t lo, int64_t hi,
                  const std::function<void(const DxtSegment&)>& visit);
  // Calls visit for every segment with lo <= start < hi.
  Status Read(int64_t lo, int64_t hi, const std::function<void(const DxtSegment&)>& visit);
  // The first segment's start (0 for an empty array).
  Result<int64_t> FirstStart();
  uint64_t records_read() const { return read_; }

 private:
  StoreReader& reader_;
  const ArrayDesc& array_;
  Primitives p_;
  uint64_t read_ = 0;
};

}  // namespace xtfq

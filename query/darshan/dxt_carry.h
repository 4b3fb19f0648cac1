// DxtCarry: what DXT segments still have to move after given times, per row of ranks: at a time e,
// carry(e) = the sum over the segments alive at e (start < e < end) of their bytes times the part
// of their duration after e (bytes carry), and of end - e (seconds carry). A grid whose cells count
// each segment whole at its start becomes one whose cells spread each segment over the cells it
// overlaps, in proportion to the overlap, by adding carry(left edge) - carry(right edge) to each
// cell: the job_stats summaries' carry (layouts/jobstats_layout.h) for segments that cross bin
// edges. The cells then still sum to the window's total of bytes moved in it (DxtWindowSpread).
//
// Cost: DxtEdgeFinder over the times, once for all rows: O(log^2 N) descents a time plus the
// segments near each time.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"

namespace xtfq {

struct DxtCarry {
  size_t times = 0;
  std::vector<double> bytes, seconds;  // rows x times, row-major
  uint64_t crossing = 0;               // segments that cross a time
  uint64_t records_read = 0;           // segments read to find them

  double Bytes(size_t row, size_t k) const { return bytes[row * times + k]; }
  double Seconds(size_t row, size_t k) const { return seconds[row * times + k]; }

  // The carry of the segments of `arrays` (DXT segment arrays of one log) at each of `times`
  // (sorted) for each of `rows` ([lo, hi) ranks; a segment counts in every row that holds its rank).
  static Result<DxtCarry> Compute(StoreReader& reader, const std::vector<const ArrayDesc*>& arrays,
                                  const std::vector<int64_t>& times,
                                  const std::vector<std::pair<int64_t, int64_t>>& rows);
};

}  // namespace xtfq

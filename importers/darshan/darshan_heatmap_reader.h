// DarshanHeatmapReader: the HEATMAP records of a log, one at a time
// (../shared/docs/darshan-format.md, 4.8): base record, f64 bin width in seconds, i64 bin count,
// 16 bytes of stored pointers, the write bins, then the read bins (bytes per bin, u64). The bins
// are returned as darshan-util shows them: its fix for logs of 3.4.0-3.4.3 is applied (a record
// with the first record's bin width and one bin more loses its last bin; one bin fewer gains a
// zero bin). Bin i covers [i * width, (i + 1) * width) seconds from the job's start.
//
// Thread-safety: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "importers/darshan/darshan_log.h"

namespace xtfq {

struct HeatmapRecord {
  uint64_t id = 0;
  int64_t rank = 0;
  double width = 0;                  // seconds per bin
  std::vector<int64_t> read, write;  // bytes per bin, the same count
};

class DarshanHeatmapReader {
 public:
  static constexpr int kSlot = 15;
  explicit DarshanHeatmapReader(DarshanLog& log);
  // The next record; false at the end of the region.
  Result<bool> Next(HeatmapRecord& out);

 private:
  DarshanLog& log_;
  std::unique_ptr<DarshanRegionReader> reader_;
  std::vector<std::byte> raw_;
  bool have_first_ = false;
  double first_width_ = 0;
  int64_t first_bins_ = 0;
};

}  // namespace xtfq

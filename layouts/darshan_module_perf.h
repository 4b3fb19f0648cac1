// DarshanModulePerf: one record of darshan/<log>/perf (DarshanLayout::PerfSchema): what
// `darshan-parser --perf` and `--file` print for one module, as the importer's accumulator
// computed it and as the query layer reads it back.
//
// Thread-safety: a value type.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "layouts/darshan_layout.h"

namespace xtfq {

// One line of `darshan-parser --file`: a category's file count, bytes moved and maximum byte
// offset (-1 when the module does not keep offsets).
struct DarshanFileCategory {
  int64_t count = 0, bytes = 0, max_offset = 0;
};

struct DarshanModulePerf {
  int64_t slot = 0;  // the module's slot, numbered as in format 3.41
  int64_t records = 0, total_bytes = 0;
  int64_t slowest_rank = 0;
  double slowest_rank_io_time = 0, slowest_rank_meta_only_time = 0, slowest_rank_rw_only_time = 0;
  double time_by_slowest = 0;  // the shared records' F_SLOWEST_RANK_TIME summed
  double agg_time_by_slowest = 0, agg_perf_by_slowest = 0;
  // In the order of DarshanLayout::kFileLines: total, read_only, write_only, read_write, unique,
  // shared (darshan-parser's `shared` adds its partly shared files field by field).
  std::array<DarshanFileCategory, DarshanLayout::kFileLines.size()> files{};

  // The record of PerfSchema() (its record_width() bytes), and back.
  void Encode(std::byte* record) const;
  static DarshanModulePerf Decode(const std::byte* record);
};

}  // namespace xtfq

// DarshanJobSummary: what PyDarshan's job summary report (`python -m darshan summary`) shows of a
// module over the whole run, from its counter records (exact): the operation counts with metadata
// (opens, stats, seeks, syncs, ...) and bytes, of POSIX, MPI-IO, STDIO and of the HDF5 and PnetCDF
// modules (H5F, H5D, PNETCDF_FILE, PNETCDF_VAR), MPI-IO's independent, collective, split and non-blocking
// reads and writes, the most common access sizes (the ACCESS1-4 values of every record, their
// counts summed by size, the four largest), and the I/O time per process as a share of the run
// (F_READ_TIME, F_WRITE_TIME, F_META_TIME summed over the records, over the job's processes, over
// darshan-parser's run time).
//
// Cost: reads the module's counter records.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

struct DarshanJobSummary {
  std::string module;
  uint64_t records = 0;
  // (name without the module's prefix, total), in darshan-parser's order: every operation counter
  // and BYTES_READ, BYTES_WRITTEN;
  // nullopt when a record says -1 ("Darshan could not monitor this": POSIX_MMAPS by default).
  std::vector<std::pair<std::string, std::optional<int64_t>>> operations;
  // (access size in bytes, count), most common first (ties: the smaller size first); at most 4.
  std::vector<std::pair<int64_t, int64_t>> common_accesses;
  // Seconds per process: read, write, metadata; and the run they are a share of.
  double read_time = 0, write_time = 0, meta_time = 0, run_time = 0;

  // nullopt when the log has no counter records of `module`.
  static Result<std::optional<DarshanJobSummary>> Of(StoreReader& reader, const DarshanLogInfo& info,
                                                     const std::string& module);
};

}  // namespace xtfq

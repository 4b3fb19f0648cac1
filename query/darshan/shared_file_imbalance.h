// SharedFileImbalance: how evenly the ranks shared each file they all opened, from Darshan's own
// reduction of it: a shared record (rank -1) keeps its fastest and slowest rank with their bytes
// and I/O times (FASTEST_RANK, SLOWEST_RANK, *_RANK_BYTES, F_*_RANK_TIME) and the variance of
// the ranks' times and bytes (F_VARIANCE_RANK_TIME, F_VARIANCE_RANK_BYTES; POSIX, MPI-IO, STDIO).
// These cover the whole run: Darshan keeps no times of a rank inside a shared file, so a window
// has none, and per-rank DXT imbalance leaves shared files' reduction out. The files are listed
// slowest rank's time first, each with its slowest/fastest time ratio, the figure Drishti's
// straggler rule reads.
//
// Cost: reads the module's counter records (no index by rank -1).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

struct SharedFileImbalance {
  uint64_t id = 0;
  std::string name;
  int64_t slowest_rank = 0, slowest_rank_bytes = 0, fastest_rank = 0, fastest_rank_bytes = 0;
  double slowest_rank_time = 0, fastest_rank_time = 0;            // seconds
  std::optional<double> variance_rank_time, variance_rank_bytes;  // none where the module has none (DFS) or -1
  // slowest / fastest time; none when the fastest rank took no time.
  std::optional<double> TimeRatio() const;
};

struct SharedFileImbalances {
  uint64_t shared_files = 0;               // the module's shared records
  std::vector<SharedFileImbalance> files;  // the `top` with the slowest rank's time largest, largest first

  // nullopt when the log has no counter records of `module`.
  static Result<std::optional<SharedFileImbalances>> Of(StoreReader& reader, const DarshanLogInfo& info,
                                                        const std::string& module, size_t top);
};

}  // namespace xtfq

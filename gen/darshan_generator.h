// DarshanGenerator: synthetic binary Darshan logs (format 3.41, zlib) of any size, with POSIX,
// MPI-IO, STDIO, DXT_POSIX and DXT_MPIIO records, for demos, tests and benchmarks
// (`xtfq gen darshan`). The run it describes, over `ranks` ranks and `duration` seconds:
//   - input read: every rank reads its block of a shared input file with collective MPI-IO reads
//     of 1 MiB (10% of the segments);
//   - checkpoints: `checkpoints` collective writes of 4 MiB requests to shared files, evenly
//     spaced; a few straggler ranks (rank % 97 == 13) write 8 times slower (20%);
//   - small, metadata-heavy I/O: the remaining files are per-rank diagnostics written with
//     64-4096-byte POSIX writes throughout the run, one open per burst (20%);
//   - read-back of the last checkpoint at the end (10%);
//   - stdout, written by every rank (STDIO, no DXT).
// Shared-file operations go through MPI-IO, so each appears as a DXT_MPIIO and a DXT_POSIX
// segment. Counters are computed from the same operations as the runtime would count them
// (sequential/consecutive rules, size classes, top-4 access sizes, timestamps, times), and the
// records of files every rank opened are reduced to rank -1 as Darshan reduces them (sums, min
// and max timestamps, fastest/slowest rank, variances). Same options and seed, same bytes.
//
// Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/result.h"

namespace xtfq {

struct DarshanGenOptions {
  uint64_t segments = 1000000;  // DXT segments in all (approximately: whole operations per rank)
  int64_t ranks = 1024;
  int64_t files = 10000;  // shared files (input, checkpoints) + per-rank diagnostics
  int64_t checkpoints = 8;
  double duration = 3600;  // seconds
  uint64_t seed = 1;
  std::optional<int64_t> job;  // the job id (default 4242000 + seed mod 1000)
  int64_t start = 1795300000;  // the job's start, epoch seconds
  // DXT running out of memory: each DXT module keeps whole records until this many segments (0:
  // no limit), drops the rest and sets its partial flag, while the counters count everything.
  uint64_t dxt_segments_max = 0;
};

struct DarshanGenStats {
  uint64_t posix_segments = 0, mpiio_segments = 0, records = 0, names = 0, bytes = 0;
};

class DarshanGenerator {
 public:
  static Result<DarshanGenStats> Write(const std::string& path, const DarshanGenOptions& options);
};

}  // namespace xtfq

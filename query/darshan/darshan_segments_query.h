// DarshanSegmentsQuery: the DXT segments of a log inside a time window and rank range, one page at
// a time in the order (start, rank, file, offset): what `xtfq segments` prints and the viewer's
// drill-down lists. The total comes from the index (O(R' log N) through the P index); a page reads
// its offset + limit segments and their ties (query/darshan/dxt_segments.h), so pages are capped at
// kMaxReach segments from the window's first: a deeper look narrows the window.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

struct DarshanSegmentsRequest {
  std::string time = ":";           // --time, in the syntax of query/core/time_window.h (Darshan frame)
  std::string ranks;                // --ranks R1:R2; empty: all
  std::string module = "POSIX";     // POSIX (DXT_POSIX) or MPI-IO (DXT_MPIIO)
  std::string op = "all";           // read, write or all
  std::optional<int64_t> log, job;  // which log (default: the only one)
  uint64_t offset = 0;              // segments skipped
  uint64_t limit = 100;             // segments listed, 1 to kMaxLimit
};

struct DarshanSegment {
  bool write = false;
  int64_t rank = 0;
  uint64_t file = 0;  // record id
  int64_t offset = 0, length = 0;
  int64_t start = 0;    // ns from the job's start
  double duration = 0;  // seconds
  uint64_t thread = 0;
};

struct DarshanSegmentsAnswer {
  DarshanSegmentsRequest request;
  DarshanLogInfo info;
  std::string source;                               // DXT_POSIX or DXT_MPIIO
  int64_t t1 = 0, t2 = 0, p1 = 0, p2 = 0;           // the window (ns from the job's start) and ranks, resolved
  uint64_t total = 0;                               // segments of the window, ranks and ops
  std::vector<DarshanSegment> segments;             // [offset, offset + limit) of them
  std::unordered_map<uint64_t, std::string> names;  // the listed segments' file names
  uint64_t records_read = 0;
  std::vector<std::string> warnings;
  const std::string& FileName(uint64_t id) const;
};

class DarshanSegmentsQuery {
 public:
  static constexpr uint64_t kMaxLimit = 1000;
  static constexpr uint64_t kMaxReach = 100000;  // offset + limit
  static Result<DarshanSegmentsAnswer> Run(StoreReader& reader, const DarshanSegmentsRequest& request);
};

}  // namespace xtfq

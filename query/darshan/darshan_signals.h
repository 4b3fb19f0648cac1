// DarshanSignals: the Darshan signal spec v2.0 (../shared/seeds/000_f517edd3b507e57d.txt) for one
// log of a store: the job totals, each module's aggregates and performance metrics, and for each
// record its original metrics and derived signals, with the spec's NA rules (docs/signals.md).
//
// Modules, in darshan-parser's (slot) order, and the counters that feed them: POSIX and STDIO
// (*_READS, *_WRITES, *_BYTES_READ, *_BYTES_WRITTEN, *_F_READ_TIME, *_F_WRITE_TIME); MPI-IO
// (reads = INDEP + COLL + SPLIT + NB reads, writes likewise); H5D; PNETCDF_VAR (reads = INDEP +
// COLL + NB). A counter at -1 is NA, and so is everything computed from it; a division by zero is
// NA; sums skip NA inputs, and a sum over none is 0. Records come in the order of their array
// (open time, then the log's order).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

class DarshanSignals {
 public:
  // NA is nullopt.
  using Value = std::optional<double>;

  // One line of the signals file.
  struct Line {
    enum class Kind : uint8_t { kJob, kModuleAgg, kModulePerf, kRecordMetric, kRecordSignal };
    Kind kind;
    std::string module;  // empty for the job
    int64_t rank = 0;
    uint64_t id = 0;
    std::string group;  // the spec's heading for record signals ("Performance Metrics", ...)
    std::string name;   // total_bytes_read, POSIX_BYTES_READ, SIGNAL_READ_BW, ...
    Value value;
  };
  // A record's header (RECORD block).
  struct Record {
    std::string module;
    int64_t rank = 0;
    uint64_t id = 0;
    std::string file_name, mount_pt, fs_type;
  };
  // Receives the lines in file order; records' lines follow their Begin.
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual Status Begin(const Record& record) = 0;
    virtual Status Emit(const Line& line) = 0;
  };

  // Computes every signal of log `info` and hands them to `sink` in the file's order: the job
  // lines, then per module its aggregates, performance metrics and records.
  //
  // With `ranks` = [r1, r2): only the job and module levels, over the per-rank records of ranks
  // r1 <= rank < r2, read from the P index (each rank's own array); shared records (rank -1)
  // cannot be split by rank and are left out.
  static Status Compute(StoreReader& reader, const DarshanLogInfo& info, Sink& sink,
                        std::optional<std::pair<int64_t, int64_t>> ranks = std::nullopt);

  // The shortest decimal that reads back as the same double, with at least one digit after the
  // point ("1198.0", "0.5"); "NA" for nullopt.
  static std::string Format(Value v);
};

}  // namespace xtfq

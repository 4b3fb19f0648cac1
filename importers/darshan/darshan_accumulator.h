// DarshanAccumulator: darshan-util's accumulator (darshan-logutils-accumulator.c) over one module's
// counter records, as `darshan-parser --perf` and `--file` and PyDarshan's job_stats compute it,
// for the five modules that have one (POSIX, MPI-IO, STDIO, DFS, DAOS). It sees the records in the
// log's order with the doubles as the log holds them, which the store's time-ordered arrays no
// longer give, so the importer runs it and stores what it emits (DarshanModulePerf).
//
// Per record: bytes = BYTES_READ + BYTES_WRITTEN. A record of rank >= 0 adds (F_META_TIME +
// F_READ_TIME) + F_WRITE_TIME to its rank's I/O time, F_META_TIME to its metadata time and
// F_READ_TIME + F_WRITE_TIME to its read/write time; a shared record (rank -1) adds its
// F_SLOWEST_RANK_TIME to the shared time. The slowest rank is the one with the most I/O time (the
// lowest on a tie; none above 0: rank 0 with zeros); agg_time_by_slowest = its time + the shared
// time; agg_perf_by_slowest = total_bytes / 2^20 / agg_time_by_slowest (0 when that is 0).
// Files (by record id, in the order first seen): read only, write only, read and write by their
// bytes; unique when one record of rank >= 0 names the file, shared when a shared record does,
// partly shared otherwise; the maximum byte offset is max(MAX_BYTE_READ, MAX_BYTE_WRITTEN)
// (POSIX and STDIO; -1, "not kept", for the others), and darshan-parser's `shared` line adds the
// shared and partly shared categories field by field, the offset too.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "importers/darshan/darshan_counter_record.h"
#include "layouts/darshan_module_perf.h"

namespace xtfq {

// How --total folds each counter in.
enum class DarshanAccumulatorFold : uint8_t {
  kSum,       // added up (POSIX, DFS, DAOS: a negative sum becomes -1)
  kLast,      // the last record's value
  kMax,       // the greatest, from 0
  kNone,      // left alone (set with another counter, or never aggregated)
  kCommon,    // the first of a block of four values and four counts (STRIDE, ACCESS)
  kEarliest,  // the smallest above 0
  kLatest,    // the greatest, from 0
  kMaxTime,   // F_MAX_READ/WRITE_TIME: the greatest, with its *_TIME_SIZE (size_at)
  kFastest,   // F_FASTEST_RANK_TIME, with FASTEST_RANK and FASTEST_RANK_BYTES
  kSlowest,   // F_SLOWEST_RANK_TIME, with SLOWEST_RANK and SLOWEST_RANK_BYTES
  kZero,      // F_VARIANCE_*: 0
};

class DarshanAccumulator {
 public:
  // The accumulator of `module` whose records carry the counters `names` (ints, then floats);
  // nullopt for a module darshan-util has none for.
  static std::optional<DarshanAccumulator> For(std::string_view module, const std::vector<std::string_view>& names,
                                               size_t ints);

  void Add(const DarshanCounterRecord& r);
  // What `--perf` and `--file` print (slot left 0).
  DarshanModulePerf Emit() const;
  // What `--total` prints: the records folded into one as darshan-util's log_agg_records does
  // (sums, the last value, maxima, the earliest start and latest end, the slowest and fastest
  // rank while every record is of one file, the top four common values); all zeros before any.
  const DarshanCounterRecord& Total() const { return total_; }

 private:
  struct Rank {
    double io = 0, md = 0, rw = 0;
  };
  struct File {
    int64_t read = 0, written = 0, max_offset = 0, processes = 0;  // processes: -1 once a shared record names it
  };
  // Where a counter is: an index into ints (when !real) or floats.
  struct Slot {
    size_t index = 0;
    bool real = false;
  };

  using Fold = DarshanAccumulatorFold;
  struct Rule {
    Fold fold = Fold::kSum;
    size_t size_at = 0;  // kMaxTime: the int counter of its size
  };
  void FoldIn(const DarshanCounterRecord& r);
  void FoldCommon(const std::vector<int64_t>& in, size_t i);
  void FoldRank(const DarshanCounterRecord& r, bool fastest);

  std::vector<Rule> int_rules_, float_rules_;
  bool clamp_ = false;       // POSIX, DFS, DAOS: sums that go negative are -1
  bool skip_unset_ = false;  // MPI-IO: a record whose first common value is 0 adds none
  Slot fastest_rank_, fastest_bytes_, slowest_rank_, slowest_bytes_, fastest_;
  DarshanCounterRecord total_;
  bool one_file_ = true;  // every record so far names one file (total_.id)

  bool offsets_ = false;  // POSIX and STDIO keep MAX_BYTE_READ/WRITTEN
  Slot bytes_read_, bytes_written_, max_read_, max_written_, meta_, read_, write_, slowest_;
  int64_t records_ = 0, total_bytes_ = 0;
  double shared_time_ = 0;
  std::map<int64_t, Rank> ranks_;
  std::vector<File> files_;
  std::unordered_map<uint64_t, size_t> file_index_;
};

}  // namespace xtfq

// DarshanWindow: Darshan's I/O signals inside any time window and rank range of a log, from the DXT
// segments (docs/signals.md, "Windows"): operations, bytes, busy time (the sum of the segments'
// durations), sequential and consecutive counts and the 10 size classes per operation, and per
// rank (for rank imbalance) and per file.
//
// Logs without DXT but with HEATMAP records get bytes from the heatmap bins of the module instead;
// logs with neither get estimates from their counter records (DarshanCounterWindow).
//
// A segment belongs to the window that holds its start (t1 <= start < t2, in ns from the job's
// start), whole: a segment that crosses an edge counts in the window where it began.
//
// The totals are the TN tree's aggregates over the window (O(log N) pages per operation; over a
// rank range, the P index: O(R' log N)). Per-rank rows take one descent per rank of the range
// (O(R' log N)). A file filter and per-file rows read the window's segments and no others
// (query/darshan/dxt_segments.h: there is no index by file). `scan` reads every segment instead; it gives the same
// answers (durations summed in another order may differ in the last bits).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

struct DarshanOpStats {
  uint64_t ops = 0;
  int64_t bytes = 0;
  double busy = 0;  // seconds: the sum of the segments' durations
  int64_t seq = 0, consec = 0;
  std::array<int64_t, DarshanLayout::kSizeClasses> size_classes{};
  // Whether the source counts these at all. DXT segments give them for any module; counter
  // records only what the module counts (STDIO has no sequential, consecutive or size-class
  // counters, MPI-IO no sequential or consecutive ones). Unknown ones are NA, never 0.
  bool seq_known = true, consec_known = true, size_classes_known = true;
  void Add(const DarshanOpStats& o);
};

struct DarshanWindowSpec {
  int64_t t1 = INT64_MIN, t2 = INT64_MAX;             // ns from the job's start, half-open
  int64_t p1 = INT64_MIN, p2 = INT64_MAX;             // ranks, half-open
  std::string module = "POSIX";                       // POSIX (DXT_POSIX) or MPI-IO (DXT_MPIIO)
  std::optional<std::unordered_set<uint64_t>> files;  // only these record ids
  bool per_rank = true;                               // rows per rank (needed for rank imbalance)
  bool per_file = false;
  bool scan = false;
};

struct DarshanWindowStats {
  DarshanOpStats read, write;
  std::map<int64_t, std::array<DarshanOpStats, 2>> ranks;   // rank -> {read, write}
  std::map<uint64_t, std::array<DarshanOpStats, 2>> files;  // record id -> {read, write}
  bool indexed = true;                                      // answered from the index (false: segments read)
  // The log has no DXT of the module: bytes come from its HEATMAP bins of this width (seconds);
  // a bin counts in the window that holds its start; operations, sizes and times are unknown.
  bool heatmap = false;
  double heatmap_width = 0;
  uint64_t heatmap_bins = 0;  // bin records (rank, bin) in the window
  // The counters' bytes minus the bins' when they differ by Darshan's rounding of bins (at most a
  // byte a bin): the totals are the counters'.
  int64_t heatmap_short_by = 0;
  // A HEATMAP answer whose totals also carry operations, busy time, sequential and consecutive
  // counts and size classes: from the module's counter records, exact (each lies wholly inside or
  // outside the window) and of the same bytes as the bins. Rank rows stay bytes only.
  bool counter_ops = false;
  // A HEATMAP answer whose counter records are exact for the window but count other bytes (read,
  // written) than its bins: both are said (the bins missed some I/O, or the records did).
  std::optional<std::array<int64_t, 2>> counter_bytes;
  // Neither DXT nor HEATMAP: estimated from the counter records (DarshanCounterWindow); `exact`
  // when every record lay wholly inside or outside the window.
  bool estimated = false, exact = false;
  // A log with HEATMAP bins asked for a file filter or per-file rows: answered from its counter
  // records (estimated or exact as above), since the bins are not per file.
  bool files_from_counters = false;
};

class DarshanWindow {
 public:
  // kNotFound when the log has no DXT segments of the module.
  static Result<DarshanWindowStats> Compute(StoreReader& reader, const DarshanLogInfo& info,
                                            const DarshanWindowSpec& spec);

 private:
  // Fills a HEATMAP answer's operations from the counter records when they are exact for the
  // window and agree with its bytes (counter_ops); leaves it bytes only otherwise.
  static Status AddCounterOps(StoreReader& reader, const DarshanLogInfo& info, const DarshanWindowSpec& spec,
                              DarshanWindowStats& out);
};

}  // namespace xtfq

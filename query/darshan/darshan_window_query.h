// DarshanWindowQuery: the answer to "Darshan's signals inside this time window and rank range of a
// log" that every front end shows (`xtfq query` on a Darshan store, the viewer's selection): the
// log, the window resolved in ns from the job's start, the read and write totals with their
// derived metrics, rank imbalance, and the optional per-rank and per-file rows with file names.
// Window semantics and costs: query/darshan/darshan_window.h and docs/signals.md.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "query/core/process_window.h"
#include "query/core/store_reader.h"
#include "query/core/time_window.h"
#include "query/darshan/darshan_job_summary.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_op_metrics.h"
#include "query/darshan/darshan_perf.h"
#include "query/darshan/darshan_total.h"
#include "query/darshan/darshan_window.h"
#include "query/darshan/dxt_window_spread.h"
#include "query/darshan/rank_imbalance.h"
#include "query/darshan/shared_file_imbalance.h"
#include "store/log_histogram.h"
#include "store/summary.h"

namespace xtfq {

struct DarshanWindowRequest {
  std::string time = ":";  // --time, in the syntax of query/core/time_window.h (Darshan frame)
  std::string ranks;       // --ranks R1:R2 (query/core/process_window.h); empty: all
  std::string module;      // POSIX, MPI-IO, STDIO; empty: POSIX, or the module the log has (DarshanLogs::ChooseModule)
  std::string file_glob;   // only files whose name matches
  std::optional<int64_t> log, job;  // which log (default: the only one)
  bool per_rank = false, per_file = false, scan = false;
  uint32_t top_files = 0;  // with per_file: only the N files with the most bytes (read + written); 0: all
  // With per_rank: the order of the rows ("rank", the default; "bytes", "bw", "busy", "ops": most
  // first) and how many to keep (0: all).
  std::string rank_sort = "rank";
  uint32_t top_ranks = 0;
};

// One operation's request sizes and durations in the window as log2 distributions
// (store/log_histogram.h), with their minimum and maximum: percentiles to within one bin.
struct DarshanOpDistribution {
  LogHistogram size, duration;
  FieldStats size_stats, duration_stats;
  // [lower, upper] holding the q-quantile of sizes (bytes) or durations (s); nullopt without segments.
  std::optional<std::pair<double, double>> Size(double q) const;
  std::optional<std::pair<double, double>> Duration(double q) const;
};

struct DarshanWindowAnswer {
  DarshanWindowRequest request;
  DarshanLogInfo info;
  DarshanWindowSpec spec;  // the window in ns from the job's start, the rank range
  DarshanWindowStats result;
  DarshanOpMetrics read, write;
  std::optional<RankImbalance> imbalance;
  // Bandwidth on the wall clock: the bytes moved during the window (rate.total[op].bytes; from DXT
  // each segment's bytes spread over its duration) over the window's length (rate.t1, rate.t2:
  // open ends closed at the job's start and the last segment's end or the run's end), and how it
  // was counted (rate_basis).
  DxtWindowSpreadResult rate;
  std::string rate_basis;
  bool rate_estimated = false;  // HEATMAP bins counted whole at the edges, or counter estimates
  // When the DXT module the answer comes from is partial (Darshan's DXT ran out of memory), the
  // module's counter records over the whole run, complete: read and write ops and bytes.
  std::optional<std::array<DarshanOpStats, 2>> partial_counters;
  // Over the whole run: Darshan's reduction of the files every rank opened (rank -1 records): their
  // slowest and fastest ranks (nullopt inside a window, or without counter records).
  std::optional<SharedFileImbalances> shared_imbalance;
  // Over the whole run: what PyDarshan's job summary shows of the module (nullopt inside a window,
  // or without counter records).
  std::optional<DarshanJobSummary> summary;
  // The same for the log's HDF5 and PnetCDF modules (H5F, H5D, PNETCDF_FILE, PNETCDF_VAR) it has.
  std::vector<DarshanJobSummary> library_summaries;
  // The module's records aggregated as darshan-parser --total prints them (whole run; nullopt
  // without it).
  std::optional<DarshanTotal> total;
  // Darshan's aggregate performance of the log (darshan-parser --perf), over the whole run.
  DarshanPerfAnswer perf;
  // The window is the whole run: every time, every rank, every file.
  bool whole_run = false;
  // DXT windows: sizes and durations per operation (DistributionQuery), and how they were read.
  std::optional<DarshanOpDistribution> read_dist, write_dist;
  std::string distributions_read;
  std::unordered_map<uint64_t, std::string> names;  // record id -> file name (with --file or per file)
  // Per file: the files to show, in order (by record id; with top_files, by bytes, most first),
  // and how many files the window has.
  std::vector<uint64_t> file_order;
  uint64_t files_in_window = 0;
  // Per rank: the ranks to show, in order (request.rank_sort, request.top_ranks).
  std::vector<int64_t> rank_order;
  std::string module_note;  // why a module other than POSIX was chosen (empty when given or POSIX)
  std::string answered;     // how: from the index, from the segments, from HEATMAP bins (and what that lacks)
  // What the user should know: a window or rank range outside the job (answered, with zeros).
  std::vector<std::string> warnings;

  // The name of record `id`, or "(null)" as darshan-parser prints an unknown one.
  const std::string& FileName(uint64_t id) const;
  // "DXT_POSIX", "DXT_MPIIO" or "HEATMAP <module>": what the totals were taken from.
  std::string Source() const;
};

class DarshanWindowQuery {
 public:
  static Result<DarshanWindowAnswer> Run(StoreReader& reader, const DarshanWindowRequest& request);
  // The time frame of a log: ns from its job's start, its run time (or its last DXT segment's start
  // when later), its start on the wall clock.
  static TimeFrame Frame(const DarshanLogInfo& info);
  // The warning for a log whose `module` ("DXT_POSIX", "HEATMAP", "STDIO", ...) has Darshan's partial
  // flag set, if it has.
  static std::optional<std::string> PartialWarning(const DarshanLogInfo& info, std::string_view module);
  // Warnings for a window or rank range that lies wholly outside the job.
  static std::vector<std::string> Warnings(const DarshanLogInfo& info, const DarshanWindowSpec& spec);

 private:
  // Fills a.rate and a.rate_basis from a.result.
  static Status Rate(StoreReader& reader, DarshanWindowAnswer& a);
  // Fills a.partial_counters and says what DXT covers of them.
  static Status PartialDxt(StoreReader& reader, DarshanWindowAnswer& a, const std::string& source);
  // Fills a.rank_order.
  static Status OrderRanks(DarshanWindowAnswer& a);
};

}  // namespace xtfq

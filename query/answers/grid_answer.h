// GridAnswer: the answer to `xtfq grid` and the viewer's tile requests (docs/cli.md, "grid"): a
// store's data as a W x H grid of one or more metrics, for any kind of store:
//  - Darshan logs: the DXT segments of a module (POSIX or MPI-IO), reads, writes or both, by rank
//    x time (ops, bytes, busy time, any segment field); a log without DXT: its HEATMAP bins
//    (bytes only, each bin whole in the column that holds its start, which the answer says);
//  - job_stats: one op's rate steps integrated over each column, by target or by group (job, uid,
//    node, class, raw id), the H largest groups of the window (query/jobstats/jobstats_grid_query.h);
//  - any array with a time field (events): by process x time.
// Every cell is exact (query/grid/grid_query.h); `exactness` says what a cell counts.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"
#include "query/core/time_window.h"
#include "query/grid/grid_metric.h"
#include "query/grid/grid_query.h"
#include "query/jobstats/jobstats_view.h"

namespace xtfq {

struct GridAnswerRequest {
  std::string array;                // a raw array; empty: the store's Darshan log, else its only array (or events)
  std::optional<int64_t> log, job;  // Darshan: which log
  std::string module;         // Darshan: POSIX, MPI-IO, STDIO; empty: POSIX or the module the log has (ChooseModule)
  std::string op = "all";     // Darshan: read, write or all; job_stats: the op (all: write_bytes)
  std::string by = "target";  // job_stats: rows by target, job, uid, node, class or id
  JobStatsFilter filter;      // job_stats: only these jobs (uids, nodes, ...)
  std::string time = ":";     // --time (query/core/time_window.h); open sides: the run's span
  std::string ranks;          // --ranks R1:R2; empty: every process
  std::vector<int64_t> processes;    // one row per process instead
  uint32_t cols = 0;                 // 0: the grid's choice (100; a Slurm array's sampling interval)
  uint32_t rows = 0;                 // 0: one row (Darshan, arrays), every group (job_stats)
  std::vector<std::string> metrics;  // empty: the source's defaults
  bool snap = false, scan = false;
  bool fit_rows = false;  // at most `rows`: fewer when the range has fewer processes (a viewer's rows)
};

struct GridAnswer {
  GridAnswerRequest request;
  std::string source;               // "DXT_POSIX read and write of log 0", "HEATMAP.POSIX of log 0", "array events"
  std::vector<std::string> arrays;  // what was read
  TimeFrame frame;                  // where the edges sit (Darshan: ns from the job's start)
  std::string process_name;         // "rank", "process"
  std::string exactness;            // what a cell counts, and how exactly
  bool estimate = false;            // some cell is an estimate (none yet: grids are exact)
  std::vector<int64_t> edges;       // native time units
  std::vector<std::pair<int64_t, int64_t>> rows;
  std::vector<std::string> row_labels;  // job_stats: each row's target or group (rows are then [i, i + 1))
  std::vector<GridMetric> metrics;
  std::vector<std::vector<std::optional<double>>> values;  // per metric, rows x cols row-major
  // Per metric: for a percentile, the lower end of the interval [lower, value] that holds it
  // (GridMetric::Bound); empty for other metrics.
  std::vector<std::vector<std::optional<double>>> lower;
  std::vector<uint64_t> count;  // records per cell
  bool snapped = false;
  GridPlan plan;
  uint64_t pages_read = 0;  // pages the query read into the cache
  std::vector<std::string> notes;

  uint32_t cols() const { return static_cast<uint32_t>(edges.size() - 1); }
  // A native time in seconds from the run's origin (Darshan: the job's start; raw ns: 0).
  double Seconds(int64_t t) const;
};

class GridAnswerQuery {
 public:
  static Result<GridAnswer> Run(StoreReader& reader, const GridAnswerRequest& request);
};

}  // namespace xtfq

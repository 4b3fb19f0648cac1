// GridQuery: any time window [t1, t2) and process range of an array with a time and a process
// field as a grid of W columns (equal time bins) by H rows (contiguous process ranges, or one row
// per chosen process), whose cells hold the count and the field statistics (sum, min, max, sum of
// squares) of the records that start in them (docs/architecture.md, "Grids"). The cells are exact:
// they sum to Primitives::Aggregate over the grid's window and process range (f64 sums up to the
// order of additions).
//
// How a grid is answered (GridPlan says which, and what it read):
//  - H = 1 over every process of the array: the array's own TN tree, one-pass Histogram, O(W log N).
//  - Otherwise each row is cut into blocks of 4^k processes that a grid level of the array holds
//    (query/grid/grid_builder.h) and whose bins fall on the column edges, read as the level's cells in the
//    window (one descent and a sequential read: no record is visited); what remains (processes at
//    the row's edges, levels whose bins straddle a column edge, arrays without a grid) is answered
//    per process from the P index, a one-pass Histogram over each per-process array.
//  - `snap` moves the window and the row edges outward onto the bins and blocks of the grid level
//    that fits the rows, so that every cell comes from the grid (what a zooming viewer asks for);
//    the grid then has W / 2 to W + 1 columns, of a whole number of bins each, and says so. Columns
//    under half a bin are answered per process when the window holds at most `snap_record_limit`
//    records (2^20; a quarter of that when single bins still give a quarter of the columns asked),
//    and otherwise drawn on single bins: fewer columns than asked, the cost bounded by the pixels
//    rather than by the records (a viewer zooming through a 10^8-record trace).
//  - `scan` reads every record of the window (the naive answer, for tests and benchmarks).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"
#include "store/log_histogram.h"
#include "store/summary.h"

namespace xtfq {

struct GridRequest {
  int64_t t1 = 0, t2 = 0;                  // the window, half-open, in the array's time unit; t1 < t2
  uint32_t cols = 1;                       // W
  int64_t p1 = INT64_MIN, p2 = INT64_MAX;  // process range, half-open (open: the array's processes)
  uint32_t rows = 1;                       // H contiguous rows over the range
  std::vector<int64_t> processes;          // instead of the range: one row per process, in this order
  // Instead of both: these rows, each [lo, hi) (one grid's rows, to draw another on them).
  std::vector<std::pair<int64_t, int64_t>> row_ranges;
  std::vector<size_t> fields;  // aggregate field indexes to keep; empty: every one
  // Aggregate field indexes whose distributions (store/log_histogram.h) the cells also hold. The
  // grid then comes from grid levels that hold them and from records (a per-process histogram of
  // index entries has no distribution): the array's own tree does not serve.
  std::vector<size_t> distributions;
  bool snap = false;
  // A snapped grid whose columns are finer than half a bin reads the window's records up to this
  // many (a quarter of it when single bins still give a quarter of the columns asked); over more it
  // is drawn on whole bins (fewer columns than asked).
  uint64_t snap_record_limit = uint64_t{1} << 20;
  bool scan = false;
  bool shape_only = false;   // only the edges and rows (what a snap would draw), no cell read
  bool exact_range = false;  // rows over exactly [p1, p2) (bounded), not narrowed to the processes with records
  bool fit_rows = false;     // at most `rows` rows: one a process when the range has fewer (else an error)
};

struct GridPlan {
  std::vector<int> levels;       // grid levels read
  uint64_t cells_read = 0;       // grid cells read
  uint64_t process_arrays = 0;   // per-process arrays read
  uint64_t records_read = 0;     // records read by a scan
  bool own_tree = false;         // the array's own tree answered (one row of every process)
  std::string Describe() const;  // "grid levels 1, 2 (5120 cells); 6 per-process arrays"
  // Adds what another part of the answer read.
  void Merge(const GridPlan& other);
};

struct GridCells {
  std::vector<int64_t> edges;                     // cols + 1 column edges
  std::vector<std::pair<int64_t, int64_t>> rows;  // [lo, hi) per row
  std::vector<size_t> fields;                     // aggregate indexes kept
  std::vector<std::string> field_names;
  std::vector<uint64_t> count;        // rows x cols, row-major
  std::vector<FieldStats> stats;      // (row * cols + col) * fields.size() + field
  std::vector<size_t> distributions;  // aggregate indexes, as asked
  std::vector<LogHistogram> dists;    // (row * cols + col) * distributions.size() + d
  bool snapped = false;               // the window or the rows were moved onto the grid's bins and blocks
  GridPlan plan;
  std::vector<std::string> notes;

  uint32_t cols() const { return static_cast<uint32_t>(edges.size() - 1); }
  size_t cell(size_t row, size_t col) const { return row * cols() + col; }
  const FieldStats& Stat(size_t row, size_t col, size_t field) const {
    return stats[cell(row, col) * fields.size() + field];
  }
  const LogHistogram& Dist(size_t row, size_t col, size_t d) const {
    return dists[cell(row, col) * distributions.size() + d];
  }
  // Every cell merged: the window's count and statistics of the kept fields.
  uint64_t TotalCount() const;
  FieldStats TotalStat(size_t field) const;
  LogHistogram TotalDist(size_t d) const;
  // Adds the cells of a grid of the same edges, rows, fields and distributions (another array of
  // the same schema drawn on this grid, or another part of the window), and its plan and notes.
  void Merge(const GridCells& other);
  // Adds one record of `schema` (the grid's array) to cell `cell`: its count, the kept fields'
  // statistics and the distributions.
  void Add(size_t cell, const Schema& schema, const std::byte* record);
};

class GridQuery {
 public:
  // Cells times kept fields of a grid, at most this many (a bigger request is kInvalidArgument): 256 MiB of
  // statistics. A distribution counts as 16 fields (512 bytes).
  static constexpr uint64_t kMaxCells = uint64_t{1} << 22;
  static constexpr uint64_t kDistributionFields = 16;
  static Result<GridCells> Run(StoreReader& reader, const ArrayDesc& array, const GridRequest& request);
  // The per-process arrays of `array` (its P index) of processes p1 <= p < p2, in process order,
  // from the catalogue (in memory: no page read, where walking the process tree reads O(P) pages).
  static std::vector<const ArrayDesc*> ProcessArrays(const Catalogue& catalogue, const ArrayDesc& array, int64_t p1,
                                                     int64_t p2);
  // The W + 1 column edges of [t1, t2): edge i = t1 + ceil(i (t2 - t1) / W) (TnTree::BucketStart).
  static std::vector<int64_t> Edges(int64_t t1, int64_t t2, uint32_t cols);
  // H contiguous rows over [lo, hi): row j = [lo + floor(j (hi - lo) / H), lo + floor((j + 1) (hi - lo) / H)).
  // REQUIRES: 1 <= H <= hi - lo.
  static std::vector<std::pair<int64_t, int64_t>> Rows(int64_t lo, int64_t hi, uint32_t rows);
};

}  // namespace xtfq

// GridBuilder: writes and verifies an array's grid summaries (docs/format.md, "Grid summaries";
// docs/architecture.md, "Grids"). A grid has levels k = 1, 2, ...: blocks of 4^k processes by bins
// of a power of two of time units, the bin chosen so that a level holds about
// min(N / records_per_cell, max_cells) cells were the records spread evenly (Plan()). Levels stop below the block
// that holds every process (the array's own TN tree answers that row) and at bins as long as the
// run. Cells are built in one pass over the records in time order, a bin at a time.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "query/store_reader.h"
#include "store/record_sink.h"

namespace xtfq {

struct GridLevelSpec {
  int level = 0;  // k: blocks of 4^k processes
  int block_shift = 0, bin_shift = 0;
};

struct GridBuildOptions {
  uint64_t min_records = uint64_t{1} << 16;  // smaller arrays get no grid: their per-process path is cheap
  // A level aims at min(records / records_per_cell, max_cells) cells were the records spread evenly:
  // at least records_per_cell records a cell (space: docs/architecture.md, "Grids"), and about as
  // many cells as a screen's grid (1000 x 256) once the array is big.
  uint64_t records_per_cell = 64;
  uint64_t max_cells = uint64_t{1} << 18;
};

struct GridBuildReport {
  struct Built {
    std::string array;
    uint64_t cells = 0;
    uint64_t bytes = 0;  // of cell records
    std::vector<GridLevelSpec> levels;
  };
  std::vector<Built> built;
  std::vector<std::string> notes;  // stale grids left as they are
};

class GridBuilder {
 public:
  // Whether `a` gets a grid: records with a time and a process field, a P index and aggregate
  // fields, not a grid's own array nor a job_stats array (whose steps are integrated, not counted),
  // and at least `min_records` records.
  static bool Eligible(const ArrayDesc& a, const GridBuildOptions& options);
  // The levels of a grid over n records spanning [t_min, t_max] and processes [p_min, p_max].
  static std::vector<GridLevelSpec> Plan(uint64_t n, int64_t t_min, int64_t t_max, int64_t p_min, int64_t p_max,
                                         const GridBuildOptions& options);
  // Builds the grid of every eligible array of the reader's store that has none, into `sink` (the
  // caller commits). An array whose grid is stale (records appended since) is noted, not rebuilt.
  static Result<GridBuildReport> BuildMissing(StoreReader& reader, RecordSink& sink, const GridBuildOptions& options);
  static Result<GridBuildReport::Built> Build(StoreReader& reader, const ArrayDesc& source, RecordSink& sink,
                                              const GridBuildOptions& options);
  // Recomputes the cells of `source`'s stored grid and compares them byte for byte; kCorrupt names
  // the first cell that differs. Ok when `source` has no grid; a stale grid is checked over the
  // records it covers.
  static Status Verify(StoreReader& reader, const ArrayDesc& source);

 private:
  struct Span {
    uint64_t n = 0;
    int64_t t_min = 0, t_max = 0, p_min = 0, p_max = 0;
  };
  static Result<Span> SpanOf(StoreReader& reader, const ArrayDesc& source, uint64_t n);
  // Calls emit(level index, cell record) for every cell of every level, each level in order, over
  // the first n records of `source`.
  static Status Compute(StoreReader& reader, const ArrayDesc& source, uint64_t n,
                        const std::vector<GridLevelSpec>& levels,
                        const std::function<Status(size_t, std::span<const std::byte>)>& emit);
};

}  // namespace xtfq

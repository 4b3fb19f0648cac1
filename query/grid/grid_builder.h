// GridBuilder: writes and verifies an array's grid summaries (docs/format.md, "Grid summaries";
// docs/architecture.md, "Grids"). A grid has levels k = 1, 2, ...: blocks of 4^k processes by bins
// of a power of two of time units. A first pass over the records counts the cells each level
// would have at each bin; each level then takes the finest bin whose cells fit its share of a space
// budget (Plan()), and a second pass builds the cells, a bin at a time. Levels stop below the
// block that holds every process (the array's own TN tree answers that row).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "layouts/grid_layout.h"
#include "query/core/store_reader.h"
#include "store/progress.h"
#include "store/record_sink.h"

namespace xtfq {

struct GridLevelSpec {
  int level = 0;  // k: blocks of 4^k processes
  int block_shift = 0, bin_shift = 0;
};

// A share of the records' bytes (twice: with their P index copies) for cells of a width.
struct GridBudget {
  double fraction = 0;
  uint32_t cell_width = 0;
};

struct GridBuildOptions {
  uint64_t min_records = uint64_t{1} << 16;  // smaller arrays get no grid: their per-process path is cheap
  // The cells of all levels take at most this share of the bytes of the array's records and their
  // P index copies (space: docs/architecture.md, "Grids").
  double space_fraction = 0.12;
  // The distributions family's share (docs/architecture.md, "Distributions and percentiles"): its
  // cells are wider, so its levels are coarser.
  double distribution_space_fraction = 0.06;
  // No level is finer than this many bins a block (a screen's width) nor bigger than max_cells.
  uint64_t bins_per_block = 1024;
  uint64_t max_cells = uint64_t{1} << 20;
  // Build the distributions family (false: only the cells family, as grids written before
  // distributions; tests build such grids to check that they still serve).
  bool distributions = true;
  // Add each record to each level's cells, as grids were built before session 13 (tests build such
  // grids to check that `xtfq check` still verifies them).
  bool direct = false;
  Progress* progress = nullptr;  // told of the arrays built (BuildMissing; nullptr: none)
};

struct GridBuildReport {
  struct Built {
    std::string array;
    uint64_t cells = 0;
    uint64_t bytes = 0;                              // of cell records
    std::vector<GridLevelSpec> levels;               // the cells family
    std::vector<GridLevelSpec> distribution_levels;  // the distributions family
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
  static Status VerifyFamily(StoreReader& reader, const ArrayDesc& source, GridLayout::Family family);
  struct Span {
    uint64_t n = 0;
    int64_t t_min = 0, t_max = 0, p_min = 0, p_max = 0;
  };
  static Result<Span> SpanOf(StoreReader& reader, const ArrayDesc& source, uint64_t n);
  // The levels of the grid of `source`'s first span.n records, one list per budget: one pass
  // counts the cells of every level at every bin from span / bins_per_block to span / 2; then, for
  // each budget, the coarser levels take, in turn, the finest bin whose cells fit half of what is
  // left of it, level 1 the finest that fits the rest.
  static Result<std::vector<std::vector<GridLevelSpec>>> Plan(StoreReader& reader, const ArrayDesc& source,
                                                              const Span& span, const std::vector<GridBudget>& budgets,
                                                              const GridBuildOptions& options);
  // Calls emit(level index, cell record) for every cell of every level, each level in order, over
  // the first n records of `source`; level i's cells have cell_schemas[i] (with or without
  // distributions: GridLayout::Distributions). Each record is added once to the finest cells of
  // its family (the levels with the same distributions: the smallest block and bin shifts among
  // them), which are merged into the family's levels; so a family's cells are the same whether
  // computed with the other family or alone. `direct`: each record added to each level instead
  // (grids built before session 13; f64 sums differ by rounding).
  static Status Compute(StoreReader& reader, const ArrayDesc& source, uint64_t n,
                        const std::vector<GridLevelSpec>& levels, const std::vector<const Schema*>& cell_schemas,
                        const std::function<Status(size_t, std::span<const std::byte>)>& emit, bool direct = false);
};

}  // namespace xtfq

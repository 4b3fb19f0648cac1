// GridIndex: the grid summaries of one array as a reader finds them (docs/format.md, "Grid
// summaries"): its levels, each a block of 2^block_shift processes by a bin of 2^bin_shift time
// units, with the cell array that holds it, and whether the grid still covers the whole array.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "layouts/grid_layout.h"
#include "query/core/store_reader.h"

namespace xtfq {

struct GridLevel {
  int level = 0;
  int block_shift = 0, bin_shift = 0;
  uint64_t cells = 0;
  const ArrayDesc* array = nullptr;                     // the cells
  std::vector<GridLayout::Distribution> distributions;  // of the cells (none in grids written before them)
  int64_t block() const { return int64_t{1} << block_shift; }
  int64_t bin() const { return int64_t{1} << bin_shift; }
  // Where the distribution of aggregate field `a` is in a cell, or nullptr.
  const GridLayout::Distribution* DistributionOf(size_t a) const;
};

struct GridIndex {
  std::vector<GridLevel> levels;  // in increasing block size
  uint64_t source_records = 0;    // the source's record count when the grid was built
  int64_t p_min = 0, p_max = 0, t_min = 0, t_max = 0;
  // The source holds more records than the grid covers (appended after it was built).
  bool stale = false;

  // The grid of `source` (its levels of one family), or nullopt when it has none; kCorrupt when its
  // arrays do not fit together.
  static Result<std::optional<GridIndex>> Load(StoreReader& reader, const ArrayDesc& source,
                                               GridLayout::Family family = GridLayout::Family::kCells);
};

}  // namespace xtfq

// GridLayout: how an array's grid summaries (docs/format.md, "Grid summaries") sit in a store:
// the array of levels `<array>#grid`, one record per level, and for each level k the array of
// cells `<array>#grid/<k>`. A cell summarises the records of one process block (2^block_shift
// processes: block = floor(process / 2^block_shift)) whose time falls in one bin (2^bin_shift time
// units: bin start = floor(t / 2^bin_shift) * 2^bin_shift): their count and, for each aggregate
// field of the source, the field statistics of docs/format.md ("Field statistics"), the source
// field's type widened (i64 for integers, f64 for f64).
//
// A grid has two families of levels. The cells family (`#grid`) holds the statistics. The
// distributions family (`#grid-dist`, built for sources whose 8-byte aggregate fields (i64, f64)
// number 1 to kMaxDistributions) holds them too, and for each such field a distribution: 64 counts
// `f.h0` .. `f.h63` of store/log_histogram.h's bins, u32 when the source has fewer than 2^32
// records, else u64. Its cells are wider, so its levels have their own budget and coarser bins, and
// a grid reads them only when it asks for distributions. Which fields a family's cells hold, and
// where, comes from their schema (Distributions()).
//
// Cells are in time order (bin start), and by block within a bin. Grid arrays have no process field
// and no aggregate fields, so they have no P index and index entries of 20 bytes.
//
// Thread-safety: pure functions and constants.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/result.h"
#include "store/schema.h"

namespace xtfq {

class GridLayout {
 public:
  enum class Family : uint8_t { kCells = 0, kDistributions = 1 };
  // "<array>#grid" (distributions: "<array>#grid-dist"): the levels of `array`'s grid.
  static std::string LevelsName(std::string_view array, Family family = Family::kCells);
  // "<array>#grid/<level>" ("<array>#grid-dist/<level>"): the cells of one level.
  static std::string CellsName(std::string_view array, int level, Family family = Family::kCells);
  // Whether `name` is an array of some grid (holds "#grid").
  static bool IsGridArray(std::string_view name);

  // A level: its number, block and bin shifts, and what it was built from (the source's record
  // count, process and time spans, for staleness and planning).
  static const Schema& LevelSchema();
  static constexpr uint32_t kLevLevel = 0, kLevBlockShift = 8, kLevBinShift = 16, kLevSourceRecords = 24,
                            kLevCells = 32, kLevPMin = 40, kLevPMax = 48, kLevTMin = 56, kLevTMax = 64, kLevWidth = 72;

  // The cell schema of a grid of `source`: `t` (i64, the bin start, the time field), `block`
  // (i64), `count` (u64), then per aggregate field f of `source`: `f.sum`, `f.min`, `f.max`,
  // `f.sumsq`. REQUIRES: source has aggregate fields whose names leave room for the suffixes.
  // `f.sumsq`, then the distributions above over `records` records.
  // `distributions` false: the cells family's schema.
  static Result<Schema> CellSchema(const Schema& source, uint64_t records, bool distributions = true);
  static constexpr uint32_t kCellT = 0, kCellBlock = 8, kCellCount = 16, kCellStats = 24;
  static constexpr size_t kMaxDistributions = 4;

  // The aggregate fields (indexes into source.aggregates()) that get distributions.
  static std::vector<size_t> DistributionFields(const Schema& source);
  // Where the distributions of a stored cell schema are: per aggregate index of the source, the
  // offset of `f.h0` and the counts' type (u32 or u64); absent for fields without one.
  struct Distribution {
    size_t aggregate = 0;
    uint32_t offset = 0;
    FieldType type = FieldType::kU32;
  };
  static std::vector<Distribution> Distributions(const Schema& source, const Schema& cells);
};

}  // namespace xtfq

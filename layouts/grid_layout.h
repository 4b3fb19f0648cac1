// GridLayout: how an array's grid summaries (docs/format.md, "Grid summaries") sit in a store:
// the array of levels `<array>#grid`, one record per level, and for each level k the array of
// cells `<array>#grid/<k>`. A cell summarises the records of one process block (2^block_shift
// processes: block = floor(process / 2^block_shift)) whose time falls in one bin (2^bin_shift time
// units: bin start = floor(t / 2^bin_shift) * 2^bin_shift): their count and, for each aggregate
// field of the source, the field statistics of docs/format.md ("Field statistics"), the source
// field's type widened (i64 for integers, f64 for f64).
//
// Cells are in time order (bin start), and by block within a bin. Grid arrays have no process field
// and no aggregate fields, so they have no P index and index entries of 20 bytes.
//
// Thread-safety: pure functions and constants.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/result.h"
#include "store/schema.h"

namespace xtfq {

class GridLayout {
 public:
  // "<array>#grid": the levels of `array`'s grid.
  static std::string LevelsName(std::string_view array);
  // "<array>#grid/<level>": the cells of one level.
  static std::string CellsName(std::string_view array, int level);
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
  static Result<Schema> CellSchema(const Schema& source);
  static constexpr uint32_t kCellT = 0, kCellBlock = 8, kCellCount = 16, kCellStats = 24;
};

}  // namespace xtfq

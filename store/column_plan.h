// ColumnPlan: how the entries of a page split into columns for the typed columns layout of stored
// pages (docs/format.md, "Stored pages"): the byte size (1, 2, 4 or 8) of each column, in entry
// order, tiling the entry's width. Records split by their schema's fields, index entries by their
// fixed part and each aggregate's four statistics; any other width splits into 8-byte words and
// then single bytes. Which columns are delta-coded is chosen per page when it is stored, not here.
//
// Thread-safety: immutable once made; shared by the writer's thread and the seal thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "store/schema.h"

namespace xtfq {

class ColumnPlan {
 public:
  // 8-byte words while 8 bytes remain, then single bytes; none for width 1 (the heap's bytes).
  static std::shared_ptr<const ColumnPlan> ForWidth(uint32_t width);
  // One column per field of `schema`.
  static std::shared_ptr<const ColumnPlan> ForRecords(const Schema& schema);
  // An index entry of `schema`'s arrays (IndexEntry): key, count, child location, child, then the
  // four 8-byte statistics of each aggregate field.
  static std::shared_ptr<const ColumnPlan> ForIndexEntries(const Schema& schema);

  explicit ColumnPlan(std::vector<uint8_t> sizes);
  const std::vector<uint8_t>& sizes() const { return sizes_; }
  uint32_t width() const { return width_; }

 private:
  std::vector<uint8_t> sizes_;
  uint32_t width_ = 0;
};

}  // namespace xtfq

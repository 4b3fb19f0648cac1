// IndexEntry: one entry of an index page (level >= 1) of an array's TN tree (docs/format.md,
// "Index entry"): the first time key of the child's subtree, the child's logical page id, and the
// Summary (record count and aggregates) of the subtree.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>

#include "store/ids.h"
#include "store/location.h"
#include "store/summary.h"

namespace xtfq {

struct IndexEntry {
  int64_t key = 0;  // time of the subtree's first record (its record number if the array has no time field)
  PageId child;
  // Where the child is stored, so that a descent needs no page map: set for a full child page;
  // unstored for the open page (its chain descriptor says where its shadow is) and on process
  // tree level 0, whose children are arrays.
  Location child_location;
  Summary summary;  // summary.count is the subtree's record count

  static uint32_t Width(const Schema& schema) {
    return format::kIndexEntryFixedSize + Summary::kFieldBytes * static_cast<uint32_t>(schema.aggregates().size());
  }
  void Encode(std::byte* out) const;
  // REQUIRES: summary = Summary(schema) before the call.
  void Decode(const std::byte* in);
  static IndexEntry DecodeFor(const Schema& schema, const std::byte* in);
};

}  // namespace xtfq

// PageMapReader: a committed snapshot's page map (docs/format.md, "Page map"): where each chain
// page is stored. The directory (the slot of each map leaf) comes from the catalogue; leaves are
// read on demand, verified, and kept in a small LRU of their own.
//
// Invariant: a leaf in the LRU passed VerifyPage and the leaf checks (kind, level, entry count)
// when it was read; a leaf that fails never enters.
//
// Thread-safety: Find may be called from several threads at once (one mutex; leaf reads happen
// under it, and are rare: one leaf covers M chain pages).
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/file.h"
#include "store/ids.h"
#include "store/location.h"
#include "store/result.h"

namespace xtfq {

class PageMapReader {
 public:
  // Locations per leaf at `page_size`: floor((P - 32) / 12).
  static uint32_t LeafCapacity(uint32_t page_size);

  PageMapReader(File& file, uint32_t page_size, uint32_t page_count, uint32_t chain_ids, std::vector<PageId> directory,
                size_t max_leaves = 1024)
      : file_(file),
        page_size_(page_size),
        page_count_(page_count),
        chain_ids_(chain_ids),
        per_leaf_(LeafCapacity(page_size)),
        directory_(std::move(directory)),
        max_leaves_(max_leaves) {}

  // Where chain page `id` is stored; an unstored Location (offset 0) when the map has none for it.
  Result<Location> Find(PageId id);
  // Find, for a page that must be stored: an error when the map has no Location for it or names
  // bytes outside slots 2..page_count-1 or a length outside 33..P. With a stored `hint` (the
  // Location a parent index entry or a descriptor gives), checks and returns it instead, reading
  // no leaf: the page's checksum and id, checked when it is read, catch a wrong one.
  Result<Location> FindStored(PageId id, Location hint = {});
  // The checks of FindStored on a Location found elsewhere (the checker's own reading of the map).
  // `said_by` names where the Location came from.
  static Status CheckStored(const Location& loc, PageId id, uint32_t page_size, uint32_t page_count,
                            std::string_view file, std::string_view said_by = "the page map");
  const std::vector<PageId>& directory() const { return directory_; }
  uint32_t chain_ids() const { return chain_ids_; }
  uint64_t leaf_reads() const;

  // Reads and checks map leaf `index` at `slot`: its Locations. Also used by the checker.
  static Result<std::vector<Location>> ReadLeaf(File& file, uint32_t page_size, uint32_t page_count, PageId slot,
                                                uint32_t index);

 private:
  File& file_;
  const uint32_t page_size_;
  const uint32_t page_count_;
  const uint32_t chain_ids_;
  const uint32_t per_leaf_;
  const std::vector<PageId> directory_;
  const size_t max_leaves_;
  mutable std::mutex mu_;
  std::list<uint32_t> lru_;  // leaf indexes, most recent first
  struct Leaf {
    std::vector<Location> locations;
    std::list<uint32_t>::iterator pos;
  };
  std::unordered_map<uint32_t, Leaf> leaves_;
  uint64_t leaf_reads_ = 0;
};

}  // namespace xtfq

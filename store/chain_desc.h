// ChainDesc: where a chain of pages is (docs/format.md, "Chain descriptor").
//
// A chain is the sequence of pages holding one level of an array, or the string heap. All its
// pages are full except the last, the open page. Full pages are written once, at an id reserved
// for them when the page before filled, and never change. The open page's committed entries live
// in a shadow page, a fresh page each commit, so a commit never overwrites committed bytes; its
// reserved id (`open`) is where it will be written when full. A reader maps `open` to `shadow`
// (Resolve). The number of full pages and of entries in the open page follow from `entries`.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <string_view>

#include "store/ids.h"
#include "store/location.h"
#include "store/page_key.h"
#include "store/result.h"

namespace xtfq {

// Entries of `width` bytes that fit in one page after its header.
uint32_t PageCapacity(uint32_t page_size, uint32_t width);
// The pages of a process tree over `processes` leaf entries at `capacity` entries per page: every
// level full but its last, up to one root page (docs/format.md, "P index").
uint64_t ProcessTreePages(uint64_t processes, uint32_t capacity);

struct ChainDesc {
  PageId head;       // first page (chain id); 0 when the chain is empty
  PageId last_full;  // last full page (chain id); 0 when there is none
  PageId open;       // reserved chain id of the open page; 0 when the chain is empty
  PageId shadow;     // chain id of the stored shadow holding the open page's entries; 0 when none
  uint64_t entries = 0;
  Location shadow_location;  // where the shadow is stored; unstored when there is no shadow

  uint64_t FullPages(uint32_t capacity) const { return entries / capacity; }
  uint32_t OpenEntries(uint32_t capacity) const { return static_cast<uint32_t>(entries % capacity); }
  // The page holding chain page `id`: the shadow for the open page (none when the open page holds
  // no entries), else the stored full page.
  PageKey Resolve(PageId id) const {
    if (id == kNoPage) return PageKey{};
    const PageId stored = id == open ? shadow : id;
    return stored == kNoPage ? PageKey{} : PageKey::Chain(stored);
  }

  // Where the page Resolve(id) names is stored: the shadow's Location for the open page, else
  // `from_entry` (the Location its parent's index entry gives; unstored when there is none).
  Location Hint(PageId id, Location from_entry) const { return id == open ? shadow_location : from_entry; }

  void Encode(std::byte* out) const;
  static ChainDesc Decode(const std::byte* in);
  // The invariants of docs/format.md that a descriptor can check alone. An index level
  // (`index_level`) may have a shadow while its open page holds no entry of its own: the shadow
  // then holds only the right-edge entry for the level below.
  // Chain ids (the shadow's too) lie in 1..chain_ids-1.
  Status Validate(uint32_t capacity, uint32_t chain_ids, std::string_view where, bool index_level = false) const;
  bool operator==(const ChainDesc&) const = default;
};

}  // namespace xtfq

// Catalogue: everything a committed state holds besides its pages' contents: the record arrays
// (names, schemas, chains), the string heap's chain and the free pages (docs/format.md,
// "Catalogue"). It is encoded as one byte stream spread over catalogue pages, written afresh at
// every commit.
//
// Decode() checks lengths and names; Validate() checks every chain against the page size and page
// count and that no page is named twice among chain pages and free pages (the checker goes on to
// read the pages themselves).
//
// Thread-safety: value type.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/array_desc.h"
#include "store/chain_desc.h"
#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

class Catalogue {
 public:
  std::vector<ArrayDesc> arrays;
  ChainDesc heap;
  std::vector<PageId> free_pages;
  uint32_t chain_ids = 1;          // chain ids 1..chain_ids-1 are in use
  std::vector<PageId> map_leaves;  // the page map's directory: leaf j's slot, 0 when it has none

  size_t EncodedSize() const;
  std::vector<std::byte> Encode() const;
  static Result<Catalogue> Decode(std::span<const std::byte> bytes, std::string_view where);
  // Chains against the page size, chain ids and page count; an array with a process index and
  // records has a process tree; free pages and map leaves distinct slots in 2..page_count-1.
  Status Validate(uint32_t page_size, uint32_t page_count, std::string_view where) const;

  // The array of its own (not per-process) called `name`, or nullptr. A decoded catalogue finds it
  // through an index of names (a store of 10^5 processes holds 10^5 descriptors per array); one whose
  // arrays changed since, or that was built by hand, scans them.
  const ArrayDesc* Find(std::string_view name) const;
  const ArrayDesc* Get(ArrayId id) const;
  // The per-process arrays of `parent` whose process lies in [p1, p2) (p2 == INT64_MAX: no upper
  // bound), in process order; a sole-process array is its own (docs/format.md, "P index"). A decoded catalogue finds
  // them through an index by parent built at Decode (a grid of a 10^5-process array asked this per tile, and each scan
  // of 7 x 10^5 descriptors and sort took about 30 ms); one whose arrays changed since scans them.
  std::vector<const ArrayDesc*> Children(ArrayId parent, int64_t p1, int64_t p2) const;

 private:
  // Positions of the arrays of their own by name, for the first indexed_size_ arrays (Decode).
  void IndexNames();
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<uint32_t, std::vector<size_t>> children_;  // parent id -> positions, by process
  size_t indexed_size_ = 0;
};

}  // namespace xtfq

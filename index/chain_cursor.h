// ChainCursor: walks the entries of one chain of level-0 pages (an array's records, or the heap's
// bytes) in order, through the page cache, following next links and reading the open page from
// its shadow. Index levels are read through TnTree; a chain of another level is an error.
//
// Each page is checked against what the chain descriptor requires before its entries are used
// (kind, level, array, entry count, prev link, shadow flag), so a page that passed its checksum
// but sits in the wrong place is still an error, never wrong records. One page is pinned at a time.
//
// Thread-safety: one cursor per thread; several cursors may share a cache.
#pragma once

#include <cstdint>

#include "cache/page_cache.h"
#include "store/chain_desc.h"
#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {

class ChainCursor {
 public:
  // Entries of `width` bytes of the chain `chain`; pages must be of `kind` and belong to `array`.
  ChainCursor(PageCache& cache, const ChainDesc& chain, PageKind kind, ArrayId array, uint32_t width);

  // Moves to the first entry; false when the chain is empty.
  Result<bool> First();
  // Moves to the next entry; false after the last.
  Result<bool> Next();
  // REQUIRES: the last First()/Next() returned true.
  const std::byte* entry() const { return page_.data() + format::kPageHeaderSize + size_t{slot_} * width_; }
  uint64_t index() const { return index_; }

 private:
  Status Load(PageId logical, uint64_t page_no, PageId prev);

  PageCache& cache_;
  ChainDesc chain_;
  PageKind kind_;
  ArrayId array_;
  uint32_t width_;
  uint32_t capacity_;
  PageRef page_;
  PageId logical_;
  uint64_t page_no_ = 0;
  uint32_t slot_ = 0;
  uint32_t in_page_ = 0;
  uint64_t index_ = 0;
};

}  // namespace xtfq

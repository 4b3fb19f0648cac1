// StringHeapReader: reads strings back from the string heap by their StringRef
// (docs/format.md, "String heap"): a 4-byte length, then the bytes, running across heap pages.
//
// A reference that does not land inside the heap, or a length that runs past the heap's end, is an
// ErrorCode::kCorrupt error naming the page and offset.
//
// Thread-safety: one reader per thread; several may share a cache.
#pragma once

#include <string>

#include "cache/page_cache.h"
#include "store/chain_desc.h"
#include "store/ids.h"

namespace xtfq {

class StringHeapReader {
 public:
  StringHeapReader(PageCache& cache, const ChainDesc& heap) : cache_(cache), heap_(heap) {}

  Result<std::string> Read(StringRef ref);

 private:
  PageCache& cache_;
  ChainDesc heap_;
};

}  // namespace xtfq

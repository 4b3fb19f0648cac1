#include "index/string_heap_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {

namespace f = format;

Result<std::string> StringHeapReader::Read(StringRef ref) {
  auto bad = [&](const std::string& m) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: string at heap page {} offset {}: {}", cache_.source().name(),
                                                  ref.page.value, ref.offset, m));
  };
  PageId logical = ref.page;
  uint32_t pos = ref.offset;
  std::byte prefix[f::kStringPrefixSize];
  std::string out;
  size_t got = 0;  // bytes of prefix and string copied so far
  size_t want = f::kStringPrefixSize;
  const uint64_t max_pages = heap_.FullPages(PageCapacity(cache_.page_size(), 1)) + 1;
  for (uint64_t hops = 0;; ++hops) {
    const PageKey physical = heap_.Resolve(logical);
    if (physical.none() || hops > max_pages) return bad("runs past the end of the heap");
    XTFQ_ASSIGN_OR_RETURN(PageRef page, cache_.Fetch(physical));
    const PageHeader h = PageHeader::Decode(page.data());
    if (h.kind != PageKind::kHeap || h.logical != logical) {
      return bad(fmt::format("{} is not heap page {}", physical.Name(), logical.value));
    }
    if (pos > h.entry_count) return bad(fmt::format("offset beyond the {} bytes of the page", h.entry_count));
    while (pos < h.entry_count && got < want) {
      const std::byte* src = page.data() + f::kPageHeaderSize + pos;
      if (got < f::kStringPrefixSize) {
        const size_t k = std::min<size_t>(h.entry_count - pos, f::kStringPrefixSize - got);
        std::memcpy(prefix + got, src, k);
        got += k;
        pos += static_cast<uint32_t>(k);
        if (got == f::kStringPrefixSize) {
          const uint32_t len = LoadLe<uint32_t>(prefix);
          if (len > heap_.entries) return bad(fmt::format("length {} exceeds the heap's {} bytes", len, heap_.entries));
          want += len;
          out.reserve(len);
        }
        continue;
      }
      const size_t n = std::min<size_t>(h.entry_count - pos, want - got);
      out.append(reinterpret_cast<const char*>(src), n);
      got += n;
      pos += static_cast<uint32_t>(n);
    }
    if (got == want) break;
    if (h.next == kNoPage) return bad("runs past the end of the heap");
    logical = h.next;
    pos = 0;
  }
  return out;
}

}  // namespace xtfq

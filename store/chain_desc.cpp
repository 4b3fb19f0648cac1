#include "store/chain_desc.h"

#include <fmt/format.h>

#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace f = format;

uint32_t PageCapacity(uint32_t page_size, uint32_t width) { return (page_size - f::kPageHeaderSize) / width; }

void ChainDesc::Encode(std::byte* p) const {
  StoreLe<uint32_t>(p + f::kChHead, head.value);
  StoreLe<uint32_t>(p + f::kChLastFull, last_full.value);
  StoreLe<uint32_t>(p + f::kChOpen, open.value);
  StoreLe<uint32_t>(p + f::kChShadow, shadow.value);
  StoreLe<uint64_t>(p + f::kChEntries, entries);
  StoreLe<uint64_t>(p + f::kChShadowLocation, shadow_location.Pack());
}

ChainDesc ChainDesc::Decode(const std::byte* p) {
  ChainDesc c;
  c.head = PageId(LoadLe<uint32_t>(p + f::kChHead));
  c.last_full = PageId(LoadLe<uint32_t>(p + f::kChLastFull));
  c.open = PageId(LoadLe<uint32_t>(p + f::kChOpen));
  c.shadow = PageId(LoadLe<uint32_t>(p + f::kChShadow));
  c.entries = LoadLe<uint64_t>(p + f::kChEntries);
  c.shadow_location = Location::Unpack(LoadLe<uint64_t>(p + f::kChShadowLocation));
  return c;
}

Status ChainDesc::Validate(uint32_t capacity, uint32_t chain_ids, std::string_view where, bool index_level) const {
  auto bad = [&](const std::string& m) { return Error(ErrorCode::kCorrupt, fmt::format("{}: {}", where, m)); };
  for (PageId id : {head, last_full, open, shadow}) {
    if (id.value >= chain_ids) return bad(fmt::format("chain page {} outside ids 1..{}", id.value, chain_ids - 1));
  }
  if ((shadow == kNoPage) != (shadow_location == Location{}) || (shadow != kNoPage && !shadow_location.stored())) {
    return bad(fmt::format("shadow {} with a location at offset {}", shadow.value, shadow_location.offset));
  }
  if (entries == 0) {
    if (head != kNoPage || last_full != kNoPage || open != kNoPage || shadow != kNoPage) {
      return bad("an empty chain names pages");
    }
    return Ok();
  }
  if (capacity == 0) return bad("entries wider than a page");
  const uint64_t full = FullPages(capacity);
  if (full >= chain_ids) {
    return bad(fmt::format("{} entries need {} full pages, the store has {} chain ids", entries, full, chain_ids - 1));
  }
  if (head == kNoPage || open == kNoPage) return bad("a non-empty chain lacks its head or open page");
  if ((full == 0) != (head == open)) return bad("head and open page disagree with the entry count");
  if ((full == 0) != (last_full == kNoPage)) return bad("last full page disagrees with the entry count");
  if (OpenEntries(capacity) != 0 && shadow == kNoPage) return bad("the open page's entries have no shadow page");
  if (OpenEntries(capacity) == 0 && shadow != kNoPage && !index_level) {
    return bad("shadow page disagrees with the entries of the open page");
  }
  if (open == last_full) return bad("open page is also the last full page");
  if (shadow != kNoPage && (shadow == open || shadow == head || shadow == last_full)) {
    return bad(fmt::format("shadow {} is also a page of the chain", shadow.value));
  }
  return Ok();
}

uint64_t ProcessTreePages(uint64_t processes, uint32_t capacity) {
  uint64_t pages = 0;
  for (uint64_t n = processes; n > 0;) {
    const uint64_t level = (n + capacity - 1) / capacity;
    pages += level;
    n = level == 1 ? 0 : level;
  }
  return pages;
}

}  // namespace xtfq

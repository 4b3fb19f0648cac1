// PageKey: a page in either of the store's two id spaces (docs/format.md, "Two id spaces"). A
// plain page (superblock, shadow, catalogue, process tree, map leaf) is read at its slot; a chain
// page (a full data, index or heap page) is named by its chain id and read where the page map
// says it is stored. The page cache keys its frames by PageKey, so slot 5 and chain id 5 are
// different pages.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "store/ids.h"

namespace xtfq {

struct PageKey {
  uint64_t value = 0;

  static constexpr PageKey Plain(PageId slot) { return PageKey{slot.value}; }
  static constexpr PageKey Chain(PageId id) { return PageKey{(uint64_t{1} << 32) | id.value}; }
  constexpr bool chain() const { return (value >> 32) != 0; }
  constexpr PageId id() const { return PageId(static_cast<uint32_t>(value)); }
  // No page: Plain(kNoPage), what a chain's open page without a shadow resolves to.
  constexpr bool none() const { return value == 0; }
  // "page N" for a chain page, "slot N" for a plain one, as errors name them.
  std::string Name() const { return (chain() ? "page " : "slot ") + std::to_string(id().value); }
  constexpr auto operator<=>(const PageKey&) const = default;
};

}  // namespace xtfq

template <>
struct std::hash<xtfq::PageKey> {
  size_t operator()(const xtfq::PageKey& k) const noexcept { return std::hash<uint64_t>()(k.value); }
};

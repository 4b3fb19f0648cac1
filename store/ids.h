// Strong types for on-disk quantities: PageId, ArrayId, StringRef.
//
// A PageId is a page number in the file (byte offset = id * page size); ids 0 and 1 are the
// superblocks, so 0 also means "no page" in links. An ArrayId numbers the record arrays of a store
// from 1. A StringRef locates a string in the string heap (docs/format.md, "String heap").
//
// Thread-safety: value types.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace xtfq {

template <class Tag, class T>
struct StrongId {
  T value = 0;
  constexpr StrongId() = default;
  constexpr explicit StrongId(T v) : value(v) {}
  constexpr auto operator<=>(const StrongId&) const = default;
};

struct PageIdTag {};
struct ArrayIdTag {};
using PageId = StrongId<PageIdTag, uint32_t>;
using ArrayId = StrongId<ArrayIdTag, uint32_t>;

inline constexpr PageId kNoPage{0};

// A string's place in the heap: the heap page (its logical id) and the byte offset of the string's
// length prefix inside that page's payload. Packed into one u64 for storage in record fields:
// (page << 16) | offset.
struct StringRef {
  PageId page;
  uint16_t offset = 0;

  constexpr uint64_t Pack() const { return (uint64_t{page.value} << 16) | offset; }
  static constexpr StringRef Unpack(uint64_t v) {
    return StringRef{PageId(static_cast<uint32_t>(v >> 16)), static_cast<uint16_t>(v & 0xFFFF)};
  }
  constexpr auto operator<=>(const StringRef&) const = default;
};

}  // namespace xtfq

template <class Tag, class T>
struct std::hash<xtfq::StrongId<Tag, T>> {
  size_t operator()(const xtfq::StrongId<Tag, T>& id) const noexcept { return std::hash<T>()(id.value); }
};

// Location: where a sealed chain page is stored (docs/format.md, "Location"): the byte offset of
// its stored form in the file and its length, header included. A zero offset means "not stored":
// the id is reserved for an open page, or names no page.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>

#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

struct Location {
  uint64_t offset = 0;
  uint32_t length = 0;

  bool stored() const { return offset != 0; }
  // Whether Pack() keeps it whole: unstored, or an offset below 2^47 (128 TiB) and a length of 1 to
  // 2^17 bytes.
  bool Packable() const {
    return !stored() ? length == 0
                     : offset <= format::kMaxPackedOffset && length >= 1 &&
                           length <= (uint32_t{1} << format::kPackedLengthBits);
  }
  // The 8-byte form descriptors and index entries hold (docs/format.md, "Location").
  // REQUIRES: Packable().
  uint64_t Pack() const { return stored() ? offset << format::kPackedLengthBits | (length - 1) : 0; }
  static Location Unpack(uint64_t v) {
    if (v == 0) return Location{};
    return Location{v >> format::kPackedLengthBits,
                    static_cast<uint32_t>(v & ((uint64_t{1} << format::kPackedLengthBits) - 1)) + 1};
  }
  void Encode(std::byte* out) const {
    StoreLe<uint64_t>(out + format::kLocOffset, offset);
    StoreLe<uint32_t>(out + format::kLocLength, length);
  }
  static Location Decode(const std::byte* in) {
    return Location{LoadLe<uint64_t>(in + format::kLocOffset), LoadLe<uint32_t>(in + format::kLocLength)};
  }
  bool operator==(const Location&) const = default;
};

}  // namespace xtfq

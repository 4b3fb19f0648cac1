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

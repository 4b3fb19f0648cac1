// CatalogueFrame: the catalogue as the catalogue pages hold it (docs/format.md, "Catalogue"): from
// format 6, u8 codec, u32 the catalogue's bytes, then those bytes compressed with that codec (lz4
// or zstd, the store's), or as they are when that does not make them smaller. Format 5 catalogue
// pages hold the bytes unframed.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "store/codec.h"
#include "store/result.h"

namespace xtfq {

class CatalogueFrame {
 public:
  // `catalogue` (Catalogue::Encode's bytes), framed; an error past 2^30 bytes, which a reader
  // would refuse.
  static Result<std::vector<std::byte>> Frame(const std::vector<std::byte>& catalogue, Codec codec);
  // The catalogue's bytes from a frame; `where` names it in errors.
  static Result<std::vector<std::byte>> Unframe(std::span<const std::byte> frame, std::string_view where);
};

}  // namespace xtfq

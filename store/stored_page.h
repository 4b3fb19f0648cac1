// Stored pages (docs/format.md, "Stored pages"): a full chain page as it lies in a pack. Bytes
// 0..31 are its page header with the codec byte set; then its body (bytes 32..P-1 of the page) as
// is (codec 0, P bytes in all) or as one block that decodes to exactly P - 32 bytes (lz4 or zstd,
// of the body as it is or of its entries by columns: codecs 1 to 6).
// The checksum covers bytes 4..length-1 of the stored form, so it is checked before the decoder
// sees a byte.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "store/codec.h"
#include "store/column_plan.h"
#include "store/file.h"
#include "store/ids.h"
#include "store/location.h"
#include "store/result.h"

namespace xtfq {

// The stored form of `page` (P bytes, header encoded, checksum not yet set) into `out`, which is
// resized: compressed with `codec`, or raw when that is not smaller. Returns the stored length.
// With a `plan` (the entries' columns), the entries are first laid out by typed columns (each
// column delta-coded or not, then byte planes: codecs 5 and 6, docs/format.md "Stored pages"),
// which the codec compresses further; without one (the heap's bytes), the body as it is.
size_t EncodeStored(Codec codec, std::span<const std::byte> page, std::vector<std::byte>& out,
                    const ColumnPlan* plan = nullptr);

// Reads the stored form of chain page `id` at `loc` from `file` into `stored` (resized to its
// length) and decodes it into `page` (DecodeStored).
Status ReadStored(File& file, PageId id, const Location& loc, std::vector<std::byte>& stored,
                  std::span<std::byte> page);

// Verifies the stored form of chain page `id` read from `loc` and decodes it into `page` (P
// bytes), in this order: checksum over the stored bytes, header (page id, kind, flags, codec,
// level), then the body, which must decode to exactly P - 32 bytes. Errors name the file, the
// page, its offset and length.
Status DecodeStored(std::span<const std::byte> stored, PageId id, const Location& loc, std::span<std::byte> page,
                    std::string_view file);

}  // namespace xtfq

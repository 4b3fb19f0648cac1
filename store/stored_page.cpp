#include "store/stored_page.h"

#include <fmt/format.h>

#include <cstring>

#include "store/crc32c.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {

namespace f = format;

size_t EncodeStored(Codec codec, std::span<const std::byte> page, std::vector<std::byte>& out) {
  const auto body = page.subspan(f::kPageHeaderSize);
  out.resize(f::kPageHeaderSize + MaxCompressedSize(codec, body.size()));
  size_t n = Compress(codec, body, std::span(out).subspan(f::kPageHeaderSize));
  if (codec != Codec::kNone && (n == 0 || n >= body.size())) {
    codec = Codec::kNone;
    out.resize(f::kPageHeaderSize + body.size());
    n = Compress(codec, body, std::span(out).subspan(f::kPageHeaderSize));
  }
  out.resize(f::kPageHeaderSize + n);
  std::memcpy(out.data(), page.data(), f::kPageHeaderSize);
  StoreLe<uint8_t>(out.data() + f::kPhCodec, static_cast<uint8_t>(codec));
  StoreLe<uint32_t>(out.data() + f::kPhChecksum, Crc32c(std::span(out).subspan(4)));
  return out.size();
}

Status DecodeStored(std::span<const std::byte> stored, PageId id, const Location& loc, std::span<std::byte> page,
                    std::string_view file) {
  auto corrupt = [&](const std::string& what) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: page {} (stored at offset {}, {} bytes, in slot {}): {}", file,
                                                  id.value, loc.offset, loc.length, loc.offset / page.size(), what));
  };
  if (stored.size() <= f::kPageHeaderSize || stored.size() > page.size()) {
    return corrupt(
        fmt::format("a stored length of {} bytes is impossible for {}-byte pages", stored.size(), page.size()));
  }
  const uint32_t sum = LoadLe<uint32_t>(stored.data() + f::kPhChecksum);
  const uint32_t computed = Crc32c(stored.subspan(4));
  if (sum != computed && !ChecksumsBypassed()) {
    return corrupt(fmt::format("checksum mismatch (stored {:#010x}, computed {:#010x})", sum, computed));
  }
  const PageHeader h = PageHeader::Decode(stored.data());
  if (h.page_id != id) return corrupt(fmt::format("header names page {} (misdirected write)", h.page_id.value));
  const auto kind = static_cast<uint8_t>(h.kind);
  if (h.kind != PageKind::kData && h.kind != PageKind::kIndex && h.kind != PageKind::kHeap) {
    return corrupt(fmt::format("page kind {} cannot be stored", kind));
  }
  if ((h.flags & ~f::kKnownFlags) != 0) return corrupt(fmt::format("unknown flags {:#04x}", h.flags));
  if (h.level >= f::kMaxLevels) return corrupt(fmt::format("level {} out of range", h.level));
  if (!h.shadow() && h.logical != h.page_id) {
    return corrupt(fmt::format("logical id {} differs from page id in a sealed page", h.logical.value));
  }
  if (h.codec > f::kMaxCodec) return corrupt(fmt::format("unknown codec {}", h.codec));
  std::memcpy(page.data(), stored.data(), f::kPageHeaderSize);
  StoreLe<uint8_t>(page.data() + f::kPhCodec, 0);  // the decoded page is a plain page's image
  if (Status s =
          Decompress(static_cast<Codec>(h.codec), stored.subspan(f::kPageHeaderSize), page.subspan(f::kPageHeaderSize));
      !s.ok()) {
    return corrupt(s.error().message());
  }
  return Ok();
}

}  // namespace xtfq

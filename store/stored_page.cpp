#include "store/stored_page.h"

#include <fmt/format.h>

#include <cstring>

#include "store/crc32c.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {

namespace f = format;

namespace {

constexpr uint32_t kWidthSize = 2;  // the u16 entry width before a columns block

// The first n entries of `width` bytes of `in`, laid out by columns into `out` (same size): with
// width a multiple of 8, each 8-byte column becomes its first value then its differences (mod
// 2^64); then byte j of every entry is stored together, for j = 0..width-1. Bytes after the
// entries are copied as they are.
void ToColumns(std::span<const std::byte> in, uint32_t n, uint32_t width, std::span<std::byte> out) {
  const size_t used = size_t{n} * width;
  thread_local std::vector<std::byte> delta;
  delta.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(used));
  if (width % 8 == 0) {
    for (uint32_t i = n; i-- > 1;) {
      for (uint32_t c = 0; c < width; c += 8) {
        std::byte* p = delta.data() + size_t{i} * width + c;
        StoreLe<uint64_t>(p, LoadLe<uint64_t>(p) - LoadLe<uint64_t>(p - width));
      }
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < width; ++j) out[size_t{j} * n + i] = delta[size_t{i} * width + j];
  }
  std::memcpy(out.data() + used, in.data() + used, in.size() - used);
}

// The inverse of ToColumns.
void FromColumns(std::span<const std::byte> in, uint32_t n, uint32_t width, std::span<std::byte> out) {
  const size_t used = size_t{n} * width;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < width; ++j) out[size_t{i} * width + j] = in[size_t{j} * n + i];
  }
  if (width % 8 == 0) {
    for (uint32_t i = 1; i < n; ++i) {
      for (uint32_t c = 0; c < width; c += 8) {
        std::byte* p = out.data() + size_t{i} * width + c;
        StoreLe<uint64_t>(p, LoadLe<uint64_t>(p) + LoadLe<uint64_t>(p - width));
      }
    }
  }
  std::memcpy(out.data() + used, in.data() + used, in.size() - used);
}

}  // namespace

size_t EncodeStored(Codec codec, std::span<const std::byte> page, std::vector<std::byte>& out, uint32_t width) {
  const auto body = page.subspan(f::kPageHeaderSize);
  const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
  uint8_t used = static_cast<uint8_t>(codec);
  size_t len = 0;
  if (codec != Codec::kNone && width > 1 && width <= UINT16_MAX && n > 1 && size_t{n} * width <= body.size()) {
    thread_local std::vector<std::byte> columns;
    columns.resize(body.size());
    ToColumns(body, n, width, columns);
    out.resize(f::kPageHeaderSize + kWidthSize + MaxCompressedSize(codec, body.size()));
    StoreLe<uint16_t>(out.data() + f::kPageHeaderSize, static_cast<uint16_t>(width));
    len = kWidthSize + Compress(codec, columns, std::span(out).subspan(f::kPageHeaderSize + kWidthSize));
    used = codec == Codec::kZstd ? f::kCodecZstdColumns : f::kCodecLz4Columns;
  } else if (codec != Codec::kNone) {
    out.resize(f::kPageHeaderSize + MaxCompressedSize(codec, body.size()));
    len = Compress(codec, body, std::span(out).subspan(f::kPageHeaderSize));
  }
  if (codec == Codec::kNone || len <= kWidthSize || len >= body.size()) {
    used = f::kCodecNone;
    out.resize(f::kPageHeaderSize + body.size());
    len = Compress(Codec::kNone, body, std::span(out).subspan(f::kPageHeaderSize));
  }
  out.resize(f::kPageHeaderSize + len);
  std::memcpy(out.data(), page.data(), f::kPageHeaderSize);
  StoreLe<uint8_t>(out.data() + f::kPhCodec, used);
  StoreLe<uint32_t>(out.data() + f::kPhChecksum, Crc32c(std::span(out).subspan(4)));
  return out.size();
}

Status ReadStored(File& file, PageId id, const Location& loc, std::vector<std::byte>& stored,
                  std::span<std::byte> page) {
  stored.resize(loc.length);
  XTFQ_TRY(ReadExact(file, loc.offset, stored));
  return DecodeStored(stored, id, loc, page, file.name());
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
  if (h.kind != PageKind::kData && h.kind != PageKind::kIndex && h.kind != PageKind::kHeap &&
      h.kind != PageKind::kProcess) {
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
  const auto body = page.subspan(f::kPageHeaderSize);
  if (h.codec == f::kCodecLz4Columns || h.codec == f::kCodecZstdColumns) {
    if (stored.size() < f::kPageHeaderSize + kWidthSize) return corrupt("a columns block without its width");
    const uint32_t width = LoadLe<uint16_t>(stored.data() + f::kPageHeaderSize);
    if (width < 2 || h.entry_count < 2 || uint64_t{h.entry_count} * width > body.size()) {
      return corrupt(fmt::format("{} entries of {} bytes do not fit a page", h.entry_count, width));
    }
    thread_local std::vector<std::byte> columns;
    columns.resize(body.size());
    const Codec inner = h.codec == f::kCodecZstdColumns ? Codec::kZstd : Codec::kLz4;
    if (Status s = Decompress(inner, stored.subspan(f::kPageHeaderSize + kWidthSize), columns); !s.ok()) {
      return corrupt(s.error().message());
    }
    FromColumns(columns, h.entry_count, width, body);
    return Ok();
  }
  if (Status s = Decompress(static_cast<Codec>(h.codec), stored.subspan(f::kPageHeaderSize), body); !s.ok()) {
    return corrupt(s.error().message());
  }
  return Ok();
}

}  // namespace xtfq

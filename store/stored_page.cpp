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

// Transposes an 8 x 8 matrix of bytes held in 8 words: afterwards byte r of x[j] is what byte j
// of x[r] was (three rounds of swapping 1-, 2- and 4-byte blocks).
inline void Transpose8x8(uint64_t x[8]) {
  for (int r = 0; r < 8; r += 2) {
    const uint64_t t = ((x[r] >> 8) ^ x[r + 1]) & 0x00FF00FF00FF00FFull;
    x[r + 1] ^= t;
    x[r] ^= t << 8;
  }
  for (int r : {0, 1, 4, 5}) {
    const uint64_t t = ((x[r] >> 16) ^ x[r + 2]) & 0x0000FFFF0000FFFFull;
    x[r + 2] ^= t;
    x[r] ^= t << 16;
  }
  for (int r = 0; r < 4; ++r) {
    const uint64_t t = ((x[r] >> 32) ^ x[r + 4]) & 0x00000000FFFFFFFFull;
    x[r + 4] ^= t;
    x[r] ^= t << 32;
  }
}

// The first n entries of `width` bytes of `in`, laid out by columns into `out` (same size): with
// width a multiple of 8, each 8-byte column becomes its first value then its differences (mod
// 2^64); then byte j of every entry is stored together, for j = 0..width-1. Bytes after the
// entries are copied as they are. Widths that are multiples of 8 go 8 entries at a time, each
// 8-byte column through one 8 x 8 transpose.
void ToColumns(std::span<const std::byte> in, uint32_t n, uint32_t width, std::span<std::byte> out) {
  const size_t used = size_t{n} * width;
  const std::byte* src = in.data();
  std::byte* dst = out.data();
  if (width % 8 != 0) {
    for (uint32_t j = 0; j < width; ++j) {
      std::byte* col = dst + size_t{j} * n;
      for (uint32_t i = 0; i < n; ++i) col[i] = src[size_t{i} * width + j];
    }
  } else {
    for (uint32_t c = 0; c < width; c += 8) {
      uint64_t prev = 0;
      uint32_t i = 0;
      for (; i + 8 <= n; i += 8) {
        uint64_t x[8];
        for (int r = 0; r < 8; ++r) {
          const uint64_t v = LoadLe<uint64_t>(src + size_t{i + r} * width + c);
          x[r] = i + r == 0 ? v : v - prev;
          prev = v;
        }
        Transpose8x8(x);
        for (int j = 0; j < 8; ++j) StoreLe<uint64_t>(dst + size_t{c + j} * n + i, x[j]);
      }
      for (; i < n; ++i) {
        const uint64_t v = LoadLe<uint64_t>(src + size_t{i} * width + c);
        const uint64_t d = i == 0 ? v : v - prev;
        prev = v;
        for (int j = 0; j < 8; ++j) dst[size_t{c + j} * n + i] = std::byte{static_cast<unsigned char>(d >> (8 * j))};
      }
    }
  }
  std::memcpy(dst + used, src + used, in.size() - used);
}

// The inverse of ToColumns.
void FromColumns(std::span<const std::byte> in, uint32_t n, uint32_t width, std::span<std::byte> out) {
  const size_t used = size_t{n} * width;
  const std::byte* src = in.data();
  std::byte* dst = out.data();
  if (width % 8 != 0) {
    for (uint32_t j = 0; j < width; ++j) {
      const std::byte* col = src + size_t{j} * n;
      for (uint32_t i = 0; i < n; ++i) dst[size_t{i} * width + j] = col[i];
    }
  } else {
    for (uint32_t c = 0; c < width; c += 8) {
      uint64_t sum = 0;
      uint32_t i = 0;
      for (; i + 8 <= n; i += 8) {
        uint64_t x[8];
        for (int j = 0; j < 8; ++j) x[j] = LoadLe<uint64_t>(src + size_t{c + j} * n + i);
        Transpose8x8(x);
        for (int r = 0; r < 8; ++r) {
          sum = i + r == 0 ? x[r] : sum + x[r];
          StoreLe<uint64_t>(dst + size_t{i + r} * width + c, sum);
        }
      }
      for (; i < n; ++i) {
        uint64_t d = 0;
        for (int j = 0; j < 8; ++j) d |= uint64_t{static_cast<unsigned char>(src[size_t{c + j} * n + i])} << (8 * j);
        sum = i == 0 ? d : sum + d;
        StoreLe<uint64_t>(dst + size_t{i} * width + c, sum);
      }
    }
  }
  std::memcpy(dst + used, src + used, in.size() - used);
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

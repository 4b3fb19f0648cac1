#include "store/stored_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
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
  for (int r = 0; r < 8; r += 4) {
    for (int k = r; k < r + 2; ++k) {
      const uint64_t t = ((x[k] >> 16) ^ x[k + 2]) & 0x0000FFFF0000FFFFull;
      x[k + 2] ^= t;
      x[k] ^= t << 16;
    }
  }
  for (int r = 0; r < 4; ++r) {
    const uint64_t t = ((x[r] >> 32) ^ x[r + 4]) & 0x00000000FFFFFFFFull;
    x[r + 4] ^= t;
    x[r] ^= t << 32;
  }
}

// Codecs 2 and 4 (format 5 stores, read only): the entries' columns decoded back into `out`. The
// layout: with width a multiple of 8, each 8-byte column is its first value then its differences
// (mod 2^64); then byte j of every entry is stored together, for j = 0..width-1; then the bytes
// after the entries as they are.
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

// The typed columns layout (codecs 5 and 6, docs/format.md "Stored pages"). A column of s bytes
// holds one value per entry; delta-coded, value i > 0 is the zigzag form of (v[i] - v[i-1]) mod
// 2^(8s), read as a signed s-byte integer. Column c's bytes come as s planes of n bytes, plane b
// holding byte b of every entry's value.
constexpr uint8_t kDeltaBit = 0x80;
constexpr uint8_t kSizeMask = 0x0F;

inline uint64_t Mask(uint32_t s) { return s == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * s)) - 1; }
inline uint64_t Load(const std::byte* p, uint32_t s) {
  switch (s) {
    case 8:
      return LoadLe<uint64_t>(p);
    case 4:
      return LoadLe<uint32_t>(p);
    case 2:
      return LoadLe<uint16_t>(p);
    default:
      return static_cast<unsigned char>(p[0]);
  }
}
inline void Store(std::byte* p, uint32_t s, uint64_t v) {
  switch (s) {
    case 8:
      StoreLe<uint64_t>(p, v);
      break;
    case 4:
      StoreLe<uint32_t>(p, static_cast<uint32_t>(v));
      break;
    case 2:
      StoreLe<uint16_t>(p, static_cast<uint16_t>(v));
      break;
    default:
      p[0] = std::byte{static_cast<unsigned char>(v)};
  }
}
// Zigzag of the s-byte difference d (mod 2^(8s)), and its inverse.
inline uint64_t ZigZag(uint64_t d, uint32_t s) {
  const uint32_t shift = 64 - 8 * s;
  const int64_t x = static_cast<int64_t>(d << shift) >> shift;
  return ((static_cast<uint64_t>(x) << 1) ^ static_cast<uint64_t>(x >> 63)) & Mask(s);
}
inline uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

// Writes the planes of `vals` (n values of s bytes) at dst: plane b at dst + b * n.
void WritePlanes(const uint64_t* vals, uint32_t n, uint32_t s, std::byte* dst) {
  uint32_t i = 0;
  if (s == 8) {
    for (; i + 8 <= n; i += 8) {
      uint64_t x[8];
      std::memcpy(x, vals + i, sizeof x);
      Transpose8x8(x);
      for (int j = 0; j < 8; ++j) StoreLe<uint64_t>(dst + static_cast<size_t>(j) * n + i, x[j]);
    }
  }
  for (; i < n; ++i) {
    for (uint32_t b = 0; b < s; ++b) dst[size_t{b} * n + i] = std::byte{static_cast<unsigned char>(vals[i] >> (8 * b))};
  }
}
// The inverse of WritePlanes.
template <uint32_t s>
void ReadPlanes(const std::byte* src, uint32_t n, uint64_t* vals) {
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < s; ++b) v |= uint64_t{static_cast<unsigned char>(src[size_t{b} * n + i])} << (8 * b);
    vals[i] = v;
  }
}

// The number of nonzero bytes of x (each byte folded to its low bit, then summed by one multiply).
inline uint64_t ChangedBytes(uint64_t x) {
  x |= x >> 4;
  x |= x >> 2;
  x |= x >> 1;
  return ((x & 0x0101010101010101ull) * 0x0101010101010101ull) >> 56;
}

// Entries whose byte changes decide a column's coding: the page's first kDecideEntries.
constexpr uint32_t kDecideEntries = 64;

// One column of S-byte values at `src` (stride `width`) into `vals`: delta-coded (zigzag
// differences) when, over its first kDecideEntries values, that changes fewer bytes from entry to
// entry than the raw values; returns whether it did.
template <uint32_t S>
bool ColumnValues(const std::byte* src, uint32_t n, uint32_t width, uint64_t* vals) {
  uint64_t raw_changes = 0, delta_changes = 0;
  uint64_t prev = Load(src, S), prev_delta = prev;
  const uint32_t decide = std::min(n, kDecideEntries);
  for (uint32_t i = 1; i < decide; ++i) {
    const uint64_t v = Load(src + size_t{i} * width, S);
    const uint64_t d = ZigZag(v - prev, S);
    raw_changes += ChangedBytes(v ^ prev);
    delta_changes += ChangedBytes(d ^ prev_delta);
    prev = v, prev_delta = d;
  }
  const bool use_delta = delta_changes < raw_changes;
  prev = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t v = Load(src + size_t{i} * width, S);
    vals[i] = use_delta && i > 0 ? ZigZag(v - prev, S) : v;
    prev = v;
  }
  return use_delta;
}

// The first n entries of `plan`'s width laid out by typed columns into `out` (the body's size);
// `codes` gets each column's code (size, and kDeltaBit when delta-coded: chosen, for columns wider
// than a byte, when its first values differ from the value before them in fewer bytes than the
// raw values do, which is what lz4 finds runs in).
void ToTypedColumns(std::span<const std::byte> in, uint32_t n, const ColumnPlan& plan, std::span<std::byte> out,
                    std::vector<uint8_t>& codes) {
  const uint32_t width = plan.width();
  thread_local std::vector<uint64_t> vals;
  vals.resize(n);
  codes.clear();
  std::byte* dst = out.data();
  uint32_t off = 0;
  for (uint8_t s : plan.sizes()) {
    const std::byte* src = in.data() + off;
    bool use_delta = false;
    switch (s) {
      case 8:
        use_delta = ColumnValues<8>(src, n, width, vals.data());
        break;
      case 4:
        use_delta = ColumnValues<4>(src, n, width, vals.data());
        break;
      case 2:
        use_delta = ColumnValues<2>(src, n, width, vals.data());
        break;
      default:  // a byte: flags and classes, never delta-coded
        for (uint32_t i = 0; i < n; ++i) dst[i] = src[size_t{i} * width];
    }
    codes.push_back(static_cast<uint8_t>(s | (use_delta ? kDeltaBit : 0)));
    if (s > 1) WritePlanes(vals.data(), n, s, dst);
    dst += size_t{n} * s;
    off += s;
  }
  const size_t used = size_t{n} * width;
  std::memcpy(dst, in.data() + used, in.size() - used);
}

// One delta-coded column of S-byte values from `vals` into the entries at `dst` (stride
// `width`), the differences added back in order.
template <uint32_t S>
void StoreDeltaColumn(const uint64_t* vals, uint32_t n, uint32_t width, std::byte* dst) {
  uint64_t v = vals[0];
  Store(dst, S, v);
  for (uint32_t i = 1; i < n; ++i) {
    v = (v + UnZigZag(vals[i])) & Mask(S);
    Store(dst + size_t{i} * width, S, v);
  }
}

// The inverse of ToTypedColumns, given the columns' codes.
void FromTypedColumns(std::span<const std::byte> in, uint32_t n, uint32_t width, const std::vector<uint8_t>& codes,
                      std::span<std::byte> out) {
  thread_local std::vector<uint64_t> vals;
  vals.resize(n);
  const std::byte* src = in.data();
  uint32_t off = 0;
  for (uint8_t code : codes) {
    const uint32_t s = code & kSizeMask;
    const bool delta = (code & kDeltaBit) != 0;
    std::byte* dst = out.data() + off;
    if (!delta) {
      for (uint32_t b = 0; b < s; ++b) {
        const std::byte* plane = src + size_t{b} * n;
        for (uint32_t i = 0; i < n; ++i) dst[size_t{i} * width + b] = plane[i];
      }
    } else {
      switch (s) {
        case 8:
          ReadPlanes<8>(src, n, vals.data());
          StoreDeltaColumn<8>(vals.data(), n, width, dst);
          break;
        case 4:
          ReadPlanes<4>(src, n, vals.data());
          StoreDeltaColumn<4>(vals.data(), n, width, dst);
          break;
        case 2:
          ReadPlanes<2>(src, n, vals.data());
          StoreDeltaColumn<2>(vals.data(), n, width, dst);
          break;
        default:
          ReadPlanes<1>(src, n, vals.data());
          StoreDeltaColumn<1>(vals.data(), n, width, dst);
      }
    }
    src += size_t{n} * s;
    off += s;
  }
  const size_t used = size_t{n} * width;
  std::memcpy(out.data() + used, src, out.size() - used);
}

// The column codes as runs (docs/format.md): u16 count of runs, then per run u8 (length - 1) and
// u8 code.
void EncodeRuns(const std::vector<uint8_t>& codes, std::vector<std::byte>& out) {
  out.clear();
  out.resize(2);
  uint16_t runs = 0;
  for (size_t i = 0; i < codes.size();) {
    size_t j = i + 1;
    while (j < codes.size() && codes[j] == codes[i] && j - i < 256) ++j;
    out.push_back(std::byte{static_cast<unsigned char>(j - i - 1)});
    out.push_back(std::byte{codes[i]});
    ++runs;
    i = j;
  }
  StoreLe<uint16_t>(out.data(), runs);
}

}  // namespace

size_t EncodeStored(Codec codec, std::span<const std::byte> page, std::vector<std::byte>& out, const ColumnPlan* plan) {
  const auto body = page.subspan(f::kPageHeaderSize);
  const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
  uint8_t used = static_cast<uint8_t>(codec);
  size_t len = 0;
  if (codec != Codec::kNone && plan != nullptr && !plan->sizes().empty() && plan->width() <= UINT16_MAX && n > 1 &&
      size_t{n} * plan->width() <= body.size()) {
    thread_local std::vector<std::byte> columns, runs;
    thread_local std::vector<uint8_t> codes;
    columns.resize(body.size());
    ToTypedColumns(body, n, *plan, columns, codes);
    EncodeRuns(codes, runs);
    const size_t head = f::kSpRuns + runs.size();
    out.resize(f::kPageHeaderSize + head + MaxCompressedSize(codec, body.size()));
    StoreLe<uint16_t>(out.data() + f::kPageHeaderSize + f::kSpWidth, static_cast<uint16_t>(plan->width()));
    std::memcpy(out.data() + f::kPageHeaderSize + f::kSpRuns, runs.data(), runs.size());
    const size_t block = Compress(codec, columns, std::span(out).subspan(f::kPageHeaderSize + head));
    len = block == 0 ? 0 : head + block;
    used = codec == Codec::kZstd ? f::kCodecZstdTyped : f::kCodecLz4Typed;
  } else if (codec != Codec::kNone) {
    out.resize(f::kPageHeaderSize + MaxCompressedSize(codec, body.size()));
    len = Compress(codec, body, std::span(out).subspan(f::kPageHeaderSize));
    // A heap page (names, job ids, histogram texts) that lz4 shrinks by a quarter is tried with
    // zstd too, kept when that is a quarter smaller again (text: 2-3x smaller than lz4's; a kept
    // binary log, which lz4 barely shrinks, is not tried).
    const bool heap = LoadLe<uint8_t>(page.data() + f::kPhKind) == static_cast<uint8_t>(PageKind::kHeap);
    if (codec == Codec::kLz4 && heap && len != 0 && len * 4 < body.size() * 3) {
      thread_local std::vector<std::byte> dense;
      dense.resize(MaxCompressedSize(Codec::kZstd, body.size()));
      const size_t z = Compress(Codec::kZstd, body, dense);
      if (z != 0 && z * 4 < len * 3) {
        std::memcpy(out.data() + f::kPageHeaderSize, dense.data(), z);
        len = z;
        used = static_cast<uint8_t>(Codec::kZstd);
      }
    }
  }
  if (codec == Codec::kNone || len == 0 || len >= body.size()) {
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
  if (h.codec == f::kCodecLz4Typed || h.codec == f::kCodecZstdTyped) {
    // u16 width, u16 runs, the runs, then the block (docs/format.md, "Stored pages").
    const size_t after = stored.size() - f::kPageHeaderSize;
    if (after < f::kSpRunList) return corrupt("a typed columns block without its width and runs");
    const uint32_t width = LoadLe<uint16_t>(stored.data() + f::kPageHeaderSize + f::kSpWidth);
    const uint32_t runs = LoadLe<uint16_t>(stored.data() + f::kPageHeaderSize + f::kSpRuns);
    const size_t head = f::kSpRunList + size_t{runs} * 2;
    if (head > after)
      return corrupt(fmt::format("{} column runs do not fit a stored page of {} bytes", runs, stored.size()));
    if (width < 1 || h.entry_count < 2 || uint64_t{h.entry_count} * width > body.size()) {
      return corrupt(fmt::format("{} entries of {} bytes do not fit a page", h.entry_count, width));
    }
    thread_local std::vector<uint8_t> codes;
    codes.clear();
    uint32_t covered = 0;
    for (uint32_t r = 0; r < runs; ++r) {
      const std::byte* run = stored.data() + f::kPageHeaderSize + f::kSpRunList + size_t{r} * 2;
      const uint32_t count = static_cast<unsigned char>(run[0]) + 1u;
      const uint8_t code = static_cast<uint8_t>(run[1]);
      const uint32_t size = code & kSizeMask;
      if ((size != 1 && size != 2 && size != 4 && size != 8) || (code & ~(kSizeMask | kDeltaBit)) != 0) {
        return corrupt(fmt::format("column run {} has code {:#04x}", r, code));
      }
      covered += count * size;
      if (covered > width) break;
      codes.insert(codes.end(), count, code);
    }
    if (covered != width) {
      return corrupt(fmt::format("column runs cover {} bytes of {}-byte entries", covered, width));
    }
    thread_local std::vector<std::byte> columns;
    columns.resize(body.size());
    const Codec inner = h.codec == f::kCodecZstdTyped ? Codec::kZstd : Codec::kLz4;
    if (Status s = Decompress(inner, stored.subspan(f::kPageHeaderSize + head), columns); !s.ok()) {
      return corrupt(s.error().message());
    }
    FromTypedColumns(columns, h.entry_count, width, codes, body);
    return Ok();
  }
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

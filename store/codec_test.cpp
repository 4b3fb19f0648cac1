#include "store/codec.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "store/crc32c.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"
#include "store/stored_page.h"

namespace xtfq {
namespace {

namespace f = format;

// A page of `kind` bytes: records of small deltas (compressible), random words, or zeros.
std::vector<std::byte> Page(int kind, uint32_t seed) {
  std::vector<std::byte> page(4096);
  PageHeader h;
  h.page_id = h.logical = PageId(77);
  h.kind = PageKind::kData;
  h.entry_count = 127;
  h.Encode(page.data());
  std::mt19937_64 rng(seed);
  for (size_t i = f::kPageHeaderSize; i + 8 <= page.size(); i += 8) {
    const uint64_t v = kind == 0 ? (i / 32) * 1000 + rng() % 4 : kind == 1 ? rng() : 0;
    StoreLe<uint64_t>(page.data() + i, v);
  }
  return page;
}

TEST_CASE("codec: pages round trip through lz4 and raw, and lz4 shrinks records and zeros") {
  for (int kind : {0, 1, 2}) {
    CAPTURE(kind);
    const auto page = Page(kind, 5);
    for (Codec c : {Codec::kNone, Codec::kLz4}) {
      std::vector<std::byte> stored;
      const size_t n = EncodeStored(c, page, stored);
      CHECK(n == stored.size());
      const uint8_t used = LoadLe<uint8_t>(stored.data() + f::kPhCodec);
      // Random words do not compress: stored raw even when lz4 is asked.
      CHECK(used == (c == Codec::kLz4 && kind != 1 ? 1 : 0));
      if (used == 1) CHECK(n < page.size() / 2);
      if (used == 0) CHECK(n == page.size());
      std::vector<std::byte> out(4096);
      REQUIRE(DecodeStored(stored, PageId(77), Location{8192, static_cast<uint32_t>(n)}, out, "t").ok());
      CHECK(std::equal(out.begin() + 4, out.end(), page.begin() + 4));
      CHECK(LoadLe<uint8_t>(out.data() + f::kPhCodec) == 0);
    }
  }
}

TEST_CASE("codec: entries laid out by columns round trip for every width, and shrink sorted records further") {
  std::mt19937_64 rng(11);
  for (uint32_t width : {2u, 8u, 17u, 32u, 48u, 472u, 2000u}) {
    CAPTURE(width);
    const uint32_t cap = (4096 - f::kPageHeaderSize) / width;
    for (uint32_t n : {cap, cap / 2 + 1, cap - 1, 9u, 2u}) {
      if (n < 2 || n > cap) continue;
      CAPTURE(n);
      std::vector<std::byte> page(4096);
      PageHeader h;
      h.page_id = h.logical = PageId(5);
      h.kind = PageKind::kData;
      h.entry_count = n;
      h.Encode(page.data());
      // Sorted times and offsets, small sizes, a few ranks: what DXT segments look like.
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < width; ++j) {
          const uint64_t v = j < 8 ? i * 1000 + rng() % 7 : rng() % 3;
          page[f::kPageHeaderSize + size_t{i} * width + j] = std::byte{static_cast<unsigned char>(v >> (8 * (j % 8)))};
        }
      }
      std::vector<std::byte> plain, columns, out(4096);
      EncodeStored(Codec::kLz4, page, plain, 1);
      const size_t len = EncodeStored(Codec::kLz4, page, columns, width);
      CHECK(LoadLe<uint8_t>(columns.data() + f::kPhCodec) == f::kCodecLz4Columns);
      if (n == cap) CHECK(len <= plain.size());
      REQUIRE(DecodeStored(columns, PageId(5), Location{8192, static_cast<uint32_t>(len)}, out, "t").ok());
      CHECK(std::equal(out.begin() + 4, out.end(), page.begin() + 4));
      // The block holds docs/format.md's layout, built here one byte at a time: 8-byte columns
      // as first value and differences, then byte j of every entry together, then the rest.
      const size_t body = 4096 - f::kPageHeaderSize;
      std::vector<std::byte> model(body), got(body);
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < width; ++j) {
          const std::byte* e = page.data() + f::kPageHeaderSize + size_t{i} * width;
          std::byte b = e[j];
          if (width % 8 == 0 && i > 0) {
            const uint32_t c = j - j % 8;
            const uint64_t d = LoadLe<uint64_t>(e + c) - LoadLe<uint64_t>(e - width + c);
            b = std::byte{static_cast<unsigned char>(d >> (8 * (j % 8)))};
          }
          model[size_t{j} * n + i] = b;
        }
      }
      std::copy(page.begin() + f::kPageHeaderSize + size_t{n} * width, page.end(),
                model.begin() + static_cast<std::ptrdiff_t>(size_t{n} * width));
      REQUIRE(
          Decompress(Codec::kLz4, std::span(columns).subspan(f::kPageHeaderSize + 2, len - f::kPageHeaderSize - 2), got)
              .ok());
      CHECK(got == model);
      // A width that makes the entries overrun the page, with a valid checksum, is refused.
      auto bad = columns;
      StoreLe<uint16_t>(bad.data() + f::kPageHeaderSize, static_cast<uint16_t>(4096));
      StoreLe<uint32_t>(bad.data(), Crc32c(std::span(bad).subspan(4)));
      Status s = DecodeStored(bad, PageId(5), Location{8192, static_cast<uint32_t>(len)}, out, "t");
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().message().find("do not fit a page") != std::string::npos);
    }
  }
}

TEST_CASE("codec: a flipped byte of a stored page is a checksum mismatch, and a bad block never overruns") {
  const auto page = Page(0, 9);
  std::vector<std::byte> stored;
  const size_t n = EncodeStored(Codec::kLz4, page, stored);
  REQUIRE(LoadLe<uint8_t>(stored.data() + f::kPhCodec) == 1);
  std::vector<std::byte> out(4096);
  const Location loc{8192, static_cast<uint32_t>(n)};
  for (size_t i = 0; i < n; ++i) {
    auto bad = stored;
    bad[i] ^= std::byte{0x21};
    Status s = DecodeStored(bad, PageId(77), loc, out, "t");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code() == ErrorCode::kCorrupt);
    if (!ChecksumsBypassed()) CHECK(s.error().message().find("checksum mismatch") != std::string::npos);
    CHECK(s.error().message().find("t: page 77 (stored at offset 8192") == 0);
  }
  // Blocks that pass the checksum but are damaged, cut or padded: errors, never a short page or a
  // write past it (ASan builds would catch one).
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    auto bad = stored;
    if (trial % 3 == 0) bad.resize(f::kPageHeaderSize + 1 + rng() % (n - f::kPageHeaderSize));
    if (trial % 3 == 1) bad.resize(n + 1 + rng() % 64, std::byte{static_cast<unsigned char>(rng())});
    for (int k = 0; k < 3; ++k) {
      bad[f::kPageHeaderSize + rng() % (bad.size() - f::kPageHeaderSize)] =
          std::byte{static_cast<unsigned char>(rng())};
    }
    if (bad.size() > 4096) bad.resize(4096);
    StoreLe<uint32_t>(bad.data(), Crc32c(std::span(bad).subspan(4)));
    Status s =
        Decompress(Codec::kLz4, std::span(bad).subspan(f::kPageHeaderSize), std::span(out).subspan(f::kPageHeaderSize));
    Status d = DecodeStored(bad, PageId(77), Location{8192, static_cast<uint32_t>(bad.size())}, out, "t");
    CHECK(s.ok() == d.ok());
    if (!d.ok()) CHECK(d.error().code() == ErrorCode::kCorrupt);
  }
  // A misdirected page and a page longer than a page are refused.
  CHECK(DecodeStored(stored, PageId(78), loc, out, "t").error().message().find("misdirected") != std::string::npos);
  std::vector<std::byte> longer(4097);
  CHECK_FALSE(DecodeStored(longer, PageId(77), Location{8192, 4097}, out, "t").ok());
}

}  // namespace
}  // namespace xtfq

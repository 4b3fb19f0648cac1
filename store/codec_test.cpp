#include "store/codec.h"

#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "store/crc32c.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"
#include "store/stored_page.h"

namespace xtfq {
namespace {

namespace f = format;

// A zeroed 4 KiB data page `id` whose header says it holds `entries` entries.
std::vector<std::byte> HeaderOnly(PageId id, uint32_t entries) {
  std::vector<std::byte> page(4096);
  PageHeader h;
  h.page_id = h.logical = id;
  h.kind = PageKind::kData;
  h.entry_count = entries;
  h.Encode(page.data());
  return page;
}

// A page of `kind` bytes: records of small deltas (compressible), random words, or zeros.
std::vector<std::byte> Page(int kind, uint32_t seed) {
  std::vector<std::byte> page = HeaderOnly(PageId(77), 127);
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

TEST_CASE("codec: a heap page of text in an lz4 store is stored with zstd when that is a quarter smaller") {
  // Text: job-id-like and histogram-like strings; a kept binary log: random bytes with some runs.
  std::mt19937_64 rng(11);
  auto heap_page = [&](bool text) {
    std::vector<std::byte> page = HeaderOnly(PageId(9), 0);
    StoreLe<uint8_t>(page.data() + f::kPhKind, static_cast<uint8_t>(PageKind::kHeap));
    std::string s;
    while (s.size() < page.size()) {
      if (text) {
        s += "job_id: " + std::to_string(100000 + rng() % 900) + ".user" + std::to_string(rng() % 40) +
             " hist: 4K:" + std::to_string(rng() % 1000) + " 8K:" + std::to_string(rng() % 100) + "\n";
      } else {
        for (int k = 0; k < 64; ++k) s += static_cast<char>(rng() % 4 == 0 ? 0 : rng());
      }
    }
    std::memcpy(page.data() + f::kPageHeaderSize, s.data(), page.size() - f::kPageHeaderSize);
    return page;
  };
  for (const bool text : {true, false}) {
    CAPTURE(text);
    const auto page = heap_page(text);
    std::vector<std::byte> lz4_only, stored;
    // The same bytes as a data page: lz4 only, the measure the heap page is compared with.
    std::vector<std::byte> as_data = page;
    StoreLe<uint8_t>(as_data.data() + f::kPhKind, static_cast<uint8_t>(PageKind::kData));
    EncodeStored(Codec::kLz4, as_data, lz4_only);
    CHECK(LoadLe<uint8_t>(lz4_only.data() + f::kPhCodec) != 3);
    const size_t n = EncodeStored(Codec::kLz4, page, stored);
    const uint8_t used = LoadLe<uint8_t>(stored.data() + f::kPhCodec);
    CHECK(used == (text ? 3 : LoadLe<uint8_t>(lz4_only.data() + f::kPhCodec)));
    if (text) CHECK(4 * n < 3 * lz4_only.size());
    std::vector<std::byte> out(4096);
    REQUIRE(DecodeStored(stored, PageId(9), Location{8192, static_cast<uint32_t>(n)}, out, "t").ok());
    CHECK(std::equal(out.begin() + 4, out.end(), page.begin() + 4));
  }
}

// A page of n entries of plan's width: column 0 sorted with noise (times), then by column: small
// values, decreasing values (negative differences), random words, a constant.
std::vector<std::byte> EntriesPage(const ColumnPlan& plan, uint32_t n, std::mt19937_64& rng) {
  std::vector<std::byte> page = HeaderOnly(PageId(5), n);
  const uint32_t width = plan.width();
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t off = 0;
    for (size_t c = 0; c < plan.sizes().size(); ++c) {
      const uint32_t size = plan.sizes()[c];
      uint64_t v = 0;
      switch (c % 5) {
        case 0:
          v = uint64_t{i} * 1000 + rng() % 7;
          break;
        case 1:
          v = rng() % 3;
          break;
        case 2:
          v = 1000000 - uint64_t{i} * 37 - rng() % 5;
          break;
        case 3:
          v = rng();
          break;
        default:
          v = 0x1234567890ABCDEFull;
      }
      for (uint32_t b = 0; b < size; ++b)
        page[f::kPageHeaderSize + size_t{i} * width + off + b] = std::byte{static_cast<unsigned char>(v >> (8 * b))};
      off += size;
    }
  }
  return page;
}

// docs/format.md's typed columns block, built here one value at a time: per column, delta-coded
// (zigzag of the s-byte difference) when fewer of its bytes change from entry to entry than of
// the raw values' over the first 64 entries (never a 1-byte column), then its byte planes; then
// the bytes after the entries.
std::vector<std::byte> TypedModel(const std::vector<std::byte>& page, const ColumnPlan& plan, uint32_t n,
                                  std::vector<uint8_t>& codes) {
  const uint32_t width = plan.width();
  std::vector<std::byte> model;
  codes.clear();
  uint32_t off = 0;
  for (uint8_t size : plan.sizes()) {
    const unsigned bits = 8 * size;
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    std::vector<uint64_t> v(n), z(n);
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t b = 0; b < size; ++b) {
        v[i] |= uint64_t{static_cast<unsigned char>(page[f::kPageHeaderSize + size_t{i} * width + off + b])} << (8 * b);
      }
    }
    z[0] = v[0];
    for (uint32_t i = 1; i < n; ++i) {
      // The difference as a signed number of `bits` bits, then zigzag.
      const uint64_t d = (v[i] - v[i - 1]) & mask;
      const bool negative = (d >> (bits - 1)) & 1;
      const uint64_t magnitude = negative ? ((~d + 1) & mask) : d;
      z[i] = (negative ? 2 * magnitude - 1 : 2 * magnitude) & mask;
    }
    // Delta-coded when, over the first 64 entries, fewer bytes differ from the same byte of the
    // value before.
    uint64_t raw_changes = 0, delta_changes = 0;
    for (uint32_t i = 1; i < std::min(n, 64u); ++i) {
      for (uint32_t b = 0; b < size; ++b) {
        raw_changes += ((v[i] >> (8 * b)) & 0xFF) != ((v[i - 1] >> (8 * b)) & 0xFF);
        delta_changes += ((z[i] >> (8 * b)) & 0xFF) != ((z[i - 1] >> (8 * b)) & 0xFF);
      }
    }
    const bool delta = size > 1 && delta_changes < raw_changes;
    codes.push_back(static_cast<uint8_t>(size | (delta ? 0x80 : 0)));
    for (uint32_t b = 0; b < size; ++b) {
      for (uint32_t i = 0; i < n; ++i)
        model.push_back(std::byte{static_cast<unsigned char>((delta ? z[i] : v[i]) >> (8 * b))});
    }
    off += size;
  }
  model.insert(model.end(), page.begin() + f::kPageHeaderSize + size_t{n} * width, page.end());
  return model;
}

TEST_CASE("codec: entries laid out by typed columns round trip for every plan, in docs/format.md's layout") {
  std::mt19937_64 rng(11);
  std::vector<std::shared_ptr<const ColumnPlan>> plans;
  for (uint32_t width : {2u, 8u, 17u, 32u, 48u, 472u, 2000u}) plans.push_back(ColumnPlan::ForWidth(width));
  plans.push_back(std::make_shared<const ColumnPlan>(std::vector<uint8_t>{8, 4, 4, 2, 1, 1, 8}));
  plans.push_back(std::make_shared<const ColumnPlan>(std::vector<uint8_t>{4, 2, 8, 1, 4, 8, 8, 8, 2, 2}));
  for (const auto& plan : plans) {
    const uint32_t width = plan->width();
    CAPTURE(width);
    CAPTURE(plan->sizes().size());
    const uint32_t cap = (4096 - f::kPageHeaderSize) / width;
    for (uint32_t n : {cap, cap / 2 + 1, cap - 1, 9u, 2u}) {
      if (n < 2 || n > cap) continue;
      CAPTURE(n);
      const auto page = EntriesPage(*plan, n, rng);
      std::vector<std::byte> plain, columns, out(4096);
      EncodeStored(Codec::kLz4, page, plain);
      const size_t len = EncodeStored(Codec::kLz4, page, columns, plan.get());
      REQUIRE(LoadLe<uint8_t>(columns.data() + f::kPhCodec) == f::kCodecLz4Typed);
      if (n == cap) CHECK(len <= plain.size());
      REQUIRE(DecodeStored(columns, PageId(5), Location{8192, static_cast<uint32_t>(len)}, out, "t").ok());
      CHECK(std::equal(out.begin() + 4, out.end(), page.begin() + 4));
      // u16 width, u16 runs, each run u8 (length - 1) and u8 code; then the block.
      std::vector<uint8_t> codes;
      const std::vector<std::byte> model = TypedModel(page, *plan, n, codes);
      CHECK(LoadLe<uint16_t>(columns.data() + f::kPageHeaderSize) == width);
      const uint32_t runs = LoadLe<uint16_t>(columns.data() + f::kPageHeaderSize + 2);
      std::vector<uint8_t> got_codes;
      for (uint32_t r = 0; r < runs; ++r) {
        const std::byte* run = columns.data() + f::kPageHeaderSize + 4 + 2 * r;
        got_codes.insert(got_codes.end(), static_cast<unsigned char>(run[0]) + 1u, static_cast<uint8_t>(run[1]));
        if (r > 0) CHECK((run[1] != run[-1] || run[-2] == std::byte{255}));  // runs are maximal
      }
      CHECK(got_codes == codes);
      const size_t head = f::kPageHeaderSize + 4 + 2 * size_t{runs};
      std::vector<std::byte> got(4096 - f::kPageHeaderSize);
      REQUIRE(Decompress(Codec::kLz4, std::span(columns).subspan(head, len - head), got).ok());
      CHECK(got == model);
      // Runs that do not cover the width, or a size that is not 1, 2, 4 or 8, with a valid
      // checksum, are refused; so is a width that makes the entries overrun the page.
      for (int damage = 0; damage < 3; ++damage) {
        auto bad = columns;
        if (damage == 0) StoreLe<uint16_t>(bad.data() + f::kPageHeaderSize, static_cast<uint16_t>(width + 1));
        if (damage == 1) bad[f::kPageHeaderSize + 5] = std::byte{0x03};
        if (damage == 2) StoreLe<uint16_t>(bad.data() + f::kPageHeaderSize, static_cast<uint16_t>(4096));
        StoreLe<uint32_t>(bad.data(), Crc32c(std::span(bad).subspan(4)));
        Status s = DecodeStored(bad, PageId(5), Location{8192, static_cast<uint32_t>(len)}, out, "t");
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().code() == ErrorCode::kCorrupt);
        const std::string& m = s.error().message();
        // (a width one larger may already overrun the page with this many entries)
        if (damage == 0)
          CHECK((m.find("column runs cover") != std::string::npos || m.find("do not fit a page") != std::string::npos));
        if (damage == 1) CHECK(m.find("has code 0x03") != std::string::npos);
        if (damage == 2) CHECK(m.find("do not fit a page") != std::string::npos);
      }
    }
  }
  // The delta choice: sorted times are delta-coded, random words and small values are not.
  const ColumnPlan three(std::vector<uint8_t>{8, 8, 8});
  std::vector<std::byte> page = HeaderOnly(PageId(5), 100);
  for (uint32_t i = 0; i < 100; ++i) {
    StoreLe<uint64_t>(page.data() + f::kPageHeaderSize + 24 * i, 1'700'000'000'000'000'000 + 1000 * i);
    StoreLe<uint64_t>(page.data() + f::kPageHeaderSize + 24 * i + 8, rng());
    StoreLe<uint64_t>(page.data() + f::kPageHeaderSize + 24 * i + 16, rng() % 1000);
  }
  std::vector<uint8_t> codes;
  TypedModel(page, three, 100, codes);
  CHECK(codes == std::vector<uint8_t>{0x88, 0x08, 0x08});
}

TEST_CASE("codec: format 5's columns pages (codecs 2 and 4) still decode") {
  std::mt19937_64 rng(12);
  for (uint32_t width : {2u, 17u, 32u, 472u}) {
    for (Codec inner : {Codec::kLz4, Codec::kZstd}) {
      CAPTURE(width);
      const uint32_t n = (4096 - f::kPageHeaderSize) / width - 1;
      const auto page = EntriesPage(*ColumnPlan::ForWidth(width), n, rng);
      // Format 5's layout, one byte at a time: with width a multiple of 8, 8-byte columns as first
      // value and differences; then byte j of every entry together; then the rest.
      const size_t body = 4096 - f::kPageHeaderSize;
      std::vector<std::byte> layout(body);
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < width; ++j) {
          const std::byte* e = page.data() + f::kPageHeaderSize + size_t{i} * width;
          std::byte b = e[j];
          if (width % 8 == 0 && i > 0) {
            const uint32_t c = j - j % 8;
            const uint64_t d = LoadLe<uint64_t>(e + c) - LoadLe<uint64_t>(e - width + c);
            b = std::byte{static_cast<unsigned char>(d >> (8 * (j % 8)))};
          }
          layout[size_t{j} * n + i] = b;
        }
      }
      std::copy(page.begin() + f::kPageHeaderSize + size_t{n} * width, page.end(),
                layout.begin() + static_cast<std::ptrdiff_t>(size_t{n} * width));
      std::vector<std::byte> stored(f::kPageHeaderSize + 2 + MaxCompressedSize(inner, body));
      const size_t block = Compress(inner, layout, std::span(stored).subspan(f::kPageHeaderSize + 2));
      REQUIRE(block > 0);
      stored.resize(f::kPageHeaderSize + 2 + block);
      std::copy(page.begin(), page.begin() + f::kPageHeaderSize, stored.begin());
      StoreLe<uint8_t>(stored.data() + f::kPhCodec, inner == Codec::kLz4 ? f::kCodecLz4Columns : f::kCodecZstdColumns);
      StoreLe<uint16_t>(stored.data() + f::kPageHeaderSize, static_cast<uint16_t>(width));
      StoreLe<uint32_t>(stored.data(), Crc32c(std::span(stored).subspan(4)));
      std::vector<std::byte> out(4096);
      REQUIRE(DecodeStored(stored, PageId(5), Location{8192, static_cast<uint32_t>(stored.size())}, out, "t").ok());
      CHECK(std::equal(out.begin() + 4, out.end(), page.begin() + 4));
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

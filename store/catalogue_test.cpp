#include "store/catalogue.h"

#include <doctest/doctest.h>

#include <string>

#include "store/catalogue_frame.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/superblock.h"

namespace xtfq {
namespace {

Catalogue Sample() {
  Catalogue c;
  ArrayDesc a;
  a.id = ArrayId(1);
  a.name = "events";
  a.schema = *Schema::Make({{"t", FieldType::kI64}, {"bytes", FieldType::kI64}, {"x", FieldType::kU8}}, {"bytes"}, "t");
  // 17-byte records: 239 per page; three full pages under one index page of 60-byte entries.
  a.levels[0] = ChainDesc{PageId(4), PageId(9), PageId(11), PageId(12), 3 * 239 + 5, Location{8 * 4096 + 100, 300}};
  a.levels.push_back(ChainDesc{PageId(15), kNoPage, PageId(15), PageId(16), 3, Location{8 * 4096 + 400, 200}});
  c.arrays.push_back(a);
  ArrayDesc b;
  b.id = ArrayId(2);
  b.name = "empty";
  b.schema = *Schema::Make({{"v", FieldType::kF64}}, {});
  c.arrays.push_back(b);
  c.heap = ChainDesc{PageId(3), kNoPage, PageId(3), PageId(13), 100, Location{8 * 4096, 100}};
  c.free_pages = {PageId(2), PageId(14)};
  c.chain_ids = 17;  // chain ids 3 to 16 above
  c.map_leaves = {PageId(18)};
  return c;
}

TEST_CASE("catalogue: encodes to the documented size and decodes to the same catalogue") {
  const Catalogue c = Sample();
  const auto bytes = c.Encode();
  // Header 48; array 1: 48 + 6 + (2+1)+(2+5)+(2+1) + 2 + 2 * 32; array 2: 48 + 5 + (2+1) + 32; free: 8;
  // map directory: 4.
  CHECK(bytes.size() == 48 + (48 + 6 + 3 + 7 + 3 + 2 + 64) + (48 + 5 + 3 + 32) + 8 + 4);
  CHECK(bytes.size() == c.EncodedSize());
  Result<Catalogue> d = Catalogue::Decode(bytes, "test");
  REQUIRE(d.ok());
  REQUIRE(d->arrays.size() == 2);
  CHECK(d->arrays[0].name == "events");
  CHECK(d->arrays[0].schema == c.arrays[0].schema);
  CHECK(d->arrays[0].schema.record_width() == 17);
  CHECK(d->arrays[0].levels == c.arrays[0].levels);
  CHECK(d->arrays[0].schema.time_field() == 0);
  CHECK(d->arrays[1].schema == c.arrays[1].schema);
  CHECK(d->heap == c.heap);
  CHECK(d->free_pages == c.free_pages);
  CHECK(d->chain_ids == c.chain_ids);
  CHECK(d->map_leaves == c.map_leaves);
  CHECK(d->Validate(4096, 20, "test").ok());
}

TEST_CASE("catalogue frame: the stream compressed with the store's codec, or as it is, and back") {
  // Many arrays alike, as a store of many small logs has.
  Catalogue c = Sample();
  for (uint32_t i = 0; i < 300; ++i) {
    ArrayDesc a = c.arrays[1];
    a.id = ArrayId(static_cast<uint32_t>(c.arrays.size() + 1));
    a.name = "darshan/" + std::to_string(i) + "/POSIX";
    c.arrays.push_back(a);
  }
  const auto bytes = c.Encode();
  REQUIRE(Catalogue::Decode(bytes, "test").ok());
  for (Codec codec : {Codec::kNone, Codec::kLz4, Codec::kZstd}) {
    CAPTURE(static_cast<int>(codec));
    const auto frame = CatalogueFrame::Frame(bytes, codec).value();
    // u8 codec, u32 raw bytes (docs/format.md, "Catalogue frame").
    CHECK(LoadLe<uint8_t>(frame.data()) == static_cast<uint8_t>(codec));
    CHECK(LoadLe<uint32_t>(frame.data() + 1) == bytes.size());
    if (codec == Codec::kNone) CHECK(frame.size() == 5 + bytes.size());
    if (codec != Codec::kNone) CHECK(frame.size() < bytes.size() / 4);
    Result<std::vector<std::byte>> back = CatalogueFrame::Unframe(frame, "cat");
    REQUIRE(back.ok());
    CHECK(*back == bytes);
  }
  // Random bytes do not compress: stored as they are, codec 0.
  std::vector<std::byte> noise(3000);
  uint64_t x = 88172645463325252ull;
  for (auto& b : noise) x ^= x << 13, x ^= x >> 7, x ^= x << 17, b = std::byte{static_cast<unsigned char>(x)};
  CHECK(LoadLe<uint8_t>(CatalogueFrame::Frame(noise, Codec::kLz4).value().data()) == 0);
  // A short frame, an unknown codec, a size past 2^30, a block that does not decode to the size.
  const auto frame = CatalogueFrame::Frame(bytes, Codec::kLz4).value();
  auto message = [](std::vector<std::byte> f) {
    Result<std::vector<std::byte>> r = CatalogueFrame::Unframe(f, "cat");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == ErrorCode::kCorrupt);
    return r.error().message();
  };
  CHECK(message(std::vector<std::byte>(frame.begin(), frame.begin() + 4)) == "cat: 4 bytes, shorter than its frame");
  auto bad = frame;
  bad[0] = std::byte{2};
  CHECK(message(bad) == "cat: codec 2 is unknown");
  bad = frame;
  StoreLe<uint32_t>(bad.data() + 1, (1u << 30) + 1);
  CHECK(message(bad) == "cat: says 1073741825 bytes, more than a catalogue holds");
  bad = frame;
  StoreLe<uint32_t>(bad.data() + 1, static_cast<uint32_t>(bytes.size() + 1));
  CHECK(message(bad).find("cat: lz4 block") == 0);
  // A size the block cannot decode to is refused before anything is allocated for it: lz4 at
  // most 255 times its block, zstd what its frame header records, none its own size.
  bad = frame;
  bad.resize(5 + 10);
  StoreLe<uint32_t>(bad.data() + 1, 1u << 29);
  CHECK(message(bad) == "cat: says 536870912 bytes, more than its 10-byte block can hold");
  bad = CatalogueFrame::Frame(bytes, Codec::kZstd).value();
  StoreLe<uint32_t>(bad.data() + 1, static_cast<uint32_t>(bytes.size() + 1));
  CHECK(message(bad).find("more than its") != std::string::npos);
  bad = CatalogueFrame::Frame(bytes, Codec::kNone).value();
  StoreLe<uint32_t>(bad.data() + 1, static_cast<uint32_t>(bytes.size() + 1));
  CHECK(message(bad).find("more than its") != std::string::npos);
}

TEST_CASE("catalogue: every truncation and bad field is an error naming the byte") {
  const auto bytes = Sample().Encode();
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<Catalogue> d = Catalogue::Decode(std::span(bytes).first(n), "cat");
    REQUIRE_FALSE(d.ok());
    CHECK(d.error().code() == ErrorCode::kCorrupt);
    CHECK(d.error().message().rfind("cat byte ", 0) == 0);
  }
  auto bad = bytes;
  const size_t array1 = format::kCatalogueHeaderSize;
  bad[array1 + format::kArNameLength] = std::byte{0};  // empty array name
  CHECK_FALSE(Catalogue::Decode(bad, "cat").ok());
  bad = bytes;
  bad[array1 + format::kArrayFixedSize + 6] = std::byte{42};  // unknown field type of the first field
  CHECK_FALSE(Catalogue::Decode(bad, "cat").ok());
  bad = bytes;
  bad[array1 + format::kArLevelCount] = std::byte{0};  // an array has at least one level
  CHECK_FALSE(Catalogue::Decode(bad, "cat").ok());
  bad = bytes;
  bad[array1 + format::kArProcessRootLocation] = std::byte{1};  // a process tree root's location, but no tree
  CHECK_FALSE(Catalogue::Decode(bad, "cat").ok());
}

TEST_CASE("catalogue: validation catches chains that contradict their counts or the file") {
  Catalogue c = Sample();
  c.chain_ids = 12;
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());  // chain ids 12 to 16 beyond 12 ids
  c = Sample();
  CHECK_FALSE(c.Validate(4096, 18, "t").ok());  // map leaf 18 beyond 18 pages
  c = Sample();
  c.arrays[0].levels[1].entries = 2;  // three full pages below need three entries
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.arrays[0].levels.pop_back();  // the top level may not have full pages
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.arrays[0].levels[0].shadow = kNoPage;  // 5 records in the open page need a shadow
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.arrays[0].levels[0].entries = 3 * 239;  // no open entries, but a shadow is named
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.free_pages.push_back(PageId(2));
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.arrays[0].levels[0].shadow_location = Location{};  // a shadow, but not where it is stored
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.heap.shadow = kNoPage;  // where a shadow is stored, but no shadow
  c.heap.entries = 0;
  c.heap.head = c.heap.open = kNoPage;
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c.heap.shadow_location = Location{};  // an empty heap
  CHECK(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.arrays[0].levels[0].shadow = PageId(9);  // a page of the chain
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.chain_ids = 15;  // level 1's open page is chain id 15
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.map_leaves = {PageId(14)};  // a free page
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
  c = Sample();
  c.map_leaves = {PageId(18), PageId(19)};  // 17 chain ids need one leaf of 338
  CHECK_FALSE(c.Validate(4096, 20, "t").ok());
}

TEST_CASE("superblock: round trip and each bad field is rejected") {
  Superblock s;
  s.page_size = 8192;
  s.generation = 7;
  s.page_count = 40;
  s.catalogue_head = PageId(5);
  s.catalogue_pages = 1;
  s.catalogue_bytes = 100;
  auto b = s.Encode();
  Result<Superblock> d = Superblock::Decode(b, "sb");
  REQUIRE(d.ok());
  CHECK(d->generation == 7);
  CHECK(d->page_size == 8192);
  CHECK(d->catalogue_head == PageId(5));
  for (size_t i = 0; i < b.size(); ++i) {
    auto flipped = b;
    flipped[i] ^= std::byte{1};
    CHECK_FALSE(Superblock::Decode(flipped, "sb").ok());
  }
  Superblock v = s;
  v.version = 9;
  auto vb = v.Encode();
  Result<Superblock> dv = Superblock::Decode(vb, "sb");
  REQUIRE_FALSE(dv.ok());
  CHECK(dv.error().code() == ErrorCode::kUnsupported);
  // A version 3 store (pages not compressed) is refused with what to do.
  v.version = 3;
  auto v3 = v.Encode();
  Result<Superblock> d3 = Superblock::Decode(v3, "sb");
  REQUIRE_FALSE(d3.ok());
  CHECK(d3.error().code() == ErrorCode::kUnsupported);
  CHECK(d3.error().message() ==
        "sb: format version 3, written by an older xtfq; this build reads versions 5 to 7 (pages compressed, index "
        "entries that say where their pages are). Re-import the original inputs into a new store: xtfq import "
        "INPUT... -o NEW.xtfq");
  // So is a version 4 store (index entries without their children's locations).
  v.version = 4;
  auto v4 = v.Encode();
  Result<Superblock> d4 = Superblock::Decode(v4, "sb");
  REQUIRE_FALSE(d4.ok());
  CHECK(d4.error().message().find("format version 4, written by an older xtfq; this build reads versions 5 to 7") !=
        std::string::npos);
  // A version 5 store (format 5's columns codecs) is read.
  v.version = 5;
  auto v5 = v.Encode();
  Result<Superblock> d5 = Superblock::Decode(v5, "sb");
  REQUIRE(d5.ok());
  CHECK(d5->version == 5);
  // An unknown codec is refused.
  Superblock c = s;
  c.codec = 7;
  auto cb = c.Encode();
  Result<Superblock> dc = Superblock::Decode(cb, "sb");
  REQUIRE_FALSE(dc.ok());
  CHECK(dc.error().code() == ErrorCode::kUnsupported);
  for (uint32_t p : {0u, 1000u, 2048u, 131072u}) {
    Superblock bad = s;
    bad.page_size = p;
    auto bb = bad.Encode();
    CHECK_FALSE(Superblock::Decode(bb, "sb").ok());
  }
}

TEST_CASE("schema: widths and offsets and value round trips and validation") {
  Result<Schema> s = Schema::Make({{"a", FieldType::kI8},
                                   {"b", FieldType::kU16},
                                   {"c", FieldType::kF64},
                                   {"d", FieldType::kI32},
                                   {"e", FieldType::kU64}},
                                  {"c", "e"});
  REQUIRE(s.ok());
  CHECK(s->record_width() == 1 + 2 + 8 + 4 + 8);
  CHECK(s->fields()[3].offset == 11);
  CHECK(s->Describe() == "a:i8 b:u16 c:f64* d:i32 e:u64*");
  Result<Schema> keyed =
      Schema::Make({{"t", FieldType::kI64}, {"p", FieldType::kI32}, {"v", FieldType::kF64}}, {"v"}, "t", "p");
  REQUIRE(keyed.ok());
  CHECK(keyed->Describe() == "t:i64@time p:i32@process v:f64*");
  CHECK_FALSE(Schema::Make({{"t", FieldType::kF64}}, {}, "t").ok());  // a time key is an integer
  CHECK_FALSE(Schema::Make({{"t", FieldType::kI64}}, {}, "x").ok());
  std::vector<std::byte> r(s->record_width());
  s->Set(r.data(), 0, int64_t{-5});
  s->Set(r.data(), 1, uint64_t{65535});
  s->Set(r.data(), 2, 2.5);
  s->Set(r.data(), 3, int64_t{-123456});
  s->Set(r.data(), 4, uint64_t{1} << 63);
  CHECK(std::get<int64_t>(s->Get(r.data(), 0)) == -5);
  CHECK(std::get<uint64_t>(s->Get(r.data(), 1)) == 65535);
  CHECK(std::get<double>(s->Get(r.data(), 2)) == 2.5);
  CHECK(std::get<int64_t>(s->Get(r.data(), 3)) == -123456);
  CHECK(std::get<uint64_t>(s->Get(r.data(), 4)) == uint64_t{1} << 63);
  CHECK(r[11] == std::byte{0xC0});  // -123456 = 0xFFFE1DC0, little-endian
  CHECK_FALSE(Schema::Make({}, {}).ok());
  CHECK_FALSE(Schema::Make({{"a", FieldType::kI8}, {"a", FieldType::kI8}}, {}).ok());
  CHECK_FALSE(Schema::Make({{"a", FieldType::kI8}}, {"b"}).ok());
  CHECK_FALSE(Schema::Make({{"a", FieldType::kI8}}, {"a", "a"}).ok());
  CHECK_FALSE(Schema::Make({{"", FieldType::kI8}}, {}).ok());
}

}  // namespace
}  // namespace xtfq

// StringHeapReader: strings of every length (empty, short, across heap pages, longer than a page)
// read back equal to what was added, and a reference past the heap is a clean error. Then, on stores
// in memory: length prefixes split across page edges, empty strings at edges, a heap that ends on a
// page edge, strings added across commits read from an older and a newer snapshot, offsets against
// hand-computed ones, exact page reads, and every kind of bad reference refused with a message
// that names the heap page and offset.
#include "index/string_heap_reader.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "query/core/store_reader.h"
#include "store/store_writer.h"
#include "tests/small_store.h"
#include "tests/temp_dir.h"

namespace xtfq {
namespace {

TEST_CASE("index: strings read back from the heap equal what was added") {
  test::TempDir dir;
  const std::string path = dir.File("s.xtfq");
  std::vector<std::string> want;
  std::vector<StringRef> refs;
  {
    auto w = StoreWriter::CreatePath(path);
    REQUIRE(w.ok());
    for (size_t len : {0, 1, 7, 100, 4000, 4096, 4097, 10000, 3, 70000}) {
      std::string s;
      for (size_t i = 0; i < len; ++i) s += static_cast<char>('a' + (i * 7 + len) % 26);
      auto ref = (*w)->AddString(s);
      REQUIRE(ref.ok());
      want.push_back(s), refs.push_back(*ref);
    }
    REQUIRE((*w)->Commit().ok());
  }
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  StringHeapReader heap((*reader)->cache(), (*reader)->store().catalogue().heap);
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(want[i].size());
    auto got = heap.Read(refs[i]);
    REQUIRE(got.ok());
    CHECK(*got == want[i]);
  }
  // A reference past the heap's end: an error that says so, never a crash or a wrong string.
  const StringRef past{PageId(1u << 24), 0};  // a page far past the file's end
  auto bad = heap.Read(past);
  CHECK(!bad.ok());
}

}  // namespace
}  // namespace xtfq

// Unit cases on stores in memory (tests/small_store.h). A heap page holds 4,064 bytes of the
// stream, so where each string starts follows by hand from the lengths before it.
namespace xtfq::test {
namespace {

constexpr uint64_t kHeapPage = 4096 - format::kPageHeaderSize;  // 4,064

std::string Text(size_t len, size_t seed) {
  std::string s(len, '\0');
  for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>((i * 131 + seed * 7) % 256);  // every byte value
  return s;
}

TEST_CASE("index: strings across heap page edges and commits read back equal at hand-computed offsets") {
  SmallStore store;
  struct Added {
    uint64_t pos;  // where its length prefix starts in the heap's stream
    std::string s;
    StringRef ref;
  };
  std::vector<Added> added;
  uint64_t pos = 0;
  auto add = [&](size_t len) {
    std::string s = Text(len, added.size());
    added.push_back(Added{pos, s, store.AddString(s)});
    pos += 4 + len;
    return added.size() - 1;
  };
  const size_t a = add(4059);        // 0..4062: the next prefix starts 1 byte before the edge
  const size_t b = add(10);          // prefix split 1 + 3 across the first edge
  add(2 * kHeapPage - 2 - pos - 4);  // filler up to 2 bytes before the second edge
  const size_t c = add(0);           // an empty string, its prefix split 2 + 2
  add(3 * kHeapPage - 3 - pos - 4);  // filler up to 3 bytes before the third edge
  const size_t d = add(5000);        // prefix split 3 + 1, then over a whole page
  add(5 * kHeapPage - 4 - pos - 4);  // filler up to 4 bytes before the fifth edge
  const size_t e = add(0);           // an empty string whose prefix ends the page exactly
  REQUIRE(pos == 5 * kHeapPage);     // the heap ends on a page edge: its open page is empty
  store.Commit();
  auto early = store.Open();            // this snapshot ends with e
  const size_t f = add(7);              // starts a page
  store.Commit();                       // f is on a shadow now
  const size_t g = add(3 * kHeapPage);  // from f's page over three more
  add(1);
  store.Commit();
  auto reader = store.Open();

  CHECK(added[b].pos == 4063);
  CHECK(added[c].pos == 2 * kHeapPage - 2);
  CHECK(added[d].pos == 3 * kHeapPage - 3);
  CHECK(added[e].pos == 5 * kHeapPage - 4);
  CHECK(added[f].pos == 5 * kHeapPage);
  std::map<uint64_t, PageId> page_of;  // heap page number -> the logical id refs name
  for (const Added& x : added) {
    CAPTURE(x.pos);
    CHECK(x.ref.offset == x.pos % kHeapPage);
    const auto it = page_of.emplace(x.pos / kHeapPage, x.ref.page).first;
    CHECK(it->second == x.ref.page);  // strings starting on one heap page name the same page
  }
  CHECK(page_of.size() == 6);  // heap pages 0 (a, b), 1 (c), 2 (d), 4 (e), 5 (f, g), 8 (the last)

  StringHeapReader heap(reader->cache(), reader->store().catalogue().heap);
  for (const Added& x : added) {
    CAPTURE(x.pos);
    auto got = heap.Read(x.ref);
    REQUIRE_MESSAGE(got.ok(), Why(got));
    CHECK(*got == x.s);
  }
  StringHeapReader old(early->cache(), early->store().catalogue().heap);
  for (size_t i = 0; i <= e; ++i) {
    auto got = old.Read(added[i].ref);
    REQUIRE_MESSAGE(got.ok(), Why(got));
    CHECK(*got == added[i].s);
  }
  CHECK(reader->cache().pinned_pages() == 0);

  // A string costs a read of each heap page it touches, and no more.
  auto reads = [&](size_t i) {
    return ColdReads(*reader, [&](PageCache& cache) {
      REQUIRE(StringHeapReader(cache, reader->store().catalogue().heap).Read(added[i].ref).ok());
    });
  };
  CHECK(reads(a) == 1);
  CHECK(reads(b) == 2);
  CHECK(reads(c) == 2);
  CHECK(reads(d) == 3);
  CHECK(reads(e) == 1);
  CHECK(reads(f) == 1);
  CHECK(reads(g) == 4);
}

TEST_CASE("index: bad string references are clean errors that name the page and offset") {
  SmallStore store;
  const ArrayId id = store.Create("rows", RowSchema());
  for (int64_t i = 0; i < 60; ++i) store.Append(id, Row{i, 0, i, 0});      // one full data page
  const StringRef alpha = store.AddString("alpha");                        // stream bytes 0..8
  const StringRef ones = store.AddString(std::string(8, '\xff'));          // 9..20
  const StringRef tail = store.AddString(std::string("\x10\0\0\0ab", 6));  // 21..30: inside, a length of 16
  store.Commit();
  auto reader = store.Open();
  const ChainDesc& chain = reader->store().catalogue().heap;
  REQUIRE(chain.entries == 31);
  REQUIRE(alpha.page == tail.page);
  StringHeapReader heap(reader->cache(), chain);
  REQUIRE(*heap.Read(alpha) == "alpha");
  REQUIRE(heap.Read(ones)->size() == 8);

  auto error = [&](StringRef ref) {
    auto r = heap.Read(ref);
    REQUIRE(!r.ok());
    CHECK(r.error().code() == ErrorCode::kCorrupt);
    return r.error().message();
  };
  const uint32_t p = alpha.page.value;
  auto says = [&](uint32_t page, uint16_t offset, const std::string& what) {
    return fmt::format("s.xtfq: string at heap page {} offset {}: {}", page, offset, what);
  };
  // Inside the 0xff bytes: a length of 2^32 - 1.
  CHECK(error(StringRef{alpha.page, 13}) == says(p, 13, "length 4294967295 exceeds the heap's 31 bytes"));
  // Inside the last string: a length of 16 with 2 bytes left.
  CHECK(error(StringRef{alpha.page, 25}) == says(p, 25, "runs past the end of the heap"));
  // At the end of the heap, and past the bytes of its page.
  CHECK(error(StringRef{alpha.page, 31}) == says(p, 31, "runs past the end of the heap"));
  CHECK(error(StringRef{alpha.page, 32}) == says(p, 32, "offset beyond the 31 bytes of the page"));
  CHECK(error(StringRef{alpha.page, 65535}) == says(p, 65535, "offset beyond the 31 bytes of the page"));
  // A page that is not the heap's: a data page, page 0, a page past the file.
  const uint32_t data = reader->Array("rows").value()->levels[0].head.value;
  CHECK(error(StringRef{PageId(data), 0}) == says(data, 0, fmt::format("page {} is not heap page {}", data, data)));
  CHECK(error(StringRef{kNoPage, 0}) == says(0, 0, "runs past the end of the heap"));
  CHECK(error(StringRef{PageId(1u << 24), 0}).find("page 16777216: the page map has no stored copy of it") !=
        std::string::npos);
  CHECK(reader->cache().pinned_pages() == 0);

  // A store without strings has an empty heap: every reference is refused.
  SmallStore bare;
  bare.Commit();
  auto empty = bare.Open();
  StringHeapReader none(empty->cache(), empty->store().catalogue().heap);
  for (const StringRef ref : {StringRef{kNoPage, 0}, StringRef{PageId(2), 0}, StringRef{PageId(3), 4}}) {
    CAPTURE(ref.page.value);
    auto r = none.Read(ref);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == ErrorCode::kCorrupt);
  }
}

}  // namespace
}  // namespace xtfq::test

// ChainCursor: the records of an array read back in append order, page by page, against what was
// appended (empty, one page, a page and one, many pages across commits); then, on stores in memory,
// entry() and index() against what was appended, pins and exact page reads, restart and end, the
// heap as a byte stream, and clean errors for a chain that is not what the cursor was told.
#include "index/chain_cursor.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "importers/events/event_record.h"
#include "query/core/store_reader.h"
#include "store/store_writer.h"
#include "tests/small_store.h"
#include "tests/temp_dir.h"

namespace xtfq {
namespace {

TEST_CASE("index: a chain cursor visits every record of an array in append order") {
  for (uint64_t n : {0ull, 1ull, 127ull, 128ull, 2000ull}) {  // 127 events fill a 4 KiB page
    CAPTURE(n);
    test::TempDir dir;
    const std::string path = dir.File("s.xtfq");
    std::vector<EventRecord> want;
    {
      auto w = StoreWriter::CreatePath(path);
      REQUIRE(w.ok());
      REQUIRE((*w)->CreateArray("events", EventRecord::StoreSchema()).ok());
      std::byte rec[32];
      for (uint64_t i = 0; i < n; ++i) {
        want.push_back(EventRecord{static_cast<int64_t>(10 * i), static_cast<int64_t>(i * 7),
                                   0.5 * static_cast<double>(i), static_cast<int32_t>(i % 5),
                                   static_cast<int32_t>(i % 2)});
        want.back().Encode(rec);
        REQUIRE((*w)->Append(ArrayId(1), rec).ok());
        if (i % 700 == 699) REQUIRE((*w)->Commit().ok());  // shadows and full pages across commits
      }
      REQUIRE((*w)->Commit().ok());
    }
    auto reader =
        StoreReader::Open(path, ReaderOptions{Backend::kPread, 4 * 4096});  // a small cache: pages come and go
    REQUIRE(reader.ok());
    auto array = (*reader)->Array("events");
    REQUIRE(array.ok());
    ChainCursor c = (*reader)->Records(**array);
    auto more = c.First();
    REQUIRE(more.ok());
    uint64_t got = 0;
    while (*more) {
      REQUIRE(got < want.size());
      CHECK(c.index() == got);
      const EventRecord r = EventRecord::Decode(c.entry());
      CHECK(r.t == want[got].t);
      CHECK(r.bytes == want[got].bytes);
      CHECK(r.rank == want[got].rank);
      ++got;
      more = c.Next();
      REQUIRE(more.ok());
    }
    CHECK(got == n);
  }
}

}  // namespace
}  // namespace xtfq

// Unit cases on stores in memory (tests/small_store.h: 80-byte rows, 50 per 4 KiB page): what
// entry() holds against what was appended, the cursor's index, pins and page reads through a
// cold cache, restarting, the end, the heap walked byte by byte, and a chain the cursor is not
// told the truth about.
namespace xtfq::test {
namespace {

std::vector<Row> CursorRows(uint64_t n) {
  std::vector<Row> rows;
  for (uint64_t i = 0; i < n; ++i)
    rows.push_back(Row{static_cast<int64_t>(5 * i), static_cast<int64_t>(i % 3), static_cast<int64_t>(i * i),
                       0.25 * static_cast<double>(i)});
  return rows;
}

TEST_CASE("index: a chain cursor reads each page once and pins one page at a time") {
  // 0, one record, one page exactly (no open entries), one page and one, six pages.
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{50}, uint64_t{51}, uint64_t{273}}) {
    CAPTURE(n);
    const std::vector<Row> rows = CursorRows(n);
    SmallStore store;
    const ArrayId id = store.Create("rows", RowSchema());
    for (uint64_t i = 0; i < n; ++i) {
      store.Append(id, rows[i]);
      if (i == 120) store.Commit();
    }
    store.Commit();
    auto reader = store.Open();
    const ArrayDesc& a = **reader->Array("rows");
    ChainCursor c = reader->Records(a);
    uint64_t seen = 0;
    Result<bool> more = c.First();
    REQUIRE_MESSAGE(more.ok(), Why(more));
    while (*more) {
      REQUIRE(seen < n);
      CHECK(c.index() == seen);
      CHECK(DecodeRow(c.entry()) == rows[seen]);
      CHECK(reader->cache().pinned_pages() == 1);
      ++seen;
      more = c.Next();
      REQUIRE_MESSAGE(more.ok(), Why(more));
    }
    CHECK(seen == n);
    CHECK(c.index() == n);
    CHECK(reader->cache().pinned_pages() == 0);  // the last page is let go at the end
    const uint64_t pages = (n + kRowsPerPage - 1) / kRowsPerPage;
    CHECK(reader->cache().stats().pages_read == pages);
    // Past the end it stays at the end.
    more = c.Next();
    REQUIRE(more.ok());
    CHECK_FALSE(*more);
    CHECK(c.index() == n);
    // First() starts over; the pages are resident now, so nothing more is read.
    more = c.First();
    REQUIRE(more.ok());
    CHECK(*more == (n > 0));
    CHECK(c.index() == 0);
    if (n > 0) CHECK(DecodeRow(c.entry()) == rows[0]);
    CHECK(reader->cache().stats().pages_read == pages);
  }
}

TEST_CASE("index: a chain cursor over the heap gives its byte stream") {
  SmallStore store;
  std::vector<std::byte> want;  // each string as its 4-byte length, then its bytes
  for (size_t len : {size_t{0}, size_t{9}, size_t{4059}, size_t{3}, size_t{9000}, size_t{1}}) {
    std::string s(len, '\0');
    for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>('A' + (i * 11 + len) % 26);
    store.AddString(s);
    std::byte prefix[4];
    StoreLe<uint32_t>(prefix, static_cast<uint32_t>(len));
    want.insert(want.end(), prefix, prefix + 4);
    for (char ch : s) want.push_back(static_cast<std::byte>(ch));
    if (len == 3) store.Commit();  // the open heap page is shadowed, then filled
  }
  store.Commit();
  auto reader = store.Open();
  const ChainDesc& heap = reader->store().catalogue().heap;
  REQUIRE(heap.entries == want.size());
  ChainCursor c(reader->cache(), heap, PageKind::kHeap, ArrayId(0), 1);
  std::vector<std::byte> got;
  for (Result<bool> more = c.First();; more = c.Next()) {
    REQUIRE_MESSAGE(more.ok(), Why(more));
    if (!*more) break;
    got.push_back(*c.entry());
  }
  CHECK(got == want);
  CHECK(reader->cache().stats().pages_read == (want.size() + 4063) / 4064);  // 4,064 payload bytes a page
}

TEST_CASE("index: a chain cursor told the wrong chain stops with a clean error") {
  SmallStore store;
  const ArrayId id = store.Create("rows", RowSchema());
  store.Create("other", RowSchema());
  store.Append(id, CursorRows(1013));  // a TN tree of three levels
  store.Commit();
  auto reader = store.Open();
  const ArrayDesc& a = **reader->Array("rows");
  REQUIRE(a.levels.size() == 3);
  auto first_error = [&](const ChainDesc& chain, PageKind kind, ArrayId array, uint32_t width) {
    ChainCursor c(reader->cache(), chain, kind, array, width);
    for (Result<bool> more = c.First();; more = c.Next()) {
      if (!more.ok()) return std::move(more).error();
      if (!*more) return Error(ErrorCode::kFailed, "no error");
    }
  };
  // Another array's id, and another kind: refused at the first page, naming it.
  const Error wrong_array = first_error(a.levels[0], PageKind::kData, ArrayId(2), kRowWidth);
  CHECK(wrong_array.code() == ErrorCode::kCorrupt);
  CHECK(wrong_array.message() ==
        fmt::format("s.xtfq: page {}: data page 0 of its chain: array id is 1, 2 expected", a.levels[0].head.value));
  const Error wrong_kind = first_error(a.levels[0], PageKind::kHeap, a.id, kRowWidth);
  CHECK(wrong_kind.code() == ErrorCode::kCorrupt);
  CHECK(wrong_kind.message().find("kind is data, heap expected") != std::string::npos);
  // A width that does not match the pages' entry count (another capacity).
  const Error wrong_width = first_error(a.levels[0], PageKind::kData, a.id, 40);
  CHECK(wrong_width.code() == ErrorCode::kCorrupt);
  CHECK(wrong_width.message().find("entry count is 50, 101 expected") != std::string::npos);
  // An index level: the cursor knows level 0 only (it has no level to expect), so it refuses
  // level 1 rather than give its entries.
  const Error index_level = first_error(a.levels[1], PageKind::kIndex, a.id, 20 + 8 * 32);
  CHECK(index_level.code() == ErrorCode::kCorrupt);
  CHECK(index_level.message().find("level is 1, 0 expected") != std::string::npos);
  CHECK(reader->cache().pinned_pages() == 0);
}

}  // namespace
}  // namespace xtfq::test

// ChainCursor: the records of an array read back in append order, page by page, against what was
// appended (empty, one page, a page and one, many pages across commits).
#include "index/chain_cursor.h"

#include <doctest/doctest.h>

#include <vector>

#include "importers/event_record.h"
#include "query/store_reader.h"
#include "store/store_writer.h"
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

// StoreReader at unit level, on stores in memory (tests/small_store.h): Array() finds arrays by name
// and its kNotFound message lists the arrays there are (never the per-process ones); ForEach and
// Records() give an array's records in append order across pages and commits and stop at fn's
// first error; ForEachAt, the RecordSource interface (store/record_source.h), gives exactly the
// records at positions [first, last) and stops when fn returns false or an error, reading one
// descent per leaf rather than the whole array; String() gives back what was added.
#include "query/core/store_reader.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "store/record_source.h"
#include "tests/small_store.h"

namespace xtfq::test {
namespace {

constexpr uint64_t kAlpha = 273;  // 5 full leaves of 50 and 23 records in the open one: height 2

// Three arrays: "alpha" (time and process, P index) with kAlpha rows over processes 0..3, "beta"
// (no time field) with 120 rows, and "empty"; a few strings; four commits.
struct Fixture {
  Fixture() {
    alpha_id = store.Create("alpha", RowSchema());
    beta_id = store.Create("beta", RowSchema(/*time=*/false, /*process=*/false));
    store.Create("empty", RowSchema());
    for (uint64_t i = 0; i < kAlpha; ++i) {
      alpha.push_back(Row{static_cast<int64_t>(10 * i + i % 3), static_cast<int64_t>(i % 4),
                          static_cast<int64_t>(i * i % 101), 0.25 * static_cast<double>(i % 9)});
      store.Append(alpha_id, alpha.back());
      if (i % 100 == 99) store.Commit();
    }
    for (int64_t i = 0; i < 120; ++i) {
      beta.push_back(Row{-i, 9, i, 1.5});
      store.Append(beta_id, beta.back());
    }
    for (const std::string& s : {std::string(), std::string("/lustre/run1/out.h5"), std::string(5000, 'q')}) {
      strings.emplace_back(store.AddString(s), s);
    }
    store.Commit();
    reader = store.Open();
  }

  SmallStore store;
  ArrayId alpha_id, beta_id;
  std::vector<Row> alpha, beta;
  std::vector<std::pair<StringRef, std::string>> strings;
  std::unique_ptr<StoreReader> reader;
};

TEST_CASE("query: store reader finds arrays by name and lists them when one is missing") {
  Fixture f;
  auto a = f.reader->Array("alpha");
  REQUIRE(a.ok());
  CHECK((*a)->name == "alpha");
  CHECK((*a)->id == f.alpha_id);
  CHECK((*a)->record_count() == kAlpha);
  CHECK((*a)->process_index);
  auto b = f.reader->Array("beta");
  REQUIRE(b.ok());
  CHECK((*b)->id == f.beta_id);
  CHECK((*b)->record_count() == 120);
  CHECK(f.reader->Array("empty").value()->record_count() == 0);

  // Per-process arrays exist (alpha has four) but are neither found by name nor listed.
  uint64_t per_process = 0;
  for (const ArrayDesc& d : f.reader->store().catalogue().arrays) per_process += d.per_process();
  CHECK(per_process == 4);
  for (const char* name : {"nope", "Alpha", "alph", "alpha ", "", "alpha[process 2]"}) {
    CAPTURE(name);
    auto missing = f.reader->Array(name);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == ErrorCode::kNotFound);
    CHECK(missing.error().message() == "s.xtfq: no array '" + std::string(name) + "' (arrays: alpha, beta, empty)");
  }

  SmallStore bare;
  bare.Commit();
  auto none = bare.Open()->Array("alpha");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code() == ErrorCode::kNotFound);
  CHECK(none.error().message() == "s.xtfq: no array 'alpha' (arrays: none)");
}

TEST_CASE("query: store reader for each gives records in append order and stops at the first error") {
  Fixture f;
  for (const auto& [name, want] : {std::pair{"alpha", &f.alpha}, std::pair{"beta", &f.beta}}) {
    CAPTURE(name);
    const ArrayDesc& a = **f.reader->Array(name);
    std::vector<Row> got;
    const Status s = f.reader->ForEach(a, [&](const std::byte* r) {
      got.push_back(DecodeRow(r));
      return Ok();
    });
    REQUIRE_MESSAGE(s.ok(), Why(s));
    CHECK(got == *want);
    // The same through the cursor.
    std::vector<Row> cursor;
    ChainCursor c = f.reader->Records(a);
    for (auto more = c.First(); more.ok() && *more; more = c.Next()) cursor.push_back(DecodeRow(c.entry()));
    CHECK(cursor == *want);
  }
  uint64_t calls = 0;
  REQUIRE(f.reader
              ->ForEach(**f.reader->Array("empty"),
                        [&](const std::byte*) -> Status {
                          ++calls;
                          return Ok();
                        })
              .ok());
  CHECK(calls == 0);

  calls = 0;
  const Status s = f.reader->ForEach(**f.reader->Array("alpha"), [&](const std::byte*) -> Status {
    if (++calls == 77) return Error(ErrorCode::kCorrupt, "bad record 76");
    return Ok();
  });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code() == ErrorCode::kCorrupt);
  CHECK(s.error().message() == "bad record 76");
  CHECK(calls == 77);
  CHECK(f.reader->cache().pinned_pages() == 0);
}

TEST_CASE("query: store reader for each at gives positions first to last and stops early") {
  Fixture f;
  RecordSource& source = *f.reader;
  CHECK(&source.catalogue() == &f.reader->store().catalogue());
  const ArrayDesc& alpha = **f.reader->Array("alpha");
  const std::vector<uint64_t> edges = {0, 1, 49, 50, 51, 99, 100, 150, 249, 250, 251, 272, 273};
  for (uint64_t first : edges) {
    for (uint64_t last : edges) {
      if (first > last) continue;
      CAPTURE(first);
      CAPTURE(last);
      std::vector<Row> got;
      const Status s = source.ForEachAt(alpha, first, last, [&](const std::byte* r) -> Result<bool> {
        got.push_back(DecodeRow(r));
        return true;
      });
      REQUIRE_MESSAGE(s.ok(), Why(s));
      CHECK(got == std::vector<Row>(f.alpha.begin() + static_cast<ptrdiff_t>(first),
                                    f.alpha.begin() + static_cast<ptrdiff_t>(last)));
    }
  }
  // Returning false after k records: exactly k calls, from `first` on, and success.
  for (uint64_t k : {uint64_t{1}, uint64_t{2}, uint64_t{30}, uint64_t{31}, uint64_t{200}}) {
    CAPTURE(k);
    std::vector<Row> got;
    const Status s = source.ForEachAt(alpha, 20, kAlpha, [&](const std::byte* r) -> Result<bool> {
      got.push_back(DecodeRow(r));
      return got.size() < k;
    });
    REQUIRE(s.ok());
    CHECK(got == std::vector<Row>(f.alpha.begin() + 20, f.alpha.begin() + 20 + static_cast<ptrdiff_t>(k)));
  }
  // An error from fn ends the walk and comes back unchanged.
  uint64_t calls = 0;
  const Status s = source.ForEachAt(alpha, 45, 60, [&](const std::byte*) -> Result<bool> {
    if (++calls == 8) return Error(ErrorCode::kInvalidArgument, "enough");
    return true;
  });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message() == "enough");
  CHECK(calls == 8);
  // An array without a time field, and a per-process array, by position as well.
  std::vector<Row> got;
  REQUIRE(source
              .ForEachAt(**f.reader->Array("beta"), 48, 53,
                         [&](const std::byte* r) -> Result<bool> {
                           got.push_back(DecodeRow(r));
                           return true;
                         })
              .ok());
  CHECK(got == std::vector<Row>(f.beta.begin() + 48, f.beta.begin() + 53));
  const ArrayDesc* p3 = nullptr;
  for (const ArrayDesc& d : source.catalogue().arrays) {
    if (d.per_process() && d.parent == alpha.id && d.process == 3) p3 = &d;
  }
  REQUIRE(p3 != nullptr);
  std::vector<Row> want3;
  for (const Row& r : f.alpha) {
    if (r.p == 3) want3.push_back(r);
  }
  got.clear();
  REQUIRE(source
              .ForEachAt(*p3, 10, 40,
                         [&](const std::byte* r) -> Result<bool> {
                           got.push_back(DecodeRow(r));
                           return true;
                         })
              .ok());
  CHECK(got == std::vector<Row>(want3.begin() + 10, want3.begin() + 40));
  CHECK(f.reader->cache().pinned_pages() == 0);
}

TEST_CASE("query: store reader for each at reads one descent per leaf and no more") {
  Fixture f;
  const ArrayDesc& alpha = **f.reader->Array("alpha");
  REQUIRE(alpha.levels.size() == 2);
  // A fresh reader per case: its cache is cold and its counters at zero.
  auto reads = [&](uint64_t first, uint64_t last, uint64_t stop_after) {
    auto r = f.store.Open();
    CHECK(r->cache().stats().pages_read == 0);
    uint64_t seen = 0;
    REQUIRE(r->ForEachAt(**r->Array("alpha"), first, last, [&](const std::byte*) -> Result<bool> {
               return ++seen < stop_after;
             }).ok());
    return r->cache().stats().pages_read;
  };
  CHECK(reads(260, 261, 100) == 2);          // the root, then the open leaf
  CHECK(reads(0, kAlpha, 1) == 2);           // stopped at once: one descent
  CHECK(reads(45, 55, 100) == 3);            // the root and leaves 0 and 1
  CHECK(reads(0, kAlpha, UINT64_MAX) == 7);  // the root and all six leaves
  CHECK(reads(100, 100, 100) == 0);
}

TEST_CASE("query: store reader gives strings back as a record source") {
  Fixture f;
  RecordSource& source = *f.reader;
  for (const auto& [ref, want] : f.strings) {
    CAPTURE(want.size());
    auto got = source.String(ref);
    REQUIRE_MESSAGE(got.ok(), Why(got));
    CHECK(*got == want);
  }
  // The heap starts on its first page: the first string's prefix at offset 0, the next after its 4 bytes.
  CHECK(f.strings[0].first.offset == 0);
  CHECK(f.strings[1].first.page == f.strings[0].first.page);
  CHECK(f.strings[1].first.offset == 4);
  CHECK(f.strings[2].first.offset == 4 + 4 + 19);
}

TEST_CASE("query: store reader refuses a file that is not a store") {
  auto disk = std::make_shared<MemDisk>();
  auto empty = StoreReader::Open(std::make_unique<MemFile>("empty.xtfq", disk));
  CHECK_FALSE(empty.ok());
  disk->SetContents(std::vector<std::byte>(3 * 4096, std::byte{0x5a}));
  auto junk = StoreReader::Open(std::make_unique<MemFile>("junk.xtfq", disk));
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.error().message().find("junk.xtfq") != std::string::npos);
}

}  // namespace
}  // namespace xtfq::test

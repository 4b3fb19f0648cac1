// TnTree at unit level, on a small tree of three levels whose shape is known by hand (1,013
// records of 80 bytes: 50 per leaf, 14 entries per index page; tests/small_store.h), with runs of
// equal times across leaf edges, across an index-page edge and over whole leaves: LowerBound for
// every time in and around the data, Record for every position, Aggregate over every pair of
// interesting positions against a naive sum, ForEach over sub-ranges with early stop and errors,
// and exact page reads from a cold cache (Record and LowerBound read the height; hand-counted
// Aggregate and ForEach cases). Also the empty tree, a one-page tree, an array without a time
// field (keys are record numbers) and Bucket/BucketStart against hand-computed values.
// tests/tn_tree_test.cpp is the cross-layer counterpart: random sizes up to 3x10^5, both backends,
// three cache budgets, the checker.
#include "index/tn_tree.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tests/small_store.h"

namespace xtfq::test {
namespace {

constexpr uint64_t kN = 1013;  // 20 full leaves and 13 records in the open one

// Times step by 3 (so t + 1 and t + 2 hold no record), except inside runs of equal times: around
// every leaf edge (positions 48..52 repeat position 47), over leaves 7 and 8 whole (300..420), across
// the edge between the first and second level-1 pages at position 700 (690..760), and at the end.
bool Repeats(uint64_t i) {
  const uint64_t in_leaf = i % kRowsPerPage;
  return i > 0 && (in_leaf >= 48 || in_leaf <= 2 || (i >= 300 && i < 420) || (i >= 690 && i < 760) || i >= 1005);
}

std::vector<Row> TallRows(uint64_t n) {
  std::vector<Row> rows;
  int64_t t = 100;
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0 && !Repeats(i)) t += 3;
    rows.push_back(Row{t, static_cast<int64_t>(i % 5), static_cast<int64_t>((i * 7919) % 1000) - 500,
                       0.25 * static_cast<double>((i * 31) % 64)});
  }
  return rows;
}

// A store with one array "rows" holding `rows`, committed every `commit_every` records and at the end.
struct Built {
  SmallStore store;
  std::unique_ptr<StoreReader> reader;
  const ArrayDesc* array = nullptr;
};

void Build(Built& b, const std::vector<Row>& rows, const Schema& schema, uint64_t commit_every = 400) {
  const ArrayId id = b.store.Create("rows", schema);
  for (uint64_t i = 0; i < rows.size(); ++i) {
    b.store.Append(id, rows[i]);
    if (i % commit_every == commit_every - 1) b.store.Commit();
  }
  b.store.Commit();
  b.reader = b.store.Open();
  auto a = b.reader->Array("rows");
  REQUIRE_MESSAGE(a.ok(), Why(a));
  b.array = *a;
}

Naive NaiveOf(const std::vector<Row>& rows, uint64_t lo, uint64_t hi) {
  Naive n;
  for (uint64_t i = lo; i < std::min<uint64_t>(hi, rows.size()); ++i) n.Add(rows[i]);
  return n;
}

// Positions at and around every edge of the tree's shape, and past its end.
std::vector<uint64_t> EdgePositions() {
  return {0,   1,   2,   49,  50,  51,  99,  100,  101,  299,  300,  349,  350,
          419, 420, 699, 700, 701, 760, 999, 1000, 1001, 1012, 1013, 1014, 5000};
}

TEST_CASE("index: the test tree has the shape the page counts below assume") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  TnTree tree(b.reader->cache(), *b.array);
  CHECK(tree.size() == kN);
  REQUIRE(tree.height() == 3);
  CHECK(b.array->levels[0].entries == kN);
  CHECK(b.array->levels[1].entries == 20);  // one per full leaf
  CHECK(b.array->levels[2].entries == 1);   // one per full level-1 page
  // The duplicate runs are where they are meant to be.
  CHECK(rows[47].t == rows[52].t);
  CHECK(rows[46].t + 3 == rows[47].t);
  CHECK(rows[300].t == rows[419].t);
  CHECK(rows[689].t == rows[759].t);
  CHECK(rows[1004].t == rows[1012].t);
}

TEST_CASE("index: lower bound with duplicate times at page edges equals std lower_bound for every time") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  std::vector<int64_t> times;
  for (const Row& r : rows) times.push_back(r.t);
  TnTree tree(b.reader->cache(), *b.array);
  auto want = [&](int64_t t) {
    return static_cast<uint64_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  };
  for (int64_t t = times.front() - 4; t <= times.back() + 4; ++t) {
    CAPTURE(t);
    auto got = tree.LowerBound(t);
    REQUIRE_MESSAGE(got.ok(), Why(got));
    CHECK(*got == want(t));
  }
  // Hand-computed: the run over leaves 7 and 8 starts at 297 (positions 298..302 repeat 297's time
  // across the edge at 300), and the first time past the end gives the size.
  CHECK(*tree.LowerBound(rows[300].t) == 297);
  CHECK(*tree.LowerBound(rows[700].t) == 689);
  CHECK(*tree.LowerBound(rows[50].t) == 47);
  CHECK(*tree.LowerBound(rows[50].t + 1) == 53);
  CHECK(*tree.LowerBound(INT64_MIN) == 0);
  CHECK(*tree.LowerBound(INT64_MAX) == kN);
  CHECK(*tree.LowerBound(rows.back().t) == 1004);
  CHECK(*tree.LowerBound(rows.back().t + 1) == kN);
  CHECK(b.reader->cache().pinned_pages() == 0);
}

TEST_CASE("index: record n of a small tree equals the n-th row appended for every n") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  TnTree tree(b.reader->cache(), *b.array);
  std::vector<std::byte> out(kRowWidth);
  for (uint64_t n = 0; n < kN; ++n) {
    CAPTURE(n);
    const Status s = tree.Record(n, out);
    REQUIRE_MESSAGE(s.ok(), Why(s));
    CHECK(DecodeRow(out.data()) == rows[n]);
  }
  const Status past = tree.Record(kN, out);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().code() == ErrorCode::kInvalidArgument);
  CHECK(past.error().message() == "record 1013 of array 'rows', which has 1013");
}

TEST_CASE("index: record and lower bound read exactly the tree height from a cold cache") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  const ArrayDesc& a = *b.array;
  std::vector<std::byte> out(kRowWidth);
  for (uint64_t n = 0; n < kN; ++n) {
    CAPTURE(n);
    const uint64_t reads = ColdReads(*b.reader, [&](PageCache& c) { REQUIRE(TnTree(c, a).Record(n, out).ok()); });
    CHECK(reads == 3);
  }
  for (uint64_t n : EdgePositions()) {
    const int64_t t = n < kN ? rows[n].t : rows.back().t + 1;
    CAPTURE(t);
    CHECK(ColdReads(*b.reader, [&](PageCache& c) { REQUIRE(TnTree(c, a).LowerBound(t).ok()); }) == 3);
  }
}

TEST_CASE("index: aggregate over position ranges equals a naive sum for every pair of edge positions") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  const ArrayDesc& a = *b.array;
  TnTree tree(b.reader->cache(), a);
  for (uint64_t lo : EdgePositions()) {
    for (uint64_t hi : EdgePositions()) {
      CAPTURE(lo);
      CAPTURE(hi);
      auto got = tree.Aggregate(lo, hi);
      REQUIRE_MESSAGE(got.ok(), Why(got));
      const std::string diff = Differs(*got, NaiveOf(rows, lo, hi));
      CHECK_MESSAGE(diff.empty(), diff);
      // Never more than two pages per level below the root.
      CHECK(ColdReads(*b.reader, [&](PageCache& c) { REQUIRE(TnTree(c, a).Aggregate(lo, hi).ok()); }) <= 2 * 3 - 1);
    }
  }
  CHECK(b.reader->cache().pinned_pages() == 0);
}

TEST_CASE("index: aggregate reads only the pages a range straddles (hand-counted)") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  const ArrayDesc& a = *b.array;
  auto reads = [&](uint64_t lo, uint64_t hi) {
    return ColdReads(*b.reader, [&](PageCache& c) {
      auto s = TnTree(c, a).Aggregate(lo, hi);
      REQUIRE(s.ok());
      CHECK(Differs(*s, NaiveOf(rows, lo, hi)).empty());
    });
  };
  CHECK(reads(0, kN) == 1);     // the root's two entries (one a right edge) cover everything
  CHECK(reads(0, 700) == 1);    // exactly the root's first entry
  CHECK(reads(50, 100) == 2);   // exactly leaf 1: root, then its entry in the first level-1 page
  CHECK(reads(60, 70) == 3);    // inside leaf 1: one descent
  CHECK(reads(60, 120) == 4);   // leaves 1 and 2 under one level-1 page
  CHECK(reads(690, 710) == 5);  // leaves 13 and 14 under two level-1 pages: two per level below the root
  CHECK(reads(10, 10) == 0);    // empty: nothing read
  CHECK(reads(20, 10) == 0);
  CHECK(reads(kN, kN + 5) == 0);
}

TEST_CASE("index: for each and scan visit sub-ranges in order and stop early when told") {
  const std::vector<Row> rows = TallRows(kN);
  Built b;
  Build(b, rows, RowSchema());
  const ArrayDesc& a = *b.array;
  TnTree tree(b.reader->cache(), a);
  for (const bool scan : {false, true}) {
    CAPTURE(scan);
    // Scan reads the leaves ahead on a second thread; ForEach descends to each.
    auto walk = [&](uint64_t lo, uint64_t hi, const std::function<Result<bool>(const std::byte*)>& fn) {
      return scan ? tree.Scan(lo, hi, fn) : tree.ForEach(lo, hi, fn);
    };
    for (uint64_t lo : EdgePositions()) {
      for (uint64_t hi :
           {uint64_t{0}, uint64_t{1}, uint64_t{50}, uint64_t{51}, uint64_t{700}, uint64_t{701}, kN, kN + 9}) {
        CAPTURE(lo);
        CAPTURE(hi);
        std::vector<Row> got;
        const Status s = walk(lo, hi, [&](const std::byte* r) -> Result<bool> {
          got.push_back(DecodeRow(r));
          return true;
        });
        REQUIRE_MESSAGE(s.ok(), Why(s));
        const uint64_t end = std::min(hi, kN);
        const std::vector<Row> want(rows.begin() + static_cast<ptrdiff_t>(std::min(lo, end)),
                                    rows.begin() + static_cast<ptrdiff_t>(end));
        CHECK(got == want);
      }
    }
    // Stop after k records: fn is called exactly k times, from lo on, and ForEach succeeds.
    for (uint64_t k : {uint64_t{1}, uint64_t{3}, uint64_t{50}, uint64_t{51}, uint64_t{400}}) {
      CAPTURE(k);
      std::vector<Row> got;
      const Status s = walk(40, kN, [&](const std::byte* r) -> Result<bool> {
        got.push_back(DecodeRow(r));
        return got.size() < k;
      });
      REQUIRE(s.ok());
      CHECK(got == std::vector<Row>(rows.begin() + 40, rows.begin() + 40 + static_cast<ptrdiff_t>(k)));
    }
    // An error from fn stops the walk and is returned as it is.
    uint64_t calls = 0;
    const Status s = walk(0, kN, [&](const std::byte*) -> Result<bool> {
      if (++calls == 60) return Error(ErrorCode::kInvalidArgument, "stop at 60");
      return true;
    });
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code() == ErrorCode::kInvalidArgument);
    CHECK(s.error().message() == "stop at 60");
    CHECK(calls == 60);
    CHECK(b.reader->cache().pinned_pages() == 0);
  }

  // Page reads from a cold cache: one descent per leaf page visited.
  auto reads = [&](uint64_t lo, uint64_t hi, uint64_t stop_after) {
    return ColdReads(*b.reader, [&](PageCache& c) {
      uint64_t seen = 0;
      REQUIRE(TnTree(c, a).ForEach(lo, hi, [&](const std::byte*) -> Result<bool> { return ++seen < stop_after; }).ok());
    });
  };
  CHECK(reads(0, kN, 1) == 3);            // stopped at the first record: one descent
  CHECK(reads(45, 55, 100) == 4);         // leaves 0 and 1 under one level-1 page
  CHECK(reads(0, kN, UINT64_MAX) == 24);  // every page of the tree: 21 leaves, 2 level-1 pages, the root
  CHECK(reads(30, 30, 100) == 0);
  // A scan reads the index pages through the cache and the leaves beside it: the root and the
  // two level-1 pages, or one of them for a range under it.
  auto scan_reads = [&](uint64_t lo, uint64_t hi) {
    return ColdReads(*b.reader, [&](PageCache& c) {
      REQUIRE(TnTree(c, a).Scan(lo, hi, [&](const std::byte*) -> Result<bool> { return true; }).ok());
    });
  };
  CHECK(scan_reads(0, kN) == 3);
  CHECK(scan_reads(45, 55) == 2);
  CHECK(scan_reads(30, 30) == 0);
}

TEST_CASE("index: an empty tree and a one-page tree") {
  SUBCASE("empty") {
    Built b;
    Build(b, {}, RowSchema());
    const ArrayDesc& a = *b.array;
    TnTree tree(b.reader->cache(), a);
    CHECK(tree.size() == 0);
    CHECK(*tree.LowerBound(0) == 0);
    CHECK(*tree.LowerBound(INT64_MAX) == 0);
    CHECK(Differs(*tree.Aggregate(0, 10), Naive{}).empty());
    uint64_t calls = 0;
    REQUIRE(tree.ForEach(0, 10, [&](const std::byte*) -> Result<bool> { return ++calls > 0; }).ok());
    CHECK(calls == 0);
    auto h = tree.Histogram(0, 100, 4);
    REQUIRE(h.ok());
    REQUIRE(h->size() == 4);
    for (const Summary& s : *h) CHECK(s.count == 0);
    std::vector<std::byte> out(kRowWidth);
    const Status r = tree.Record(0, out);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == ErrorCode::kInvalidArgument);
    CHECK(r.error().message() == "record 0 of array 'rows', which has 0");
    CHECK(ColdReads(*b.reader, [&](PageCache& c) {
            TnTree t(c, a);
            REQUIRE(t.LowerBound(5).ok());
            REQUIRE(t.Aggregate(0, 5).ok());
            REQUIRE(t.Histogram(0, 5, 2).ok());
          }) == 0);
  }
  SUBCASE("one page") {
    const std::vector<Row> rows = TallRows(7);  // times 100, 100, 100, 103, 106, 109, 112
    Built b;
    Build(b, rows, RowSchema());
    const ArrayDesc& a = *b.array;
    TnTree tree(b.reader->cache(), a);
    REQUIRE(tree.height() == 1);
    CHECK(*tree.LowerBound(100) == 0);
    CHECK(*tree.LowerBound(101) == 3);
    CHECK(*tree.LowerBound(rows[6].t) == 6);
    CHECK(*tree.LowerBound(rows[6].t + 1) == 7);
    std::vector<std::byte> out(kRowWidth);
    for (uint64_t n = 0; n < 7; ++n) {
      REQUIRE(tree.Record(n, out).ok());
      CHECK(DecodeRow(out.data()) == rows[n]);
      CHECK(ColdReads(*b.reader, [&](PageCache& c) { REQUIRE(TnTree(c, a).Record(n, out).ok()); }) == 1);
    }
    for (uint64_t lo = 0; lo <= 8; ++lo) {
      for (uint64_t hi = 0; hi <= 8; ++hi) CHECK(Differs(*tree.Aggregate(lo, hi), NaiveOf(rows, lo, hi)).empty());
    }
  }
}

TEST_CASE("index: without a time field the key is the record number") {
  // Times that are not in order are fine when t is not the time field; keys are positions 0..n-1.
  std::vector<Row> rows;
  for (int64_t i = 0; i < 123; ++i) rows.push_back(Row{1000 - 7 * i, 0, i, 0.5});
  Built b;
  Build(b, rows, RowSchema(/*time=*/false, /*process=*/false), 60);
  TnTree tree(b.reader->cache(), *b.array);
  REQUIRE(tree.height() == 2);
  for (int64_t t = -3; t <= 126; ++t) {
    CAPTURE(t);
    CHECK(*tree.LowerBound(t) == static_cast<uint64_t>(std::clamp<int64_t>(t, 0, 123)));
  }
  CHECK(*tree.LowerBound(INT64_MIN) == 0);
  CHECK(*tree.LowerBound(INT64_MAX) == 123);
  // Keys 10..109 in four buckets of 25 positions.
  auto h = tree.Histogram(10, 110, 4);
  REQUIRE(h.ok());
  for (uint32_t k = 0; k < 4; ++k) {
    CAPTURE(k);
    CHECK(Differs((*h)[k], NaiveOf(rows, 10 + 25 * k, 35 + 25 * k)).empty());
  }
}

TEST_CASE("index: bucket and bucket start against hand-computed values") {
  // [0, 10) in 3 buckets: [0, 4), [4, 7), [7, 10) (bucket = floor(t * 3 / 10)).
  const uint32_t want[10] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
  for (int64_t t = 0; t < 10; ++t) CHECK(TnTree::Bucket(t, 0, 10, 3) == want[t]);
  CHECK(TnTree::BucketStart(0, 0, 10, 3) == 0);
  CHECK(TnTree::BucketStart(1, 0, 10, 3) == 4);
  CHECK(TnTree::BucketStart(2, 0, 10, 3) == 7);
  CHECK(TnTree::BucketStart(3, 0, 10, 3) == 10);
  // More buckets than keys: [0, 5) in 8 buckets; keys land in buckets 0, 1, 3, 4, 6.
  const uint32_t want8[5] = {0, 1, 3, 4, 6};
  for (int64_t t = 0; t < 5; ++t) CHECK(TnTree::Bucket(t, 0, 5, 8) == want8[t]);
  CHECK(TnTree::BucketStart(2, 0, 5, 8) == 2);  // ceil(2 * 5 / 8) = 2, and bucket 2 is empty: Bucket(2) = 3
  // The whole int64 range without overflow: 4 buckets of 2^62 (the span is 2^64 - 1).
  CHECK(TnTree::Bucket(INT64_MIN, INT64_MIN, INT64_MAX, 4) == 0);
  CHECK(TnTree::Bucket(-1, INT64_MIN, INT64_MAX, 4) == 1);  // floor((2^65 - 4) / (2^64 - 1)) = 1
  CHECK(TnTree::Bucket(0, INT64_MIN, INT64_MAX, 4) == 2);   // floor(2^65 / (2^64 - 1)) = 2
  CHECK(TnTree::Bucket(INT64_MAX - 1, INT64_MIN, INT64_MAX, 4) == 3);
  CHECK(TnTree::BucketStart(1, INT64_MIN, INT64_MAX, 4) == -(int64_t{1} << 62));  // INT64_MIN + ceil(2^62 - 1/4)
  CHECK(TnTree::BucketStart(2, INT64_MIN, INT64_MAX, 4) == 0);                    // INT64_MIN + ceil(2^63 - 1/2)
  CHECK(TnTree::BucketStart(4, INT64_MIN, INT64_MAX, 4) == INT64_MAX);
}

}  // namespace
}  // namespace xtfq::test

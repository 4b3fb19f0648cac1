// ProcessTree at unit level: process trees of one, two and three levels (5, 40 and 200 processes at
// 14 entries per page; tests/small_store.h) over ids that are negative, far apart, at both ends of
// int64, on both sides of the writer's dense table (65535, 65536) and with gaps between them.
// Range against the sorted ids of the model, Totals against a naive per-process sum, for every
// pair of bounds at and around the level-0 page edges; page reads from a cold cache against what
// the header promises (Range: one descent, then the level-0 pages from the one holding the last key
// <= p1 to the one holding the first key >= p2; Totals: at most two pages per level below the
// root), and hand-counted cases. The per-process arrays named hold their process's rows in order.
#include "index/process_tree.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "tests/small_store.h"

namespace xtfq::test {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// `n` distinct process ids in the order their processes first appear: awkward ones first, then
// ids 1000, 1013, 1026, ...
std::vector<int64_t> Ids(size_t n) {
  std::vector<int64_t> ids = {-5,
                              0,
                              7,
                              65536,
                              -(int64_t{1} << 40),
                              65535,
                              kMin,
                              -1,
                              1,
                              2,
                              8,
                              100,
                              -70000,
                              65534,
                              70001,
                              int64_t{1} << 33,
                              kMax - 1,
                              -65536,
                              int64_t{1} << 62};
  for (int64_t k = 0; ids.size() < n; ++k) ids.push_back(1000 + 13 * k);
  ids.resize(n);
  return ids;
}

// Rows in time order over the processes `ids`: four rounds, process k taking part in the first
// 1 + k % 4 of them, so processes interleave and hold 1 to 4 rows each.
std::vector<Row> ProcessRows(const std::vector<int64_t>& ids) {
  std::vector<Row> rows;
  int64_t t = 0;
  for (int64_t round = 0; round < 4; ++round) {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (round < 1 + static_cast<int64_t>(k % 4))
        rows.push_back(Row{t++, ids[k], static_cast<int64_t>((k * 37 + static_cast<size_t>(round) * 11) % 200) - 100,
                           0.25 * static_cast<double>((k + static_cast<size_t>(round)) % 16)});
    }
  }
  return rows;
}

int64_t Plus(int64_t a, int64_t d) {  // a + d, saturated to int64
  if (d > 0 && a > kMax - d) return kMax;
  if (d < 0 && a < kMin - d) return kMin;
  return a + d;
}

// A process window [p1, p2); p2 == INT64_MAX is its open end (process INT64_MAX is in).
bool In(int64_t p, int64_t p1, int64_t p2) { return p >= p1 && (p2 == INT64_MAX || p < p2); }
bool Empty(int64_t p1, int64_t p2) { return p1 > p2 || (p1 == p2 && p2 != INT64_MAX); }

struct Tree {
  explicit Tree(size_t processes) : ids(Ids(processes)), rows(ProcessRows(ids)) {
    const ArrayId id = store.Create("rows", RowSchema());
    for (size_t i = 0; i < rows.size(); ++i) {
      store.Append(id, rows[i]);
      if (i == rows.size() / 2) store.Commit();  // the tree is rebuilt at the next commit
    }
    store.Commit();
    reader = store.Open();
    array = *reader->Array("rows");
    sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    for (const Row& r : rows) ++count[r.p];
  }
  // Bounds at and around the ids at the edges of level-0 pages, in gaps, and at both ends.
  std::vector<int64_t> Bounds() const {
    std::vector<int64_t> b = {kMin, kMax, -3, 3, 500};
    const size_t n = sorted.size();
    for (size_t i : {size_t{0}, size_t{1}, size_t{kEntriesPerPage - 1}, size_t{kEntriesPerPage},
                     size_t{kEntriesPerPage + 1}, size_t{2 * kEntriesPerPage}, n - 2, n - 1}) {
      if (i >= n) continue;
      for (int64_t d : {-1, 0, 1}) b.push_back(Plus(sorted[i], d));
    }
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
  }
  size_t Lower(int64_t p) const {
    return static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), p) - sorted.begin());
  }
  size_t Upper(int64_t p) const {
    return static_cast<size_t>(std::upper_bound(sorted.begin(), sorted.end(), p) - sorted.begin());
  }
  // Range's page reads as the header describes them: the levels above 0 once, then the level-0
  // pages from the one holding the last key <= p1 (the first page when none) to the one holding
  // the first key >= p2 (the last page when none). Every level-0 page but the last is full.
  uint64_t RangeReads(int64_t p1, int64_t p2, uint64_t height) const {
    if (Empty(p1, p2)) return 0;
    const size_t u = Upper(p1), l = Lower(p2);
    const uint64_t first = u == 0 ? 0 : (u - 1) / kEntriesPerPage;
    const uint64_t last = (l < sorted.size() ? l : sorted.size() - 1) / kEntriesPerPage;
    return (height - 1) + (last - first + 1);
  }

  SmallStore store;
  std::vector<int64_t> ids, sorted;
  std::vector<Row> rows;
  std::map<int64_t, uint64_t> count;
  std::unique_ptr<StoreReader> reader;
  const ArrayDesc* array = nullptr;
};

void CheckTree(size_t processes, uint16_t levels) {
  CAPTURE(processes);
  Tree tr(processes);
  const ArrayDesc& a = *tr.array;
  const Catalogue& cat = tr.reader->store().catalogue();
  REQUIRE(a.process_index);
  ProcessTree tree(tr.reader->cache(), cat, a);
  REQUIRE(tree.height() == levels);
  for (int64_t p1 : tr.Bounds()) {
    for (int64_t p2 : tr.Bounds()) {
      CAPTURE(p1);
      CAPTURE(p2);
      std::vector<int64_t> want;
      for (int64_t id : tr.sorted) {
        if (In(id, p1, p2)) want.push_back(id);
      }
      auto got = tree.Range(p1, p2);
      REQUIRE_MESSAGE(got.ok(), Why(got));
      REQUIRE(got->size() == want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        const ArrayDesc* pa = (*got)[i];
        CHECK(pa->per_process());
        CHECK(pa->parent == a.id);
        CHECK(pa->process == want[i]);
        CHECK(pa->record_count() == tr.count[want[i]]);
      }
      Naive naive;
      for (const Row& r : tr.rows) {
        if (In(r.p, p1, p2)) naive.Add(r);
      }
      auto totals = tree.Totals(p1, p2);
      REQUIRE_MESSAGE(totals.ok(), Why(totals));
      const std::string diff = Differs(*totals, naive);
      CHECK_MESSAGE(diff.empty(), diff);

      const uint64_t range_reads =
          ColdReads(*tr.reader, [&](PageCache& c) { REQUIRE(ProcessTree(c, cat, a).Range(p1, p2).ok()); });
      CHECK(range_reads == tr.RangeReads(p1, p2, levels));
      const uint64_t totals_reads =
          ColdReads(*tr.reader, [&](PageCache& c) { REQUIRE(ProcessTree(c, cat, a).Totals(p1, p2).ok()); });
      CHECK(totals_reads <= (Empty(p1, p2) ? 0u : 2u * levels - 1));
    }
  }
  CHECK(tr.reader->cache().pinned_pages() == 0);

  // Each per-process array holds its process's rows, in order.
  auto all = tree.Range(kMin, kMax);
  REQUIRE(all.ok());
  for (const ArrayDesc* pa : *all) {
    CAPTURE(pa->process);
    std::vector<Row> want, got;
    for (const Row& r : tr.rows) {
      if (r.p == pa->process) want.push_back(r);
    }
    REQUIRE(tr.reader
                ->ForEach(*pa,
                          [&](const std::byte* r) {
                            got.push_back(DecodeRow(r));
                            return Ok();
                          })
                .ok());
    CHECK(got == want);
  }
}

TEST_CASE("index: process tree range and totals over negative and far-apart ids at one level") { CheckTree(5, 1); }

TEST_CASE("index: process tree range and totals at two levels") { CheckTree(40, 2); }

TEST_CASE("index: process tree range and totals at three levels") { CheckTree(200, 3); }

TEST_CASE("index: process tree page reads in hand-counted cases") {
  Tree tr(40);  // level 0: pages of ids sorted[0..13], [14..27], [28..39]; one root above them
  const ArrayDesc& a = *tr.array;
  const Catalogue& cat = tr.reader->store().catalogue();
  REQUIRE(a.process_levels == 2);
  const auto& s = tr.sorted;
  auto totals = [&](int64_t p1, int64_t p2) {
    return ColdReads(*tr.reader, [&](PageCache& c) { REQUIRE(ProcessTree(c, cat, a).Totals(p1, p2).ok()); });
  };
  auto range = [&](int64_t p1, int64_t p2) {
    return ColdReads(*tr.reader, [&](PageCache& c) { REQUIRE(ProcessTree(c, cat, a).Range(p1, p2).ok()); });
  };
  CHECK(totals(s[14], s[28]) == 1);  // exactly the second level-0 page: its root entry
  CHECK(totals(kMin, s[28]) == 1);   // the first two pages
  CHECK(totals(s[15], s[27]) == 2);  // inside the second page: root, then that page
  CHECK(totals(s[13], s[15]) == 3);  // across the first edge: root and both pages
  CHECK(totals(s[20], s[20]) == 0);  // empty
  CHECK(range(s[15], s[16]) == 2);   // root, then the second page, which holds the end too
  CHECK(range(s[3], s[30]) == 4);    // root and all three level-0 pages
  CHECK(range(s[39], kMax) == 2);    // root, last page
  CHECK(range(s[30], s[3]) == 0);    // reversed: nothing read
}

TEST_CASE("index: a process-indexed array without records has an empty process tree") {
  SmallStore store;
  store.Create("rows", RowSchema());
  store.Commit();
  auto reader = store.Open();
  const ArrayDesc& a = **reader->Array("rows");
  REQUIRE(a.process_index);
  CHECK(a.process_root == kNoPage);
  ProcessTree tree(reader->cache(), reader->store().catalogue(), a);
  CHECK(tree.height() == 0);
  auto r = tree.Range(kMin, kMax);
  REQUIRE(r.ok());
  CHECK(r->empty());
  auto t = tree.Totals(kMin, kMax);
  REQUIRE(t.ok());
  CHECK(Differs(*t, Naive{}).empty());
  CHECK(reader->cache().stats().pages_read == 0);
}

}  // namespace
}  // namespace xtfq::test

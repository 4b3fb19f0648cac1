// ArrayWindowQuery at unit level, over a small store of three-level trees (tests/small_store.h):
// the statistics of a time window and process range against rows summed one by one, the moments
// against a two-pass mean and deviation, the buckets of a histogram against the documented
// formula floor((t - T1) B / (T2 - T1)), the index against the scan; the array chosen by name or as
// the only one; and the refusals (buckets over an open window, a range without a process field, an
// array the store does not hold).
#include "query/arrays/array_window_query.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tests/small_store.h"

namespace xtfq::test {
namespace {

// Times 10 apart from 100, process i % 7, v and w varied; 900 rows span three tree levels.
std::vector<Row> Rows() {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 900; ++i)
    rows.push_back(Row{100 + 10 * i, i % 7, (i * 7919) % 1000 - 500, 0.25 * static_cast<double>((i * 31) % 64)});
  return rows;
}

struct Fixture {
  explicit Fixture(bool process = true) : rows(Rows()) {
    const ArrayId id = store.Create("rows", RowSchema(true, process));
    store.Append(id, rows);
    store.Commit();
    reader = store.Open();
  }
  Naive Model(int64_t t1, int64_t t2, int64_t p1, int64_t p2) const {
    Naive n;
    for (const Row& r : rows)
      if (r.t >= t1 && r.t < t2 && r.p >= p1 && r.p < p2) n.Add(r);
    return n;
  }
  SmallStore store;
  std::vector<Row> rows;
  std::unique_ptr<StoreReader> reader;
};

// Summary of the answer's stats, rebuilt for Differs.
Summary Back(const ArrayWindowStats& s) {
  Summary out;
  out.count = s.count;
  for (const ArrayFieldAnswer& f : s.fields) out.fields.push_back(f.stats);
  return out;
}

}  // namespace

TEST_CASE("array window: statistics of a window and a process range, against rows summed one by one") {
  Fixture f;
  struct Case {
    std::string time, ranks;
    int64_t t1, t2, p1, p2;
  };
  const std::vector<Case> cases = {{":", "", INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX},
                                   {"1000:5005", "", 1000, 5005, INT64_MIN, INT64_MAX},
                                   {"1000:5005", "2:5", 1000, 5005, 2, 5},
                                   {"0:100", "", 0, 100, INT64_MIN, INT64_MAX},
                                   {"2000:2000", "", 2000, 2000, INT64_MIN, INT64_MAX}};
  for (const Case& c : cases) {
    for (const bool scan : {false, true}) {
      CAPTURE(c.time);
      CAPTURE(c.ranks);
      CAPTURE(scan);
      ArrayWindowRequest q;
      q.time = c.time, q.ranks = c.ranks, q.scan = scan;
      auto a = ArrayWindowQuery::Run(*f.reader, q);
      REQUIRE_MESSAGE(a.ok(), Why(a));
      CHECK(a->array == "rows");
      CHECK(!a->histogram);
      const Naive n = f.Model(c.t1, c.t2, c.p1, c.p2);
      CHECK_MESSAGE(Differs(Back(a->whole), n).empty(), Differs(Back(a->whole), n));
      REQUIRE(a->whole.fields.size() == 8);
      const ArrayFieldAnswer& v = a->whole.fields[0];
      CHECK(v.name == "v");
      if (n.count == 0) {
        CHECK(std::isnan(v.mean));
        continue;
      }
      // Two passes: the mean, then the mean square deviation from it.
      const double mean = static_cast<double>(n.v_sum) / static_cast<double>(n.count);
      double dev = 0;
      for (const Row& r : f.rows)
        if (r.t >= c.t1 && r.t < c.t2 && r.p >= c.p1 && r.p < c.p2)
          dev += (static_cast<double>(r.v) - mean) * (static_cast<double>(r.v) - mean);
      CHECK(v.mean == doctest::Approx(mean));
      CHECK(v.stddev == doctest::Approx(std::sqrt(dev / static_cast<double>(n.count))));
      CHECK(v.percentiles.empty());  // RowSchema has no distributions
      CHECK(!a->has_percentiles);
    }
  }
}

TEST_CASE("array window: a histogram's buckets follow floor((t - T1) B / (T2 - T1))") {
  Fixture f;
  const int64_t t1 = 333, t2 = 7777;
  const uint32_t buckets = 13;
  for (const bool scan : {false, true}) {
    ArrayWindowRequest q;
    q.time = "333:7777", q.ranks = "1:4", q.buckets = buckets, q.scan = scan;
    auto a = ArrayWindowQuery::Run(*f.reader, q);
    REQUIRE_MESSAGE(a.ok(), Why(a));
    REQUIRE(a->histogram);
    REQUIRE(a->buckets.size() == buckets);
    std::vector<Naive> model(buckets);
    for (const Row& r : f.rows) {
      if (r.t < t1 || r.t >= t2 || r.p < 1 || r.p >= 4) continue;
      model[static_cast<size_t>((r.t - t1) * buckets / (t2 - t1))].Add(r);
    }
    // Each bucket's start: the first time the formula puts in it, found by walking every time.
    std::vector<int64_t> starts(buckets + 1, t2);
    for (int64_t t = t2 - 1; t >= t1; --t) starts[static_cast<size_t>((t - t1) * buckets / (t2 - t1))] = t;
    for (uint32_t b = 0; b < buckets; ++b) {
      CAPTURE(b);
      CHECK(Differs(Back(a->buckets[b].stats), model[b]).empty());
      CHECK(a->buckets[b].start == starts[b]);
      CHECK(a->buckets[b].end == starts[b + 1]);
    }
  }
}

TEST_CASE("array window: the array chosen, and the refusals") {
  Fixture f(/*process=*/false);
  ArrayWindowRequest q;
  auto only = ArrayWindowQuery::Choose(*f.reader, "");
  REQUIRE_MESSAGE(only.ok(), Why(only));
  CHECK((*only)->name == "rows");
  q.array = "events";
  CHECK(ArrayWindowQuery::Run(*f.reader, q).error().code() == ErrorCode::kNotFound);
  q.array = "rows", q.ranks = "0:3";
  const auto no_process = ArrayWindowQuery::Run(*f.reader, q);
  REQUIRE(!no_process.ok());
  CHECK(no_process.error().code() == ErrorCode::kUsage);
  CHECK(no_process.error().message().find("no process field") != std::string::npos);
  q.ranks = "", q.time = "500:", q.buckets = 4;
  const auto open = ArrayWindowQuery::Run(*f.reader, q);
  REQUIRE(!open.ok());
  CHECK(open.error().message() == "--buckets needs a bounded --time T1:T2");
  q.time = "9:3", q.buckets = 0;
  CHECK(ArrayWindowQuery::Run(*f.reader, q).error().code() == ErrorCode::kUsage);
}

}  // namespace xtfq::test

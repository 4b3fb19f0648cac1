// The TN tree against a naive model (a sorted vector of events): LowerBound, Record and Aggregate
// over random keys and ranges inside, across and outside the data, with duplicate times, for
// sizes 0, 1, a page's worth, a page plus one and larger ones, over both backends and cache
// budgets of 1 page, 16 pages and unlimited. With a cold cache, page reads stay within the
// bounds of a descent: H for LowerBound and Record, 2H for Aggregate, and no descent reads the page
// map (index entries and chain descriptors say where each page is stored). And xtfq's checker
// fails, naming the page, when an index entry's count, aggregate or child's location is altered.
#include "index/tn_tree.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>

#include "importers/events/event_record.h"
#include "query/core/primitives.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/posix_file.h"
#include "store/store_checker.h"
#include "store/store_writer.h"
#include "tests/temp_dir.h"
#include "tests/why.h"

namespace xtfq::test {
namespace {

std::vector<EventRecord> Events(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<EventRecord> v;
  int64_t t = 1000;
  for (uint64_t i = 0; i < n; ++i) {
    t += (rng() % 4 == 0) ? 0 : static_cast<int64_t>(rng() % 50);  // a quarter repeat the time before
    v.push_back(EventRecord{t, static_cast<int64_t>(rng() % 100000), static_cast<double>(rng() % 1000) / 64.0,
                            static_cast<int32_t>(rng() % 16), static_cast<int32_t>(rng() % 2)});
  }
  return v;
}

// Writes the events with a few commits and a writer restart in between.
void Build(const std::string& path, const std::vector<EventRecord>& ev, uint64_t seed, Codec codec = Codec::kLz4) {
  std::mt19937_64 rng(seed);
  StoreOptions options;
  options.codec = codec;
  auto w = StoreWriter::CreatePath(path, options);
  REQUIRE(w.ok());
  REQUIRE((*w)->CreateArray("events", EventRecord::StoreSchema()).ok());
  std::byte rec[32];
  for (size_t i = 0; i < ev.size(); ++i) {
    ev[i].Encode(rec);
    Status s = (*w)->Append(ArrayId(1), rec);
    if (!s.ok()) FAIL(s.error().message());
    if (rng() % 5000 == 0) {
      REQUIRE((*w)->Commit().ok());
      if (rng() % 2 == 0) {
        w = Error(ErrorCode::kFailed, "closed");
        w = StoreWriter::OpenPath(path, options);
        REQUIRE(w.ok());
      }
    }
  }
  REQUIRE((*w)->Commit().ok());
}

// The naive model of a run of events: the Summary of any range [lo, hi) of them, as summing them
// one by one gives it (exactly for bytes, their squares and the durations, which are multiples of
// 1/64), from prefix sums and a min-max segment tree built once, so that a query costs O(log n)
// instead of a re-sum of every record.
class RangeModel {
 public:
  explicit RangeModel(const std::vector<EventRecord>& ev) : n_(ev.size()), tree_(2 * ev.size()) {
    bytes_.push_back(0), squares_.push_back(0), dur_.push_back(0);
    for (size_t i = 0; i < n_; ++i) {
      bytes_.push_back(bytes_.back() + ev[i].bytes);
      squares_.push_back(squares_.back() + ev[i].bytes * ev[i].bytes);
      dur_.push_back(dur_.back() + ev[i].dur);
      tree_[n_ + i] = Extremes{ev[i].bytes, ev[i].bytes, ev[i].dur, ev[i].dur};
    }
    for (size_t i = n_; i-- > 1;) tree_[i] = Join(tree_[2 * i], tree_[2 * i + 1]);
  }

  Summary Range(uint64_t lo, uint64_t hi) const {
    Summary s(EventRecord::StoreSchema());
    hi = std::min<uint64_t>(hi, n_);
    if (lo >= hi) return s;
    s.count = hi - lo;
    FieldStats& bytes = s.fields[0];
    FieldStats& dur = s.fields[1];
    bytes.i_sum = bytes_[hi] - bytes_[lo];
    bytes.sumsq = static_cast<double>(squares_[hi] - squares_[lo]);
    dur.f_sum = dur_[hi] - dur_[lo];
    Extremes e;
    for (size_t l = lo + n_, r = hi + n_; l < r; l /= 2, r /= 2) {  // the bottom-up segment tree walk
      if (l & 1) e = Join(e, tree_[l++]);
      if (r & 1) e = Join(e, tree_[--r]);
    }
    bytes.i_min = e.i_min, bytes.i_max = e.i_max, dur.f_min = e.f_min, dur.f_max = e.f_max;
    return s;
  }

 private:
  struct Extremes {
    int64_t i_min = INT64_MAX, i_max = INT64_MIN;
    double f_min = INFINITY, f_max = -INFINITY;
  };
  static Extremes Join(const Extremes& a, const Extremes& b) {
    return {std::min(a.i_min, b.i_min), std::max(a.i_max, b.i_max), std::min(a.f_min, b.f_min),
            std::max(a.f_max, b.f_max)};
  }

  size_t n_;
  std::vector<int64_t> bytes_, squares_;  // prefix sums (squares of bytes < 10^5: < 2^63 for 10^7 events)
  std::vector<double> dur_;               // prefix sums of multiples of 1/64: exact
  std::vector<Extremes> tree_;            // tree_[n + i] is event i; tree_[k] joins 2k and 2k + 1
};

// The Summary of records [lo, hi) summed one by one: what RangeModel must equal (checked on a few
// ranges of each case, as the model itself is checked).
Summary Resum(const std::vector<EventRecord>& ev, uint64_t lo, uint64_t hi) {
  Summary s(EventRecord::StoreSchema());
  std::byte rec[32];
  for (uint64_t i = lo; i < std::min<uint64_t>(hi, ev.size()); ++i) {
    ev[i].Encode(rec);
    s.Add(EventRecord::StoreSchema(), rec);
  }
  return s;
}

bool Close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

void Same(const Summary& got, const Summary& want) {
  REQUIRE(got.count == want.count);
  if (want.count == 0) return;
  CHECK(got.fields[0].i_sum == want.fields[0].i_sum);  // bytes: integers, exact
  CHECK(got.fields[0].i_min == want.fields[0].i_min);
  CHECK(got.fields[0].i_max == want.fields[0].i_max);
  CHECK(Close(got.fields[0].sumsq, want.fields[0].sumsq));
  CHECK(Close(got.fields[1].f_sum, want.fields[1].f_sum));  // dur: doubles summed in another order
  CHECK(got.fields[1].f_min == want.fields[1].f_min);
  CHECK(got.fields[1].f_max == want.fields[1].f_max);
}

// A store of n generated events with its model: the events, their times, and random times a
// little beyond both ends.
struct TreeCase {
  TreeCase(uint64_t n, uint64_t seed) : path(dir.File("t.xtfq")), ev(Events(n, seed)), model(ev), rng(seed * 17) {
    Build(path, ev, seed);
    for (const auto& e : ev) times.push_back(e.t);
    t_lo = times.empty() ? 0 : times.front();
    t_hi = times.empty() ? 10 : times.back();
  }
  int64_t RandomTime() { return t_lo - 50 + static_cast<int64_t>(rng() % static_cast<uint64_t>(t_hi - t_lo + 100)); }
  // Runs `f` on a reader of the store for every backend and cache budget (1 page, 16, unlimited).
  template <class F>
  void ForEachConfig(F&& f) {
    for (Backend backend : {Backend::kPread, Backend::kMmap}) {
      for (size_t pages : {size_t{1}, size_t{16}, size_t{0}}) {
        CAPTURE(ev.size());
        CAPTURE(static_cast<int>(backend));
        CAPTURE(pages);
        auto reader =
            StoreReader::Open(path, ReaderOptions{backend, pages == 0 ? PageCache::kUnlimited : pages * 4096});
        REQUIRE_MESSAGE(reader.ok(), Why(reader));
        f(**reader);
        CHECK((*reader)->cache().pinned_pages() == 0);
        CHECK((*reader)->cache().CheckInvariants().ok());
      }
    }
  }
  uint64_t Lower(int64_t t) const {
    return static_cast<uint64_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  }

  TempDir dir;
  std::string path;
  std::vector<EventRecord> ev;
  RangeModel model;
  std::vector<int64_t> times;
  std::mt19937_64 rng;
  int64_t t_lo = 0, t_hi = 0;
};

void RunTree(uint64_t n, uint64_t seed) {
  TreeCase tc(n, seed);
  const std::string& path = tc.path;
  const auto& ev = tc.ev;
  const auto& times = tc.times;
  auto& rng = tc.rng;
  auto random_time = [&] { return tc.RandomTime(); };
  for (int q = 0; q < 8; ++q) {  // the model against the re-sum
    uint64_t lo = rng() % (n + 2), hi = q == 0 ? n : rng() % (n + 2);
    if (lo > hi) std::swap(lo, hi);
    Same(tc.model.Range(q == 0 ? 0 : lo, hi), Resum(ev, q == 0 ? 0 : lo, hi));
  }

  tc.ForEachConfig([&](StoreReader& reader) {
    const ArrayDesc& a = *reader.Array("events").value();
    TnTree tree(reader.cache(), a);
    REQUIRE(tree.size() == n);
    for (int q = 0; q < 200; ++q) {
      const int64_t t = q % 10 == 0 && !times.empty() ? times[rng() % times.size()] : random_time();
      Result<uint64_t> lb = tree.LowerBound(t);
      REQUIRE_MESSAGE(lb.ok(), Why(lb));
      CHECK(*lb == tc.Lower(t));
      if (n > 0) {
        const uint64_t k = rng() % n;
        std::byte rec[32];
        REQUIRE(tree.Record(k, rec).ok());
        CHECK(EventRecord::Decode(rec) == ev[k]);
      }
      uint64_t lo = n == 0 ? 0 : rng() % (n + 2), hi = n == 0 ? 3 : rng() % (n + 2);
      if (lo > hi) std::swap(lo, hi);
      if (q % 7 == 0) {
        lo = 0;
        hi = n;
      }
      Result<Summary> s = tree.Aggregate(lo, hi);
      REQUIRE_MESSAGE(s.ok(), Why(s));
      Same(*s, tc.model.Range(lo, hi));
    }
  });
  // Page reads from a cold cache: one descent per LowerBound or Record, two for Aggregate.
  auto reader = StoreReader::Open(path, ReaderOptions{Backend::kPread, PageCache::kUnlimited});
  REQUIRE(reader.ok());
  const ArrayDesc& a = *(*reader)->Array("events").value();
  const uint64_t h = a.levels.size();
  for (int q = 0; q < 50; ++q) {
    auto src = (*reader)->store().MakeSource(Backend::kPread);
    REQUIRE(src.ok());
    {
      PageCache c(**src, PageCache::kUnlimited);
      TnTree tree(c, a);
      REQUIRE(tree.LowerBound(random_time()).ok());
      CHECK(c.stats().pages_read <= h);
    }
    {
      PageCache c(**src, PageCache::kUnlimited);
      TnTree tree(c, a);
      uint64_t lo = n == 0 ? 0 : rng() % n, hi = n == 0 ? 0 : rng() % (n + 1);
      if (lo > hi) std::swap(lo, hi);
      REQUIRE(tree.Aggregate(lo, hi).ok());
      CHECK(c.stats().pages_read <= 2 * h);
      if (n > 0) {
        PageCache c2(**src, PageCache::kUnlimited);
        TnTree t2(c2, a);
        std::byte rec[32];
        REQUIRE(t2.Record(rng() % n, rec).ok());
        CHECK(c2.stats().pages_read <= h);
      }
    }
  }
  // Every page came from its parent's index entry or its chain descriptor, never from the map.
  CHECK((*reader)->store().page_map().leaf_reads() == 0);
  StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
  CHECK_MESSAGE(rep.ok(), Why(rep));
}

TEST_CASE("tn tree: lower bound and record and aggregate equal a sorted vector at every size") {
  const uint64_t page = PageCapacity(4096, 32);  // 127 records
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, page - 1, page, page + 1, 48 * page, 48 * page + 1, uint64_t{20000}}) {
    RunTree(n, n + 1);
  }
}

TEST_CASE("tn tree: a large tree of 300000 events") { RunTree(300000, 7); }

void RunPrimitives(uint64_t n, uint64_t seed) {
  TreeCase tc(n, seed);
  const std::string& path = tc.path;
  const auto& ev = tc.ev;
  auto& rng = tc.rng;
  auto random_time = [&] { return tc.RandomTime(); };
  auto lower = [&](int64_t t) { return tc.Lower(t); };
  tc.ForEachConfig([&](StoreReader& reader) {
    Primitives p(reader.cache(), *reader.Array("events").value());
    for (int q = 0; q < 60; ++q) {
      int64_t t1 = random_time(), t2 = random_time();
      if (t1 > t2) std::swap(t1, t2);
      if (q % 9 == 0) {
        t1 = INT64_MIN;
        t2 = INT64_MAX;
      }
      const uint64_t lo = lower(t1), hi = lower(t2);
      Result<uint64_t> size = p.Size(t1, t2);
      REQUIRE(size.ok());
      CHECK(*size == (t1 < t2 ? hi - lo : 0));
      if (q % 4 == 0) CHECK(*p.ScanSize(t1, t2) == *size);
      Result<Summary> agg = p.Aggregate(t1, t2);
      REQUIRE(agg.ok());
      Same(*agg, tc.model.Range(lo, hi));
      if (q % 4 == 0) Same(*p.ScanAggregate(t1, t2), tc.model.Range(lo, hi));
      Result<Cursor> c = p.Search(t1);
      REQUIRE(c.ok());
      CHECK(c->position == lo);
      CHECK(c->at_end() == (lo == n));
      if (!c->at_end()) CHECK(EventRecord::Decode(c->record.data()) == ev[lo]);
      if (q % 4 == 0) CHECK(p.ScanSearch(t1)->position == lo);
      const int64_t step = static_cast<int64_t>(rng() % (2 * n + 3)) - static_cast<int64_t>(n + 1);
      Result<Cursor> nx = p.Next(*c, step);
      REQUIRE(nx.ok());
      const int64_t want = std::clamp<int64_t>(static_cast<int64_t>(lo) + step, 0, static_cast<int64_t>(n));
      CHECK(nx->position == static_cast<uint64_t>(want));
      if (!nx->at_end()) CHECK(EventRecord::Decode(nx->record.data()) == ev[static_cast<size_t>(want)]);
      if (q % 10 == 0 && t1 < t2 && t1 > INT64_MIN) {
        const uint32_t buckets = 1 + static_cast<uint32_t>(rng() % 40);
        Result<std::vector<Summary>> h = p.Histogram(t1, t2, buckets);
        Result<std::vector<Summary>> hs = p.ScanHistogram(t1, t2, buckets);
        REQUIRE(h.ok());
        REQUIRE(hs.ok());
        REQUIRE(h->size() == buckets);
        for (uint32_t b = 0; b < buckets; ++b) {
          CAPTURE(b);
          Same((*h)[b], (*hs)[b]);
          // Bucket b holds exactly the records whose Bucket() is b.
          const int64_t b0 = Primitives::BucketStart(b, t1, t2, buckets),
                        b1 = Primitives::BucketStart(b + 1, t1, t2, buckets);
          CHECK((*h)[b].count == lower(b1) - lower(b0));
        }
      }
    }
  });
  // Page reads from a cold cache, whatever the window or step.
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  const ArrayDesc& a = *(*reader)->Array("events").value();
  const uint64_t h = a.levels.size();
  auto src = (*reader)->store().MakeSource(Backend::kPread);
  REQUIRE(src.ok());
  for (int q = 0; q < 40; ++q) {
    int64_t t1 = random_time(), t2 = random_time();
    if (t1 > t2) std::swap(t1, t2);
    auto reads = [&](auto&& op) {
      PageCache c(**src, PageCache::kUnlimited);
      Primitives p(c, a);
      REQUIRE(op(p));
      return c.stats().pages_read;
    };
    CHECK(reads([&](Primitives& p) { return p.Search(t1).ok(); }) <= 2 * h);  // descent, then the record
    CHECK(reads([&](Primitives& p) { return p.Size(t1, t2).ok(); }) <= 2 * h + 2);
    CHECK(reads([&](Primitives& p) { return p.Aggregate(t1, t2).ok(); }) <= 2 * h + 2);
    const int64_t step = static_cast<int64_t>(rng() % (2 * n + 3)) - static_cast<int64_t>(n + 1);
    CHECK(reads([&](Primitives& p) { return p.Next(Cursor{n / 2, {}}, step).ok(); }) <= 2 * h + 2);
    if (t1 < t2) {
      const uint32_t buckets = 1 + static_cast<uint32_t>(rng() % 100);
      CHECK(reads([&](Primitives& p) { return p.Histogram(t1, t2, buckets).ok(); }) <= buckets * (2 * h + 2));
    }
  }
}

TEST_CASE("primitives: search and size and next and aggregate and histogram equal the scan and the model") {
  const uint64_t page = PageCapacity(4096, 32);
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, page, page + 1, 48 * page + 1, uint64_t{30000}}) RunPrimitives(n, n + 5);
}

// Events over `processes` distinct process ids, some negative and some far apart; the first
// `sole_prefix` of them all of the first id (a sole-process array until the next one comes).
std::vector<EventRecord> ProcessEvents(uint64_t n, uint64_t seed, uint32_t processes, uint64_t sole_prefix) {
  std::vector<int32_t> ids;
  for (uint32_t i = 0; ids.size() < processes; ++i)
    ids.push_back(i % 5 == 4 ? 70000 + static_cast<int32_t>(i) * 1000 : static_cast<int32_t>(i) - 3);
  std::vector<EventRecord> v = Events(n, seed);
  std::mt19937_64 rng(seed ^ 0x5555);
  for (auto& e : v) e.rank = ids[rng() % ids.size()];
  for (uint64_t i = 0; i < std::min<uint64_t>(sole_prefix, n); ++i) v[i].rank = ids[0];
  return v;
}

void RunProcessWindows(uint64_t n, uint32_t processes, uint64_t seed, uint64_t sole_prefix = 0) {
  CAPTURE(n);
  CAPTURE(processes);
  CAPTURE(sole_prefix);
  TempDir dir;
  const std::string path = dir.File("p.xtfq");
  const std::vector<EventRecord> ev = ProcessEvents(n, seed, processes, sole_prefix);
  Build(path, ev, seed);
  std::mt19937_64 rng(seed * 31);
  std::vector<int64_t> ids;
  for (const auto& e : ev) ids.push_back(e.rank);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const int64_t t_lo = ev.empty() ? 0 : ev.front().t, t_hi = ev.empty() ? 10 : ev.back().t;
  auto random_time = [&] { return t_lo - 50 + static_cast<int64_t>(rng() % static_cast<uint64_t>(t_hi - t_lo + 100)); };
  auto random_process = [&]() -> int64_t {
    if (ids.empty() || rng() % 8 == 0) return static_cast<int64_t>(rng() % 200000) - 100;
    return ids[rng() % ids.size()] + static_cast<int64_t>(rng() % 3) - 1;
  };
  // The model: each process's events in time order with their RangeModel; a window is the merge
  // of each process's time range.
  struct ProcessModel {
    std::vector<EventRecord> events;
    std::vector<int64_t> times;
    std::optional<RangeModel> model;
  };
  std::map<int64_t, ProcessModel> by_process;
  for (const auto& e : ev) by_process[e.rank].events.push_back(e);
  for (auto& [id, m] : by_process) {
    for (const auto& e : m.events) m.times.push_back(e.t);
    m.model.emplace(m.events);
  }
  auto naive = [&](int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
    Summary s(EventRecord::StoreSchema());
    if (t1 >= t2) return s;
    for (auto it = by_process.lower_bound(p1); it != by_process.end() && it->first < p2; ++it) {
      const std::vector<int64_t>& times = it->second.times;
      const auto lo = static_cast<uint64_t>(std::lower_bound(times.begin(), times.end(), t1) - times.begin());
      const auto hi = static_cast<uint64_t>(std::lower_bound(times.begin(), times.end(), t2) - times.begin());
      s.Merge(it->second.model->Range(lo, hi));
    }
    return s;
  };
  for (Backend backend : {Backend::kPread, Backend::kMmap}) {
    for (size_t pages : {size_t{1}, size_t{16}, size_t{0}}) {
      CAPTURE(static_cast<int>(backend));
      CAPTURE(pages);
      auto reader = StoreReader::Open(path, ReaderOptions{backend, pages == 0 ? PageCache::kUnlimited : pages * 4096});
      REQUIRE_MESSAGE(reader.ok(), Why(reader));
      const ArrayDesc& a = *(*reader)->Array("events").value();
      REQUIRE(a.process_index);
      CHECK(a.sole_process == (ids.size() == 1));
      Primitives p((*reader)->cache(), a, &(*reader)->store().catalogue());
      for (int q = 0; q < 40; ++q) {
        int64_t t1 = random_time(), t2 = random_time(), p1 = random_process(), p2 = random_process();
        if (t1 > t2) std::swap(t1, t2);
        if (p1 > p2) std::swap(p1, p2);
        if (q % 5 == 0) t1 = INT64_MIN, t2 = INT64_MAX;  // whole run: the process tree's totals
        if (q % 7 == 0) p1 = INT64_MIN;
        if (q % 11 == 0) p2 = INT64_MAX;
        CAPTURE(t1);
        CAPTURE(t2);
        CAPTURE(p1);
        CAPTURE(p2);
        const Summary want = naive(t1, t2, p1, p2);
        Result<Summary> got = p.Aggregate(t1, t2, p1, p2);
        REQUIRE_MESSAGE(got.ok(), Why(got));
        Same(*got, want);
        Result<uint64_t> size = p.Size(t1, t2, p1, p2);
        REQUIRE(size.ok());
        CHECK(*size == want.count);
        if (q % 4 == 0) CHECK(*p.ScanSize(t1, t2, p1, p2) == want.count);
        const int64_t lo = static_cast<int64_t>(std::lower_bound(ids.begin(), ids.end(), p1) - ids.begin());
        const int64_t hi = static_cast<int64_t>(std::lower_bound(ids.begin(), ids.end(), p2) - ids.begin());
        CHECK(*p.ProcessCount(p1, p2) == static_cast<uint64_t>(std::max<int64_t>(0, hi - lo)));
        if (q % 8 == 0 && t1 < t2 && t1 > INT64_MIN) {
          const uint32_t buckets = 1 + static_cast<uint32_t>(rng() % 20);
          Result<std::vector<Summary>> h = p.Histogram(t1, t2, buckets, p1, p2);
          Result<std::vector<Summary>> hs = p.ScanHistogram(t1, t2, buckets, p1, p2);
          REQUIRE(h.ok());
          REQUIRE(hs.ok());
          for (uint32_t b = 0; b < buckets; ++b) Same((*h)[b], (*hs)[b]);
        }
      }
      // One process: its array holds its records in order.
      for (int q = 0; q < 5 && !ids.empty(); ++q) {
        const int64_t id = ids[rng() % ids.size()];
        const std::vector<EventRecord>& mine = by_process.at(id).events;
        Result<const ArrayDesc*> one = p.ProcessArray(id);
        REQUIRE(one.ok());
        Primitives pp((*reader)->cache(), **one);
        REQUIRE(pp.size() == mine.size());
        const uint64_t k = rng() % mine.size();
        CHECK(EventRecord::Decode(pp.SearchAt(k)->record.data()) == mine[k]);
      }
      CHECK(p.ProcessArray(-100).error().code() == ErrorCode::kNotFound);
      CHECK((*reader)->cache().pinned_pages() == 0);
    }
  }
  // Page reads from a cold cache: the process tree's descent and walk, then one window per process.
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  const ArrayDesc& a = *(*reader)->Array("events").value();
  const Catalogue& cat = (*reader)->store().catalogue();
  uint64_t h = a.levels.size(), hp = a.process_levels;
  for (const ArrayDesc& c : cat.arrays) {
    if (c.parent == a.id) h = std::max<uint64_t>(h, c.levels.size());
  }
  auto src = (*reader)->store().MakeSource(Backend::kPread);
  REQUIRE(src.ok());
  const uint64_t cap = PageCapacity(4096, IndexEntry::Width(a.schema));
  for (int q = 0; q < 30; ++q) {
    int64_t t1 = random_time(), t2 = random_time(), p1 = random_process(), p2 = random_process();
    if (t1 > t2) std::swap(t1, t2);
    if (p1 > p2) std::swap(p1, p2);
    const uint64_t r = static_cast<uint64_t>(std::lower_bound(ids.begin(), ids.end(), p2) -
                                             std::lower_bound(ids.begin(), ids.end(), p1));
    {
      PageCache c(**src, PageCache::kUnlimited);
      Primitives p(c, a, &cat);
      REQUIRE(p.Aggregate(t1, t2, p1, p2).ok());
      CHECK(c.stats().pages_read <= 2 * h + hp + r / cap + 2 + r * (2 * h + 2));
    }
    {
      PageCache c(**src, PageCache::kUnlimited);
      Primitives p(c, a, &cat);
      const uint64_t leaves = (*reader)->store().page_map().leaf_reads();
      REQUIRE(p.Aggregate(INT64_MIN, INT64_MAX, p1, p2).ok());
      CHECK(c.stats().pages_read <= 2 * h + 2 * hp);                // the span check, then two process-tree descents
      CHECK((*reader)->store().page_map().leaf_reads() == leaves);  // descents read no page map
    }
  }
  StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
  CHECK_MESSAGE(rep.ok(), Why(rep));
}

TEST_CASE("primitives: process windows from the P index equal the model") {
  RunProcessWindows(0, 3, 1);
  RunProcessWindows(1, 3, 2);
  RunProcessWindows(700, 5, 3);
  RunProcessWindows(20000, 150, 4);  // a process tree of two levels (42 entries per page)
  // One process alone: the array is its own per-process array (no copy).
  RunProcessWindows(3000, 1, 5);
  // One process for 9000 records over commits and reopens, then 40 more: the first one's records
  // are copied when the second comes.
  RunProcessWindows(12000, 40, 6, 9000);
}

TEST_CASE("tn tree: the writer refuses a record earlier than the last") {
  TempDir dir;
  auto w = StoreWriter::CreatePath(dir.File("o.xtfq"));
  REQUIRE(w.ok());
  REQUIRE((*w)->CreateArray("events", EventRecord::StoreSchema()).ok());
  std::byte rec[32];
  EventRecord{100, 1, 0.5, 0, 0}.Encode(rec);
  REQUIRE((*w)->Append(ArrayId(1), rec).ok());
  REQUIRE((*w)->Append(ArrayId(1), rec).ok());  // equal times are fine
  EventRecord{99, 1, 0.5, 0, 0}.Encode(rec);
  Status s = (*w)->Append(ArrayId(1), rec);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code() == ErrorCode::kInvalidArgument);
  CHECK(s.error().message() == "array 'events' record 2: time 99 is before the previous record's 100");
  CHECK((*w)->FindArray("events")->record_count() == 0);  // as of the last commit
  CHECK((*w)->Pending().arrays[0].record_count() == 2);
  REQUIRE((*w)->Commit().ok());  // a refused record is not a failure of the writer
  CHECK((*w)->FindArray("events")->record_count() == 2);
}

// Adds 1 to the i64 at byte `offset` of page `key` of the store at `path` and seals the page again,
// so that only the tree's invariants can catch it. A chain page must be stored raw (codec none),
// so that it keeps its length.
void AlterPage(const std::string& path, PageKey key, uint32_t offset) {
  uint64_t at = uint64_t{key.id().value} * 4096;
  if (key.chain()) {
    auto store = Store::OpenPath(path);
    REQUIRE(store.ok());
    auto loc = (*store)->page_map().FindStored(key.id());
    REQUIRE(loc.ok());
    REQUIRE(loc->length == 4096);
    at = loc->offset;
  }
  auto f = PosixFile::Open(path, PosixFile::Mode::kWrite);
  REQUIRE(f.ok());
  std::vector<std::byte> page(4096);
  REQUIRE(ReadExact(**f, at, page).ok());
  REQUIRE(LoadLe<uint8_t>(page.data() + format::kPhCodec) == 0);
  StoreLe<int64_t>(page.data() + offset, LoadLe<int64_t>(page.data() + offset) + 1);
  SealPage(page);  // a raw stored page's checksum covers the same bytes as a plain page's
  REQUIRE((*f)->WriteAt(at, page).ok());
}

TEST_CASE("tn tree: the checker names the page when an index entry's count, aggregate or location is altered") {
  TempDir dir;
  const std::string path = dir.File("alter.xtfq");
  Build(path, Events(20000, 3), 3, Codec::kNone);
  // Find the first full index page (level 1): the first entry of the root names a level-1 page.
  uint32_t page_id = 0;
  {
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    const ArrayDesc& a = *(*reader)->Array("events").value();
    REQUIRE(a.levels.size() >= 3);
    page_id = a.levels[1].head.value;
  }
  for (uint32_t field_offset :
       {format::kIeCount, format::kIndexEntryFixedSize + format::kFsSum, format::kIndexEntryFixedSize + format::kFsMax,
        format::kIeKey, format::kIeChildLocation, format::kIeChildLocation + 3}) {
    CAPTURE(field_offset);
    const std::string copy = dir.File("copy.xtfq");
    std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
    AlterPage(copy, PageKey::Chain(PageId(page_id)),
              format::kPageHeaderSize + 2 * IndexEntry::Width(EventRecord::StoreSchema()) + field_offset);
    auto store = Store::OpenPath(copy);
    REQUIRE(store.ok());
    StoreChecker::Report rep = StoreChecker(**store).Run();
    REQUIRE_FALSE(rep.ok());
    const std::string& msg = rep.problems.front().message();
    CHECK_MESSAGE(msg.find(fmt::format("page {}:", page_id)) != std::string::npos, msg);
    CHECK_MESSAGE(msg.find("index entry 2") != std::string::npos, msg);
    if (field_offset < format::kIeChildLocation || field_offset >= format::kIeChild) continue;
    CHECK_MESSAGE(msg.find("the page map says") != std::string::npos, msg);
    // A reader led astray by the entry is refused: an error, never a wrong record. One byte more is
    // past a raw page's end; 128 bytes further on (+1 at bit 24 of the packed u64) are bytes whose
    // checksum fails. Entry 2 of the first level-1 page leads to data page 2.
    auto reader = StoreReader::Open(copy);
    REQUIRE(reader.ok());
    TnTree tree((*reader)->cache(), *(*reader)->Array("events").value());
    std::byte rec[32];
    Status got = tree.Record(2 * PageCapacity(4096, 32) + 5, rec);
    REQUIRE_FALSE(got.ok());
    CHECK(got.error().code() == ErrorCode::kCorrupt);
    CHECK_MESSAGE(got.error().message().find(field_offset == format::kIeChildLocation
                                                 ? "the entry or descriptor that leads to it stores it at"
                                                 : "checksum") != std::string::npos,
                  got.error().message());
    CHECK(tree.Record(PageCapacity(4096, 32) + 5, rec).ok());  // entry 1 still leads to its page
    // A scan reads ahead on a second thread: it gives every record of leaves 0 and 1, then the
    // error of leaf 2, never its bytes.
    uint64_t seen = 0;
    Status scanned = tree.Scan(0, tree.size(), [&](const std::byte*) -> Result<bool> { return ++seen > 0; });
    REQUIRE_FALSE(scanned.ok());
    CHECK(scanned.error().code() == ErrorCode::kCorrupt);
    CHECK(seen == 2 * PageCapacity(4096, 32));
  }
}

TEST_CASE("p index: the checker names the page when a process-tree entry or a per-process record is altered") {
  TempDir dir;
  const std::string path = dir.File("p.xtfq");
  Build(path, ProcessEvents(20000, 5, 150, 0), 5, Codec::kNone);
  PageKey tree_page, child_page;
  {
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    const ArrayDesc& a = *(*reader)->Array("events").value();
    REQUIRE(a.process_levels == 2);
    // The root's first entry names the first level-0 page of the process tree.
    std::vector<std::byte> root(4096);
    REQUIRE((*reader)->store().ReadSealed(a.process_root, root).ok());
    tree_page = PageKey::Chain(PageId(LoadLe<uint32_t>(root.data() + format::kPageHeaderSize + format::kIeChild)));
    const ArrayDesc* child = (*reader)->store().catalogue().Get(ArrayId(a.id.value + 1));
    REQUIRE(child != nullptr);
    REQUIRE(child->per_process());
    // Its first data page as committed: a full page, or the shadow of the open one.
    child_page = child->levels[0].FullPages(PageCapacity(4096, 32)) > 0 ? PageKey::Chain(child->levels[0].head)
                                                                        : PageKey::Chain(child->levels[0].shadow);
  }
  struct Case {
    PageKey page;
    uint32_t offset;  // of the altered i64 in the page
    const char* says;
  };
  const uint32_t w = IndexEntry::Width(EventRecord::StoreSchema());
  for (const Case& k :
       {Case{tree_page, format::kPageHeaderSize + 3 * w + format::kIeCount, "entry 3"},
        Case{tree_page, format::kPageHeaderSize + 3 * w + format::kIndexEntryFixedSize + format::kFsMax, "entry 3"},
        Case{tree_page, format::kPageHeaderSize + 3 * w + format::kIeChildLocation, "entry 3"},  // level 0: no location
        Case{child_page, format::kPageHeaderSize + 5 * 32 + 8, "events[process"}}) {
    CAPTURE(k.page.Name());
    CAPTURE(k.offset);
    const std::string copy = dir.File("copy.xtfq");
    std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
    AlterPage(copy, k.page, k.offset);
    auto store = Store::OpenPath(copy);
    REQUIRE(store.ok());
    StoreChecker::Report rep = StoreChecker(**store).Run();
    REQUIRE_FALSE(rep.ok());
    std::string all;
    for (const Error& e : rep.problems) all += e.message() + "\n";
    // A process-tree page is named; an altered per-process record is caught against the parent.
    if (k.page == tree_page)
      CHECK_MESSAGE(
          rep.problems.front().message().find(fmt::format("page {}:", k.page.id().value)) != std::string::npos, all);
    CHECK_MESSAGE(all.find(k.says) != std::string::npos, all);
  }
}

}  // namespace
}  // namespace xtfq::test

// Grids (query/grid/grid_query.h) against a naive model: every record of the array read, binned by
// the grid's column edges and rows, on generated Darshan logs (1024 and 10^5 ranks), the corpus
// logs with DXT, a HEATMAP-only log and events, in exact and snapped mode; the cells' sum against
// Primitives::Aggregate; the page reads of a snapped grid from a cold cache within the bound of
// docs/architecture.md ("Grids"); `xtfq check` catching a grid cell that does not match.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "gen/darshan_generator.h"
#include "gen/events_generator.h"
#include "gen/jobstats_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/events/event_record.h"
#include "index/process_tree.h"
#include "index/tn_tree.h"
#include "layouts/darshan_layout.h"
#include "layouts/grid_layout.h"
#include "query/answers/grid_answer.h"
#include "query/answers/result_json.h"
#include "query/core/primitives.h"
#include "query/darshan/darshan_counter_window.h"
#include "query/darshan/darshan_logs.h"
#include "query/grid/distribution_query.h"
#include "query/grid/grid_builder.h"
#include "query/grid/grid_index.h"
#include "query/grid/grid_query.h"
#include "query/jobstats/jobstats_grid_query.h"
#include "store/endian.h"
#include "store/log_histogram.h"
#include "store/posix_file.h"
#include "store/store_writer.h"
#include "tests/altering_sink.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/truth_csv.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Why;

// One cell of the model: count, and per kept field its exact integer or double statistics.
struct ModelCell {
  uint64_t n = 0;
  std::vector<int64_t> isum, imin, imax;
  std::vector<double> fsum, fmin, fmax;
  std::vector<std::vector<double>> values;  // per distribution field, every value
};

// The log2 bin of docs/format.md ("Log histograms"), computed by counting doublings.
int NaiveBin(double v, bool is_float) {
  if (std::isnan(v)) return -1;
  const int e0 = is_float ? -30 : 0;
  if (v < std::ldexp(1.0, e0)) return 0;
  int k = e0;  // v in [2^k, 2^(k+1))
  while (k < e0 + 62 && v >= std::ldexp(1.0, k + 1)) ++k;
  return k - e0 + 1;
}

// Reads every record of `a` and bins it by `edges` and `rows` (rows may overlap: each holds it);
// keeps the values of the aggregate fields `dists`.
std::vector<ModelCell> Model(StoreReader& reader, const ArrayDesc& a, const std::vector<int64_t>& edges,
                             const std::vector<std::pair<int64_t, int64_t>>& rows, const std::vector<size_t>& fields,
                             const std::vector<size_t>& dists = {}) {
  const Schema& s = a.schema;
  const size_t W = edges.size() - 1, nf = fields.size();
  std::vector<ModelCell> cells(rows.size() * W);
  for (ModelCell& c : cells) {
    c.isum.assign(nf, 0), c.imin.assign(nf, INT64_MAX), c.imax.assign(nf, INT64_MIN);
    c.fsum.assign(nf, 0), c.fmin.assign(nf, INFINITY), c.fmax.assign(nf, -INFINITY);
    c.values.resize(dists.size());
  }
  const Field& tf = s.fields()[*s.time_field()];
  const Field& pf = s.fields()[*s.process_field()];
  // Rows sorted and disjoint are found by bisection; others are tried one by one.
  bool disjoint = true;
  for (size_t j = 1; j < rows.size(); ++j) disjoint = disjoint && rows[j - 1].second <= rows[j].first;
  REQUIRE(reader
              .ForEach(a,
                       [&](const std::byte* r) -> Status {
                         const int64_t t = LoadInteger(r + tf.offset, tf.type), p = LoadInteger(r + pf.offset, pf.type);
                         if (t < edges.front() || t >= edges.back()) return Ok();
                         const size_t col =
                             static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), t) - edges.begin() - 1);
                         size_t j0 = 0, j1 = rows.size();
                         if (disjoint) {
                           auto it = std::upper_bound(rows.begin(), rows.end(), p,
                                                      [](int64_t v, const auto& row) { return v < row.first; });
                           if (it == rows.begin()) return Ok();
                           j0 = static_cast<size_t>(it - rows.begin()) - 1, j1 = j0 + 1;
                         }
                         for (size_t j = j0; j < j1; ++j) {
                           if (p < rows[j].first || p >= rows[j].second) continue;
                           ModelCell& c = cells[j * W + col];
                           ++c.n;
                           for (size_t k = 0; k < nf; ++k) {
                             const Field& f = s.fields()[s.aggregates()[fields[k]]];
                             if (f.type == FieldType::kF64) {
                               const double v = LoadLe<double>(r + f.offset);
                               c.fsum[k] += v, c.fmin[k] = std::min(c.fmin[k], v), c.fmax[k] = std::max(c.fmax[k], v);
                             } else {
                               const int64_t v = LoadInteger(r + f.offset, f.type);
                               c.isum[k] += v, c.imin[k] = std::min(c.imin[k], v), c.imax[k] = std::max(c.imax[k], v);
                             }
                           }
                           for (size_t k = 0; k < dists.size(); ++k) {
                             const Field& f = s.fields()[s.aggregates()[dists[k]]];
                             c.values[k].push_back(f.type == FieldType::kF64
                                                       ? LoadLe<double>(r + f.offset)
                                                       : static_cast<double>(LoadInteger(r + f.offset, f.type)));
                           }
                         }
                         return Ok();
                       })
              .ok());
  return cells;
}

bool Near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

// Every cell of `g` equals the model's.
void SameAsModel(StoreReader& reader, const ArrayDesc& a, const GridCells& g, const std::string& what) {
  INFO(what);
  const std::vector<ModelCell> m = Model(reader, a, g.edges, g.rows, g.fields, g.distributions);
  REQUIRE(g.count.size() == m.size());
  size_t bad = 0;
  for (size_t i = 0; i < m.size() && bad < 5; ++i) {
    const ModelCell& c = m[i];
    bool ok = g.count[i] == c.n;
    for (size_t k = 0; k < g.fields.size() && ok && c.n > 0; ++k) {
      const FieldStats& f = g.stats[i * g.fields.size() + k];
      ok = f.is_float ? Near(f.f_sum, c.fsum[k]) && f.f_min == c.fmin[k] && f.f_max == c.fmax[k]
                      : f.i_sum == c.isum[k] && f.i_min == c.imin[k] && f.i_max == c.imax[k];
    }
    // Distributions: the naive histogram of the cell's values, bin for bin; each percentile's
    // bound holds the nearest-rank percentile of the sorted values.
    for (size_t k = 0; k < g.distributions.size() && ok; ++k) {
      const Field& f = a.schema.fields()[a.schema.aggregates()[g.distributions[k]]];
      const bool is_float = f.type == FieldType::kF64;
      LogHistogram naive;
      for (double v : c.values[k]) naive.Add(NaiveBin(v, is_float));
      const LogHistogram& h = g.dists[i * g.distributions.size() + k];
      ok = h == naive;
      std::vector<double> sorted = c.values[k];
      std::sort(sorted.begin(), sorted.end());
      const size_t pos = static_cast<size_t>(
          std::find_if(g.fields.begin(), g.fields.end(), [&](size_t x) { return x == g.distributions[k]; }) -
          g.fields.begin());
      for (double q : {0.5, 0.9, 0.99}) {
        if (!ok || sorted.empty() || pos == g.fields.size()) break;
        const FieldStats& st = g.stats[i * g.fields.size() + pos];
        const auto b = h.Bound(q, is_float ? -30 : 0, st.Min(), st.Max());
        const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * sorted.size())));
        const double truth = sorted[rank - 1];
        ok = b && b->first <= truth && truth <= b->second && h.QuantileBin(q) == NaiveBin(truth, is_float);
        if (!ok) FAIL_CHECK(fmt::format("cell {}: p{} = {} outside its bound", i, q * 100, truth));
      }
    }
    if (!ok) {
      ++bad;
      FAIL_CHECK(
          fmt::format("cell {} (row {}, col {}): count {} vs model {}, or its statistics or distributions differ", i,
                      i / g.cols(), i % g.cols(), g.count[i], c.n));
    }
  }
}

// The cells of a grid of contiguous rows sum to the Aggregate of its window and process range.
void SumsToAggregate(StoreReader& reader, const ArrayDesc& a, const GridCells& g) {
  if (g.rows.empty()) return;
  Primitives p(reader.cache(), a, &reader.catalogue());
  auto s = p.Aggregate(g.edges.front(), g.edges.back(), g.rows.front().first, g.rows.back().second);
  REQUIRE_MESSAGE(s.ok(), Why(s));
  CHECK(g.TotalCount() == s->count);
  for (size_t k = 0; k < g.fields.size(); ++k) {
    const FieldStats t = g.TotalStat(k), &e = s->fields[g.fields[k]];
    if (s->count == 0) continue;
    if (t.is_float) {
      CHECK(Near(t.f_sum, e.f_sum));
      CHECK(t.f_min == e.f_min);
      CHECK(t.f_max == e.f_max);
    } else {
      CHECK(t.i_sum == e.i_sum);
      CHECK(t.i_min == e.i_min);
      CHECK(t.i_max == e.i_max);
    }
  }
}

// Builds the grid summaries of every eligible array of `path`, their cells at most `space` of the records' bytes.
GridBuildReport BuildGrids(const std::string& path, double space, bool distributions = true, bool direct = false) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto w = StoreWriter::OpenPath(path);
  REQUIRE_MESSAGE(w.ok(), Why(w));
  GridBuildOptions o;
  o.min_records = 0, o.space_fraction = space, o.distributions = distributions, o.direct = direct;
  auto rep = GridBuilder::BuildMissing(**reader, **w, o);
  REQUIRE_MESSAGE(rep.ok(), Why(rep));
  REQUIRE((*w)->Commit().ok());
  return *rep;
}

void ImportDarshan(const std::string& log, const std::string& store) {
  auto l = DarshanLog::Open(log);
  REQUIRE_MESSAGE(l.ok(), Why(l));
  auto w = StoreWriter::CreatePath(store);
  REQUIRE(w.ok());
  REQUIRE(DarshanImporter::Import(**l, **w, 0).ok());
  REQUIRE((*w)->Commit().ok());
}

// The processes with records of `a`, in order, from a scan.
std::vector<int64_t> Processes(StoreReader& reader, const ArrayDesc& a) {
  const Field& pf = a.schema.fields()[*a.schema.process_field()];
  std::vector<int64_t> out;
  REQUIRE(reader
              .ForEach(a,
                       [&](const std::byte* r) -> Status {
                         out.push_back(LoadInteger(r + pf.offset, pf.type));
                         return Ok();
                       })
              .ok());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Random grids of `a` (exact and snapped, ranges and lists) against the model.
void RandomGrids(StoreReader& reader, const ArrayDesc& a, int n, uint64_t seed, bool expect_levels) {
  std::mt19937_64 rng(seed);
  const std::vector<int64_t> present = Processes(reader, a);
  const int64_t pmin = present.front(), pmax = present.back();
  TnTree tree(reader.cache(), a);
  std::vector<std::byte> r(a.schema.record_width());
  REQUIRE(tree.Record(0, r).ok());
  const int64_t tmin = a.schema.Time(r.data());
  REQUIRE(tree.Record(a.record_count() - 1, r).ok());
  const int64_t tmax = a.schema.Time(r.data());
  int used_levels = 0, used_dist_levels = 0;
  for (int i = 0; i < n; ++i) {
    GridRequest q;
    const int64_t span = tmax - tmin + 1;
    const int64_t x = tmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(span)),
                  y = tmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(span));
    q.t1 = std::min(x, y), q.t2 = std::max(x, y) + 1;
    if (i % 4 == 0) q.t1 = tmin, q.t2 = tmax + 1;  // the whole run
    q.cols = 1 + static_cast<uint32_t>(rng() % (i % 3 == 0 ? 400 : 40));
    q.snap = i % 2 == 0;
    // Small limits: columns finer than the level's bins are drawn on whole bins (fewer columns).
    if (i % 5 == 4) q.snap_record_limit = rng() % 2000;
    const int64_t np = pmax - pmin + 1;
    if (i % 7 == 3) {
      for (int k = 0; k < 5; ++k) q.processes.push_back(pmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(np)));
    } else if (i % 7 == 5) {
      // Rows as ranges that overlap, aligned on blocks and not.
      q.row_ranges = {{pmin, pmax + 1}, {pmin, pmin + (np + 1) / 2}, {pmin, pmin + (np + 1) / 2}};
      const int64_t u = pmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(np));
      q.row_ranges.emplace_back(u, u + 1 + static_cast<int64_t>(rng() % 70));
      q.snap = false;
    } else {
      if (i % 3 != 0) {
        const int64_t u = pmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(np)),
                      v = pmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(np));
        q.p1 = std::min(u, v), q.p2 = std::max(u, v) + 1;
      }
      const int64_t range = *(std::lower_bound(present.begin(), present.end(), q.p2) - 1) + 1 -
                            *std::lower_bound(present.begin(), present.end(), q.p1);
      q.rows =
          1 + static_cast<uint32_t>(rng() % static_cast<uint64_t>(std::clamp<int64_t>(range, 1, i % 2 ? 300 : 16)));
    }
    if (i % 3 == 1) q.distributions = GridLayout::DistributionFields(a.schema);
    auto g = GridQuery::Run(reader, a, q);
    const std::string what = fmt::format("{} request {}: [{}, {}) x {} cols, processes {}:{} x {} rows, {} listed{}{}",
                                         a.name, i, q.t1, q.t2, q.cols, q.p1, q.p2, q.rows, q.processes.size(),
                                         q.snap ? ", snapped" : "", q.distributions.empty() ? "" : ", distributions");
    REQUIRE_MESSAGE(g.ok(), what, ": ", Why(g));
    INFO(what, "; read ", g->plan.Describe(), "; ", fmt::format("{}", fmt::join(g->notes, "; ")));
    // Columns: equal bins of the window asked, or (snapped) a whole number of bins covering it.
    if (!g->snapped) {
      REQUIRE(g->cols() == q.cols);
      for (uint32_t c = 0; c <= q.cols; ++c) {
        // The least time of column c: t1 + ceil(c (t2 - t1) / W).
        const __int128 num = (static_cast<__int128>(q.t2) - q.t1) * c;
        CHECK(g->edges[c] == q.t1 + static_cast<int64_t>((num + q.cols - 1) / q.cols));
      }
    } else {
      CHECK(g->edges.front() <= q.t1);
      CHECK(g->edges.back() >= q.t2);
      CHECK(g->cols() <= q.cols + 1);
      for (uint32_t c = 0; c < g->cols(); ++c) CHECK(g->edges[c + 1] - g->edges[c] == g->edges[1] - g->edges[0]);
    }
    const bool any = std::lower_bound(present.begin(), present.end(), q.p1) !=
                     std::lower_bound(present.begin(), present.end(), q.p2);
    if (q.processes.empty() && q.row_ranges.empty() && q.rows > 1 && any) {
      // Rows: contiguous, from the first to the last process of the range that has records.
      const auto first = std::lower_bound(present.begin(), present.end(), q.p1);
      const auto last = std::lower_bound(present.begin(), present.end(), q.p2) - 1;
      CHECK(g->rows.front().first == *first);
      CHECK(g->rows.back().second == *last + 1);
      for (size_t j = 1; j < g->rows.size(); ++j) CHECK(g->rows[j].first == g->rows[j - 1].second);
      CHECK(g->rows.size() == q.rows);
    }
    used_levels += !g->plan.levels.empty();
    used_dist_levels += !g->plan.levels.empty() && !q.distributions.empty();
    SameAsModel(reader, a, *g, what);
    if (q.processes.empty() && q.row_ranges.empty()) SumsToAggregate(reader, a, *g);
    // The window's distributions (what `query` shows), over the same window and process range.
    if (i % 3 == 2 && !GridLayout::DistributionFields(a.schema).empty()) {
      DistributionRequest d;
      d.t1 = q.t1, d.t2 = q.t2, d.p1 = q.p1, d.p2 = q.p2, d.distributions = GridLayout::DistributionFields(a.schema);
      auto w = DistributionQuery::Run(reader, a, d);
      REQUIRE_MESSAGE(w.ok(), Why(w));
      used_dist_levels += !w->plan.levels.empty();
      SameAsModel(reader, a, *w, what + " (window distributions, read " + w->plan.Describe() + ")");
    }
  }
  if (expect_levels) CHECK(used_levels > 0);
  auto grid = GridIndex::Load(reader, a, GridLayout::Family::kDistributions);
  REQUIRE(grid.ok());
  const bool dist_levels = *grid && !(*grid)->levels.empty() && !(*grid)->levels[0].distributions.empty();
  if (expect_levels && dist_levels) CHECK(used_dist_levels > 0);
}

// Generates a Darshan log of `segments` DXT segments over `ranks` ranks (100 s, seed `seed`) in
// `t` and imports it into a store; returns the store's path.
std::string GeneratedStore(const test::TempDir& t, uint64_t segments, int64_t ranks, uint64_t seed) {
  const std::string log = t.File("g.darshan"), store = t.File("g.xtfq");
  DarshanGenOptions o;
  o.segments = segments, o.ranks = ranks, o.files = std::max<int64_t>(ranks * 2, 40), o.duration = 100, o.seed = seed;
  REQUIRE(DarshanGenerator::Write(log, o).ok());
  ImportDarshan(log, store);
  return store;
}

struct GeneratedLog {
  test::TempDir dir;
  std::string log = dir.File("g.darshan"), store = dir.File("g.xtfq");
  GeneratedLog(uint64_t segments, int64_t ranks, double space) {
    DarshanGenOptions o;
    o.segments = segments, o.ranks = ranks, o.files = std::max<int64_t>(ranks * 2, 64), o.checkpoints = 4,
    o.duration = 1000, o.seed = 5;
    REQUIRE(DarshanGenerator::Write(log, o).ok());
    ImportDarshan(log, store);
    const GridBuildReport rep = BuildGrids(store, space);
    CHECK(!rep.built.empty());
  }
};

TEST_CASE("grid: cells equal the naive model on a generated DXT log of 1024 ranks, exact and snapped") {
  GeneratedLog f(200000, 1024, 2.0);
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  for (const char* name : {"darshan/0/DXT_POSIX.write", "darshan/0/DXT_MPIIO.read"}) {
    auto a = (*reader)->Array(name);
    REQUIRE(a.ok());
    auto g = GridIndex::Load(**reader, **a);
    REQUIRE(g.ok());
    REQUIRE(g->has_value());
    CHECK((*g)->levels.size() >= 3);
    RandomGrids(**reader, **a, 40, 17, true);
  }
}

TEST_CASE("grid: window percentiles of a few ranks read those ranks' own arrays, of ranks without records none") {
  GeneratedLog f(60000, 256, 2.0);
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("darshan/0/DXT_POSIX.write");
  REQUIRE(a.ok());
  const std::vector<size_t> dists = GridLayout::DistributionFields((*a)->schema);
  REQUIRE(!dists.empty());
  const Field& tf = (*a)->schema.fields()[*(*a)->schema.time_field()];
  const Field& pf = (*a)->schema.fields()[*(*a)->schema.process_field()];
  // Ranks 37 and 38 over the middle of the run, counted from every record.
  DistributionRequest d;
  d.p1 = 37, d.p2 = 39, d.distributions = dists;
  std::vector<int64_t> times;
  REQUIRE((*reader)
              ->ForEach(**a,
                        [&](const std::byte* r) -> Status {
                          times.push_back(LoadInteger(r + tf.offset, tf.type));
                          return Ok();
                        })
              .ok());
  d.t1 = times[times.size() / 4], d.t2 = times[3 * times.size() / 4];
  uint64_t in_window = 0;
  REQUIRE((*reader)
              ->ForEach(**a,
                        [&](const std::byte* r) -> Status {
                          const int64_t t = LoadInteger(r + tf.offset, tf.type),
                                        p = LoadInteger(r + pf.offset, pf.type);
                          in_window += t >= d.t1 && t < d.t2 && p >= d.p1 && p < d.p2;
                          return Ok();
                        })
              .ok());
  REQUIRE(in_window > 0);
  auto w = DistributionQuery::Run(**reader, **a, d);
  REQUIRE_MESSAGE(w.ok(), Why(w));
  CHECK(w->plan.process_arrays == 2);
  CHECK(w->plan.levels.empty());
  CHECK(w->plan.records_read == in_window);  // each rank's window of records, nothing more
  CHECK(w->count[0] == in_window);
  SameAsModel(**reader, **a, *w, "ranks 37:39");
  // Ranks past the job's: nothing is read.
  d.p1 = 1000, d.p2 = 2000;
  auto none = DistributionQuery::Run(**reader, **a, d);
  REQUIRE(none.ok());
  CHECK(none->count[0] == 0);
  CHECK(none->plan.records_read == 0);
  CHECK(none->plan.process_arrays == 0);
  CHECK(none->plan.Describe() == "nothing to read");
  // --scan reads the window of every rank and answers the same.
  d.p1 = 37, d.p2 = 39, d.scan = true;
  auto scan = DistributionQuery::Run(**reader, **a, d);
  REQUIRE(scan.ok());
  CHECK(scan->plan.process_arrays == 0);
  CHECK(scan->plan.records_read > in_window);
  CHECK(scan->count[0] == in_window);
}

TEST_CASE("grid: cells equal the naive model on DXT segments of 10^5 ranks (10^4 in the small tier)" *
          doctest::test_suite("long")) {
  // DXT segments of 10^5 ranks written straight into a store (the generator's logs of 10^5 ranks
  // take half a minute to import: the stress tier runs one below). The small tier (tests/tier.h)
  // takes 10^4 ranks and a fifth of the segments.
  const int64_t ranks = test::ByTier<int64_t>(10000, 100000, 100000);
  const int segments = test::ByTier(50000, 250000, 250000);
  using L = DarshanLayout;
  test::TempDir t;
  const std::string path = t.File("r.xtfq");
  {
    auto w = StoreWriter::CreatePath(path);
    REQUIRE(w.ok());
    auto id = (*w)->CreateArray("darshan/0/DXT_POSIX.write", L::DxtSchema());
    REQUIRE(id.ok());
    std::mt19937_64 rng(8);
    std::vector<std::byte> r(L::DxtSchema().record_width());
    int64_t time = 0;
    for (int i = 0; i < segments; ++i) {
      time += static_cast<int64_t>(rng() % 4000);
      std::fill(r.begin(), r.end(), std::byte{0});
      StoreLe<int64_t>(r.data() + L::kDxtOffsetT, time);
      // Ranks in bursts, as collective phases write: most segments in a tenth of the ranks.
      const auto r_ranks = static_cast<uint64_t>(ranks);
      const int64_t rank =
          rng() % 4 == 0 ? static_cast<int64_t>(rng() % r_ranks) : static_cast<int64_t>(rng() % (r_ranks / 10)) * 10;
      StoreLe<int64_t>(r.data() + L::kDxtOffsetRank, rank);
      StoreLe<int64_t>(r.data() + L::kDxtOffsetLength, static_cast<int64_t>(rng() % (1 << 20)));
      StoreLe<double>(r.data() + L::kDxtOffsetDuration, static_cast<double>(rng() % 1000) / 1024.0);
      REQUIRE((*w)->Append(*id, r).ok());
    }
    REQUIRE((*w)->Commit().ok());
  }
  BuildGrids(path, 2.0);
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("darshan/0/DXT_POSIX.write");
  REQUIRE(a.ok());
  RandomGrids(**reader, **a, 8, 23, true);
}

TEST_CASE("grid: a generated Darshan log of 10^5 ranks (stress tier)" * doctest::test_suite("stress")) {
  if (test::SkipBelow(test::Tier::kStress, "importing a generated log of 10^5 ranks (half a minute)")) return;
  GeneratedLog f(300000, 100000, 0.12);
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("darshan/0/DXT_POSIX.read");
  REQUIRE(a.ok());
  RandomGrids(**reader, **a, 16, 23, false);
}

TEST_CASE("grid: the corpus logs with DXT, by the grid and by the model") {
  const std::filesystem::path dir = std::string(XTFQ_SHARED_DIR) + "/data/darshan/real";
  if (test::SharedMissing(dir)) return;
  int logs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".darshan" || !std::filesystem::exists(e.path().string() + ".txt")) continue;
    std::filesystem::path dxt = e.path();
    dxt.replace_extension(".dxt.txt");
    if (!std::filesystem::exists(dxt)) continue;
    test::TempDir t;
    ImportDarshan(e.path().string(), t.File("c.xtfq"));
    BuildGrids(t.File("c.xtfq"), 4.0);
    auto reader = StoreReader::Open(t.File("c.xtfq"));
    REQUIRE(reader.ok());
    for (const ArrayDesc& a : (*reader)->catalogue().arrays) {
      if (a.per_process() || a.name.find("DXT_") == std::string::npos || a.name.ends_with(".files") ||
          GridLayout::IsGridArray(a.name) || a.record_count() == 0) {
        continue;
      }
      RandomGrids(**reader, a, 12, 31, false);
      ++logs;
    }
    // The default grid (the whole run, reads and writes on one grid) holds every segment, though
    // the job's whole-second start and end may not, and readers and writers may be other ranks.
    for (const char* module : {"POSIX", "MPI-IO"}) {
      uint64_t segments = 0;
      for (const char* op : {"read", "write"}) {
        const ArrayDesc* a = (*reader)->catalogue().Find(
            fmt::format("darshan/0/{}.{}", std::string(module) == "POSIX" ? "DXT_POSIX" : "DXT_MPIIO", op));
        if (a != nullptr) segments += a->record_count();
      }
      if (segments == 0) continue;
      for (bool snap : {false, true}) {
        GridAnswerRequest q;
        q.module = module, q.cols = 9, q.rows = 3, q.snap = snap;
        auto g = GridAnswerQuery::Run(**reader, q);
        if (!g.ok() && g.error().message().find("at most") != std::string::npos) {
          q.rows = 1;  // a log of fewer than 3 ranks
          g = GridAnswerQuery::Run(**reader, q);
        }
        REQUIRE_MESSAGE(g.ok(), Why(g));
        uint64_t n = 0;
        for (uint64_t c : g->count) n += c;
        CHECK_MESSAGE(n == segments, e.path().filename().string(), " ", module);
      }
    }
  }
  CHECK(logs >= 4);
}

TEST_CASE("grid: a HEATMAP-only log grids its bins, and says what a cell counts") {
  const std::string log = std::string(XTFQ_SHARED_DIR) + "/data/darshan/real/rel-3.21-x86_64-heatmap.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir t;
  ImportDarshan(log, t.File("h.xtfq"));
  BuildGrids(t.File("h.xtfq"), 4.0);
  auto reader = StoreReader::Open(t.File("h.xtfq"));
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("darshan/0/HEATMAP.POSIX");
  REQUIRE(a.ok());
  RandomGrids(**reader, **a, 12, 41, false);
  GridAnswerRequest q;
  q.cols = 7;
  auto ans = GridAnswerQuery::Run(**reader, q);
  REQUIRE_MESSAGE(ans.ok(), Why(ans));
  CHECK(ans->source.find("HEATMAP.POSIX") != std::string::npos);
  CHECK(ans->exactness.find("HEATMAP bin") != std::string::npos);
  // bytes = read_bytes + write_bytes of the model over the whole run.
  const Schema& s = (*a)->schema;
  const std::vector<ModelCell> m = Model(**reader, **a, ans->edges, ans->rows, {0, 1});
  for (size_t c = 0; c < m.size(); ++c) {
    CHECK(ans->values[0][c].value_or(-1) == static_cast<double>(m[c].isum[0] + m[c].isum[1]));
  }
  CHECK(s.aggregates().size() == 2);
  q.metrics = {"ops"};
  auto bad = GridAnswerQuery::Run(**reader, q);
  REQUIRE(!bad.ok());
  CHECK(bad.error().message().find("not a metric") != std::string::npos);
}

TEST_CASE("grid: a log without DXT or HEATMAP grids an estimate from its counter records, labelled so") {
  const std::string log = std::string(XTFQ_SHARED_DIR) + "/data/darshan/real/goodost-lustre1-48rank.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir t;
  ImportDarshan(log, t.File("c.xtfq"));
  auto reader = StoreReader::Open(t.File("c.xtfq"));
  REQUIRE(reader.ok());
  auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
  REQUIRE(info.ok());
  GridAnswerRequest q;
  q.cols = 7, q.rows = 5;
  auto g = GridAnswerQuery::Run(**reader, q);
  REQUIRE_MESSAGE(g.ok(), Why(g));
  CHECK(g->estimate);
  CHECK(g->exactness.starts_with("estimate"));
  const nlohmann::json j = ResultJson::Of(*g);
  CHECK(j["estimate"] == true);
  // Each cell equals the window estimate of its column and rows (xtfq query's answer), and the
  // cells add up to the log's operations.
  double ops = 0;
  for (size_t r = 0; r < g->rows.size(); ++r) {
    for (size_t c = 0; c < g->cols(); ++c) {
      DarshanWindowSpec w;
      w.t1 = g->edges[c], w.t2 = g->edges[c + 1], w.p1 = g->rows[r].first, w.p2 = g->rows[r].second;
      auto e = DarshanCounterWindow::Compute(**reader, *info, w);
      REQUIRE(e.ok());
      const double cell_ops = *g->values[0][r * g->cols() + c], cell_bytes = *g->values[1][r * g->cols() + c];
      CHECK(std::fabs(cell_ops - static_cast<double>(e->read.ops + e->write.ops)) <= 1.0);
      CHECK(std::fabs(cell_bytes - static_cast<double>(e->read.bytes + e->write.bytes)) <= 1.0);
      ops += cell_ops;
    }
  }
  auto all = DarshanCounterWindow::Compute(**reader, *info, DarshanWindowSpec{});
  REQUIRE(all.ok());
  CHECK(std::fabs(ops - static_cast<double>(all->read.ops + all->write.ops)) <= 1e-6 * ops);
  q.metrics = {"duration.max"};
  CHECK(!GridAnswerQuery::Run(**reader, q).ok());
}

TEST_CASE("grid: job_stats of every variant, by target and by job, equal the generator's ground truth") {
  uint64_t seed = 3;
  for (const char* variant : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    CAPTURE(variant);
    test::TempDir dir;
    JobStatsGenOptions o;
    o.variant = variant, o.targets = 5, o.jobs = 40, o.samples = 20, o.seed = ++seed;
    o.malformed_rate = 0.1, o.reset_rate = 0.05, o.missing_rate = 0.1;
    REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
    const test::Run imp = test::Xtfq(dir, "import snap -o s.xtfq");
    REQUIRE_MESSAGE(imp.status == 0, imp.err);
    // The truth: (target, id, op, t0, t1, delta) steps, and each (target, id)'s job.
    std::map<std::pair<std::string, std::string>, std::string> job_of;
    for (const auto& r : test::ReadTruthCsv(dir.File("snap/truth_series.csv")))
      job_of[{r[0], r[1]}] = r[3].empty() ? "-" : r[3];
    const auto truth = test::ReadTruthCsv(dir.File("snap/truth_steps.csv"));
    REQUIRE(truth.size() > 100);
    auto reader = StoreReader::Open(dir.File("s.xtfq"));
    REQUIRE(reader.ok());
    auto view = JobStatsView::Open(**reader);
    REQUIRE(view.ok());
    for (const char* op : {"write_bytes", "getattr"}) {
      for (const char* by : {"target", "job"}) {
        CAPTURE(op);
        CAPTURE(by);
        JobStatsGridRequest q;
        q.op = op, q.by = by, q.cols = 11;
        auto g = JobStatsGridQuery::Run(**view, q);
        REQUIRE_MESSAGE(g.ok(), Why(g));
        std::map<std::string, std::vector<double>> want;
        for (const auto& r : truth) {
          if (r[2] != op) continue;
          const std::string row = std::string(by) == "target" ? r[0] : job_of.at({r[0], r[1]});
          std::vector<double>& v = want.try_emplace(row, 11, 0.0).first->second;
          const int64_t t0 = std::stoll(r[3]), t1 = std::stoll(r[4]);
          const double delta = static_cast<double>(std::stoull(r[5]));
          for (size_t c = 0; c < 11; ++c) {
            const double lo = static_cast<double>(std::max(t0, g->edges[c])),
                         hi = static_cast<double>(std::min(t1, g->edges[c + 1]));
            if (hi > lo) v[c] += delta * (hi - lo) / static_cast<double>(t1 - t0);
          }
        }
        size_t compared = 0;
        for (size_t r = 0; r < g->rows.size(); ++r) {
          const auto it = want.find(g->rows[r]);
          for (size_t c = 0; c < 11; ++c) {
            const double expect = it == want.end() ? 0.0 : it->second[c];
            const double got = g->cells[r * 11 + c];
            CHECK_MESSAGE(std::fabs(got - expect) <= 1e-6 * std::max(1.0, std::fabs(expect)),
                          fmt::format("{} column {}: {} vs truth {}", g->rows[r], c, got, expect));
            ++compared;
          }
        }
        // Every group of the truth with a change in the window is a row.
        for (const auto& [row, v] : want) {
          const double total = std::accumulate(v.begin(), v.end(), 0.0);
          if (total > 0) CHECK_MESSAGE(std::find(g->rows.begin(), g->rows.end(), row) != g->rows.end(), row);
        }
        CHECK(compared > 0);
      }
    }
  }
}

// Appends `n` events of `gen` to the array "events" of the store at `path` (created when absent),
// each event's rank replaced by rank(i, its rank); commits.
void WriteEvents(
    const std::string& path, int n, EventsGenerator& gen,
    const std::function<int32_t(int, int32_t)>& rank = [](int, int32_t r) { return r; }) {
  auto w = std::filesystem::exists(path) ? StoreWriter::OpenPath(path) : StoreWriter::CreatePath(path);
  REQUIRE(w.ok());
  std::optional<ArrayId> id = (*w)->FindArrayId("events");
  if (!id) {
    auto made = (*w)->CreateArray("events", EventRecord::StoreSchema());
    REQUIRE(made.ok());
    id = *made;
  }
  for (int i = 0; i < n; ++i) {
    EventRecord e = gen.Next();
    e.rank = rank(i, e.rank);
    std::byte b[32];
    e.Encode(b);
    REQUIRE((*w)->Append(*id, std::span<const std::byte>(b, 32)).ok());
  }
  REQUIRE((*w)->Commit().ok());
}

// An events array of `n` records, ranks from `rank(i)`, with its grid built.
std::string EventsWith(const test::TempDir& t, const char* name, int n, const std::function<int32_t(int)>& rank) {
  const std::string path = t.File(name);
  EventsGenerator gen(64, 5);
  WriteEvents(path, n, gen, [&](int i, int32_t) { return rank(i); });
  BuildGrids(path, 1.0);
  return path;
}

TEST_CASE("grid: a job_stats target without rate steps in the window is named in a note, not dropped silently") {
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen jobstats --targets 1 --jobs 5 --samples 3 -o js").status == 0);
  REQUIRE(test::Xtfq(dir, "import js -o s.xtfq").status == 0);
  // One collection of another target, after the others: no rate yet.
  std::ifstream in(dir.File("js/server0-1767225720.txt"));
  std::stringstream text;
  text << in.rdbuf();
  std::string once = text.str();
  for (size_t at; (at = once.find("scratch-OST0000")) != std::string::npos;) once.replace(at, 15, "scratch-OST0009");
  std::ofstream(dir.File("once.txt")) << once;
  const test::Run add = test::Xtfq(dir, "import --format jobstats --at 1767225900 once.txt -o s.xtfq");
  REQUIRE_MESSAGE(add.status == 0, add.err);
  const test::Run g = test::Xtfq(dir, "grid s.xtfq --cols 2 --format json");
  REQUIRE_MESSAGE(g.status == 0, g.err);
  const nlohmann::json j = nlohmann::json::parse(g.out);
  CHECK(j["row_labels"] == nlohmann::json{"scratch-OST0000"});
  bool named = false;
  for (const auto& n : j["notes"]) {
    named |= n.get<std::string>() ==
             "1 of the store's 2 targets were collected once (a rate needs two collections; the first is a "
             "baseline): scratch-OST0009";
  }
  CHECK_MESSAGE(named, j["notes"].dump());
}

TEST_CASE("grid: job_stats cells outside a target's collections are NA, rates divide by each column's own width") {
  test::TempDir dir;
  // An MDT and three OSTs; mkdir changes on the MDT only.
  REQUIRE(test::Xtfq(dir, "gen jobstats --targets 4 --jobs 12 --samples 10 --interval 120 -o js").status == 0);
  REQUIRE(test::Xtfq(dir, "import -q js -o s.xtfq").status == 0);
  const int64_t first = 1767225600, last = first + 9 * 120;
  // Seven columns over [first - 600, first + 8040): whole-second edges, widths 1,234 and 1,235.
  const std::string time = fmt::format("@{}:@{}", first - 600, first - 600 + 8640);
  const test::Run g =
      test::Xtfq(dir, fmt::format("grid s.xtfq --op read_bytes --cols 7 --time {} --format json", time));
  REQUIRE_MESSAGE(g.status == 0, g.err);
  const nlohmann::json j = nlohmann::json::parse(g.out);
  const auto edges = j["time"]["edges"].get<std::vector<int64_t>>();
  REQUIRE(edges.size() == 8);
  std::set<int64_t> widths;
  for (size_t c = 0; c + 1 < edges.size(); ++c) widths.insert(edges[c + 1] - edges[c]);
  CHECK(widths == std::set<int64_t>{1234, 1235});
  size_t na = 0, bare_cols = 0, rows = j["row_labels"].size();
  for (size_t c = 0; c < 7; ++c) bare_cols += edges[c] < last && first < edges[c + 1] ? 0 : 1;
  REQUIRE(rows >= 2);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < 7; ++c) {
      const auto& total = j["metrics"][0]["values"][r][c];
      const auto& rate = j["metrics"][1]["values"][r][c];
      // Covered: the column meets [first, last), every target's collections here.
      const bool covered = edges[c] < last && first < edges[c + 1];
      CHECK_MESSAGE(total.is_null() == !covered, r, " ", c);
      CHECK(rate.is_null() == !covered);
      na += covered ? 0 : 1;
      if (covered) {
        CHECK(std::abs(rate.get<double>() * static_cast<double>(edges[c + 1] - edges[c]) - total.get<double>()) <=
              1e-6 * std::max(1.0, total.get<double>()));
      }
    }
  }
  CHECK(bare_cols == 5);  // the first two columns meet the collections
  CHECK(na == rows * bare_cols);
  std::string notes = j["notes"].dump();
  CHECK_MESSAGE(notes.find(fmt::format("{} of the {} cells lie before the first or after the last collection", na,
                                       rows * 7)) != std::string::npos,
                notes);
  // Text gives the two whole widths, not a fraction.
  const test::Run text = test::Xtfq(dir, fmt::format("grid s.xtfq --op read_bytes --cols 7 --time {}", time));
  CHECK_MESSAGE(text.out.find("columns of 1234 or 1235 s") != std::string::npos, text.out);
  // mkdir: the OSTs never change it, and the note says so rather than blaming the collections.
  const test::Run m = test::Xtfq(dir, "grid s.xtfq --op mkdir --format json");
  REQUIRE_MESSAGE(m.status == 0, m.err);
  const nlohmann::json mj = nlohmann::json::parse(m.out);
  CHECK(mj["row_labels"] == nlohmann::json{"scratch-MDT0000"});
  notes = mj["notes"].dump();
  CHECK_MESSAGE(notes.find("3 of the store's 4 targets never changed mkdir in any collection: scratch-OST0000, "
                           "scratch-OST0001, scratch-OST0002") != std::string::npos,
                notes);
  CHECK(notes.find("collected once") == std::string::npos);
}

TEST_CASE("grid: edge cases: processes around zero, one process, ranges without records, no aggregate fields") {
  test::TempDir t;
  {
    // Ranks -512..511: levels stop at the block as wide as the span (blocks -1 and 0 at every k add nothing).
    const std::string path = EventsWith(t, "z.xtfq", 60000, [](int i) { return (i * 7919) % 1024 - 512; });
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    auto a = (*reader)->Array("events");
    REQUIRE(a.ok());
    auto g = GridIndex::Load(**reader, **a);
    REQUIRE(g.ok());
    REQUIRE(g->has_value());
    CHECK((*g)->levels.size() <= 4);
    for (const GridLevel& l : (*g)->levels) CHECK(l.block() < 1024);
    RandomGrids(**reader, **a, 8, 5, false);
    // A range far from any process: zeros at once, not a walk over its ids.
    GridRequest q;
    q.t1 = 0, q.t2 = INT64_MAX / 4, q.cols = 10, q.rows = 3, q.snap = true, q.p1 = 5000, q.p2 = int64_t{1} << 50;
    auto far = GridQuery::Run(**reader, **a, q);
    REQUIRE_MESSAGE(far.ok(), Why(far));
    CHECK(far->TotalCount() == 0);
    // A count-only grid of an array without aggregate fields (a grid level's cells).
    GridAnswerRequest c;
    c.array = "events#grid/1", c.cols = 4, c.metrics = {"count"};
    auto cells = GridAnswerQuery::Run(**reader, c);
    REQUIRE_MESSAGE(cells.ok(), Why(cells));
    uint64_t n = 0;
    for (uint64_t k : cells->count) n += k;
    CHECK(n == (*reader)->catalogue().Find("events#grid/1")->record_count());
  }
  {
    // One process: no level has two blocks; the grid is empty, not stale.
    const std::string path = EventsWith(t, "one.xtfq", 70000, [](int) { return 3; });
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    auto a = (*reader)->Array("events");
    auto g = GridIndex::Load(**reader, **a);
    REQUIRE(g.ok());
    REQUIRE(g->has_value());
    CHECK((*g)->levels.empty());
    CHECK(!(*g)->stale);
    GridRequest q;
    q.t1 = 0, q.t2 = INT64_MAX / 4, q.cols = 5, q.snap = true;
    auto r = GridQuery::Run(**reader, **a, q);
    REQUIRE(r.ok());
    CHECK(r->notes.empty());
    CHECK(r->TotalCount() == 70000);
  }
}

TEST_CASE("grid: events with and without grid summaries, and a stale grid") {
  test::TempDir t;
  const std::string path = t.File("e.xtfq");
  EventsGenerator gen(300, 9);
  WriteEvents(path, 120000, gen);
  {
    // Before the grid is built (a store of an older xtfq): answered per process.
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    auto a = (*reader)->Array("events");
    REQUIRE(a.ok());
    RandomGrids(**reader, **a, 10, 3, false);
  }
  BuildGrids(path, 1.0);
  {
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    auto a = (*reader)->Array("events");
    REQUIRE(a.ok());
    RandomGrids(**reader, **a, 20, 4, true);
  }
  // Records appended after the grid, one of a process the grid has never seen: it is stale, said,
  // and not used.
  WriteEvents(path, 1000, gen, [](int i, int32_t r) { return i == 999 ? 1000 : r; });
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("events");
  REQUIRE(a.ok());
  GridRequest q;
  q.t1 = 0, q.t2 = INT64_MAX / 2, q.cols = 10, q.rows = 30, q.snap = true;
  auto g = GridQuery::Run(**reader, **a, q);
  REQUIRE(g.ok());
  CHECK(g->plan.levels.empty());
  REQUIRE(!g->notes.empty());
  CHECK(g->notes[0].find("covers its first 120000 of 121000 records") != std::string::npos);
  SameAsModel(**reader, **a, *g, "stale");
  const Status v = GridBuilder::Verify(**reader, **a);
  CHECK_MESSAGE(v.ok(), Why(v));  // checked over the records it covers
}

TEST_CASE("grid: a grid written before distributions still serves, and percentiles then come from records") {
  test::TempDir t;
  const std::string path = t.File("e.xtfq");
  EventsGenerator gen(300, 11);
  WriteEvents(path, 120000, gen);
  BuildGrids(path, 1.0, false);
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("events");
  REQUIRE(a.ok());
  auto grid = GridIndex::Load(**reader, **a);
  REQUIRE(grid.ok());
  REQUIRE(*grid);
  REQUIRE(!(*grid)->levels.empty());
  CHECK((*grid)->levels[0].distributions.empty());
  auto none = GridIndex::Load(**reader, **a, GridLayout::Family::kDistributions);
  REQUIRE(none.ok());
  CHECK(!*none);  // no distributions family
  CHECK(GridBuilder::Verify(**reader, **a).ok());
  GridRequest q;
  q.t1 = 0, q.t2 = INT64_MAX / 2, q.cols = 8, q.rows = 16, q.snap = true;
  q.distributions = GridLayout::DistributionFields((*a)->schema);
  REQUIRE(q.distributions.size() == 2);
  auto with = GridQuery::Run(**reader, **a, q);
  REQUIRE(with.ok());
  CHECK(with->plan.levels.empty());  // not distributions
  CHECK(with->plan.records_read > 0);
  SameAsModel(**reader, **a, *with, "distributions over a grid without them");
  RandomGrids(**reader, **a, 12, 8, true);  // its cells serve what they hold (some grid reads a level)
}

TEST_CASE("grid: check verifies cells merged from the finest ones, and cells of older grids, to the byte") {
  // Durations of 1e16, 1 and -1e16 in turn: an f64 sum that depends on the order of adding (1e16 +
  // 1 rounds to 1e16), so cells merged from finer ones differ from cells that added each record.
  test::TempDir t;
  for (const bool direct : {false, true}) {
    CAPTURE(direct);
    const std::string path = t.File(direct ? "direct.xtfq" : "merged.xtfq");
    EventsGenerator gen(64, 3);
    {
      auto w = StoreWriter::CreatePath(path);
      REQUIRE(w.ok());
      auto id = (*w)->CreateArray("events", EventRecord::StoreSchema());
      REQUIRE(id.ok());
      for (int i = 0; i < 40000; ++i) {
        EventRecord e = gen.Next();
        e.dur = i % 3 == 0 ? 1e16 : i % 3 == 1 ? 1.0 : -1e16;
        std::byte b[32];
        e.Encode(b);
        REQUIRE((*w)->Append(*id, std::span<const std::byte>(b, 32)).ok());
      }
      REQUIRE((*w)->Commit().ok());
    }
    BuildGrids(path, 1.0, true, direct);
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    auto a = (*reader)->Array("events");
    REQUIRE(a.ok());
    const Status v = GridBuilder::Verify(**reader, **a);
    CHECK_MESSAGE(v.ok(), Why(v));
    const test::Run c = test::Xtfq(t, fmt::format("check '{}'", path));
    CHECK_MESSAGE(c.status == 0, c.err);
  }
  // The two ways give different bytes for some cell of some coarser level (so the second store
  // was verified by the direct sums, not the merged ones).
  auto cells = [&](const char* name) {
    auto reader = StoreReader::Open(t.File(name));
    REQUIRE(reader.ok());
    std::vector<std::byte> all;
    for (const ArrayDesc& a : (*reader)->catalogue().arrays) {
      if (a.name.find("#grid/") == std::string::npos && a.name.find("#grid-dist/") == std::string::npos) continue;
      ChainCursor c = (*reader)->Records(a);
      for (auto more = c.First(); more.ok() && *more; more = c.Next()) {
        all.insert(all.end(), c.entry(), c.entry() + a.schema.record_width());
      }
    }
    return all;
  };
  const std::vector<std::byte> merged = cells("merged.xtfq"), direct = cells("direct.xtfq");
  CHECK(merged.size() == direct.size());
  CHECK(merged != direct);
}

TEST_CASE("grid: check recomputes the grid summaries and names a cell that does not match") {
  test::TempDir t;
  const std::string store = GeneratedStore(t, 30000, 64, 2);
  {
    auto reader = StoreReader::Open(store);
    REQUIRE(reader.ok());
    auto w = StoreWriter::OpenPath(store);
    REQUIRE(w.ok());
    // The count of the 5th cell of level 2, one more.
    test::AlteringSink sink(**w, "darshan/0/DXT_POSIX.write#grid/2", 5, [](std::vector<std::byte>& r) {
      StoreLe<uint64_t>(r.data() + GridLayout::kCellCount, LoadLe<uint64_t>(r.data() + GridLayout::kCellCount) + 1);
    });
    auto a = (*reader)->Array("darshan/0/DXT_POSIX.write");
    REQUIRE(a.ok());
    GridBuildOptions go;
    go.min_records = 0, go.space_fraction = 2;
    REQUIRE(GridBuilder::Build(**reader, **a, sink, go).ok());
    REQUIRE((*w)->Commit().ok());
  }
  auto reader = StoreReader::Open(store);
  REQUIRE(reader.ok());
  auto a = (*reader)->Array("darshan/0/DXT_POSIX.write");
  REQUIRE(a.ok());
  const Status v = GridBuilder::Verify(**reader, **a);
  REQUIRE(!v.ok());
  CHECK(v.error().message().find("#grid/2 cell 4 differs") != std::string::npos);
  const test::Run c = test::Xtfq(t, fmt::format("check '{}'", store));
  CHECK(c.status == 1);
  CHECK(c.err.find("do not match its records") != std::string::npos);
}

TEST_CASE(
    "grid: a snapped grid reads within the documented bound from a cold cache, and fewer pages than per process") {
  // 64 ranks, so that cells hold many segments at the default space budget.
  GeneratedLog f(300000, 64, GridBuildOptions{}.space_fraction);
  ReaderOptions cold;
  cold.cache_bytes = size_t{1} << 30;
  const std::string name = "darshan/0/DXT_POSIX.write";
  auto reader = StoreReader::Open(f.store, cold);
  REQUIRE(reader.ok());
  auto g = GridIndex::Load(**reader, **(*reader)->Array(name));
  REQUIRE(g.ok());
  REQUIRE(g->has_value());
  int snapped = 0;
  for (uint32_t rows : {4u, 8u, 16u}) {
    auto r = StoreReader::Open(f.store, cold);
    REQUIRE(r.ok());
    const ArrayDesc& pa = **(*r)->Array(name);
    GridRequest q;
    q.t1 = 0, q.t2 = 1'000'000'000'000, q.cols = 50, q.rows = rows, q.snap = true;
    q.p1 = 0, q.p2 = 64;
    const uint64_t before = (*r)->cache().stats().pages_read;
    auto grid = GridQuery::Run(**r, pa, q);
    REQUIRE_MESSAGE(grid.ok(), Why(grid));
    const uint64_t pages = (*r)->cache().stats().pages_read - before;
    INFO(fmt::format("rows {}: {} pages; {}", rows, pages, grid->plan.Describe()));
    if (!grid->snapped || grid->plan.levels.size() != 1) continue;
    ++snapped;
    // The bound (docs/architecture.md, "Grids"): the levels array, two descents of the level's cell
    // array, the pages its cells in the window fill and the index pages above them (the processes
    // come from the catalogue, the estimate of the window's records from two descents of the array).
    const GridLevel* level = nullptr;
    for (const GridLevel& l : (*g)->levels) {
      if (l.level == grid->plan.levels[0]) level = &l;
    }
    REQUIRE(level != nullptr);
    const uint32_t payload = 4096 - format::kPageHeaderSize;
    const uint64_t own_descents = 2 * pa.levels.size();
    const uint64_t per_page = payload / level->array->schema.record_width();
    const uint64_t cells_pages = (grid->plan.cells_read + per_page - 1) / per_page + 1;
    const uint64_t height = level->array->levels.size(), entries = payload / format::kIndexEntryFixedSize;
    const uint64_t bound = own_descents + 1 + 2 * height + cells_pages + cells_pages / (entries - 1) + height;
    INFO(fmt::format("bound {} (cells {}, level {})", bound, grid->plan.cells_read, level->level));
    CHECK(pages <= bound);
    CHECK(grid->plan.records_read == 0);
    // Today's path before grids, one histogram per process over its per-process array, reads more.
    auto r2 = StoreReader::Open(f.store, cold);
    REQUIRE(r2.ok());
    const ArrayDesc& pa2 = **(*r2)->Array(name);
    auto arrays = ProcessTree((*r2)->cache(), (*r2)->catalogue(), pa2).Range(0, 64);
    REQUIRE(arrays.ok());
    const uint64_t b2 = (*r2)->cache().stats().pages_read;
    for (const ArrayDesc* p : *arrays) {
      REQUIRE(TnTree((*r2)->cache(), *p).Histogram(grid->edges.front(), grid->edges.back(), grid->cols()).ok());
    }
    CHECK((*r2)->cache().stats().pages_read - b2 > pages);
  }
  CHECK(snapped >= 2);

  // Columns much finer than the bins over a window of many records: whole bins, no record read,
  // fewer columns than asked; under the record limit the columns asked, from records.
  const ArrayDesc& pa = **(*reader)->Array(name);
  GridRequest fine;
  fine.t1 = 0, fine.t2 = 1'000'000'000'000, fine.cols = 20000, fine.rows = 4, fine.snap = true;
  fine.p1 = 0, fine.p2 = 64, fine.snap_record_limit = 1000;
  auto coarse = GridQuery::Run(**reader, pa, fine);
  REQUIRE_MESSAGE(coarse.ok(), Why(coarse));
  INFO(coarse->plan.Describe(), "; ", fmt::format("{}", fmt::join(coarse->notes, "; ")));
  CHECK(coarse->snapped);
  CHECK(coarse->cols() < fine.cols);
  CHECK(coarse->plan.records_read == 0);
  CHECK(coarse->plan.process_arrays == 0);
  CHECK(fmt::format("{}", fmt::join(coarse->notes, "\n")).find("fewer columns than asked") != std::string::npos);
  SumsToAggregate(**reader, pa, *coarse);
  fine.snap_record_limit = uint64_t{1} << 40;
  auto exact = GridQuery::Run(**reader, pa, fine);
  REQUIRE_MESSAGE(exact.ok(), Why(exact));
  CHECK(!exact->snapped);
  CHECK(exact->cols() == fine.cols);
  INFO(exact->plan.Describe());
  CHECK(exact->plan.process_arrays + exact->plan.records_read > 0);
  // Between a quarter of the limit and the limit: single bins only when they give a quarter of the
  // columns asked (the window's records are counted by two descents, as the planner does).
  TnTree tree((*reader)->cache(), pa);
  const uint64_t records = *tree.LowerBound(fine.t2) - *tree.LowerBound(fine.t1);
  fine.snap_record_limit = records + 1;
  auto many_cols = GridQuery::Run(**reader, pa, fine);  // 20000 columns: single bins would give far fewer
  REQUIRE(many_cols.ok());
  CHECK(!many_cols->snapped);
  const int64_t bin = coarse->edges[1] - coarse->edges[0];
  fine.cols = static_cast<uint32_t>(3 * (fine.t2 / bin));  // a third of a bin each: single bins keep a third
  auto few_cols = GridQuery::Run(**reader, pa, fine);
  REQUIRE(few_cols.ok());
  CHECK(few_cols->snapped);
  CHECK(few_cols->cols() < fine.cols);
  CHECK(4 * few_cols->cols() >= fine.cols);
  CHECK(few_cols->plan.records_read == 0);
  CHECK(fmt::format("{}", fmt::join(few_cols->notes, "\n")).find("fewer columns than asked") != std::string::npos);
}

TEST_CASE("grid: the command line, its JSON and its errors") {
  test::TempDir t;
  const std::string store = GeneratedStore(t, 20000, 16, 4);
  const test::Run j = test::Xtfq(t, fmt::format("grid '{}' --cols 5 --rows 4 --format json", store));
  REQUIRE_MESSAGE(j.status == 0, j.err);
  const nlohmann::json g = nlohmann::json::parse(j.out);
  CHECK(g["cols"] == 5);
  CHECK(g["rows"].size() == 4);
  CHECK(g["metrics"][0]["name"] == "ops");
  // The JSON equals the query layer's answer.
  auto reader = StoreReader::Open(store);
  REQUIRE(reader.ok());
  GridAnswerRequest q;
  q.cols = 5, q.rows = 4;
  auto ans = GridAnswerQuery::Run(**reader, q);
  REQUIRE(ans.ok());
  for (size_t r = 0; r < 4; ++r) {
    for (size_t c = 0; c < 5; ++c) CHECK(g["count"][r][c] == ans->count[r * 5 + c]);
  }
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Bad& b : std::vector<Bad>{{{"--rows", "17"}, "at most 16"},
                                       {{"--time", "5:5"}, "empty"},
                                       {{"--op", "both"}, "--op"},
                                       {{"--metric", "nope"}, "not a metric"},
                                       {{"--processes", "1,x"}, "'x' is not a process id"},
                                       {{"--processes", "3,1,3"}, "3 is listed twice"},
                                       {{"--rows", "100000"}, "at most 16"},
                                       {{"--cols", "1000000", "--rows", "16"}, "ask fewer columns or rows"},
                                       {{"--metric", "length.p0"}, "0 < Q <= 100"},
                                       {{"--cols", "0"}, "--cols"}}) {
    const std::string args = fmt::format("grid '{}' {}", store, fmt::join(b.args, " "));
    const test::Run c = test::Xtfq(t, args);
    INFO(args);
    CHECK(c.status == 2);
    CHECK(c.err.find(b.says) != std::string::npos);
  }
  // --fit-rows: at most the rows asked, a row a process when the range has fewer (what the viewer asks).
  const test::Run fit = test::Xtfq(t, fmt::format("grid '{}' --cols 5 --rows 100 --fit-rows --format json", store));
  REQUIRE_MESSAGE(fit.status == 0, fit.err);
  const nlohmann::json fj = nlohmann::json::parse(fit.out);
  REQUIRE(fj["rows"].size() == 16);
  for (size_t r = 0; r < 16; ++r) CHECK(fj["rows"][r][1].get<int64_t>() - fj["rows"][r][0].get<int64_t>() == 1);
  CHECK(fj["notes"][0] == "100 rows asked: the 16 processes 0 to 15 with records get a row each");
  // --snap on a store without grid summaries (20,000 segments: too few) says so.
  const test::Run s = test::Xtfq(t, fmt::format("grid '{}' --cols 5 --rows 4 --snap", store));
  REQUIRE_MESSAGE(s.status == 0, s.err);
  CHECK(s.out.find("--snap: 'darshan/0/DXT_POSIX.read' has no grid summaries to snap to") != std::string::npos);
  // A percentile grid: the CSV has the interval's lower end beside each value.
  const test::Run p =
      test::Xtfq(t, fmt::format("grid '{}' --cols 3 --rows 2 --metric duration.p99 --format csv", store));
  REQUIRE_MESSAGE(p.status == 0, p.err);
  CHECK(
      p.out.starts_with("row,rank_lo,rank_hi,col,t_start,t_end,t_start_s,t_end_s,records,duration.p99,"
                        "duration.p99.lower\n"));
}

}  // namespace
}  // namespace xtfq

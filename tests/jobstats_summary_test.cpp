// The job_stats window summaries (query/jobstats/jobstats_summary.h) against the steps: for every variant
// of the generator, random windows grouped by job, uid, node and class give the same groups,
// totals, peaks, highest series rates and step counts from the summaries as from a scan of every
// step; grids by those keys, from the cells on whole bins (snapped or not) and from the steps for
// the other columns, equal a scan's grid on the same edges; summaries extended over several
// imports equal one import's; check recomputes them and names a cell that does not match.
#include "query/jobstats/jobstats_summary.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "gen/jobstats_generator.h"
#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_grid_query.h"
#include "query/jobstats/jobstats_heatmap_query.h"
#include "query/jobstats/jobstats_view.h"
#include "query/jobstats/jobstats_window_query.h"
#include "store/endian.h"
#include "store/store_writer.h"
#include "tests/altering_sink.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Why;

bool Near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

// The same groups with the same numbers (totals and peaks up to the order of additions).
void Same(const JobStatsWindow& got, const JobStatsWindow& want, const std::string& what) {
  INFO(what);
  REQUIRE(got.groups.size() == want.groups.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.groups.size() && bad < 5; ++i) {
    const JobStatsGroup &g = got.groups[i], &w = want.groups[i];
    bool ok = g.keys == w.keys && g.ops.size() == w.ops.size();
    for (const auto& [op, o] : w.ops) {
      if (!ok) break;
      auto it = g.ops.find(op);
      ok = it != g.ops.end() && Near(it->second.total, o.total) && Near(it->second.rate_max, o.rate_max) &&
           Near(it->second.series_rate_max, o.series_rate_max) && it->second.steps == o.steps;
      if (!ok && it != g.ops.end()) {
        FAIL_CHECK(fmt::format("group {} op {}: total {} vs {}, peak {} vs {}, series max {} vs {}, steps {} vs {}",
                               fmt::join(w.keys, "/"), op, it->second.total, o.total, it->second.rate_max, o.rate_max,
                               it->second.series_rate_max, o.series_rate_max, it->second.steps, o.steps));
      }
    }
    if (!ok) {
      ++bad;
      FAIL_CHECK(fmt::format("group {} differs", fmt::join(w.keys, "/")));
    }
  }
}

// Random grids by every summarised key: from the summaries' cells (snapped onto whole bins, or
// as asked, then only the columns on summarised bins) and the steps of the other columns, against
// a scan's grid (every step) on the same edges: the same rows, cells and coverage. A snapped grid
// whose columns are all summarised reads no step.
void RandomGrids(JobStatsView& view, const JobStatsGenOptions& o, std::mt19937_64& rng, int n) {
  const int64_t lo = o.start - 300, hi = o.start + o.interval * (o.samples + 3);
  int from_cells = 0, only_cells = 0, partial = 0;
  for (int i = 0; i < n; ++i) {
    int64_t t1 = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    int64_t t2 = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    if (t1 > t2) std::swap(t1, t2);
    if (i % 4 == 0) t1 = lo, t2 = hi;  // the whole run
    if (t1 == t2) ++t2;
    JobStatsGridRequest q;
    q.by = JobStatsKeyName(JobStatsSummary::kKeys[static_cast<size_t>(i) % std::size(JobStatsSummary::kKeys)]);
    q.op = i % 2 == 0 ? "write_bytes" : "open";
    q.time = fmt::format("{}:{}", t1, t2);
    q.cols = 1 + static_cast<uint32_t>(rng() % 24);
    q.snap = i % 3 != 2;
    const std::string what =
        fmt::format("grid {} by {} [{}, {}) cols {}{}", q.op, q.by, t1, t2, q.cols, q.snap ? " snapped" : "");
    auto fast = JobStatsGridQuery::Run(view, q);
    REQUIRE_MESSAGE(fast.ok(), what, ": ", Why(fast));
    JobStatsGridRequest s = q;
    s.scan = true, s.snap = false;
    s.time = fmt::format("{}:{}", fast->edges.front(), fast->edges.back());
    s.cols = static_cast<uint32_t>(fast->edges.size() - 1);
    auto slow = JobStatsGridQuery::Run(view, s);
    REQUIRE_MESSAGE(slow.ok(), what, ": ", Why(slow));
    REQUIRE_MESSAGE(fast->edges == slow->edges, what);
    CHECK_MESSAGE(slow->cell_columns == 0, what);
    if (q.snap) CHECK_MESSAGE(fast->edges.size() - 1 <= q.cols, what);
    from_cells += fast->cell_columns > 0;
    // Every column on summarised bins: cells only.
    auto summary = JobStatsSummary::Load(view, *ParseJobStatsKey(q.by));
    REQUIRE(summary.ok());
    REQUIRE(*summary);
    bool whole = true;
    for (size_t c = 0; c + 1 < fast->edges.size(); ++c)
      whole &= (*summary)->FromCells(fast->edges[c], fast->edges[c + 1]);
    // A column across the summaries' last bin edge: cells before it, steps after.
    partial += !whole && fast->cell_columns == fast->edges.size() - 1;
    if (whole) {
      ++only_cells;
      CHECK_MESSAGE(fast->cell_columns == fast->edges.size() - 1, what);
      CHECK_MESSAGE(fast->steps_read == 0, what);
      CHECK_MESSAGE(fast->cells_read > 0, what);
    }
    CHECK_MESSAGE(fast->groups == slow->groups, what);
    CHECK_MESSAGE(fast->unit == slow->unit, what);
    REQUIRE_MESSAGE(fast->rows.size() == slow->rows.size(), what);
    const size_t W = fast->edges.size() - 1;
    std::map<std::string, size_t> at;
    for (size_t r = 0; r < slow->rows.size(); ++r) at[slow->rows[r]] = r;
    int bad = 0;
    for (size_t r = 0; r < fast->rows.size() && bad < 3; ++r) {
      auto it = at.find(fast->rows[r]);
      if (it == at.end()) {
        FAIL_CHECK(what, ": row ", fast->rows[r], " is not the scan's");
        ++bad;
        continue;
      }
      for (size_t c = 0; c < W; ++c) {
        const double x = fast->cells[r * W + c], y = slow->cells[it->second * W + c];
        const bool same = std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)}) &&
                          fast->covered[r * W + c] == slow->covered[it->second * W + c];
        if (!same) {
          FAIL_CHECK(fmt::format("{}: row {} column {}: {} vs {} (covered {} vs {})", what, fast->rows[r], c, x, y,
                                 int(fast->covered[r * W + c]), int(slow->covered[it->second * W + c])));
          ++bad;
          break;
        }
      }
    }
  }
  CHECK(from_cells > n / 3);
  CHECK(only_cells > 0);
  CHECK(partial > 0);
}

// Random windows of `store` by every summarised key, from the summaries and by scanning.
void RandomWindows(const std::string& store, const JobStatsGenOptions& o, uint64_t seed, int n) {
  auto reader = StoreReader::Open(store);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto view = JobStatsView::Open(**reader);
  REQUIRE_MESSAGE(view.ok(), Why(view));
  std::mt19937_64 rng(seed);
  const int64_t lo = o.start - 300, hi = o.start + o.interval * (o.samples + 3);
  int summarised = 0, aligned = 0;
  auto sum = JobStatsSummary::Load(**view, JobStatsKey::kJob);
  REQUIRE_MESSAGE(sum.ok(), Why(sum));
  REQUIRE(*sum);
  REQUIRE((*sum)->has_alive());
  for (int i = 0; i < n; ++i) {
    int64_t t1 = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    int64_t t2 = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    if (t1 > t2) std::swap(t1, t2);
    if (i % 5 == 0) t1 = t1 / 256 * 256, t2 = t2 / 256 * 256 + 256;  // on level-0 bins (of 256 s here)
    if (i % 5 == 3) t2 = std::max(t1 + 1, t2 / 256 * 256);           // the end on a bin
    if (i % 7 == 0) t1 = lo, t2 = hi;                                // the whole run
    if (t1 == t2) ++t2;
    const JobStatsKey key = JobStatsSummary::kKeys[static_cast<size_t>(i) % std::size(JobStatsSummary::kKeys)];
    JobStatsFilter f;
    if (i % 3 == 1) f.ops = {"write_bytes"};
    if (i % 3 == 2) f.ops = {"read_bytes", "open"};
    const std::string what = fmt::format("{} window {} [{}, {}) by {} ops {}", store, i, t1, t2, JobStatsKeyName(key),
                                         fmt::join(f.ops, ","));
    auto fast = JobStatsWindowQuery::Compute(**view, t1, t2, f, {key});
    auto slow = JobStatsWindowQuery::Compute(**view, t1, t2, f, {key}, true);
    REQUIRE_MESSAGE(fast.ok(), what, ": ", Why(fast));
    REQUIRE_MESSAGE(slow.ok(), what, ": ", Why(slow));
    CHECK_MESSAGE(fast->summarised, what);
    summarised += fast->summary_cells > 0;
    if (t2 - t1 > 2000 && fast->summary_cells > 0) CHECK_MESSAGE(fast->steps_read < slow->steps_read, what);
    // On summarised bin edges (every key's summaries share their bins): from cells alone.
    if ((*sum)->FromCells(t1, t2)) {
      ++aligned;
      CHECK_MESSAGE(fast->steps_read == 0, what);
    }
    Same(*fast, *slow, what + ": " + fast->How());
  }
  CHECK(summarised > n / 3);
  CHECK(aligned > 0);
  // The heatmap of series rates, from the summaries' cells on whole bins, every target or some.
  auto summary = JobStatsSummary::Load(**view, JobStatsKey::kJob);
  REQUIRE(summary.ok());
  REQUIRE(*summary);
  const int64_t cell = (*summary)->bin_seconds();
  int heat = 0;
  for (int i = 0; i < n / 2; ++i) {
    const int64_t first = (o.start + cell - 1) / cell, last = (*summary)->summarised_to() / cell;
    if (last <= first) break;
    int64_t a = first + static_cast<int64_t>(rng() % static_cast<uint64_t>(last - first));
    int64_t b = first + static_cast<int64_t>(rng() % static_cast<uint64_t>(last - first));
    if (a > b) std::swap(a, b);
    ++b;
    JobStatsFilter f;
    if (i % 2 == 1) f.targets = {(*view)->targets().front(), (*view)->targets().back()};
    for (const char* op : {"write_bytes", "open"}) {
      const std::string what = fmt::format("heatmap {} [{}, {}) of {} s, {} targets", op, a * cell, b * cell, cell,
                                           f.targets.empty() ? "all" : "2");
      auto fast = JobStatsHeatmapQuery::Compute(**view, a * cell, b * cell, cell, op, 2, f, {});
      auto slow = JobStatsHeatmapQuery::Compute(**view, a * cell, b * cell, cell, op, 2, f, {}, false);
      REQUIRE_MESSAGE(fast.ok(), what, ": ", Why(fast));
      REQUIRE_MESSAGE(slow.ok(), what, ": ", Why(slow));
      CHECK_MESSAGE(fast->summarised, what);
      heat += fast->summarised;
      REQUIRE_MESSAGE(fast->cells.size() == slow->cells.size(), what);
      for (size_t c = 0; c < fast->cells.size(); ++c) {
        const auto &x = fast->cells[c], &y = slow->cells[c];
        CHECK_MESSAGE((x.t == y.t && x.k == y.k && x.count == y.count), what, ": cell ", c);
      }
    }
  }
  CHECK(heat > 0);
  RandomGrids(**view, o, rng, n);
}

// The cells of every level of every key (t, group, op, started exact; sums and maxima near).
void SameCells(const std::string& a, const std::string& b) {
  auto ra = StoreReader::Open(a), rb = StoreReader::Open(b);
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  for (JobStatsKey k : JobStatsSummary::kKeys) {
    for (int j = 0; j < 40; ++j) {
      const std::string name = JobStatsLayout::SummaryLevelName(JobStatsKeyName(k), j);
      const ArrayDesc *x = (*ra)->catalogue().Find(name), *y = (*rb)->catalogue().Find(name);
      CHECK_MESSAGE((x == nullptr) == (y == nullptr), name);
      if (x == nullptr || y == nullptr) continue;
      REQUIRE_MESSAGE(x->record_count() == y->record_count(), name);
      std::vector<std::vector<std::byte>> cx, cy;
      REQUIRE((*ra)
                  ->ForEach(*x,
                            [&](const std::byte* r) -> Status {
                              cx.emplace_back(r, r + x->schema.record_width());
                              return Ok();
                            })
                  .ok());
      REQUIRE((*rb)
                  ->ForEach(*y,
                            [&](const std::byte* r) -> Status {
                              cy.emplace_back(r, r + y->schema.record_width());
                              return Ok();
                            })
                  .ok());
      CHECK_MESSAGE(x->schema.record_width() == (j == 0 ? JobStatsLayout::kSumWidth : JobStatsLayout::kLegacySumWidth),
                    name);
      for (size_t i = 0; i < cx.size(); ++i) {
        const std::byte *p = cx[i].data(), *q = cy[i].data();
        using L = JobStatsLayout;
        const bool ok = I64At(p, L::kSumT) == I64At(q, L::kSumT) && U32At(p, L::kSumGroup) == U32At(q, L::kSumGroup) &&
                        U32At(p, L::kSumOp) == U32At(q, L::kSumOp) &&
                        U64At(p, L::kSumStarted) == U64At(q, L::kSumStarted) &&
                        Near(F64At(p, L::kSumEnded), F64At(q, L::kSumEnded)) &&
                        Near(F64At(p, L::kSumPeak), F64At(q, L::kSumPeak)) &&
                        Near(F64At(p, L::kSumSeriesMax), F64At(q, L::kSumSeriesMax)) && cx[i].size() == cy[i].size() &&
                        (cx[i].size() < L::kSumWidth || (Near(F64At(p, L::kSumCarry), F64At(q, L::kSumCarry)) &&
                                                         U64At(p, L::kSumAlive) == U64At(q, L::kSumAlive)));
        if (!ok) {
          FAIL_CHECK(fmt::format("{} cell {} differs", name, i));
          break;
        }
      }
    }
  }
}

void CheckVariant(const std::string& variant, uint64_t seed) {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.variant = variant, o.targets = 5, o.jobs = 60, o.samples = 40, o.seed = seed;
  o.malformed_rate = 0.1, o.reset_rate = 0.05, o.missing_rate = 0.1;
  REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
  test::Run one = test::Xtfq(dir, "import snap -o one.xtfq");
  REQUIRE_MESSAGE(one.status == 0, one.err);
  CHECK(one.err.find("job_stats summaries by job, uid and class") != std::string::npos);
  // The same snapshots in three imports: the summaries are extended at each.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("snap"))) {
    if (e.path().extension() == ".txt") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return a.substr(a.find('-')) < b.substr(b.find('-'));  // by collection time (the name's stamp)
  });
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string part = fmt::format("part{}", i * 3 / files.size());
    std::filesystem::create_directories(dir.File(part));
    std::filesystem::copy(dir.File("snap/" + files[i]), dir.File(part + "/" + files[i]));
  }
  for (int p = 0; p < 3; ++p) {
    test::Run r = test::Xtfq(dir, fmt::format("import --format jobstats part{} -o three.xtfq", p));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  for (const char* store : {"one.xtfq", "three.xtfq"}) {
    test::Run c = test::Xtfq(dir, fmt::format("check {}", store));
    CHECK_MESSAGE(c.status == 0, c.err);
    CHECK(c.out.find("the job_stats summaries recomputed") != std::string::npos);
    RandomWindows(dir.File(store), o, seed, 24);
  }
  SameCells(dir.File("one.xtfq"), dir.File("three.xtfq"));
}

TEST_CASE("jobstats summaries: every variant, by job, uid and class, equal a scan of the steps") {
  uint64_t seed = 31;
  for (const char* v : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    SUBCASE(v) { CheckVariant(v, seed); }
    ++seed;
  }
}

TEST_CASE("jobstats summaries: check recomputes them and names a cell that does not match") {
  uint32_t field = JobStatsLayout::kSumEnded;
  SUBCASE("ended") {}
  SUBCASE("carry") { field = JobStatsLayout::kSumCarry; }
  SUBCASE("alive") { field = JobStatsLayout::kSumAlive; }
  test::TempDir dir;
  JobStatsGenOptions o;
  o.targets = 3, o.jobs = 30, o.samples = 30, o.seed = 5;
  REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
  test::Run r = test::Xtfq(dir, "import snap --no-grid -o s.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  {
    auto reader = StoreReader::Open(dir.File("s.xtfq"));
    REQUIRE(reader.ok());
    CHECK((*reader)->catalogue().Find(JobStatsLayout::SummaryName("job")) == nullptr);  // --no-grid: none
    auto view = JobStatsView::Open(**reader);
    REQUIRE(view.ok());
    auto w = StoreWriter::OpenPath(dir.File("s.xtfq"));
    REQUIRE(w.ok());
    // The 3rd cell of level 1 by job: its `ended`, one more; or the 40th cell of level 0 by uid:
    // its carry or its alive count, one more.
    const bool ended = field == JobStatsLayout::kSumEnded;
    test::AlteringSink sink(**w, JobStatsLayout::SummaryLevelName(ended ? "job" : "uid", ended ? 1 : 0), ended ? 3 : 40,
                            [&](std::vector<std::byte>& r) {
                              if (field == JobStatsLayout::kSumAlive) {
                                StoreLe<uint64_t>(r.data() + field, LoadLe<uint64_t>(r.data() + field) + 1);
                              } else {
                                StoreLe<double>(r.data() + field, LoadLe<double>(r.data() + field) + 1);
                              }
                            });
    auto rep = JobStatsSummary::Extend(**view, sink);
    REQUIRE_MESSAGE(rep.ok(), Why(rep));
    CHECK(rep->extended);
    REQUIRE((*w)->Commit().ok());
  }
  test::Run c = test::Xtfq(dir, "check s.xtfq");
  CHECK(c.status == 1);
  if (field == JobStatsLayout::kSumEnded) {
    CHECK_MESSAGE(c.err.find("jobstats/sum/job/1 cell 2 differs from the steps it summarises") != std::string::npos,
                  c.err);
  } else {
    CHECK_MESSAGE(c.err.find("jobstats/sum/uid/0 cell 39 differs from the steps it summarises") != std::string::npos,
                  c.err);
  }
}

// Dense stores are summarised a few bins a pass (JobStatsSummary::kChunkSteps): the cells are the
// same whatever the pass, here one bin a pass against sixteen, and `xtfq check` (which recomputes
// them sixteen bins a pass) agrees.
TEST_CASE("jobstats summaries: the cells do not depend on how many bins a pass covers") {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.targets = 4, o.jobs = 20, o.samples = 40, o.seed = 9;
  REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
  for (const char* store : {"one.xtfq", "all.xtfq"}) {
    test::Run r = test::Xtfq(dir, fmt::format("import snap --no-grid -o {}", store));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  for (auto [store, chunk_steps] : {std::pair{"one.xtfq", uint64_t{1}}, std::pair{"all.xtfq", uint64_t{1} << 40}}) {
    auto reader = StoreReader::Open(dir.File(store));
    REQUIRE(reader.ok());
    auto view = JobStatsView::Open(**reader);
    REQUIRE(view.ok());
    auto w = StoreWriter::OpenPath(dir.File(store));
    REQUIRE(w.ok());
    auto rep = JobStatsSummary::Extend(**view, **w, chunk_steps);
    REQUIRE_MESSAGE(rep.ok(), Why(rep));
    CHECK(rep->cells > 100);
    REQUIRE((*w)->Commit().ok());
    test::Run c = test::Xtfq(dir, fmt::format("check {}", store));
    CHECK_MESSAGE(c.status == 0, c.err);
  }
  // Every summary array, record for record.
  auto records = [&](const char* store) {
    auto reader = StoreReader::Open(dir.File(store));
    REQUIRE(reader.ok());
    std::map<std::string, std::string> out;
    for (const ArrayDesc& a : (*reader)->catalogue().arrays) {
      if (a.per_process() ||
          !(a.name.starts_with(JobStatsLayout::kSummaryPrefix) || a.name == JobStatsLayout::kZSummary))
        continue;
      std::string& bytes = out[a.name];
      REQUIRE((*reader)
                  ->ForEach(a,
                            [&](const std::byte* r) {
                              bytes.append(reinterpret_cast<const char*>(r), a.schema.record_width());
                              return Ok();
                            })
                  .ok());
    }
    return out;
  };
  const auto one = records("one.xtfq"), all = records("all.xtfq");
  CHECK(one.size() > 10);
  CHECK(one == all);
}

// `xtfq query --snap`: the window moves outward onto the summaries' 256 s bins and is read from
// their cells alone; its numbers are a scan's of the snapped window. Where it cannot apply, a note
// says why and the window is the one asked for.
TEST_CASE("jobstats summaries: query --snap reads a window on the summaries' bins from their cells alone") {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.targets = 4, o.jobs = 30, o.samples = 40, o.seed = 9;  // collections every 120 s from 1767225600
  REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
  test::Run r = test::Xtfq(dir, "import -q snap -o s.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto json = [&](const std::string& args) {
    test::Run q = test::Xtfq(dir, "query s.xtfq --format json " + args);
    REQUIRE_MESSAGE(q.status == 0, q.err);
    return nlohmann::json::parse(q.out);
  };
  // 1767225600 = 6903225 * 256: the asked window [+100, +1900) snaps to [+0, +2048).
  const int64_t start = 1767225600;
  for (const char* by : {"job", "uid", "class"}) {
    CAPTURE(by);
    const auto snapped = json(fmt::format("--by {} --snap --time {}:{}", by, start + 100, start + 1900));
    CHECK(snapped["snapped"] == true);
    CHECK(snapped["asked_t1"] == start + 100);
    CHECK(snapped["asked_t2"] == start + 1900);
    CHECK(snapped["t1"] == start);
    CHECK(snapped["t2"] == start + 2048);
    CHECK(snapped["steps_read"] == 0);
    CHECK(snapped["summary_cells"].get<uint64_t>() > 0);
    REQUIRE(snapped["notes"].size() == 1);
    CHECK(snapped["notes"][0] == fmt::format("snapped onto the {} summaries' 256 s bins: [{}, {}) instead of [{}, {})",
                                             by, start, start + 2048, start + 100, start + 1900));
    const auto scan = json(fmt::format("--by {} --scan --time {}:{}", by, start, start + 2048));
    CHECK(scan["steps_read"].get<uint64_t>() > 0);
    REQUIRE(snapped["groups"].size() == scan["groups"].size());
    for (size_t g = 0; g < scan["groups"].size(); ++g) {
      const auto &x = snapped["groups"][g], &y = scan["groups"][g];
      CHECK(x[by] == y[by]);
      REQUIRE(x["ops"].size() == y["ops"].size());
      for (const auto& [op, v] : y["ops"].items()) {
        CAPTURE(op);
        const auto& u = x["ops"][op];
        CHECK(u["steps"] == v["steps"]);
        CHECK(Near(u["total"].get<double>(), v["total"].get<double>()));
        CHECK(Near(u["rate_max"].get<double>(), v["rate_max"].get<double>()));
        CHECK(u["series_rate_max"].get<double>() == v["series_rate_max"].get<double>());
      }
    }
  }
  // Not applied: the window as asked, and why.
  for (auto [args, why] : std::vector<std::pair<std::string, std::string>>{
           {"--by target", "rows by target have no summaries (they read the targets' blocks)"},
           {"--by job,op", "the summaries answer rows of one key (job, uid and class)"},
           {"--by job --scan", "--scan reads every step"},
           {"--by node", "rows by node read the steps (summaries are by job, uid and class)"},
           {"--by job --uid 1000", "a filter by job, uid, node, class, id or target reads the steps of its series"}}) {
    CAPTURE(args);
    const auto a = json(fmt::format("{} --snap --time {}:{}", args, start + 100, start + 1900));
    CHECK(a["snapped"] == false);
    CHECK(a["t1"] == start + 100);
    CHECK(a["t2"] == start + 1900);
    REQUIRE(a["notes"].size() == 1);
    CHECK(a["notes"][0] == "--snap: not applied: " + why);
  }
  // Past the summaries' cells (the last collection is at start + 40 * 120 = start + 4800, so the
  // last bin summarised ends at start + 4608, and the cells answer alone up to start + 4352): the
  // ends would read steps anyway, so the window is not moved (it would only change the means).
  const auto late = json(fmt::format("--by job --snap --time {}:{}", start + 4000, start + 4400));
  CHECK(late["snapped"] == false);
  CHECK(late["t1"] == start + 4000);
  CHECK(late["t2"] == start + 4400);
  REQUIRE(late["notes"].size() == 1);
  CHECK(late["notes"][0] == fmt::format("--snap: not applied: the window on the summaries' 256 s bins would end after "
                                        "{}, the last bin edge their cells answer alone (the start of the last "
                                        "summarised bin): its ends would read steps",
                                        start + 4352));
  // Up to that edge it does apply.
  CHECK(json(fmt::format("--by job --snap --time {}:{}", start + 4000, start + 4352))["steps_read"] == 0);
  // An empty window stays empty.
  const auto empty = json(fmt::format("--by job --snap --time {}:{}", start + 1000, start + 1000));
  CHECK(empty["t1"] == start + 1000);
  CHECK(empty["t2"] == start + 1000);
  REQUIRE(empty["notes"].size() == 1);
  CHECK(empty["notes"][0] == "--snap: not applied: the window is empty");
  // In CSV, the notes go to stderr.
  test::Run csv =
      test::Xtfq(dir, fmt::format("query s.xtfq --by job --snap --format csv --time {}:{}", start + 100, start + 1900));
  REQUIRE_MESSAGE(csv.status == 0, csv.err);
  CHECK_MESSAGE(csv.err.find(fmt::format("xtfq query: note: snapped onto the job summaries' 256 s bins: [{}, {}) "
                                         "instead of [{}, {})",
                                         start, start + 2048, start + 100, start + 1900)) != std::string::npos,
                csv.err);
}

}  // namespace
}  // namespace xtfq

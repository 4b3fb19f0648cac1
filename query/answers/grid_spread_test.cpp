// Spread Darshan grids (bytes, busy and ranks_busy of GridAnswerQuery) against a naive model that
// splits every DXT segment of the log over the cells of its rank by its overlap, for random
// windows, rank ranges, column and row counts, snapped or not, on a generated log with stragglers
// (writes 8 times slower: bars, not dots) and a corpus log; the cells sum to the window's bytes
// moved (DxtWindowSpread), and a cell's busy time stays within its ranks times its width.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "layouts/darshan_layout.h"
#include "query/answers/grid_answer.h"
#include "store/endian.h"
#include "store/store_writer.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/why.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using L = DarshanLayout;
using test::Why;

struct Seg {
  int64_t t, rank, bytes;
  double duration;
};

std::vector<Seg> Segments(StoreReader& r) {
  std::vector<Seg> out;
  for (const char* op : {"DXT_POSIX.read", "DXT_POSIX.write"}) {
    const ArrayDesc* a = r.catalogue().Find(L::ArrayName(0, op));
    if (a == nullptr) continue;
    REQUIRE(r.ForEach(*a, [&](const std::byte* p) {
               out.push_back({LoadLe<int64_t>(p + L::kDxtOffsetT), LoadLe<int64_t>(p + L::kDxtOffsetRank),
                              LoadLe<int64_t>(p + L::kDxtOffsetLength), LoadLe<double>(p + L::kDxtOffsetDuration)});
               return Ok();
             }).ok());
  }
  return out;
}

bool Near(double a, double b) { return std::fabs(a - b) <= 1e-3 + 1e-9 * std::fabs(b); }

void CheckGrids(const std::string& store, int grids, uint64_t seed) {
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  const std::vector<Seg> segs = Segments(**r);
  double last = 0;
  int64_t ranks = 1;
  for (const Seg& s : segs) last = std::max(last, static_cast<double>(s.t) / 1e9 + s.duration);
  for (const Seg& s : segs) ranks = std::max(ranks, s.rank + 1);
  std::mt19937_64 rng(seed);
  uint64_t checked = 0, spanning = 0;
  for (int i = 0; i < grids; ++i) {
    GridAnswerRequest q;
    const double t1 = std::uniform_real_distribution<double>(0, last * 0.8)(rng);
    // Widths from a millionth to half of the run (log-uniform): columns finer than the long writes too.
    const double t2 =
        t1 + std::exp(std::uniform_real_distribution<double>(std::log(last * 1e-6), std::log(last * 0.5))(rng));
    q.time = fmt::format("{:.6f}:{:.6f}", t1, t2);
    q.cols = static_cast<uint32_t>(std::uniform_int_distribution<int>(1, 300)(rng));
    q.rows = static_cast<uint32_t>(std::uniform_int_distribution<int>(1, 16)(rng));
    if (i % 3 == 2) q.ranks = fmt::format("{}:{}", ranks / 4, ranks / 4 + ranks / 2 + 1);
    q.snap = i % 4 == 1;
    q.metrics = {"bytes", "busy", "ranks_busy", "bytes.started"};
    CAPTURE(q.time);
    CAPTURE(q.cols);
    CAPTURE(q.rows);
    CAPTURE(q.ranks);
    CAPTURE(q.snap);
    auto g = GridAnswerQuery::Run(**r, q);
    REQUIRE_MESSAGE(g.ok(), Why(g));
    const size_t cols = g->cols();
    // The model: each segment's bytes and seconds in each cell of its rank's row.
    std::vector<double> bytes(g->rows.size() * cols, 0.0), busy(bytes.size(), 0.0);
    for (const Seg& s : segs) {
      const double start = static_cast<double>(s.t), end = start + s.duration * 1e9;
      for (size_t row = 0; row < g->rows.size(); ++row) {
        if (s.rank < g->rows[row].first || s.rank >= g->rows[row].second) continue;
        for (size_t c = 0; c < cols; ++c) {
          const double lo = static_cast<double>(g->edges[c]), hi = static_cast<double>(g->edges[c + 1]);
          if (s.duration <= 0) {
            if (start >= lo && start < hi) bytes[row * cols + c] += static_cast<double>(s.bytes);
            continue;
          }
          const double ns = std::max(0.0, std::min(end, hi) - std::max(start, lo));
          bytes[row * cols + c] += static_cast<double>(s.bytes) * ns / (s.duration * 1e9);
          busy[row * cols + c] += ns / 1e9;
        }
        if (s.duration * 1e9 > static_cast<double>(g->edges[1] - g->edges[0])) ++spanning;
      }
    }
    for (size_t row = 0; row < g->rows.size(); ++row) {
      const double row_ranks = static_cast<double>(g->rows[row].second - g->rows[row].first);
      for (size_t c = 0; c < cols; ++c) {
        const size_t i = row * cols + c;
        const double width = static_cast<double>(g->edges[c + 1] - g->edges[c]) / 1e9;
        CHECK_MESSAGE(Near(*g->values[0][i], bytes[i]),
                      fmt::format("row {} col {}: {} against {}", row, c, *g->values[0][i], bytes[i]));
        CHECK_MESSAGE(Near(*g->values[1][i], busy[i]),
                      fmt::format("row {} col {}: {} s against {}", row, c, *g->values[1][i], busy[i]));
        CHECK(Near(*g->values[2][i] * width, busy[i]));
        // The generated ranks do one operation at a time: a cell's busy time fits its ranks x its width.
        CHECK(*g->values[1][i] <= row_ranks * width * (1 + 1e-9) + 1e-9);
        ++checked;
      }
    }
  }
  MESSAGE(grids << " grids, " << checked << " cells; " << spanning << " segments longer than a column");
  CHECK(spanning > 0);
}

TEST_CASE("grid spread: bytes and busy per cell equal a model that splits each segment over the cells it overlaps") {
  test::TempDir dir;
  DarshanGenOptions o;
  o.segments = test::ByTier<uint64_t>(20000, 100000, 1000000);
  o.ranks = 64, o.files = 100, o.duration = 600;
  const std::string log = dir.File("g.darshan");
  REQUIRE(DarshanGenerator::Write(log, o).ok());
  auto w = StoreWriter::CreatePath(dir.File("g.xtfq"));
  REQUIRE(w.ok());
  auto l = DarshanLog::Open(log);
  REQUIRE(l.ok());
  REQUIRE(DarshanImporter::Import(**l, **w, 0, {}).ok());
  REQUIRE((*w)->Commit().ok());
  CheckGrids(dir.File("g.xtfq"), test::ByTier(12, 30, 60), 3);
}

TEST_CASE("grid spread: a straggler's long write is a bar across the columns it spans") {
  test::TempDir dir;
  DarshanGenOptions o;
  o.segments = 20000, o.ranks = 128, o.files = 200, o.duration = 600;  // ranks 13 and 110 straggle
  REQUIRE(DarshanGenerator::Write(dir.File("s.darshan"), o).ok());
  {
    auto w = StoreWriter::CreatePath(dir.File("s.xtfq"));
    REQUIRE(w.ok());
    auto l = DarshanLog::Open(dir.File("s.darshan"));
    REQUIRE(l.ok());
    REQUIRE(DarshanImporter::Import(**l, **w, 0, {}).ok());
    REQUIRE((*w)->Commit().ok());
  }
  auto r = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE(r.ok());
  const std::vector<Seg> segs = Segments(**r);
  const Seg longest =
      *std::max_element(segs.begin(), segs.end(), [](const Seg& a, const Seg& b) { return a.duration < b.duration; });
  CHECK(longest.rank % 97 == 13);  // a planted straggler
  // Columns of a tenth of its duration over [start - d, end + d), its rank alone.
  const double start = static_cast<double>(longest.t) / 1e9, d = longest.duration;
  GridAnswerRequest q;
  q.time = fmt::format("{:.9f}:{:.9f}", start - d, start + 2 * d);
  q.cols = 30;
  q.processes = {longest.rank};
  q.metrics = {"bytes", "bytes.started", "ranks_busy"};
  auto g = GridAnswerQuery::Run(**r, q);
  REQUIRE_MESSAGE(g.ok(), Why(g));
  int spread = 0, started = 0;
  for (size_t c = 0; c < g->cols(); ++c) {
    const double lo = static_cast<double>(g->edges[c]) / 1e9, hi = static_cast<double>(g->edges[c + 1]) / 1e9;
    const bool inside = lo >= start && hi <= start + d;
    if (inside) {
      // Its share of the segment at least, and the rank busy the whole column.
      CHECK(*g->values[0][c] >= static_cast<double>(longest.bytes) * (hi - lo) / d * (1 - 1e-9));
      CHECK(*g->values[2][c] == doctest::Approx(1.0).epsilon(1e-6));
      ++spread;
    }
    if (*g->values[1][c] > 0) ++started;
  }
  CHECK(spread >= 8);   // a bar about ten columns long
  CHECK(started <= 3);  // where a start-counted grid draws a dot
}

TEST_CASE("grid spread: a corpus log with long reads against the same model") {
  const fs::path log = fs::path(XTFQ_SHARED_DIR) / "data/darshan/real/mpi-io-test-dxt-32rank.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  auto w = StoreWriter::CreatePath(dir.File("m.xtfq"));
  REQUIRE(w.ok());
  auto l = DarshanLog::Open(log.string());
  REQUIRE(l.ok());
  REQUIRE(DarshanImporter::Import(**l, **w, 0, {}).ok());
  REQUIRE((*w)->Commit().ok());
  CheckGrids(dir.File("m.xtfq"), 20, 5);
}

}  // namespace
}  // namespace xtfq

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

#include "query/answers/grid_answer.h"
#include "tests/dxt_model.h"
#include "tests/generated_darshan.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/why.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using test::ModelSegment;
using test::NearBytes;
using test::Why;

// Reads and writes together.
std::vector<ModelSegment> Segments(StoreReader& r) {
  auto ops = test::DxtModelSegments(r);
  ops[0].insert(ops[0].end(), ops[1].begin(), ops[1].end());
  return ops[0];
}

void CheckGrids(const std::string& store, int grids, uint64_t seed) {
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  const std::vector<ModelSegment> segs = Segments(**r);
  double last = 0;
  int64_t ranks = 1;
  for (const ModelSegment& s : segs) last = std::max(last, static_cast<double>(s.t) / 1e9 + s.duration);
  for (const ModelSegment& s : segs) ranks = std::max(ranks, s.rank + 1);
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
    for (const ModelSegment& s : segs) {
      for (size_t row = 0; row < g->rows.size(); ++row) {
        if (s.rank < g->rows[row].first || s.rank >= g->rows[row].second) continue;
        for (size_t c = 0; c < cols; ++c) {
          const auto [b, sec] =
              test::Overlap(s, static_cast<double>(g->edges[c]), static_cast<double>(g->edges[c + 1]));
          bytes[row * cols + c] += b, busy[row * cols + c] += sec;
        }
        if (s.duration * 1e9 > static_cast<double>(g->edges[1] - g->edges[0])) ++spanning;
      }
    }
    for (size_t row = 0; row < g->rows.size(); ++row) {
      const double row_ranks = static_cast<double>(g->rows[row].second - g->rows[row].first);
      for (size_t c = 0; c < cols; ++c) {
        const size_t i = row * cols + c;
        const double width = static_cast<double>(g->edges[c + 1] - g->edges[c]) / 1e9;
        CHECK_MESSAGE(NearBytes(*g->values[0][i], bytes[i]),
                      fmt::format("row {} col {}: {} against {}", row, c, *g->values[0][i], bytes[i]));
        CHECK_MESSAGE(NearBytes(*g->values[1][i], busy[i]),
                      fmt::format("row {} col {}: {} s against {}", row, c, *g->values[1][i], busy[i]));
        CHECK(NearBytes(*g->values[2][i] * width, busy[i]));
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
  DarshanGenOptions o;
  o.segments = test::ByTier<uint64_t>(20000, 100000, 1000000);
  o.ranks = 64, o.files = 100, o.duration = 600;
  const test::GeneratedDarshan g(o);
  CheckGrids(g.store, test::ByTier(12, 30, 60), 3);
}

TEST_CASE("grid spread: a straggler's long write is a bar across the columns it spans") {
  DarshanGenOptions o;
  o.segments = 20000, o.ranks = 128, o.files = 200, o.duration = 600;  // ranks 13 and 110 straggle
  const test::GeneratedDarshan gen(o);
  auto r = StoreReader::Open(gen.store);
  REQUIRE(r.ok());
  const std::vector<ModelSegment> segs = Segments(**r);
  const ModelSegment longest = *std::max_element(
      segs.begin(), segs.end(), [](const ModelSegment& a, const ModelSegment& b) { return a.duration < b.duration; });
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
  test::ImportDarshan(log.string(), dir.File("m.xtfq"));
  CheckGrids(dir.File("m.xtfq"), 20, 5);
}

}  // namespace
}  // namespace xtfq

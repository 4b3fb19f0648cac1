// DxtWindowSpread against a naive model: every segment of the log split over the window by its
// overlap, for random windows and rank ranges, on a generated log with stragglers (writes 8 times
// slower, so many segments cross window edges) and on corpus logs with DXT.
#include "query/darshan/dxt_window_spread.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "query/darshan/darshan_window.h"
#include "query/darshan/darshan_window_query.h"
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

// The model: each segment's bytes and seconds inside [t1, t2) of the ranks [p1, p2).
DxtSpread Model(const std::vector<ModelSegment>& segs, int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  DxtSpread d;
  for (const ModelSegment& s : segs) {
    if (s.rank < p1 || s.rank >= p2) continue;
    const auto [bytes, seconds] = test::Overlap(s, static_cast<double>(t1), static_cast<double>(t2));
    d.bytes += bytes, d.busy += seconds;
  }
  return d;
}

void CheckWindows(const std::string& store, int windows, uint64_t seed) {
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  auto info = DarshanLogs::Find(**r, 0, std::nullopt);
  REQUIRE(info.ok());
  const auto segs = test::DxtModelSegments(**r);
  int64_t last = 0, ranks = 1;
  for (const auto& v : segs) {
    for (const ModelSegment& s : v) {
      last = std::max<int64_t>(last, s.t + static_cast<int64_t>(s.duration * 1e9) + 1);
      ranks = std::max(ranks, s.rank + 1);
    }
  }
  std::mt19937_64 rng(seed);
  uint64_t crossing = 0, read = 0, most_read = 0;
  for (int i = 0; i < windows; ++i) {
    DarshanWindowSpec spec;
    spec.t1 = std::uniform_int_distribution<int64_t>(0, last)(rng);
    spec.t2 = spec.t1 + std::uniform_int_distribution<int64_t>(1, last / 4 + 1)(rng);
    if (i % 3 == 1) {
      spec.p1 = std::uniform_int_distribution<int64_t>(0, ranks - 1)(rng);
      spec.p2 = spec.p1 + std::uniform_int_distribution<int64_t>(1, ranks)(rng);
    }
    if (i == 0) spec.t1 = INT64_MIN, spec.t2 = INT64_MAX;
    CAPTURE(spec.t1);
    CAPTURE(spec.t2);
    CAPTURE(spec.p1);
    auto started = DarshanWindow::Compute(**r, *info, spec);
    REQUIRE_MESSAGE(started.ok(), Why(started));
    auto got = DxtWindowSpread::Compute(**r, *info, spec, *started, DarshanWindowQuery::Frame(*info).last);
    REQUIRE_MESSAGE(got.ok(), Why(got));
    crossing += got->crossing;
    read += got->records_read, most_read = std::max(most_read, got->records_read);
    for (int op = 0; op < 2; ++op) {
      const DxtSpread want = Model(segs[static_cast<size_t>(op)], got->t1, got->t2, spec.p1, spec.p2);
      const DxtSpread& have = got->total[static_cast<size_t>(op)];
      CHECK_MESSAGE(NearBytes(have.bytes, want.bytes),
                    fmt::format("op {}: {:.9f} against {:.9f}", op, have.bytes, want.bytes));
      CHECK_MESSAGE(NearBytes(have.busy, want.busy),
                    fmt::format("op {}: {:.9f} s against {:.9f}", op, have.busy, want.busy));
      // Busy time is bounded by the ranks x the window, when no rank overlaps its own operations.
      CHECK(have.busy >= -1e-9);
      for (const auto& [rank, ops] : got->ranks) {
        const DxtSpread w = Model(segs[static_cast<size_t>(op)], got->t1, got->t2, rank, rank + 1);
        CHECK_MESSAGE(
            NearBytes(ops[static_cast<size_t>(op)].bytes, w.bytes),
            fmt::format("rank {} op {}: {:.9f} against {:.9f}", rank, op, ops[static_cast<size_t>(op)].bytes, w.bytes));
      }
    }
    if (i == 0) {
      // The whole run: nothing is cut, and the window reaches the last segment's end.
      CHECK(got->t1 == 0);
      CHECK(got->t2 >= last - 1);
      CHECK(got->total[1].bytes == doctest::Approx(static_cast<double>(started->write.bytes)));
    }
  }
  const uint64_t segments = segs[0].size() + segs[1].size();
  MESSAGE(windows << " windows, " << crossing << " segments crossing their edges, " << read << " read to find them (at "
                  << "most " << most_read << " for a window) of " << segments);
  // Only runs of start times that may reach an edge are read: a few blocks of at most 256 per
  // edge, not the window (the corpus logs are too small for this to say anything).
  if (segments > 10000) CHECK(most_read <= 4 * 2 * 2 * 256);
  CHECK(crossing > 0);
}

TEST_CASE("dxt spread: bytes and busy time during random windows equal a model that splits each segment") {
  DarshanGenOptions o;
  o.segments = test::ByTier<uint64_t>(20000, 200000, 1000000);
  o.ranks = 200, o.files = 300, o.duration = 600;
  const test::GeneratedDarshan g(o);
  CheckWindows(g.store, 60, 7);
}

TEST_CASE("dxt spread: corpus logs with DXT against the same model") {
  const fs::path corpus = fs::path(XTFQ_SHARED_DIR) / "data" / "darshan";
  if (test::SharedMissing(corpus)) return;
  test::TempDir dir;
  for (const char* name : {"real/mpi-io-test-dxt-32rank", "generated/iopat_small_dxt"}) {
    CAPTURE(name);
    const std::string store = dir.File(fs::path(name).filename().string() + ".xtfq");
    test::ImportDarshan((corpus / (std::string(name) + ".darshan")).string(), store);
    CheckWindows(store, 40, 11);
  }
}

}  // namespace
}  // namespace xtfq

// The DXT segments of a window (DarshanSegmentsQuery, `xtfq segments`, the viewer's drill-down)
// against a naive model: every segment of the log's arrays read one by one, filtered, sorted by
// (start, rank, file, offset, length, read before write) and cut into the page; on random windows,
// rank ranges (narrow ones take the P index, wide ones the array's window), ops and offsets. And
// per-file rows, which now read only the window's segments, against the scan of every segment,
// with the top files by bytes.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <tuple>

#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "layouts/darshan_layout.h"
#include "query/darshan/darshan_segments_query.h"
#include "query/darshan/darshan_window_query.h"
#include "store/endian.h"
#include "store/store_writer.h"
#include "tests/generated_darshan.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Why;
using L = DarshanLayout;

DarshanGenOptions Options() {
  DarshanGenOptions o;
  o.segments = 80000, o.ranks = 64, o.files = 200, o.checkpoints = 3, o.duration = 1000, o.seed = 23;
  return o;
}

struct Log : test::GeneratedDarshan {
  Log() : GeneratedDarshan(Options()) {}
};

using Key = std::tuple<int64_t, int64_t, uint64_t, int64_t, int64_t, bool>;

// Every segment of `source` (DXT_POSIX or DXT_MPIIO) in [t1, t2) x [p1, p2) of the ops asked,
// sorted: the model.
std::vector<std::pair<Key, double>> Model(StoreReader& reader, const std::string& source, int64_t t1, int64_t t2,
                                          int64_t p1, int64_t p2, const std::string& op) {
  std::vector<std::pair<Key, double>> out;
  for (const bool write : {false, true}) {
    if (op != "all" && (op == "write") != write) continue;
    auto a = reader.Array(fmt::format("darshan/0/{}.{}", source, write ? "write" : "read"));
    REQUIRE(a.ok());
    REQUIRE(reader
                .ForEach(**a,
                         [&](const std::byte* r) {
                           const int64_t t = LoadLe<int64_t>(r + L::kDxtOffsetT),
                                         rank = LoadLe<int64_t>(r + L::kDxtOffsetRank);
                           if (t >= t1 && t < t2 && rank >= p1 && rank < p2) {
                             out.emplace_back(Key{t, rank, LoadLe<uint64_t>(r + L::kDxtOffsetFile),
                                                  LoadLe<int64_t>(r + L::kDxtOffsetOffset),
                                                  LoadLe<int64_t>(r + L::kDxtOffsetLength), write},
                                              LoadLe<double>(r + L::kDxtOffsetDuration));
                           }
                           return Ok();
                         })
                .ok());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("segments: pages of random windows equal the naive model") {
  Log f;
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  std::mt19937_64 rng(9);
  int narrow = 0, full_pages = 0;
  for (int i = 0; i < 60; ++i) {
    DarshanSegmentsRequest q;
    const int64_t a = static_cast<int64_t>(rng() % 1000'000'000'000ULL),
                  b = static_cast<int64_t>(rng() % 1000'000'000'000ULL);
    int64_t t1 = std::min(a, b), t2 = std::max(a, b) + 1;
    if (i % 4 == 0) t2 = t1 + static_cast<int64_t>(rng() % 20'000'000'000ULL) + 1;  // short windows
    if (i % 9 == 0) t1 = INT64_MIN, t2 = INT64_MAX;
    q.time = i % 9 == 0 ? ":" : fmt::format("{}ns:{}ns", t1, t2);
    int64_t p1 = INT64_MIN, p2 = INT64_MAX;
    if (i % 3 != 0) {
      p1 = static_cast<int64_t>(rng() % 64);
      p2 = p1 + 1 + static_cast<int64_t>(rng() % (i % 2 ? 3 : 64));
      q.ranks = fmt::format("{}:{}", p1, p2);
      narrow += p2 - p1 <= 3;
    }
    q.op = i % 5 == 1 ? "read" : i % 5 == 2 ? "write" : "all";
    q.module = i % 7 == 3 ? "MPI-IO" : "POSIX";
    q.limit = 1 + rng() % 300;
    q.offset = i % 2 ? rng() % 400 : 0;
    const std::string what = fmt::format("request {}: time {} ranks {} op {} {} offset {} limit {}", i, q.time, q.ranks,
                                         q.op, q.module, q.offset, q.limit);
    auto ans = DarshanSegmentsQuery::Run(**reader, q);
    REQUIRE_MESSAGE(ans.ok(), what, ": ", Why(ans));
    const auto model = Model(**reader, q.module == "POSIX" ? "DXT_POSIX" : "DXT_MPIIO", t1, t2, p1, p2, q.op);
    INFO(what, "; model ", model.size(), ", read ", ans->records_read);
    CHECK(ans->total == model.size());
    const size_t want = model.size() > q.offset ? std::min<size_t>(q.limit, model.size() - q.offset) : 0;
    REQUIRE(ans->segments.size() == want);
    full_pages += want == q.limit;
    for (size_t k = 0; k < want; ++k) {
      const DarshanSegment& s = ans->segments[k];
      const auto& [key, duration] = model[q.offset + k];
      CHECK(Key{s.start, s.rank, s.file, s.offset, s.length, s.write} == key);
      CHECK(s.duration == duration);
      CHECK(ans->FileName(s.file) != "(null)");
    }
    // A page reads about what it lists, not the window.
    CHECK(ans->records_read <= 2 * (q.offset + q.limit + 64 * 64) + 2 * model.size() / 8 + 200);
  }
  CHECK(narrow > 5);
  CHECK(full_pages > 10);
}

TEST_CASE("segments: bad pages, logs without DXT, and the command line") {
  Log f;
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  DarshanSegmentsRequest q;
  q.limit = 0;
  CHECK(DarshanSegmentsQuery::Run(**reader, q).error().message().find("--limit 0: give 1 to 1000") !=
        std::string::npos);
  q.limit = 10, q.offset = 99995;
  CHECK(DarshanSegmentsQuery::Run(**reader, q).error().message().find("narrow the window") != std::string::npos);
  q.offset = 0, q.module = "STDIO";
  CHECK(!DarshanSegmentsQuery::Run(**reader, q).ok());

  const test::Run json = test::Xtfq(f.dir, "segments g.xtfq --time 40%:45% --ranks 2:4 --limit 3 --format json");
  REQUIRE(json.status == 0);
  const auto j = nlohmann::json::parse(json.out);
  q.module = "POSIX", q.time = "40%:45%", q.ranks = "2:4", q.limit = 3;
  auto ans = DarshanSegmentsQuery::Run(**reader, q);
  REQUIRE(ans.ok());
  CHECK(j["total"] == ans->total);
  REQUIRE(j["segments"].size() == ans->segments.size());
  for (size_t k = 0; k < ans->segments.size(); ++k) CHECK(j["segments"][k]["start_ns"] == ans->segments[k].start);
  const test::Run csv = test::Xtfq(f.dir, "segments g.xtfq --time 40%:45% --ranks 2:4 --limit 3 --format csv");
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + static_cast<long>(ans->segments.size()));
  const test::Run bad = test::Xtfq(f.dir, "segments g.xtfq --limit 5000");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--limit 5000: give 1 to 1000") != std::string::npos);
  CHECK(test::Xtfq(f.dir, "segments g.xtfq --op both").status == 2);
  // Every rank is "all" in the header; an empty rank range is named as one, with no segments.
  const test::Run every = test::Xtfq(f.dir, "segments g.xtfq --limit 1");
  CHECK_MESSAGE(every.out.find(", ranks all: ") != std::string::npos, every.out);
  const test::Run empty = test::Xtfq(f.dir, "segments g.xtfq --ranks 3:3");
  CHECK(empty.status == 0);
  CHECK_MESSAGE(
      empty.err.find("warning: the ranks 3:3 are an empty range, no rank (R1:R2 is half-open: 3:4 is rank 3)") !=
          std::string::npos,
      empty.err);
  CHECK(empty.out.find("ranks 3:3: 0 in all\n") != std::string::npos);
}

TEST_CASE("segments: per-file rows read the window's segments and equal the scan, and the top files by bytes") {
  Log f;
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  std::mt19937_64 rng(4);
  for (int i = 0; i < 20; ++i) {
    DarshanWindowRequest q;
    const int a = static_cast<int>(rng() % 100), b = static_cast<int>(rng() % 100);
    q.time = fmt::format("{}%:{}%", std::min(a, b), std::max(a, b) + 1);
    if (i % 2) {
      const int p = static_cast<int>(rng() % 64);
      q.ranks = fmt::format("{}:{}", p, p + 1 + static_cast<int>(rng() % 4));
    }
    q.per_file = true;
    INFO(q.time, " ranks ", q.ranks);
    auto idx = DarshanWindowQuery::Run(**reader, q);
    REQUIRE_MESSAGE(idx.ok(), Why(idx));
    q.scan = true;
    auto scan = DarshanWindowQuery::Run(**reader, q);
    REQUIRE(scan.ok());
    REQUIRE(idx->result.files.size() == scan->result.files.size());
    for (const auto& [id, ops] : scan->result.files) {
      REQUIRE(idx->result.files.count(id) == 1);
      for (int op = 0; op < 2; ++op) {
        CHECK(idx->result.files.at(id)[op].ops == ops[op].ops);
        CHECK(idx->result.files.at(id)[op].bytes == ops[op].bytes);
      }
    }
    // The top 5 by bytes: the model sorts the scan's files.
    q.scan = false, q.top_files = 5;
    auto top = DarshanWindowQuery::Run(**reader, q);
    REQUIRE(top.ok());
    std::vector<std::pair<int64_t, uint64_t>> want;
    for (const auto& [id, ops] : scan->result.files) want.emplace_back(-(ops[0].bytes + ops[1].bytes), id);
    std::sort(want.begin(), want.end());
    CHECK(top->files_in_window == want.size());
    REQUIRE(top->file_order.size() == std::min<size_t>(5, want.size()));
    for (size_t k = 0; k < top->file_order.size(); ++k) CHECK(top->file_order[k] == want[k].second);
  }
  const test::Run cli = test::Xtfq(f.dir, "query g.xtfq --top 3");
  CHECK(cli.status == 2);
  CHECK(cli.err.find("give --per-file") != std::string::npos);
}

}  // namespace
}  // namespace xtfq

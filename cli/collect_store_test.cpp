// CollectStore: snapshots appended in time order, one commit each; one older than the store's newest
// collection left alone (`behind`); one the store holds recognised (not appended, with a note); a
// refused file or a busy store stops the appends there, commits nothing of that file and returns it
// and the later ones as `waiting`.
#include "cli/collect_store.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/store_writer.h"
#include "tests/temp_dir.h"
#include "tests/why.h"

namespace xtfq::cli {
namespace {

using L = JobStatsLayout;

// A snapshot of target fs-OST0000 as collect writes it, collected at t, one job with `writes`.
SnapshotDirectory::Snapshot Write(const test::TempDir& dir, int64_t t, uint64_t writes, bool with_target = true) {
  const std::string path = dir.File(fmt::format("x-{}.txt", t));
  std::ofstream(path) << fmt::format(
      "# collected_at: {}\n{}job_stats:\n- job_id:          7:1001:n1\n  snapshot_time:   {}\n"
      "  write_bytes:     {{ samples: {}, unit: bytes, min: 1, max: 1, sum: {} }}\n",
      t, with_target ? "obdfilter.fs-OST0000.job_stats=\n" : "", t, writes, writes);
  return {t, path};
}

std::vector<int64_t> CollectionTimes(const std::string& store) {
  std::vector<int64_t> out;
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), test::Why(r));
  auto a = (*r)->Array(L::kCollections);
  REQUIRE_MESSAGE(a.ok(), test::Why(a));
  REQUIRE((*r)->ForEach(**a,
                        [&](const std::byte* rec) {
                          out.push_back(I64At(rec, L::kColT));
                          return Ok();
                        })
              .ok());
  return out;
}

std::vector<std::string> Paths(const std::vector<SnapshotDirectory::Snapshot>& s) {
  std::vector<std::string> out;
  for (const auto& x : s) out.push_back(x.path);
  return out;
}

TEST_CASE("CollectStore: time order and one commit each with the held and the older recognised") {
  test::TempDir dir;
  const std::string store = dir.File("c.xtfq");
  const CollectStore cs(store, {}, std::chrono::milliseconds(100));
  // Given out of order: appended in time order.
  const auto s2000 = Write(dir, 2000, 20), s1000 = Write(dir, 1000, 10);
  CollectAppend r = cs.Append({s2000, s1000});
  REQUIRE_MESSAGE(!r.stopped, r.stopped->message());
  REQUIRE(r.done.size() == 2);
  CHECK(r.done[0].snapshot.path == s1000.path);
  CHECK(r.done[1].snapshot.path == s2000.path);
  CHECK(r.done[0].appended);
  CHECK(r.done[1].appended);
  CHECK(r.done[1].generation == r.done[0].generation + 1);
  CHECK(r.done[1].steps == 1);  // write_bytes 10 -> 20
  CHECK(CollectionTimes(store) == std::vector<int64_t>{1000, 2000});

  // Older than the newest: behind; the newest again: recognised, not appended; a new one appended.
  const auto s500 = Write(dir, 500, 5), s3000 = Write(dir, 3000, 30);
  r = cs.Append({s3000, s2000, s500});
  REQUIRE_MESSAGE(!r.stopped, r.stopped->message());
  CHECK(Paths(r.behind) == std::vector<std::string>{s500.path});
  REQUIRE(r.done.size() == 2);
  CHECK(!r.done[0].appended);
  REQUIRE(r.done[0].notes.size() == 1);
  CHECK(r.done[0].notes[0] == s2000.path + ": already in the store (target fs-OST0000 collected at 2000); skipped");
  CHECK(r.done[1].appended);
  CHECK(CollectionTimes(store) == std::vector<int64_t>{1000, 2000, 3000});

  // A file the importer refuses stops the appends at it; nothing of it is committed.
  const auto s4000 = Write(dir, 4000, 40, false), s5000 = Write(dir, 5000, 50);
  r = cs.Append({s4000, s5000});
  REQUIRE(r.stopped);
  CHECK(r.stopped->message().find("--target") != std::string::npos);
  CHECK(r.done.empty());
  CHECK(Paths(r.waiting) == std::vector<std::string>{s4000.path, s5000.path});
  CHECK(CollectionTimes(store) == std::vector<int64_t>{1000, 2000, 3000});

  // Another writer holds the store: waited for, then everything waits.
  std::filesystem::remove(s4000.path);
  {
    auto w = StoreWriter::OpenPath(store);
    REQUIRE_MESSAGE(w.ok(), test::Why(w));
    r = cs.Append({s5000});
    REQUIRE(r.stopped);
    CHECK(r.stopped->code() == ErrorCode::kBusy);
    CHECK(r.stopped->message() == store + ": another writer has the store open (waited 0.1 s)");
    CHECK(Paths(r.waiting) == std::vector<std::string>{s5000.path});
  }
  r = cs.Append({s5000});
  REQUIRE_MESSAGE(!r.stopped, r.stopped->message());
  CHECK(CollectionTimes(store) == std::vector<int64_t>{1000, 2000, 3000, 5000});
}

}  // namespace
}  // namespace xtfq::cli

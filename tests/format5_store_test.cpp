// A store written by the format 5 build (tests/data/format5_events.xtfq, see tests/data/README.md):
// read, checked and appended to by this build, its answers against the generator's events.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gen/events_generator.h"
#include "importers/events/event_record.h"
#include "query/core/primitives.h"
#include "query/core/store_reader.h"
#include "store/format.h"
#include "store/store_checker.h"
#include "store/store_writer.h"
#include "tests/temp_dir.h"
#include "tests/why.h"

namespace xtfq {
namespace {

using test::Why;

// `xtfq gen events 3000 --ranks 16 --seed 7`, imported by the format 5 build.
constexpr int kEvents = 3000;

std::vector<EventRecord> Generated(int n) {
  EventsGenerator gen(16, 7);
  std::vector<EventRecord> out;
  for (int i = 0; i < n; ++i) out.push_back(gen.Next());
  return out;
}

// Every record of "events" in order, the count and byte sum of a time and rank window by the index,
// each against the generator's events; and the checker's report.
StoreChecker::Report Verify(const std::string& path, const std::vector<EventRecord>& want, uint32_t version) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  CHECK((*reader)->store().superblock().version == version);
  auto a = (*reader)->Array("events");
  REQUIRE(a.ok());
  std::vector<EventRecord> got;
  REQUIRE((*reader)
              ->ForEach(**a,
                        [&](const std::byte* r) {
                          got.push_back(EventRecord::Decode(r));
                          return Ok();
                        })
              .ok());
  CHECK(got == want);
  Primitives p((*reader)->cache(), **a, &(*reader)->catalogue());
  const int64_t t1 = want[want.size() / 5].t, t2 = want[want.size() * 3 / 4].t;
  uint64_t count = 0;
  int64_t bytes = 0;
  for (const EventRecord& e : want) {
    if (e.t >= t1 && e.t < t2 && e.rank >= 3 && e.rank < 9) ++count, bytes += e.bytes;
  }
  auto s = p.Aggregate(t1, t2, 3, 9);
  REQUIRE_MESSAGE(s.ok(), Why(s));
  CHECK(s->count == count);
  CHECK(s->fields[0].i_sum == bytes);
  StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
  CHECK_MESSAGE(rep.ok(), Why(rep));
  return rep;
}

TEST_CASE("format 5: a store of the format 5 build is read, checked and appended to, its old pages decoded") {
  test::TempDir dir;
  const std::string path = dir.File("e.xtfq");
  std::filesystem::copy_file(std::string(XTFQ_SOURCE_DIR) + "/tests/data/format5_events.xtfq", path);
  std::vector<EventRecord> want = Generated(kEvents + 2000);
  std::vector<EventRecord> first(want.begin(), want.begin() + kEvents);
  const StoreChecker::Report old = Verify(path, first, 5);
  CHECK(old.stored_pages[format::kCodecLz4Columns] > 0);
  CHECK(old.stored_pages[format::kCodecLz4Typed] == 0);
  {
    auto w = StoreWriter::OpenPath(path);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    auto id = (*w)->FindArrayId("events");
    REQUIRE(id);
    for (int i = kEvents; i < kEvents + 2000; ++i) {
      std::byte b[EventRecord::kSize];
      want[i].Encode(b);
      REQUIRE((*w)->Append(*id, std::span<const std::byte>(b, sizeof b)).ok());
    }
    REQUIRE((*w)->Commit().ok());
  }
  // The first commit makes it the current version; the pages of format 5 stay as they were, the
  // new ones are by typed columns.
  const StoreChecker::Report both = Verify(path, want, format::kFormatVersion);
  CHECK(both.stored_pages[format::kCodecLz4Columns] > 0);
  CHECK(both.stored_pages[format::kCodecLz4Typed] > 0);
}

}  // namespace
}  // namespace xtfq

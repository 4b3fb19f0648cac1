#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "gen/events_generator.h"
#include "importers/events/event_record.h"
#include "importers/events/events_importer.h"
#include "store/endian.h"
#include "store/mem_file.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"

namespace xtfq {
namespace {

// A sink that keeps everything in memory.
class VectorSink final : public RecordSink {
 public:
  Result<ArrayId> CreateArray(std::string_view name, const Schema& schema) override {
    names.emplace_back(name);
    schemas.push_back(schema);
    return ArrayId(static_cast<uint32_t>(names.size()));
  }
  std::optional<ArrayId> FindArrayId(std::string_view) const override { return std::nullopt; }
  Status Append(ArrayId, std::span<const std::byte> record) override {
    records.emplace_back(record.begin(), record.end());
    return Ok();
  }
  Result<StringRef> AddString(std::string_view) override { return StringRef{}; }
  std::vector<std::string> names;
  std::vector<Schema> schemas;
  std::vector<std::vector<std::byte>> records;
};

std::shared_ptr<MemDisk> Disk(const std::vector<EventRecord>& ev, size_t extra = 0) {
  std::vector<std::byte> bytes(ev.size() * EventRecord::kSize + extra);
  for (size_t i = 0; i < ev.size(); ++i) ev[i].Encode(bytes.data() + i * EventRecord::kSize);
  auto d = std::make_shared<MemDisk>();
  d->SetContents(bytes);
  return d;
}

TEST_CASE("events: the store schema is the 32-byte layout of the bench format") {
  const Schema& s = EventRecord::StoreSchema();
  CHECK(s.record_width() == 32);
  CHECK(s.Describe() == "t:i64@time bytes:i64* dur:f64* rank:i32@process op:i32");
  EventRecord e{123, 4096, 0.25, 17, 1};
  std::vector<std::byte> b(32);
  e.Encode(b.data());
  CHECK(LoadLe<int64_t>(b.data()) == 123);
  CHECK(std::get<int64_t>(s.Get(b.data(), 1)) == 4096);
  CHECK(std::get<double>(s.Get(b.data(), 2)) == 0.25);
  CHECK(std::get<int64_t>(s.Get(b.data(), 3)) == 17);
  CHECK(EventRecord::Decode(b.data()) == e);
}

TEST_CASE("events: generator draws follow the bench README's distribution") {
  EventsGenerator g(64, 1);
  int64_t prev = 0;
  int writes = 0, out_of_range = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    EventRecord e = g.Next();
    out_of_range += e.t <= prev || e.rank < 0 || e.rank >= 64 || e.bytes < 512 || e.bytes > 268435456 ||
                    e.dur <= 2e-5 || (e.op != 0 && e.op != 1);
    prev = e.t;
    writes += e.op;
  }
  CHECK(out_of_range == 0);
  CHECK(writes > n * 0.38);
  CHECK(writes < n * 0.42);
  CHECK(prev / n > 9000);  // mean gap of 10 us, plus 1 ns
  CHECK(prev / n < 11000);
}

TEST_CASE("events: the generator writes the shared generator's bytes") {
#ifdef XTFQ_SHARED_GEN
  test::TempDir dir;
  for (auto [ranks, seed] : {std::pair{1024, 42}, std::pair{64, 7}}) {
    const std::string ref = dir.File(fmt::format("ref-{}.bin", seed));
    const std::string cmd = fmt::format("'{}' 50000 '{}' '{}' - {} {} > /dev/null 2>&1", XTFQ_SHARED_GEN, ref,
                                        dir.File("q.txt"), ranks, seed);
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(ref, std::ios::binary);
    std::vector<char> want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(want.size() == 50000 * 32);
    EventsGenerator g(ranks, seed);
    std::vector<std::byte> got(want.size());
    for (size_t i = 0; i < 50000; ++i) g.Next().Encode(got.data() + i * 32);
    CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
  }
#else
  test::SharedAbsent(std::string(XTFQ_SHARED_DIR) + "/bench/gen.cpp is absent: no reference generator to compare with");
#endif
}

TEST_CASE("events: import appends every event and bad files are errors naming file and offset") {
  EventsGenerator g(16, 3);
  std::vector<EventRecord> ev;
  for (int i = 0; i < 1000; ++i) ev.push_back(g.Next());
  {
    VectorSink sink;
    MemFile f("d.bin", Disk(ev));
    Result<uint64_t> n = EventsImporter::Import(f, sink, "events");
    REQUIRE(n.ok());
    CHECK(*n == 1000);
    REQUIRE(sink.records.size() == 1000);
    CHECK(EventRecord::Decode(sink.records[999].data()) == ev[999]);
    CHECK(sink.names == std::vector<std::string>{"events"});
  }
  {
    VectorSink sink;
    MemFile f("d.bin", Disk(ev, 5));
    Result<uint64_t> n = EventsImporter::Import(f, sink, "events");
    REQUIRE_FALSE(n.ok());
    CHECK(n.error().message() == "d.bin: offset 32000: 5 trailing bytes are not a whole 32-byte event");
  }
  {
    auto bad = ev;
    bad[500].t = bad[499].t - 1;
    VectorSink sink;
    MemFile f("d.bin", Disk(bad));
    Result<uint64_t> n = EventsImporter::Import(f, sink, "events");
    REQUIRE_FALSE(n.ok());
    CHECK(n.error().message().rfind("d.bin: offset 16000 (event 500): time ", 0) == 0);
  }
  {
    auto bad = ev;
    bad[7].dur = -1;
    VectorSink sink;
    MemFile f("d.bin", Disk(bad));
    Result<uint64_t> n = EventsImporter::Import(f, sink, "events");
    REQUIRE_FALSE(n.ok());
    CHECK(n.error().message().rfind("d.bin: offset 224 (event 7): duration", 0) == 0);
  }
}

}  // namespace
}  // namespace xtfq

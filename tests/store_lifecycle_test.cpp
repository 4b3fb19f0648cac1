// A store's life at its edges (issue 14, items 4, 8 and 9): creation is atomic and a file that an
// interrupted creation left is recognised and created anew; a damaged superblock that rolls the
// store back is a failure of `xtfq check` unless accepted, and names the generation lost; a store
// whose unused superblock slot is damaged is still taken for a store by the commands that also
// read logs; a writer that fails on a full disk gives back the pages it wrote past its last
// commit when it closes.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/fault_file.h"
#include "store/format.h"
#include "store/mem_file.h"
#include "store/posix_file.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "tests/small_store.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;

void Poke(const std::string& path, uint64_t offset, std::string_view bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}

// Flips every bit of the byte at `offset` (a byte written with a fixed value would be no change
// when it held that value already).
void Flip(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  REQUIRE(f.good());
  c = static_cast<char>(~c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
  REQUIRE(f.good());
}

uint64_t Generation(const TempDir& dir, const std::string& store) {
  const Run r = Xtfq(dir, "info " + store + " --format json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return nlohmann::json::parse(r.out).at("generation").get<uint64_t>();
}

}  // namespace

TEST_CASE("lifecycle: a store appears at its name only once its first generations are durable") {
  TempDir dir;
  const std::string path = dir.File("new.xtfq");
  auto file = PosixFile::Open(path, PosixFile::Mode::kCreateAside);
  REQUIRE_MESSAGE(file.ok(), Why(file));
  PosixFile& posix = **file;
  // Written aside: nothing at the name, nothing else in the directory either.
  auto w = StoreWriter::Create(std::move(*file));
  REQUIRE_MESSAGE(w.ok(), Why(w));
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::is_empty(dir.path()));
  // A file that appears at the name meanwhile is never replaced.
  std::ofstream(path) << "someone else's file";
  const Status taken = posix.Publish();
  REQUIRE_FALSE(taken.ok());
  CHECK_MESSAGE(taken.error().message().find("created by another process meanwhile") != std::string::npos,
                taken.error().message());
  fs::remove(path);
  REQUIRE(posix.Publish().ok());
  auto store = Store::OpenPath(path);
  REQUIRE_MESSAGE(store.ok(), Why(store));
  CHECK((*store)->generation() == 2);
  // CreatePath refuses a name that exists, whatever it holds.
  auto again = StoreWriter::CreatePath(path);
  REQUIRE_FALSE(again.ok());
  CHECK_MESSAGE(again.error().message().find("exists") != std::string::npos, again.error().message());
}

TEST_CASE("lifecycle: what an interrupted creation left is created anew by import, and anything else is refused") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 5000 -o e.bin").status == 0);
  SUBCASE("an empty file") { std::ofstream(dir.File("s.xtfq")).flush(); }
  SUBCASE("pages written, no superblock durable (an older xtfq killed in its first commit)") {
    // What the first commit writes before its superblock: pages 0 to 2, page 2 the catalogue of
    // a store without arrays. A new store's first three pages, superblocks zeroed, are exactly that.
    {
      auto w = StoreWriter::CreatePath(dir.File("s.xtfq"));
      REQUIRE_MESSAGE(w.ok(), Why(w));
    }
    fs::resize_file(dir.File("s.xtfq"), 3 * 4096);
    Poke(dir.File("s.xtfq"), 0, std::string(format::kSuperblockSize, '\0'));
    Poke(dir.File("s.xtfq"), 4096, std::string(format::kSuperblockSize, '\0'));
    const Run before = Xtfq(dir, "info s.xtfq");
    REQUIRE(before.status != 0);
  }
  const Run r = Xtfq(dir, "import -o s.xtfq e.bin");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK_MESSAGE(
      r.err.find("was never committed (what an interrupted creation leaves); created anew") != std::string::npos,
      r.err);
  CHECK(Generation(dir, "s.xtfq") == 3);
  CHECK(Xtfq(dir, "check s.xtfq").status == 0);
}

TEST_CASE("lifecycle: a file that is not a store, or a damaged one, is never taken for an interrupted creation") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 5000 -o e.bin").status == 0);
  std::ofstream(dir.File("notes.txt")) << std::string(100000, 'x');
  const Run r = Xtfq(dir, "import -o notes.txt e.bin");
  CHECK(r.status != 0);
  CHECK(fs::file_size(dir.File("notes.txt")) == 100000);
  // A committed store that lost both superblocks still has a catalogue page at page 2: refused.
  REQUIRE(Xtfq(dir, "import -o s.xtfq e.bin").status == 0);
  const auto size = fs::file_size(dir.File("s.xtfq"));
  Poke(dir.File("s.xtfq"), 0, std::string(format::kSuperblockSize, '\0'));
  Poke(dir.File("s.xtfq"), 4096, std::string(format::kSuperblockSize, '\0'));
  const Run again = Xtfq(dir, "import -o s.xtfq e.bin");
  CHECK(again.status != 0);
  CHECK_MESSAGE(again.err.find("no valid superblock") != std::string::npos, again.err);
  CHECK(fs::file_size(dir.File("s.xtfq")) == size);
}

TEST_CASE("lifecycle: damage to the superblock in use is a rollback that check refuses unless accepted") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 20000 -o e.bin").status == 0);
  REQUIRE(Xtfq(dir, "import -o s.xtfq e.bin").status == 0);  // generation 3, in slot 1
  REQUIRE(Xtfq(dir, "check s.xtfq").status == 0);
  REQUIRE(Generation(dir, "s.xtfq") == 3);
  // A byte of slot 1's commit time: the slot fails its checksum, the store reads generation 2.
  Flip(dir.File("s.xtfq"), 4096 + format::kSbCommitTime);
  const Run refused = Xtfq(dir, "check s.xtfq");
  CHECK(refused.status == 1);
  CHECK_MESSAGE(refused.err.find("generation 3 was lost") != std::string::npos, refused.err);
  CHECK_MESSAGE(refused.err.find("rolled back to generation 2") != std::string::npos, refused.err);
  CHECK_MESSAGE(refused.err.find("--allow-rollback") != std::string::npos, refused.err);
  // The reading commands answer from generation 2, and say so (not silently).
  for (const char* cmd : {"info s.xtfq", "info s.xtfq --brief --format text", "query s.xtfq", "grid s.xtfq"}) {
    const Run read = Xtfq(dir, cmd);
    CHECK_MESSAGE(
        read.err.find("xtfq: warning: s.xtfq: superblock 1 (offset 4096): checksum mismatch") != std::string::npos, cmd,
        ": ", read.err);
    CHECK_MESSAGE(
        read.err.find("generation 3 was lost: this reads generation 2, the commit before it") != std::string::npos, cmd,
        ": ", read.err);
  }
  const Run accepted = Xtfq(dir, "check s.xtfq --allow-rollback");
  CHECK_MESSAGE(accepted.status == 0, accepted.err);
  CHECK_MESSAGE(accepted.err.find("warning: ") != std::string::npos, accepted.err);
  CHECK(accepted.out.find("at generation 2") != std::string::npos);
  // A writer refuses it too (opening would truncate and reuse what generation 3 holds), and the
  // file is untouched; --allow-rollback writes on from generation 2.
  const auto size = fs::file_size(dir.File("s.xtfq"));
  const Run refused_import = Xtfq(dir, "import -o s.xtfq e.bin --array more");
  CHECK(refused_import.status == 1);
  CHECK_MESSAGE(refused_import.err.find("generation 3 was lost") != std::string::npos, refused_import.err);
  CHECK_MESSAGE(refused_import.err.find("--allow-rollback") != std::string::npos, refused_import.err);
  CHECK(fs::file_size(dir.File("s.xtfq")) == size);
  const Run forced = Xtfq(dir, "import -o s.xtfq e.bin --array more --allow-rollback");
  CHECK_MESSAGE(forced.status == 0, forced.err);
  CHECK(Generation(dir, "s.xtfq") == 3);
  CHECK(Xtfq(dir, "check s.xtfq").status == 0);
}

TEST_CASE("lifecycle: a store whose unused superblock slot lost its magic is still read as a store") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen darshan 3000 -o a.darshan --ranks 8 --files 20").status == 0);
  REQUIRE(Xtfq(dir, "import -o s.xtfq a.darshan").status == 0);  // generation 3, in slot 1
  const Run dump_before = Xtfq(dir, "dump s.xtfq");
  REQUIRE_MESSAGE(dump_before.status == 0, dump_before.err);
  Poke(dir.File("s.xtfq"), 0, "NOTASTOR");  // slot 0, not in use
  const Run dump = Xtfq(dir, "dump s.xtfq");
  CHECK_MESSAGE(dump.status == 0, dump.err);
  CHECK(dump.out == dump_before.out);
  // The other slot damaged in its generation field: what it held cannot be read, and the warning
  // does not claim what was lost.
  fs::copy_file(dir.File("s.xtfq"), dir.File("g.xtfq"));
  Poke(dir.File("g.xtfq"), 0, "XTFQSTOR");
  REQUIRE(Xtfq(dir, "dump g.xtfq").err.empty());
  Flip(dir.File("g.xtfq"), format::kSbGeneration + 7);
  const Run unsure = Xtfq(dir, "info --brief g.xtfq");
  CHECK_MESSAGE(unsure.err.find("whether a newer generation was lost cannot be told: this reads generation 3 ('xtfq "
                                "check g.xtfq' says more)") != std::string::npos,
                unsure.err);
  const Run signals = Xtfq(dir, "signals s.xtfq --format json");
  CHECK_MESSAGE(signals.status == 0, signals.err);
  // The damage itself is what check reports: a warning, since the slot still reads as the
  // generation before the one in use (nothing was lost).
  const Run check = Xtfq(dir, "check s.xtfq");
  CHECK_MESSAGE(check.status == 0, check.err);
  CHECK_MESSAGE(check.err.find("warning: ") != std::string::npos, check.err);
  CHECK_MESSAGE(check.err.find("superblock 0") != std::string::npos, check.err);
  CHECK_MESSAGE(check.err.find("nothing was lost") != std::string::npos, check.err);
}

TEST_CASE("lifecycle: a writer closing without a commit drops the pages it wrote past the last one") {
  SUBCASE("closed after appends (an import that failed)") {
    auto disk = std::make_shared<MemDisk>();
    uint64_t committed_bytes = 0;
    {
      auto w = StoreWriter::Create(std::make_unique<MemFile>("m", disk), StoreOptions{4096, 2});
      REQUIRE_MESSAGE(w.ok(), Why(w));
      auto rows = (*w)->CreateArray("rows", RowSchema());
      REQUIRE(rows.ok());
      REQUIRE((*w)->Commit().ok());
      committed_bytes = uint64_t{(*w)->page_count()} * 4096;
      for (int64_t t = 0; t < 50000; ++t) REQUIRE((*w)->Append(*rows, EncodeRow(Row{t, t % 3, t, 0.5})).ok());
      CHECK(disk->Contents().size() > committed_bytes + 4 * 4096);  // 1000 full pages sealed, packed in slots
    }
    CHECK(disk->Contents().size() == committed_bytes);
    auto store = Store::Open(std::make_unique<MemFile>("m", disk));
    REQUIRE_MESSAGE(store.ok(), Why(store));
    CHECK((*store)->generation() == 3);
  }
  SUBCASE("failed on a full disk") {
    auto disk = std::make_shared<MemDisk>();
    uint64_t committed_bytes = 0;
    uint64_t written = 0;
    {
      auto w = StoreWriter::Create(std::make_unique<MemFile>("m", disk));
      REQUIRE_MESSAGE(w.ok(), Why(w));
      REQUIRE((*w)->CreateArray("rows", RowSchema()).ok());
      REQUIRE((*w)->Commit().ok());
    }
    {
      // The 30th file call after the open fails, as ENOSPC would: the writer is failed, and closes.
      FaultFile::Plan plan;
      plan.fail_call = 0;
      auto probe = std::make_unique<FaultFile>(std::make_unique<MemFile>("m", disk), plan);
      FaultFile* faults = probe.get();
      auto w = StoreWriter::Open(std::move(probe), StoreOptions{4096, 2});
      REQUIRE_MESSAGE(w.ok(), Why(w));
      committed_bytes = uint64_t{(*w)->page_count()} * 4096;
      const uint64_t calls = faults->calls();
      w->reset();
      // Now with a failure: reopen with a plan failing the 30th call after the open.
      plan.fail_call = calls + 30;
      auto file = std::make_unique<FaultFile>(std::make_unique<MemFile>("m", disk), plan);
      auto w2 = StoreWriter::Open(std::move(file), StoreOptions{4096, 2});
      REQUIRE_MESSAGE(w2.ok(), Why(w2));
      const ArrayDesc* rows = (*w2)->FindArray("rows");
      REQUIRE(rows != nullptr);
      Status s = Ok();
      for (int64_t t = 0; t < 100000 && s.ok(); ++t) s = (*w2)->Append(rows->id, EncodeRow(Row{t, t % 3, t, 0.5}));
      REQUIRE_FALSE(s.ok());
      written = disk->Contents().size();
    }
    CHECK(written > committed_bytes);
    CHECK(disk->Contents().size() == committed_bytes);
  }
}

}  // namespace xtfq::test

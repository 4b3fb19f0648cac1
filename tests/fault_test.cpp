// Faults: the same scenario of creates, appends, strings, commits and a reopen runs on an
// in-memory disk through a FaultFile that fails call n (EIO; a torn write; a device that stays
// gone) for every n the scenario makes (the sweep of tests/fault_sweep.h). Every failure must come back as an error
// value; the writer must refuse further work; and the disk, reopened as it is and after a simulated power failure, must
// hold exactly the last committed generation (or the one whose superblock was written when only the final sync failed).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <memory>

#include "query/core/store_reader.h"
#include "store/fault_file.h"
#include "store/mem_file.h"
#include "store/store_checker.h"
#include "store/store_writer.h"
#include "tests/fault_sweep.h"
#include "tests/store_model.h"
#include "tests/why.h"

namespace xtfq::test {
namespace {

constexpr uint64_t kSeed = 5;
constexpr uint32_t kPage = 4096;

// Lends a FaultFile that the test keeps, so its log outlives a writer that failed and went away.
class LentFile final : public File {
 public:
  explicit LentFile(FaultFile& f) : f_(f) {}
  const std::string& name() const override { return f_.name(); }
  Result<size_t> ReadAt(uint64_t o, std::span<std::byte> out) override { return f_.ReadAt(o, out); }
  Status WriteAt(uint64_t o, std::span<const std::byte> d) override { return f_.WriteAt(o, d); }
  Status Sync() override { return f_.Sync(); }
  Result<uint64_t> Size() override { return f_.Size(); }
  Status Truncate(uint64_t n) override { return f_.Truncate(n); }

 private:
  FaultFile& f_;
};

struct Outcome {
  std::map<uint64_t, StoreModel> models;  // by generation
  Status status;                          // the first error, if any
  std::vector<FaultFile::Call> log;       // every call, across the reopen
};

// The scenario. Generations: 1 and 2 (Create), 3, 4, 5.
Outcome RunScenario(const std::shared_ptr<MemDisk>& disk, FaultFile::Plan plan) {
  Outcome out;
  const auto schemas = TestSchemas();
  StoreModel model;
  out.models[1] = out.models[2] = model;
  uint64_t calls_before = 0;
  std::vector<std::unique_ptr<FaultFile>> files;  // the first for Create, the second for the reopen
  FaultFile* ff = nullptr;
  auto make_file = [&]() -> std::unique_ptr<File> {
    FaultFile::Plan p = plan;
    if (p.fail_call != 0) p.fail_call = p.fail_call > calls_before ? p.fail_call - calls_before : 0;
    if (plan.fail_call != 0 && p.fail_call == 0 && plan.fail_after) p.fail_call = 1;  // gone for good
    files.push_back(std::make_unique<FaultFile>(std::make_unique<MemFile>("mem.xtfq", disk), p));
    ff = files.back().get();
    return std::make_unique<LentFile>(*ff);
  };
  auto finish = [&](Status s) {
    out.status = std::move(s);
    auto l = ff->log();
    out.log.insert(out.log.end(), l.begin(), l.end());
    return std::move(out);
  };
  auto writer = StoreWriter::Create(make_file(), StoreOptions{kPage, 2});
  if (!writer.ok()) return finish(writer.error());
  StoreWriter& w = **writer;
  auto append = [&](size_t a, uint64_t n) -> Status {
    ModelArray& m = model.arrays[a];
    for (uint64_t i = 0; i < n; ++i) {
      auto r = StoreModel::MakeRecord(m.schema, kSeed, a, m.records.size());
      XTFQ_TRY(w.Append(ArrayId(static_cast<uint32_t>(a + 1)), r));
      m.records.push_back(std::move(r));
    }
    return Ok();
  };
  auto add_string = [&](std::string s) -> Status {
    XTFQ_ASSIGN_OR_RETURN(StringRef ref, w.AddString(s));
    model.strings.emplace_back(ref, std::move(s));
    return Ok();
  };
  auto step1 = [&]() -> Status {
    for (size_t a = 0; a < 2; ++a) {
      XTFQ_TRY(w.CreateArray(schemas[a].first, schemas[a].second));
      model.arrays.push_back(ModelArray{schemas[a].first, schemas[a].second, {}});
    }
    XTFQ_TRY(append(0, 300));
    XTFQ_TRY(append(1, 5000));
    XTFQ_TRY(add_string("alpha"));
    XTFQ_TRY(add_string(std::string(9000, 'q')));
    out.models[3] = model;  // what the commit persists, recorded before it (it may land and fail)
    XTFQ_TRY(w.Commit());
    XTFQ_TRY(append(0, 200));
    out.models[4] = model;
    XTFQ_TRY(w.Commit());
    return Ok();
  };
  Status s = step1();
  if (!s.ok()) {
    Status again = w.Append(ArrayId(1), std::vector<std::byte>(32));
    if (plan.fail_call != 0 && (again.ok() || again.error().code() != ErrorCode::kFailed) &&
        s.error().code() == ErrorCode::kIo) {
      return finish(Error(ErrorCode::kInvalidArgument, "the writer accepted work after an I/O error"));
    }
    return finish(std::move(s));
  }
  calls_before = ff->calls();
  auto l = ff->log();
  out.log.insert(out.log.end(), l.begin(), l.end());
  writer = Error(ErrorCode::kFailed, "closed");
  writer = StoreWriter::Open(make_file(), StoreOptions{kPage, 2});
  if (!writer.ok()) return finish(writer.error());
  StoreWriter& w2 = **writer;
  auto step2 = [&]() -> Status {
    ModelArray& m = model.arrays[1];
    for (int i = 0; i < 1000; ++i) {
      auto r = StoreModel::MakeRecord(m.schema, kSeed, 1, m.records.size());
      XTFQ_TRY(w2.Append(ArrayId(2), r));
      m.records.push_back(std::move(r));
    }
    XTFQ_ASSIGN_OR_RETURN(StringRef ref, w2.AddString("omega"));
    model.strings.emplace_back(ref, "omega");
    out.models[5] = model;
    XTFQ_TRY(w2.Commit());
    return Ok();
  };
  return finish(step2());
}

// Checks the disk holds generation `gen_ok` (or `gen_ok + 1` when `maybe_next`).
void CheckDisk(const std::shared_ptr<MemDisk>& disk, const Outcome& o, uint64_t gen_ok, bool maybe_next) {
  auto reader =
      StoreReader::Open(std::make_unique<MemFile>("mem.xtfq", disk), ReaderOptions{Backend::kPread, 4 * kPage});
  if (!reader.ok()) {
    CHECK_MESSAGE(gen_ok == 0, reader.error().message());
    CHECK(reader.error().code() == ErrorCode::kCorrupt);
    return;
  }
  const uint64_t gen = (*reader)->store().generation();
  const bool acceptable = gen == gen_ok || (maybe_next && gen == gen_ok + 1);
  REQUIRE_MESSAGE(acceptable, "generation " << gen << ", expected " << gen_ok << (maybe_next ? " or the next" : ""));
  REQUIRE(o.models.count(gen) == 1);
  CHECK(o.models.at(gen).Verify(**reader) == "");
  StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
  CHECK_MESSAGE(rep.ok(), Why(rep));
}

TEST_CASE("faults: EIO or torn writes or a vanished device at every call leave the last commit") {
  const auto modes = {FaultMode::kEio, FaultMode::kTorn, FaultMode::kGone};
  const Outcome clean = SweepFaults(
      kPage, modes, 40, RunScenario, [](const std::shared_ptr<MemDisk>& disk, const Outcome& o, const SweepPoint& p) {
        const auto code = o.status.error().code();
        CHECK_MESSAGE((code == ErrorCode::kIo || code == ErrorCode::kCorrupt), o.status.error().message());
        CHECK(o.status.error().message().find("mem.xtfq") != std::string::npos);
        CheckDisk(disk, o, p.generation, p.maybe_next);
        disk->Crash(p.call * 7 + static_cast<uint64_t>(p.mode));
        CheckDisk(disk, o, p.generation, p.maybe_next);
      });
  CHECK(clean.models.count(5) == 1);
}

TEST_CASE("faults: a power failure at the end of a clean run keeps every commit") {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto disk = std::make_shared<MemDisk>();
    const Outcome o = RunScenario(disk, FaultFile::Plan{});
    REQUIRE(o.status.ok());
    disk->Crash(seed);
    CheckDisk(disk, o, 5, false);
  }
}

TEST_CASE("faults: short reads are looped over and read errors never give wrong records") {
  auto disk = std::make_shared<MemDisk>();
  const Outcome o = RunScenario(disk, FaultFile::Plan{});
  REQUIRE(o.status.ok());
  FaultFile::Plan shorts;
  shorts.short_reads = true;
  auto reader = StoreReader::Open(std::make_unique<FaultFile>(std::make_unique<MemFile>("mem.xtfq", disk), shorts),
                                  ReaderOptions{Backend::kPread, kPage});
  REQUIRE(reader.ok());
  CHECK(o.models.at(5).Verify(**reader) == "");
  for (uint64_t n = 1; n < 200; ++n) {
    CAPTURE(n);
    FaultFile::Plan p;
    p.fail_call = n;
    auto r = StoreReader::Open(std::make_unique<FaultFile>(std::make_unique<MemFile>("mem.xtfq", disk), p),
                               ReaderOptions{Backend::kPread, kPage});
    if (!r.ok()) {
      CHECK(r.error().code() == ErrorCode::kIo);
      continue;
    }
    const std::string diff = o.models.at(5).Verify(**r);
    if (!diff.empty()) CHECK_MESSAGE(diff.find("Input/output error (injected)") != std::string::npos, diff);
  }
}

}  // namespace
}  // namespace xtfq::test

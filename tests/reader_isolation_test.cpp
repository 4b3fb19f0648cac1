// Readers beside a live writer (issue 14, item 1; docs/format.md, "Readers beside a writer").
//
// A reader leases the generation it opened; the writer reuses a page freed by generation h only
// when no reader leases a generation below h. Without leases, a reader held across two commits
// reads pages the writer has reused (its checksums fail, or worse, it reads another generation's
// records). These tests hold readers across many commits of a writer that frees and reuses pages
// at every commit (shadows, catalogues, process trees) and compare every answer with the one the
// reader gave before the first of them; they run over both page sources with a cache of a few
// pages, so pages are read from the file again after the commits.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "query/core/primitives.h"
#include "query/core/store_reader.h"
#include "store/mem_file.h"
#include "store/posix_file.h"
#include "store/store.h"
#include "store/store_checker.h"
#include "store/store_writer.h"
#include "tests/small_store.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

// Everything a reader can say of its generation: every array's records in append order and, for
// each array with a time field, its TN tree's totals and per-process totals through the P index.
struct Answers {
  uint64_t generation = 0;
  std::map<std::string, std::vector<std::byte>> records;
  std::map<std::string, std::string> totals;
  bool operator==(const Answers&) const = default;
};

std::string Describe(const Summary& s) {
  std::string out = fmt::format("count {}", s.count);
  for (const FieldStats& f : s.fields) {
    out += f.is_float ? fmt::format(" [{} {} {} {}]", f.f_sum, f.f_min, f.f_max, f.sumsq)
                      : fmt::format(" [{} {} {} {}]", f.i_sum, f.i_min, f.i_max, f.sumsq);
  }
  return out;
}

Answers Ask(StoreReader& r) {
  Answers a;
  a.generation = r.store().generation();
  for (const ArrayDesc& d : r.catalogue().arrays) {
    std::vector<std::byte>& bytes = a.records[d.name];
    const uint32_t width = d.schema.record_width();
    const Status s = r.ForEach(d, [&](const std::byte* rec) {
      bytes.insert(bytes.end(), rec, rec + width);
      return Ok();
    });
    REQUIRE_MESSAGE(s.ok(), Why(s));
    if (d.per_process()) continue;
    Primitives prim(r.cache(), d, &r.catalogue());
    auto all = prim.Aggregate(INT64_MIN, INT64_MAX);
    REQUIRE_MESSAGE(all.ok(), Why(all));
    a.totals[d.name] = Describe(*all);
    for (int64_t p = 0; p < 6; ++p) {
      auto one = prim.Aggregate(INT64_MIN, INT64_MAX, p, p + 1);
      REQUIRE_MESSAGE(one.ok(), Why(one));
      a.totals[fmt::format("{} process {}", d.name, p)] = Describe(*one);
    }
  }
  return a;
}

// Appends `n` rows over processes 0..5 to `rows` and a string to the heap, then commits: every
// commit replaces shadows, the catalogue and the process tree, freeing pages for the next one.
void Round(StoreWriter& w, ArrayId rows, int64_t& t, std::mt19937_64& rng, int n) {
  for (int i = 0; i < n; ++i) {
    Row r{t += static_cast<int64_t>(rng() % 3), static_cast<int64_t>(rng() % 6), static_cast<int64_t>(rng() % 1000),
          static_cast<double>(rng() % 4096) / 4};
    const Status s = w.Append(rows, EncodeRow(r));
    REQUIRE_MESSAGE(s.ok(), Why(s));
  }
  auto ref = w.AddString(fmt::format("string at t={}", t));
  REQUIRE_MESSAGE(ref.ok(), Why(ref));
  const Status s = w.Commit();
  REQUIRE_MESSAGE(s.ok(), Why(s));
  const Status inv = w.CheckInvariants();
  REQUIRE_MESSAGE(inv.ok(), Why(inv));
}

std::unique_ptr<StoreReader> OpenReader(const std::string& path, Backend backend) {
  auto r = StoreReader::Open(path, ReaderOptions{backend, 4 * 4096});
  REQUIRE_MESSAGE(r.ok(), Why(r));
  return std::move(*r);
}

// Runs the scenario: a store of `rows` with 1,000 records, a reader of each of the first
// `readers` commits that follow held across 12 more commits, each asked again after every commit.
// Returns the page count the store ends with.
uint32_t HeldAcrossCommits(const std::string& path, Backend backend, int readers) {
  StoreOptions o;
  o.process_index = true;
  auto w = StoreWriter::CreatePath(path, o);
  REQUIRE_MESSAGE(w.ok(), Why(w));
  auto rows = (*w)->CreateArray("rows", RowSchema());
  REQUIRE_MESSAGE(rows.ok(), Why(rows));
  std::mt19937_64 rng(42);
  int64_t t = 0;
  Round(**w, *rows, t, rng, 1000);
  std::vector<std::unique_ptr<StoreReader>> held;
  std::vector<Answers> before;
  for (int i = 0; i < 14; ++i) {
    if (static_cast<int>(held.size()) < readers) {
      held.push_back(OpenReader(path, backend));
      before.push_back(Ask(*held.back()));
      CHECK(before.back().generation == (*w)->generation());
    }
    Round(**w, *rows, t, rng, 40 + static_cast<int>(rng() % 200));
    for (size_t k = 0; k < held.size(); ++k) {
      const Answers now = Ask(*held[k]);
      REQUIRE_MESSAGE(now == before[k], fmt::format("reader {} of generation {} answers differently after the "
                                                    "commit of generation {}",
                                                    k, before[k].generation, (*w)->generation()));
    }
  }
  // The held readers' own checker runs agree: their generation is whole.
  for (auto& r : held) {
    StoreChecker checker(r->store());
    const StoreChecker::Report rep = checker.Run();
    CHECK_MESSAGE(rep.ok(), (rep.problems.empty() ? "" : rep.problems.front().message()));
  }
  const uint32_t pages = (*w)->page_count();
  // Once the readers are gone, the same writer frees what it held for them at its next commit:
  // the commits after it (a string each: a heap shadow and a catalogue) take no page from the end.
  held.clear();
  Round(**w, *rows, t, rng, 10);
  const uint32_t after_release = (*w)->page_count();
  Round(**w, *rows, t, rng, 0);
  Round(**w, *rows, t, rng, 0);
  CHECK((*w)->page_count() == after_release);
  return pages;
}

}  // namespace

TEST_CASE("readers: a reader held across 14 commits answers for its own generation, record for record") {
  for (Backend backend : {Backend::kPread, Backend::kMmap}) {
    CAPTURE(static_cast<int>(backend));
    TempDir dir;
    HeldAcrossCommits(dir.File("s.xtfq"), backend, 3);
  }
}

TEST_CASE("readers: the writer reuses freed pages when no reader holds them, and grows the file while one does") {
  TempDir dir;
  const uint32_t alone = HeldAcrossCommits(dir.File("alone.xtfq"), Backend::kPread, 0);
  const uint32_t beside = HeldAcrossCommits(dir.File("beside.xtfq"), Backend::kPread, 1);
  // Same records, same commits: only the held pages make the difference.
  CHECK(beside > alone);

  // Once the reader is gone, the pages held for it are free again: two more commits of the same
  // size take no new page at the end of the file.
  auto w = StoreWriter::OpenPath(dir.File("beside.xtfq"));
  REQUIRE_MESSAGE(w.ok(), Why(w));
  const uint32_t before = (*w)->page_count();
  std::mt19937_64 rng(7);
  int64_t t = 1 << 20;
  const ArrayDesc* rows = (*w)->FindArray("rows");
  REQUIRE(rows != nullptr);
  Round(**w, rows->id, t, rng, 10);
  Round(**w, rows->id, t, rng, 10);
  CHECK((*w)->page_count() == before);
}

TEST_CASE("readers: the mmap backend maps the store that was opened and leased, not one renamed over it") {
  TempDir dir;
  for (const char* name : {"a.xtfq", "b.xtfq"}) {
    auto w = StoreWriter::CreatePath(dir.File(name));
    REQUIRE_MESSAGE(w.ok(), Why(w));
  }
  auto store = Store::OpenPath(dir.File("a.xtfq"));
  REQUIRE_MESSAGE(store.ok(), Why(store));
  auto same = (*store)->MakeSource(Backend::kMmap);
  CHECK_MESSAGE(same.ok(), Why(same));
  std::filesystem::rename(dir.File("b.xtfq"), dir.File("a.xtfq"));
  auto other = (*store)->MakeSource(Backend::kMmap);
  REQUIRE_FALSE(other.ok());
  CHECK_MESSAGE(other.error().message().find("was replaced by another file") != std::string::npos,
                other.error().message());
}

TEST_CASE("readers: leases are per open file, and the lowest one below a bound is found") {
  SUBCASE("files on disk (open file description locks)") {
    TempDir dir;
    auto w = StoreWriter::CreatePath(dir.File("s.xtfq"));
    REQUIRE_MESSAGE(w.ok(), Why(w));
    auto writer = PosixFile::Open(dir.File("s.xtfq"), PosixFile::Mode::kRead);
    auto a = PosixFile::Open(dir.File("s.xtfq"), PosixFile::Mode::kRead);
    auto b = PosixFile::Open(dir.File("s.xtfq"), PosixFile::Mode::kRead);
    REQUIRE((writer.ok() && a.ok() && b.ok()));
    REQUIRE((*a)->HoldGeneration(9).ok());
    REQUIRE((*b)->HoldGeneration(5).ok());
    REQUIRE((*b)->HoldGeneration(12).ok());
    auto oldest = [&](File& f, uint64_t below) {
      auto o = f.OldestHeldGeneration(below);
      REQUIRE_MESSAGE(o.ok(), Why(o));
      return *o;
    };
    CHECK(oldest(**writer, 100) == std::optional<uint64_t>(5));
    CHECK(oldest(**writer, 5) == std::nullopt);
    CHECK(oldest(**writer, 6) == std::optional<uint64_t>(5));
    CHECK(oldest(**b, 100) == std::optional<uint64_t>(9));  // its own leases are not another's
    (*b)->ReleaseGeneration(5);
    CHECK(oldest(**writer, 100) == std::optional<uint64_t>(9));
    b->reset();  // closing gives back what it held
    a->reset();
    CHECK(oldest(**writer, 100) == std::nullopt);
  }
  SUBCASE("files in memory") {
    auto disk = std::make_shared<MemDisk>();
    MemFile writer("m", disk), a("m", disk);
    auto b = std::make_unique<MemFile>("m", disk);
    REQUIRE(a.HoldGeneration(9).ok());
    REQUIRE(b->HoldGeneration(5).ok());
    CHECK(*writer.OldestHeldGeneration(100) == std::optional<uint64_t>(5));
    CHECK(*writer.OldestHeldGeneration(5) == std::nullopt);
    CHECK(*b->OldestHeldGeneration(100) == std::optional<uint64_t>(9));
    b.reset();
    CHECK(*writer.OldestHeldGeneration(100) == std::optional<uint64_t>(9));
    a.ReleaseGeneration(9);
    CHECK(*writer.OldestHeldGeneration(100) == std::nullopt);
  }
}

TEST_CASE("readers: check and info under a live writer in another process are always consistent") {
  TempDir dir;
  const std::string path = dir.File("live.xtfq");
  constexpr int kPerCommit = 37;
  {
    StoreOptions o;
    o.process_index = true;
    auto w = StoreWriter::CreatePath(path, o);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    REQUIRE((*w)->CreateArray("rows", RowSchema()).ok());
    REQUIRE((*w)->Commit().ok());  // generation 3: the array, no record
  }
  // The writer: kPerCommit records a commit, so generation g holds kPerCommit * (g - 3) records.
  // It writes a byte to the pipe after its first commit.
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    auto w = StoreWriter::OpenPath(path);
    if (!w.ok()) _exit(3);
    const ArrayDesc* rows = (*w)->FindArray("rows");
    std::mt19937_64 rng(1);
    int64_t t = 0;
    for (int c = 0; c < 100000; ++c) {
      for (int i = 0; i < kPerCommit; ++i) {
        Row r{t += static_cast<int64_t>(rng() % 2), static_cast<int64_t>(rng() % 40), 1, 0.25};
        if (!(*w)->Append(rows->id, EncodeRow(r)).ok()) _exit(4);
      }
      if (!(*w)->Commit().ok()) _exit(5);
      if (c == 0 && (write(ready[1], "c", 1) != 1 || close(ready[1]) != 0)) _exit(6);
    }
    _exit(0);
  }
  close(ready[1]);
  char first_commit = 0;
  REQUIRE(read(ready[0], &first_commit, 1) == 1);
  close(ready[0]);
  std::set<uint64_t> generations;
  int checks = 0, infos = 0;
  std::string failure;
  for (int i = 0; i < 12 && failure.empty(); ++i) {
    const Run c = Xtfq(dir, "check live.xtfq");
    ++checks;
    if (c.status != 0) failure = "check: " + c.err;
    const Run in = Xtfq(dir, "info live.xtfq --format json");
    ++infos;
    if (in.status != 0) {
      failure = "info: " + in.err;
      break;
    }
    // The generation and the record count printed must belong to one generation.
    const auto j = nlohmann::json::parse(in.out, nullptr, false);
    if (j.is_discarded()) {
      failure = "info printed no JSON: " + in.out;
      break;
    }
    const uint64_t g = j.at("generation").get<uint64_t>();
    generations.insert(g);
    uint64_t records = 0;
    for (const auto& a : j.at("arrays")) {
      if (a.at("name") == "rows") records = a.at("records").get<uint64_t>();
    }
    if (records != kPerCommit * (g - 3)) {
      failure = fmt::format("info: generation {} with {} records, not {}", g, records, kPerCommit * (g - 3));
    }
  }
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK_MESSAGE(failure.empty(), failure);
  // The commands ran while the writer committed: they saw several generations.
  CHECK(generations.size() >= 2);
  CHECK(checks == 12);
  CHECK(infos == 12);
  // The writer was alive all along (killed, not exited early with an error).
  CHECK((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL));
  const Run c = Xtfq(dir, "check live.xtfq");
  CHECK_MESSAGE(c.status == 0, c.err);
}

}  // namespace xtfq::test

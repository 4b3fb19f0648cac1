// Corruption sweep: a small store with every kind of page (data, heap, catalogue, shadow, free)
// is damaged one byte at a time, and truncated at many lengths. Opening, checking and reading
// must never crash and never return wrong records: either they fail with a corruption error that
// names the page or superblock, or what they return equals the model of the generation opened.
// A flip inside any live page must be reported by the checker naming that page.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include "query/core/store_reader.h"
#include "store/mem_file.h"
#include "store/store.h"
#include "store/store_checker.h"
#include "store/store_writer.h"
#include "tests/store_model.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

constexpr uint32_t kPage = 4096;

struct Built {
  std::vector<std::byte> bytes;
  StoreModel previous, current;  // generations g-1 and g
  uint64_t generation = 0;
};

Built Build() {
  auto disk = std::make_shared<MemDisk>();
  auto w = StoreWriter::Create(std::make_unique<MemFile>("s.xtfq", disk), StoreOptions{kPage, 8});
  REQUIRE(w.ok());
  const auto schemas = TestSchemas();
  StoreModel m;
  for (size_t a : {0, 3}) {
    REQUIRE((*w)->CreateArray(schemas[a].first, schemas[a].second).ok());
    m.arrays.push_back(ModelArray{schemas[a].first, schemas[a].second, {}});
  }
  auto append = [&](size_t a, int n) {
    for (int i = 0; i < n; ++i) {
      auto r = StoreModel::MakeRecord(m.arrays[a].schema, 11, a, m.arrays[a].records.size());
      REQUIRE((*w)->Append(ArrayId(static_cast<uint32_t>(a + 1)), r).ok());
      m.arrays[a].records.push_back(std::move(r));
    }
  };
  auto str = [&](std::string s) {
    auto ref = (*w)->AddString(s);
    REQUIRE(ref.ok());
    m.strings.emplace_back(*ref, std::move(s));
  };
  append(0, 200);
  append(1, 50);
  str("/lustre/scratch/run1/checkpoint.h5");
  str(std::string(5000, 'z'));
  REQUIRE((*w)->Commit().ok());
  Built b;
  b.previous = m;
  append(0, 100);
  append(1, 10);
  str("job 4242");
  REQUIRE((*w)->Commit().ok());
  b.current = m;
  b.generation = (*w)->generation();
  b.bytes = disk->Contents();
  return b;
}

struct Attempt {
  Status open = Ok();
  uint64_t generation = 0;
  std::string diff;  // empty when the records read equal the model of the generation opened
  StoreChecker::Report report;
};

Attempt Try(const Built& b, std::vector<std::byte> bytes) {
  Attempt at;
  auto disk = std::make_shared<MemDisk>();
  disk->SetContents(std::move(bytes));
  auto r = StoreReader::Open(std::make_unique<MemFile>("s.xtfq", disk), ReaderOptions{Backend::kPread, kPage});
  if (!r.ok()) {
    at.open = r.error();
    return at;
  }
  at.generation = (*r)->store().generation();
  at.report = StoreChecker((*r)->store()).Run();
  const StoreModel* m = at.generation == b.generation       ? &b.current
                        : at.generation + 1 == b.generation ? &b.previous
                                                            : nullptr;
  at.diff = m == nullptr ? fmt::format("opened generation {}", at.generation) : m->Verify(**r);
  return at;
}

bool Names(const std::string& msg, const std::string& what) { return msg.find(what) != std::string::npos; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Whether byte `off` lies in a live stored page of the clean store.
bool InStoredPage(const StoreChecker::Report& clean, size_t off) {
  for (const auto& [at, len] : clean.stored) {
    if (at <= off && off < at + len) return true;
  }
  return false;
}

// Whether `msg` names a stored page ("stored at offset X, L bytes") or a padding byte ("offset X
// (slot S): pack padding") whose bytes hold `off`.
bool DamagedRangeHolds(const std::string& msg, size_t off) {
  std::smatch m;
  if (std::regex_search(msg, m, std::regex(R"(stored at offset (\d+), (\d+) bytes)"))) {
    const size_t at = std::stoull(m[1]), len = std::stoull(m[2]);
    return at <= off && off < at + len;
  }
  if (std::regex_search(msg, m, std::regex(R"(offset (\d+) \(slot \d+\): pack padding)"))) {
    return std::stoull(m[1]) == off;
  }
  return false;
}

TEST_CASE("corruption: every flipped byte is reported or harmless and never a crash or a wrong record" *
          doctest::test_suite("long")) {
  const Built b = Build();
  const Attempt clean = Try(b, b.bytes);
  REQUIRE(clean.open.ok());
  REQUIRE(clean.diff == "");
  REQUIRE(clean.report.ok());
  REQUIRE(clean.report.warnings.empty());
  REQUIRE_FALSE(clean.report.rollback.has_value());
  const std::vector<StoreChecker::Role>& roles = clean.report.roles;
  const uint32_t current_slot = static_cast<uint32_t>(b.generation % 2);
  // Every header byte, and a sample of the rest: every 61st byte in the small tier, every 7th in the
  // full one, every byte under stress (tests/tier.h).
  const size_t stride = ByTier<size_t>(61, 7, 1);
  size_t flips = 0, detected = 0;
  for (size_t off = 0; off < b.bytes.size(); ++off) {
    const size_t in_page = off % kPage;
    if (in_page >= 64 && off % stride != 0) continue;
    ++flips;
    std::vector<std::byte> bytes = b.bytes;
    bytes[off] ^= std::byte{0x5A};
    const Attempt at = Try(b, bytes);
    const uint32_t page = static_cast<uint32_t>(off / kPage);
    const StoreChecker::Role role = roles[page];
    CAPTURE(off);
    CAPTURE(page);
    CAPTURE(RoleName(role));
    if (!at.open.ok()) {
      ++detected;
      CHECK(at.open.error().code() == ErrorCode::kCorrupt);
      const bool named = Names(at.open.error().message(), fmt::format("page {} ", page)) ||
                         Names(at.open.error().message(), "superblock");
      CHECK_MESSAGE(named, at.open.error().message());
      continue;
    }
    // Whatever was returned is right for the generation opened, unless an error said otherwise.
    const bool read_error = !at.diff.empty() && Names(at.diff, "page ");
    CHECK_MESSAGE((at.diff.empty() || read_error), at.diff);
    if (read_error) CHECK_FALSE(at.report.ok());
    const bool live = role == StoreChecker::Role::kPack || role == StoreChecker::Role::kCatalogue ||
                      role == StoreChecker::Role::kPageMap;
    if (role == StoreChecker::Role::kSuperblock) {
      if (in_page < format::kSuperblockSize) {
        // Either slot damaged: the store opens from the other. Damage to the slot in use (or to
        // the other's generation field) is a possible rollback naming the slot, and the
        // generation lost when the in-use slot's generation field is intact; damage elsewhere in
        // the older slot is a warning.
        CHECK(at.generation == (page == current_slot ? b.generation - 1 : b.generation));
        const bool gen_field = in_page >= format::kSbGeneration && in_page < format::kSbGeneration + 8;
        const std::string slot = fmt::format("superblock {}", page);
        if (page == current_slot || gen_field) {
          REQUIRE(at.report.rollback.has_value());
          CHECK_MESSAGE(Names(*at.report.rollback, slot), *at.report.rollback);
          if (!gen_field) {
            CHECK_MESSAGE(Names(*at.report.rollback, fmt::format("generation {} was lost", b.generation)),
                          *at.report.rollback);
          }
        } else {
          CHECK_FALSE(at.report.rollback.has_value());
          const bool warned = std::any_of(at.report.warnings.begin(), at.report.warnings.end(),
                                          [&](const std::string& w) { return Names(w, slot); });
          CHECK(warned);
        }
        ++detected;
      } else {
        CHECK(at.report.ok());  // the rest of a superblock page is unused
      }
    } else if (role == StoreChecker::Role::kPack && !InStoredPage(clean.report, off)) {
      // Padding (zero between sealed pages, which check reads) or a replaced shadow's bytes,
      // which no page of this generation names: reported, or harmless.
      if (!at.report.ok()) ++detected;
    } else if (live) {
      REQUIRE_FALSE(at.report.ok());
      ++detected;
      const std::string& msg = at.report.problems.front().message();
      if (role == StoreChecker::Role::kPack) {
        // A stored page names its chain id and the bytes it is stored in, which hold the flip; or
        // the padding byte itself.
        CHECK_MESSAGE(DamagedRangeHolds(msg, off), msg);
        CHECK_MESSAGE(!Names(msg, "decode"), msg);  // caught by its checksum, before the decoder
      } else {
        CHECK_MESSAGE(Names(msg, fmt::format("page {} ", page)), msg);
      }
    }
  }
  MESSAGE(flips << " flips, " << detected << " reported");
  CHECK(flips > ByTier<size_t>(1000, 3000, 3000));
}

TEST_CASE("corruption: one damaged stored page is one problem, not one for every page behind it") {
  // 20,000 events of 8 ranks with a P index, imported by the command line.
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen events 20000 --ranks 8 -o e.bin").status == 0);
  REQUIRE(test::Xtfq(dir, "import --no-grid -o e.xtfq e.bin").status == 0);
  std::vector<std::pair<uint64_t, uint32_t>> stored;
  {
    auto s = Store::OpenPath(dir.File("e.xtfq"));
    REQUIRE(s.ok());
    const StoreChecker::Report clean = StoreChecker(**s).Run();
    REQUIRE(clean.ok());
    stored = clean.stored;
  }
  REQUIRE(stored.size() > 100);
  const std::string clean_bytes = Slurp(dir.File("e.xtfq"));
  size_t cut = 0;
  for (size_t k = 1; k < 10; ++k) {
    const auto [at, len] = stored[k * stored.size() / 10];
    const size_t off = at + len / 2;  // inside the page's body: only its checksum can tell
    CAPTURE(off);
    std::string bytes = clean_bytes;
    bytes[off] = static_cast<char>(bytes[off] ^ 0x5A);
    std::ofstream(dir.File("d.xtfq"), std::ios::binary | std::ios::trunc) << bytes;
    auto s = Store::OpenPath(dir.File("d.xtfq"));
    REQUIRE(s.ok());
    const StoreChecker::Report r = StoreChecker(**s).Run();
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems_raised == 1);
    CHECK_MESSAGE(DamagedRangeHolds(r.problems.front().message(), off), r.problems.front().message());
    CHECK_MESSAGE(Names(r.problems.front().message(), "checksum mismatch"), r.problems.front().message());
    for (const std::string& w : r.warnings) {
      const bool expected = Names(w, "was not compared with its records") || Names(w, "were not checked");
      CHECK_MESSAGE(expected, w);
      cut += Names(w, "were not checked");
    }
  }
  CHECK(cut > 0);  // some of the pages were full pages in the middle of a chain
}

TEST_CASE("corruption: a truncated store fails to open with an error that says so") {
  const Built b = Build();
  const size_t n = b.bytes.size();
  for (size_t len : {size_t{0}, size_t{1}, size_t{55}, size_t{kPage - 1}, size_t{kPage}, size_t{kPage + 56},
                     size_t{2 * kPage}, size_t{3 * kPage - 1}, n / 2, n - kPage, n - 1}) {
    CAPTURE(len);
    std::vector<std::byte> bytes(b.bytes.begin(), b.bytes.begin() + static_cast<long>(len));
    const Attempt at = Try(b, bytes);
    REQUIRE_FALSE(at.open.ok());
    CHECK(at.open.error().code() == ErrorCode::kCorrupt);
    const std::string& msg = at.open.error().message();
    CHECK_MESSAGE((Names(msg, "truncated") || Names(msg, "superblock")), msg);
    CHECK(Names(msg, "s.xtfq"));
  }
}

}  // namespace
}  // namespace xtfq::test

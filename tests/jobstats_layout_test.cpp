// The job_stats block layout against the legacy one: tests/data/jobstats_pindex.xtfq is a store
// written before the block arrays (each step array indexed by target, a copy of every step; see
// tests/data/README.md). It is read, checked and appended to by this build, and every answer is
// the one a store of the block layout gives for the same snapshots, and the generator's truth for
// whole-run totals. A block that does not match its steps is named by `xtfq check`.
#include "layouts/jobstats_layout.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "importers/jobstats/jobstats_importer.h"
#include "importers/jobstats/jobstats_state.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_grid_query.h"
#include "query/jobstats/jobstats_window_query.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "store/store_writer.h"
#include "tests/altering_sink.h"
#include "tests/temp_dir.h"
#include "tests/truth_csv.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using L = JobStatsLayout;
using test::Why;

// The fixture's snapshots: `xtfq gen jobstats --targets 6 --jobs 40 --samples 24 --seed 11`, those
// collected before kSplit in the fixture, the rest appended by the test.
constexpr int64_t kSplit = 1767227040;

// Everything a reader answers about a store's job_stats, as text: windows by target (from the
// index), by series, by job, and grids by target and by job, for each op.
std::string Answers(const std::string& path, int64_t t1, int64_t t2) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto js = JobStatsView::Open(**reader);
  REQUIRE_MESSAGE(js.ok(), Why(js));
  std::string out;
  for (const auto& by : std::vector<std::vector<JobStatsKey>>{
           {JobStatsKey::kTarget}, {JobStatsKey::kTarget, JobStatsKey::kId}, {JobStatsKey::kJob}}) {
    auto w = JobStatsWindowQuery::Compute(**js, t1, t2, {}, by, false, false);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    if (by.size() == 1 && by[0] == JobStatsKey::kTarget) CHECK(w->indexed);
    for (const JobStatsGroup& g : w->groups) {
      for (const auto& [op, o] : g.ops) {
        // To 12 digits: a block's steps are in series order, the legacy layout's as read, so sums
        // over a group's steps add the same numbers in another order.
        out += fmt::format("{} {} total {:.12g} rate_max {:.12g} series_rate_max {:.12g} steps {}\n",
                           fmt::join(g.keys, "/"), op, o.total, o.rate_max, o.series_rate_max, o.steps);
      }
    }
  }
  for (const char* op : {"read_bytes", "write_bytes", "getattr"}) {
    for (const char* by : {"target", "job"}) {
      JobStatsGridRequest q;
      q.op = op, q.by = by, q.cols = 17, q.time = fmt::format("{}:{}", t1, t2);
      auto g = JobStatsGridQuery::Run(**js, q);
      REQUIRE_MESSAGE(g.ok(), Why(g));
      // Cells to 12 digits: by target a block's change is spread over the columns as one, by
      // step each step's, in another order (the same sum, rounded differently).
      std::string cells;
      for (size_t i = 0; i < g->cells.size(); ++i)
        cells += fmt::format(" {:.12g}{}", g->cells[i], g->covered[i] ? "" : "?");
      out += fmt::format("grid {} by {} {}:{}\n", op, by, fmt::join(g->rows, ","), cells);
    }
    for (uint32_t t = 0; t < (*js)->targets().size(); ++t) {
      auto has = (*js)->HasSteps(op, t);
      REQUIRE(has.ok());
      out += fmt::format("{} {} has steps {}\n", op, (*js)->targets()[t], *has);
    }
  }
  return out;
}

// The width of a store's level-0 job summary cells.
uint32_t Level0Width(const test::TempDir& dir, const char* store) {
  auto reader = StoreReader::Open(dir.File(store));
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  const ArrayDesc* level0 = (*reader)->catalogue().Find(L::SummaryLevelName("job", 0));
  REQUIRE(level0 != nullptr);
  return level0->schema.record_width();
}

void SplitSnapshots(const test::TempDir& dir) {
  std::filesystem::create_directories(dir.File("first")), std::filesystem::create_directories(dir.File("second"));
  for (const auto& e : std::filesystem::directory_iterator(dir.File("js"))) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".txt") continue;
    const int64_t stamp = std::stoll(name.substr(name.find('-') + 1));
    std::filesystem::copy(e.path(), dir.File((stamp < kSplit ? "first/" : "second/") + name));
  }
}

// Whether each step array of the store has a P index of its own (the legacy layout) and each op
// with steps a block array.
std::pair<size_t, size_t> Layouts(const std::string& path) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  size_t legacy = 0, blocks = 0;
  for (const ArrayDesc& a : (*reader)->catalogue().arrays) {
    if (a.per_process()) continue;
    if (a.name.starts_with(L::kStepArrayPrefix) && a.schema.process_field()) ++legacy;
    if (a.name.starts_with(L::kBlockArrayPrefix)) ++blocks;
  }
  return {legacy, blocks};
}

TEST_CASE("jobstats layout: a store of the legacy layout is read, checked and appended to as before") {
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen jobstats --targets 6 --jobs 40 --samples 24 --seed 11 -o js").status == 0);
  SplitSnapshots(dir);
  std::filesystem::copy_file(std::string(XTFQ_SOURCE_DIR) + "/tests/data/jobstats_pindex.xtfq", dir.File("old.xtfq"));
  const auto [legacy, no_blocks] = Layouts(dir.File("old.xtfq"));
  CHECK(legacy >= 6);
  CHECK(no_blocks == 0);
  for (const char* store : {"new.xtfq", "all.xtfq"}) {
    test::Run r = test::Xtfq(dir, fmt::format("import --format jobstats first -o {}", store));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  const auto [new_legacy, new_blocks] = Layouts(dir.File("new.xtfq"));
  CHECK(new_legacy == 0);
  CHECK(new_blocks == legacy);

  // The same snapshots, the same answers, over windows inside and across collections.
  const int64_t start = 1767225600;
  for (auto [t1, t2] : std::vector<std::pair<int64_t, int64_t>>{{start - 100, kSplit + 100},
                                                                {start + 130, start + 731},
                                                                {start + 360, start + 361},
                                                                {start + 500, kSplit}}) {
    CAPTURE(t1);
    CAPTURE(t2);
    CHECK(Answers(dir.File("old.xtfq"), t1, t2) == Answers(dir.File("new.xtfq"), t1, t2));
  }

  // A grid by target says what it read: the blocks, or in the legacy layout the steps.
  for (auto [store, what] : {std::pair{"new.xtfq", "read from the window's blocks"},
                             std::pair{"old.xtfq", "read from the window's steps"}}) {
    test::Run g = test::Xtfq(dir, fmt::format("grid {} --op write_bytes --cols 4", store));
    CHECK_MESSAGE(g.status == 0, g.err);
    CHECK_MESSAGE(g.out.find(what) != std::string::npos, g.out);
  }

  // Its job summaries were written before the cells' carry: a grid by job reads the steps there,
  // the cells here (snapped onto their bins); extended, they keep their width.
  for (auto [store, what] : {std::pair{"new.xtfq", "read from the job summaries' cells"},
                             std::pair{"old.xtfq", "read from the window's steps"}}) {
    test::Run g = test::Xtfq(dir, fmt::format("grid {} --by job --op write_bytes --cols 4 --snap", store));
    CHECK_MESSAGE(g.status == 0, g.err);
    CHECK_MESSAGE(g.out.find(what) != std::string::npos, g.out);
    CHECK_MESSAGE((g.out.find("--snap: not applied: the store's summaries were made before their cells kept the "
                              "carry") != std::string::npos) == (std::string(store) == "old.xtfq"),
                  g.out);
  }
  CHECK(Level0Width(dir, "old.xtfq") == L::kLegacySumWidth);
  CHECK(Level0Width(dir, "new.xtfq") == L::kSumWidth);

  // Appended to: the legacy arrays stay legacy, the answers are those of one new-layout import of
  // every snapshot, and whole-run totals by target are the truth's.
  for (const char* store : {"old.xtfq", "all.xtfq"}) {
    test::Run r = test::Xtfq(dir, fmt::format("import --format jobstats second -o {}", store));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    test::Run check = test::Xtfq(dir, fmt::format("check {}", store));
    CHECK_MESSAGE(check.status == 0, check.err);
  }
  CHECK(Layouts(dir.File("old.xtfq")).first == legacy);
  CHECK(Layouts(dir.File("all.xtfq")).first == 0);
  CHECK(Level0Width(dir, "old.xtfq") == L::kLegacySumWidth);
  const int64_t end = start + 24 * 120 + 200;
  CHECK(Answers(dir.File("old.xtfq"), start - 100, end) == Answers(dir.File("all.xtfq"), start - 100, end));
  CHECK(Answers(dir.File("old.xtfq"), kSplit - 333, kSplit + 777) ==
        Answers(dir.File("all.xtfq"), kSplit - 333, kSplit + 777));
  std::map<std::string, std::map<std::string, uint64_t>> want;  // target -> op -> the sum of its true deltas
  for (const auto& r : test::ReadTruthCsv(dir.File("js/truth_steps.csv"))) want[r[0]][r[2]] += std::stoull(r[5]);
  for (const char* store : {"old.xtfq", "all.xtfq"}) {
    CAPTURE(store);
    auto reader = StoreReader::Open(dir.File(store));
    REQUIRE_MESSAGE(reader.ok(), Why(reader));
    auto js = JobStatsView::Open(**reader);
    REQUIRE_MESSAGE(js.ok(), Why(js));
    auto w = JobStatsWindowQuery::Compute(**js, start - 100, end, {}, {JobStatsKey::kTarget}, false, false);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    CHECK(w->indexed);
    std::map<std::string, std::map<std::string, uint64_t>> got;
    for (const JobStatsGroup& g : w->groups) {
      for (const auto& [op, o] : g.ops) {
        if (o.total != 0) got[g.keys.at(0)][op] = static_cast<uint64_t>(o.total);
      }
    }
    CHECK(got == want);
  }
}

// A window by job from the summaries (JobStatsWindowQuery's default path), as text, and the steps
// it read.
std::pair<std::string, uint64_t> ByJob(const std::string& path, int64_t t1, int64_t t2) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto js = JobStatsView::Open(**reader);
  REQUIRE_MESSAGE(js.ok(), Why(js));
  auto w = JobStatsWindowQuery::Compute(**js, t1, t2, {}, {JobStatsKey::kJob});
  REQUIRE_MESSAGE(w.ok(), Why(w));
  CHECK(w->summarised);
  std::string out;
  for (const JobStatsGroup& g : w->groups) {
    for (const auto& [op, o] : g.ops) {
      out += fmt::format("{} {} total {:.9g} rate_max {:.9g} series_rate_max {:.9g} steps {}\n", g.keys.at(0), op,
                         o.total, o.rate_max, o.series_rate_max, o.steps);
    }
  }
  return {out, w->steps_read};
}

TEST_CASE("jobstats layout: summaries with the carry but no alive count are read, checked and extended as before") {
  // tests/data/jobstats_carry.xtfq: the fixture's first snapshots, imported by commit e7bf7c0
  // (level-0 summary cells of 56 bytes: the carry, no `alive`).
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen jobstats --targets 6 --jobs 40 --samples 24 --seed 11 -o js").status == 0);
  SplitSnapshots(dir);
  std::filesystem::copy_file(std::string(XTFQ_SOURCE_DIR) + "/tests/data/jobstats_carry.xtfq", dir.File("old.xtfq"));
  test::Run r = test::Xtfq(dir, "import --format jobstats first -o new.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(Level0Width(dir, "old.xtfq") == L::kCarrySumWidth);
  CHECK(Level0Width(dir, "new.xtfq") == L::kSumWidth);
  // Windows on the summaries' bins (256 s) and off them: the same answers; on them, the new store
  // reads no step, the old one the steps at the window's ends.
  const int64_t start = 1767225600;  // = 6903225 * 256
  for (auto [t1, t2] : std::vector<std::pair<int64_t, int64_t>>{
           {start, start + 512}, {start + 256, start + 1024}, {start + 100, start + 900}}) {
    CAPTURE(t1);
    CAPTURE(t2);
    const auto [old_text, old_steps] = ByJob(dir.File("old.xtfq"), t1, t2);
    const auto [new_text, new_steps] = ByJob(dir.File("new.xtfq"), t1, t2);
    CHECK(old_text == new_text);
    CHECK(old_steps > 0);
    CHECK((new_steps == 0) == (t1 % 256 == 0));
  }
  for (const char* store : {"old.xtfq", "new.xtfq"}) {
    test::Run g = test::Xtfq(dir, fmt::format("grid {} --by job --op write_bytes --cols 4 --snap", store));
    CHECK_MESSAGE(g.status == 0, g.err);
    CHECK_MESSAGE(g.out.find("read from the job summaries' cells") != std::string::npos, g.out);
  }
  // --snap moves a window only where the cells answer it alone: not with cells made before `alive`.
  for (const char* store : {"old.xtfq", "new.xtfq"}) {
    test::Run q = test::Xtfq(
        dir, fmt::format("query {} --by job --top 3 --snap --time @{}:@{}", store, start + 100, start + 900));
    CHECK_MESSAGE(q.status == 0, q.err);
    CHECK_MESSAGE(
        (q.out.find("--snap: not applied: the store's summaries were made before their cells counted the "
                    "steps alive at a bin's start") != std::string::npos) == (std::string(store) == "old.xtfq"),
        q.out);
    CHECK_MESSAGE((q.out.find("snapped onto the job summaries' 256 s bins") != std::string::npos) ==
                      (std::string(store) == "new.xtfq"),
                  q.out);
  }
  // Extended in their own width, checked, and answering as one import of every snapshot.
  for (const char* store : {"old.xtfq", "new.xtfq"}) {
    r = test::Xtfq(dir, fmt::format("import --format jobstats second -o {}", store));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    test::Run check = test::Xtfq(dir, fmt::format("check {}", store));
    CHECK_MESSAGE(check.status == 0, check.err);
  }
  CHECK(Level0Width(dir, "old.xtfq") == L::kCarrySumWidth);
  const int64_t end = start + 24 * 120 + 200;
  CHECK(ByJob(dir.File("old.xtfq"), start - 100, end).first == ByJob(dir.File("new.xtfq"), start - 100, end).first);
  CHECK(ByJob(dir.File("old.xtfq"), start + 512, start + 2048).first ==
        ByJob(dir.File("new.xtfq"), start + 512, start + 2048).first);
}

// Each way a block can disagree with its steps, made by an importer whose sink alters one
// block record: `xtfq check` names the block and says what is wrong.
TEST_CASE("jobstats layout: xtfq check names a block that does not match its steps") {
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen jobstats --targets 2 --jobs 6 --samples 5 --seed 3 -o js").status == 0);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("js"))) {
    if (e.path().extension() == ".txt") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    const std::string x = a.filename().string(), y = b.filename().string();
    return x.substr(x.find('-')) < y.substr(y.find('-'));
  });
  struct Case {
    const char* name;
    std::function<void(std::vector<std::byte>&)> alter;
    const char* says;
    std::string array = L::BlockArrayName("write_bytes");
    int nth = 3;
    const char* names = "jobstats/block/write_bytes record 2";
  };
  const std::vector<Case> cases = {
      {"delta",
       [](auto& r) { StoreLe<uint64_t>(r.data() + L::kStepDelta, LoadLe<uint64_t>(r.data() + L::kStepDelta) + 1); },
       "are not its steps'"},
      {"rate", [](auto& r) { StoreLe<double>(r.data() + L::kStepRate, LoadLe<double>(r.data() + L::kStepRate) * 2); },
       "are not its steps'"},
      {"first",
       [](auto& r) { StoreLe<uint64_t>(r.data() + L::kBlockFirst, LoadLe<uint64_t>(r.data() + L::kBlockFirst) + 1); },
       "do not tile"},
      {"t0", [](auto& r) { StoreLe<int64_t>(r.data() + L::kStepT0, LoadLe<int64_t>(r.data() + L::kStepT0) - 1); },
       "another target or of other times"},
      // The first step of the first block: a series after every other.
      {"series", [](auto& r) { StoreLe<uint32_t>(r.data() + L::kStepSeries, 0xfffffff0u); },
       "not in increasing series order", L::StepArrayName("write_bytes"), 1, "jobstats/block/write_bytes record 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string path = dir.File(fmt::format("{}.xtfq", c.name));
    {
      auto w = StoreWriter::CreatePath(path);
      REQUIRE_MESSAGE(w.ok(), Why(w));
      test::AlteringSink sink(**w, c.array, c.nth, c.alter);
      JobStatsState state;
      auto importer = JobStatsImporter::Make(sink, state, {});
      REQUIRE_MESSAGE(importer.ok(), Why(importer));
      for (const auto& f : files) {
        auto in = PosixFile::Open(f.string(), PosixFile::Mode::kRead);
        REQUIRE_MESSAGE(in.ok(), Why(in));
        auto st = importer->Import(**in);
        REQUIRE_MESSAGE(st.ok(), Why(st));
      }
      REQUIRE((*w)->Commit().ok());
    }
    test::Run bad = test::Xtfq(dir, fmt::format("check {}.xtfq", c.name));
    CHECK(bad.status == 1);
    CHECK_MESSAGE(bad.err.find(c.names) != std::string::npos, bad.err);
    CHECK_MESSAGE(bad.err.find(c.says) != std::string::npos, bad.err);
    CHECK_MESSAGE(bad.err.find("the job_stats blocks do not match the steps") != std::string::npos, bad.err);
  }
  // Unaltered, the same import checks.
  test::Run r = test::Xtfq(dir, "import js -o s.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  test::Run ok = test::Xtfq(dir, "check s.xtfq");
  CHECK_MESSAGE(ok.status == 0, ok.err);
  CHECK(ok.out.find("the job_stats blocks checked against") != std::string::npos);
}

}  // namespace
}  // namespace xtfq

// The counters of job_stats snapshots are kept as read (docs/format.md, "Job stats counter
// record"): every non-zero counter of every entry, with its histogram's text, checked against an
// independent parse of the same files. The dense generator's cumulative histograms are nearly all
// new texts, more than the importer's histogram table holds (JobStatsImporter::kMaxHistTexts), so
// the table is emptied during the import and each text must still be the one its counter printed.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gen/jobstats_generator.h"
#include "importers/jobstats/jobstats_importer.h"
#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using L = JobStatsLayout;
using test::Why;

// The names of an array of name records (targets, ops), by record number.
std::vector<std::string> Names(StoreReader& reader, std::string_view array) {
  std::vector<std::string> names;
  auto a = reader.Array(array);
  REQUIRE_MESSAGE(a.ok(), Why(a));
  Status s = reader.ForEach(**a, [&](const std::byte* r) -> Status {
    XTFQ_ASSIGN_OR_RETURN(std::string n, reader.String(StringRef::Unpack(U64At(r, 0))));
    names.push_back(std::move(n));
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  return names;
}

std::string Row(const std::string& target, const std::string& id, const std::string& op, uint64_t samples, uint64_t min,
                uint64_t max, uint64_t sum, uint64_t sumsq, const std::string& hist) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", target, id, op, samples, min, max, sum, sumsq, hist);
}

TEST_CASE("jobstats: every counter is kept as read, histogram texts too, past the histogram table's bound") {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.variant = "E2", o.targets = 9, o.jobs = 500, o.samples = 20, o.seed = 7, o.dense = true;
  auto gen = JobStatsGenerator::Write(o, dir.File("snap"));
  REQUIRE_MESSAGE(gen.ok(), Why(gen));
  test::Run r = test::Xtfq(dir, "import -q snap -o s.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);

  // What the files say, parsed here: one row per non-zero counter.
  std::vector<std::string> want;
  std::set<std::string> texts;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("snap"))) {
    if (e.path().extension() != ".txt") continue;
    auto file = PosixFile::Open(e.path().string(), PosixFile::Mode::kRead);
    REQUIRE_MESSAGE(file.ok(), Why(file));
    auto parsed = JobStatsImporter::Parse(**file, "", std::nullopt);
    REQUIRE_MESSAGE(parsed.ok(), Why(parsed));
    for (const JobStatsEntry& en : parsed->entries) {
      for (const JobStatsCounter& c : en.counters) {
        const bool nonzero = c.samples != 0 || c.min.value_or(0) != 0 || c.max.value_or(0) != 0 ||
                             c.sum.value_or(0) != 0 || c.sumsq.value_or(0) != 0 || !c.hist.empty();
        if (!nonzero) continue;
        std::string hist;
        for (const auto& [label, n] : c.hist) hist += fmt::format("{}{}:{}", hist.empty() ? "" : " ", label, n);
        if (!hist.empty()) texts.insert(hist);
        want.push_back(Row(en.target, en.job_id, c.op, c.samples, c.min.value_or(0), c.max.value_or(0),
                           c.sum.value_or(0), c.sumsq.value_or(0), c.hist.empty() ? "-" : hist));
      }
    }
  }
  // The import had to empty its histogram table.
  REQUIRE(texts.size() > JobStatsImporter::kMaxHistTexts);

  // What the store holds.
  auto reader = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  const std::vector<std::string> targets = Names(**reader, L::kTargets), ops = Names(**reader, L::kOps);
  std::vector<std::pair<uint32_t, std::string>> series;  // target, raw id
  auto sa = (*reader)->Array(L::kSeries);
  REQUIRE_MESSAGE(sa.ok(), Why(sa));
  Status s = (*reader)->ForEach(**sa, [&](const std::byte* rec) -> Status {
    XTFQ_ASSIGN_OR_RETURN(std::string id, (*reader)->String(StringRef::Unpack(U64At(rec, L::kSerRaw))));
    series.emplace_back(U32At(rec, L::kSerTarget), std::move(id));
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  std::vector<std::string> got;
  auto ca = (*reader)->Array(L::kCounters);
  REQUIRE_MESSAGE(ca.ok(), Why(ca));
  s = (*reader)->ForEach(**ca, [&](const std::byte* rec) -> Status {
    const auto& [target, id] = series.at(U32At(rec, L::kCntSeries));
    const uint64_t hist_ref = U64At(rec, L::kCntHist);
    std::string hist = "-";
    if (hist_ref != ~uint64_t{0}) {
      XTFQ_ASSIGN_OR_RETURN(hist, (*reader)->String(StringRef::Unpack(hist_ref)));
    }
    got.push_back(Row(targets.at(target), id, ops.at(U32At(rec, L::kCntOp)), U64At(rec, L::kCntSamples),
                      U64At(rec, L::kCntMin), U64At(rec, L::kCntMax), U64At(rec, L::kCntSum), U64At(rec, L::kCntSumsq),
                      hist));
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  CHECK(got.size() == want.size());
  std::sort(got.begin(), got.end()), std::sort(want.begin(), want.end());
  size_t same = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) same += got[i] == want[i];
  CHECK(same == want.size());
  if (got != want) {
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
      if (got[i] != want[i]) {
        FAIL_CHECK(fmt::format("first difference: store {} file {}", got[i], want[i]));
        break;
      }
    }
  }
}

}  // namespace
}  // namespace xtfq

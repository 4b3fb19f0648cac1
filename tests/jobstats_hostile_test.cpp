// Hostile job_stats input through the command line (issue 14): what is imported, what is warned
// about (on stderr, naming the file and the line) and the exit status, checked against the store's
// own records and against expectations written from the input.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "layouts/jobstats_layout.h"
#include "query/store_reader.h"
#include "store/endian.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using L = JobStatsLayout;
using test::Why;

void Write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.File(name), std::ios::binary) << text;
}

// The raw job ids of a store's series, in series order.
std::vector<std::string> SeriesIds(const std::string& path) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto series = (*reader)->Array(L::kSeries);
  REQUIRE_MESSAGE(series.ok(), Why(series));
  std::vector<std::string> ids;
  Status s = (*reader)->ForEach(**series, [&](const std::byte* r) -> Status {
    XTFQ_ASSIGN_OR_RETURN(std::string id, (*reader)->String(StringRef::Unpack(U64At(r, L::kSerRaw))));
    ids.push_back(std::move(id));
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  return ids;
}

// The lines of stderr that are warnings or errors (the import's summary line is neither).
std::vector<std::string> Said(const std::string& err) {
  std::vector<std::string> out;
  for (size_t at = 0; at < err.size();) {
    size_t nl = err.find('\n', at);
    if (nl == std::string::npos) nl = err.size();
    const std::string line = err.substr(at, nl - at);
    if (line.starts_with("xtfq ")) out.push_back(line);
    at = nl + 1;
  }
  return out;
}

uint64_t Records(const std::string& path, std::string_view array) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto a = (*reader)->Array(array);
  REQUIRE_MESSAGE(a.ok(), Why(a));
  return (*a)->record_count();
}

TEST_CASE("jobstats hostile: an unclosed '{' costs its own entry only, with a warning naming file and line") {
  test::TempDir dir;
  std::string text = "# collected_at: 1767225600\nobdfilter.scratch-OST0000.job_stats=\njob_stats:\n";
  for (int i = 0; i < 5; ++i) {
    text += fmt::format("- job_id:          job{}.1001\n  snapshot_time:   1767225590\n", i);
    text += fmt::format("  read:            {{ samples: 3, unit: reqs{}\n", i == 2 ? "" : " }");
    text += "  write:           { samples: 4, unit: reqs }\n";
  }
  Write(dir, "u.txt", text);
  test::Run r = test::Xtfq(dir, "import --format jobstats -o u.xtfq u.txt");
  CHECK_MESSAGE(r.status == 0, r.err);
  // Line 3 + 4 per entry: entry 2's read counter is line 14, entry 3 starts at line 16.
  CHECK(Said(r.err) == std::vector<std::string>{"xtfq import: warning: u.txt: line 14: a counter whose '{' is not "
                                                "closed before the next entry (line 16) (entry skipped)"});
  CHECK(SeriesIds(dir.File("u.xtfq")) == std::vector<std::string>{"job0.1001", "job1.1001", "job3.1001", "job4.1001"});
  CHECK(Records(dir.File("u.xtfq"), L::kEntries) == 4);
  CHECK(Records(dir.File("u.xtfq"), L::kCounters) == 8);
  test::Run check = test::Xtfq(dir, "check u.xtfq");
  CHECK_MESSAGE(check.status == 0, std::string(check.out + check.err));
}

}  // namespace
}  // namespace xtfq

// Hostile job_stats input through the command line (issue 14): what is imported, what is warned
// about (on stderr, naming the file and the line) and the exit status, checked against the store's
// own records and against expectations written from the input.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
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

namespace xtfq {
namespace {

// Issue 14, defect 7: every distinct op name used to become its own P-indexed step array (30,000
// names: 626 MB, 18 s).
TEST_CASE("jobstats hostile: 30,000 distinct op names cost bounded arrays, and their counters are all kept") {
  test::TempDir dir;
  const int names = 30000;
  auto snapshot = [&](int round) {
    std::string s = "obdfilter.scratch-OST0000.job_stats=\njob_stats:\n- job_id:          1:1001:c1\n";
    s += "  snapshot_time:   1767225590\n";
    s += fmt::format("  read_bytes:      {{ samples: {}, unit: bytes, min: 4096, max: 4096, sum: {} }}\n", round,
                     4096 * round);
    s += fmt::format("  write:           {{ samples: {}, unit: reqs }}\n", 3 * round);
    for (int k = 0; k < names; ++k) s += fmt::format("  op_{}: {{ samples: {}, unit: reqs }}\n", k, round);
    return s;
  };
  Write(dir, "s-1767225600.txt", snapshot(1));
  Write(dir, "s-1767225720.txt", snapshot(2));
  test::Run r = test::Xtfq(dir, "import --format jobstats -o s.xtfq s-1767225600.txt s-1767225720.txt");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  // Lines 1-6 are the framing, the id, snapshot_time, read_bytes and write; op_k is line 7 + k. The
  // first collection is a baseline (no steps); in the second, op_0..op_31 take the 32 places for
  // names beyond Lustre's own, and op_32 is the first refused.
  CHECK(Said(r.err) ==
        std::vector<std::string>{fmt::format(
            "xtfq import: warning: s-1767225720.txt: line 39: op 'op_32' and {} more op names have no rate steps: a "
            "store keeps rate steps for Lustre's own ops and for at most {} other op names, and it has {} (their "
            "counters are kept in jobstats.counters)",
            names - 33, L::kMaxOtherOpArrays, L::kMaxOtherOpArrays)});
  auto reader = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  std::set<std::string> step_arrays;
  for (const ArrayDesc& a : (*reader)->catalogue().arrays) {
    if (!a.per_process() && a.name.starts_with("jobstats/op/")) step_arrays.insert(a.name.substr(12));
  }
  std::set<std::string> want = {"read_bytes", "write"};
  for (size_t k = 0; k < L::kMaxOtherOpArrays; ++k) want.insert(fmt::format("op_{}", k));
  CHECK(step_arrays == want);
  // Nothing read is lost: every name is an op, every non-zero counter of both collections a record.
  CHECK(Records(dir.File("s.xtfq"), L::kOps) == names + 2);
  CHECK(Records(dir.File("s.xtfq"), L::kCounters) == 2 * (names + 2));
  // Bounded size: the counters (68 B each) and the names dominate; 34 step arrays of one step each
  // with their P index are a few pages apiece. The old layout made 30,002 P-indexed arrays (626 MB).
  const auto bytes = std::filesystem::file_size(dir.File("s.xtfq"));
  CHECK(bytes < 2 * (2 * (names + 2) * L::kCntWidth) + (size_t{2} << 20));
  // Steps of the admitted ops are right: op_0 went from 1 to 2 samples, write from 3 to 6.
  test::Run q = test::Xtfq(dir, "query s.xtfq --jobstats --by op --format csv");
  REQUIRE_MESSAGE(q.status == 0, q.err);
  CHECK(q.out.find("\nop_0,1,") != std::string::npos);
  CHECK(q.out.find("\nwrite,3,") != std::string::npos);
  CHECK(q.out.find("\nop_32,") == std::string::npos);  // no rate steps: not a row of zeros
  test::Run asked = test::Xtfq(dir, "query s.xtfq --jobstats --op op_32");
  CHECK(asked.status == 1);
  CHECK(asked.err == fmt::format("xtfq query: s.xtfq: op 'op_32' has no rate steps: the store keeps them for Lustre's "
                                 "own ops and at most {} other op names, which it has (its counters are in "
                                 "jobstats.counters)\n",
                                 L::kMaxOtherOpArrays));
  // A later import continues with the same places (read back from the store's arrays).
  Write(dir, "s-1767225840.txt", snapshot(3));
  r = test::Xtfq(dir, "import --format jobstats -o s.xtfq s-1767225840.txt");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  REQUIRE(Said(r.err).size() == 1);
  CHECK(Said(r.err)[0].starts_with("xtfq import: warning: s-1767225840.txt: line 39: op 'op_32' and 29967 more "));
  test::Run check = test::Xtfq(dir, "check s.xtfq");
  CHECK_MESSAGE(check.status == 0, std::string(check.out + check.err));
  CHECK(Records(dir.File("s.xtfq"), L::kCounters) == 3 * (names + 2));
  CHECK(std::filesystem::file_size(dir.File("s.xtfq")) < 3 * (2 * (names + 2) * L::kCntWidth) + (size_t{2} << 20));
}

}  // namespace
}  // namespace xtfq

namespace xtfq {
namespace {

// Issue 14, defect 6: hostile values in job_stats, each with its decided behaviour (docs/cli.md,
// "Hostile job_stats values"): an entry whose times or id cannot be right is skipped with a warning
// naming file and line; a counter with an unknown unit is kept with a warning; a collection time
// that is not an epoch time refuses the snapshot (exit 1, or 2 for --at).
TEST_CASE("jobstats hostile: non-finite and absurd times, huge and NUL ids, unknown units, bad collection times") {
  // Line 1 collected_at, 2 param=, 3 job_stats:, then the good entry (lines 4-6), then the hostile
  // one (its job_id at line 7, its time at line 8, its counter at line 9), then a good one.
  auto text = [](const std::string& id, const std::string& time_line, const std::string& counter,
                 const std::string& collected = "1767225600") {
    return "# collected_at: " + collected +
           "\nobdfilter.fs-OST0000.job_stats=\njob_stats:\n"
           "- job_id:          good.1001\n  snapshot_time:   1767225590\n  write: { samples: 4, unit: reqs }\n"
           "- job_id:          " +
           id + "\n  " + time_line + "\n  " + counter +
           "\n"
           "- job_id:          after.1001\n  snapshot_time:   1767225591\n  punch: { samples: 1, unit: reqs }\n";
  };
  const std::string ok_time = "snapshot_time:   1767225590", ok_counter = "read: { samples: 2, unit: reqs }";
  struct Case {
    std::string name, text, args;
    int status;
    std::vector<std::string> said;        // the warnings and errors, in order
    std::vector<std::string> series_ids;  // what the store holds afterwards (when status 0)
  };
  const std::vector<std::string> skipped = {"good.1001", "after.1001"};
  const std::vector<std::string> kept = {"good.1001", "h.1001", "after.1001"};
  const std::string range = "epoch or since-boot seconds from 0 to 253402300799";
  auto time_case = [&](const std::string& key, const std::string& value) {
    const std::string line = key + ":   " + value;
    return Case{key + " " + value,
                text("h.1001", key == "snapshot_time" ? line : ok_time + "\n  " + line, ok_counter),
                "",
                0,
                {fmt::format("xtfq import: warning: x.txt: line {}: {} '{}' is not a time in {} (entry skipped)",
                             key == "snapshot_time" ? 8 : 9, key, value, range)},
                skipped};
  };
  std::vector<Case> cases = {
      time_case("snapshot_time", "nan"),
      time_case("snapshot_time", "-nan"),
      time_case("snapshot_time", "inf"),
      time_case("snapshot_time", "1e300"),
      time_case("snapshot_time", "-5"),
      time_case("start_time", "nan"),
      time_case("elapsed_time", "-inf"),
      {"a 16 MB id",
       text(std::string(size_t{16} << 20, 'j'), ok_time, ok_counter),
       "",
       0,
       {"xtfq import: warning: x.txt: line 7: a job id of 16777216 bytes: longer than 1024 (Lustre's hold 31) "
        "(entry skipped)"},
       skipped},
      {"a raw NUL in an id",
       text(std::string("nul\0id.1001", 11), ok_time, ok_counter),
       "",
       0,
       {"xtfq import: warning: x.txt: line 7: the job id holds a NUL byte (entry skipped)"},
       skipped},
      {"an escaped NUL in an id",
       text("\"nul\\x00id.1001\"", ok_time, ok_counter),
       "",
       0,
       {"xtfq import: warning: x.txt: line 7: the job id holds a NUL byte (entry skipped)"},
       skipped},
      {"an unknown unit",
       text("h.1001", ok_time, "read: { samples: 2, unit: furlongs }"),
       "",
       0,
       {"xtfq import: warning: x.txt: line 9: unit 'furlongs' (1 counter) is none of reqs, bytes, usecs: kept as "
        "unit 4 (other), counted as events"},
       kept},
      {"collected_at 1e18",
       text("h.1001", ok_time, ok_counter, "1e18"),
       "",
       1,
       {"xtfq import: x.txt:1: '# collected_at: 1e18' does not give an epoch time (seconds from 1 to "
        "253402300799)",
        "xtfq import: nothing committed; x.xtfq was not created"},
       {}},
      {"--at -5",
       text("h.1001", ok_time, ok_counter),
       "--at -5",
       2,
       {"xtfq import: --at -5: not an epoch time (seconds from 1 to 253402300799)",
        "xtfq import: nothing committed; x.xtfq was not created"},
       {}},
  };
  // --at that is neither [@][-]digits[.digits] nor ISO 8601 UTC: a usage error, before any input.
  for (const char* at : {"nan", "0x5A000000", "1e18", "noon", "2026-13-01T00:00:00Z"}) {
    cases.push_back({fmt::format("--at {}", at),
                     text("h.1001", ok_time, ok_counter),
                     fmt::format("--at {}", at),
                     2,
                     {fmt::format("xtfq import: --at {}: not an epoch time (seconds, or @seconds) or an ISO 8601 UTC "
                                  "time (2017-11-01T00:00:00Z)",
                                  at)},
                     {}});
  }
  for (const Case& c : cases) {
    CAPTURE(c.name);
    test::TempDir dir;
    Write(dir, "x.txt", c.text);
    test::Run r = test::Xtfq(dir, "import --format jobstats " + c.args + " -o x.xtfq x.txt");
    CHECK(r.status == c.status);
    CHECK(Said(r.err) == c.said);
    if (c.status != 0) {
      CHECK(!std::filesystem::exists(dir.File("x.xtfq")));
      continue;
    }
    CHECK(SeriesIds(dir.File("x.xtfq")) == c.series_ids);
    test::Run check = test::Xtfq(dir, "check x.xtfq");
    CHECK_MESSAGE(check.status == 0, std::string(check.out + check.err));
  }
}

// The collection time of each of a store's collections, in order.
std::vector<int64_t> CollectionTimes(const std::string& path) {
  auto reader = StoreReader::Open(path);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto cols = (*reader)->Array(L::kCollections);
  REQUIRE_MESSAGE(cols.ok(), Why(cols));
  std::vector<int64_t> times;
  Status s = (*reader)->ForEach(**cols, [&](const std::byte* r) -> Status {
    times.push_back(I64At(r, L::kColT));
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  return times;
}

TEST_CASE("jobstats hostile: --at takes epoch seconds, @seconds and ISO 8601 UTC alike") {
  test::TempDir dir;
  Write(dir, "x.txt",
        "obdfilter.fs-OST0000.job_stats=\njob_stats:\n- job_id:          a.1001\n  snapshot_time:   1767225590\n"
        "  write: { samples: 4, unit: reqs }\n");
  // 2026-01-01T00:00:00Z is 1767225600 (20454 days of 86400 s after 1970-01-01).
  for (const char* at : {"1767225600", "@1767225600", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00"}) {
    CAPTURE(at);
    std::filesystem::remove(dir.File("x.xtfq"));
    test::Run r = test::Xtfq(dir, fmt::format("import -q --format jobstats --at {} -o x.xtfq x.txt", at));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(CollectionTimes(dir.File("x.xtfq")) == std::vector<int64_t>{1767225600});
  }
}

TEST_CASE("jobstats hostile: --snap says why a store has no summaries: no bin sealed yet, or --no-grid") {
  // One MDT collected twice, four months apart (as ../shared/data/jobstats's HPE captures are):
  // level 0's bins are 2^25 s (the least power of two at least twice the gap of 10,627,200 s), so
  // the first bin [44 * 2^25, 45 * 2^25) ends at 1509949440, after the target's last collection
  // (1509494400): no bin is sealed, and no summary exists yet.
  test::TempDir dir;
  const auto snapshot = [](int64_t at, int samples) {
    return fmt::format(
        "# collected_at: {}\nmdt.fs-MDT0000.job_stats=\njob_stats:\n- job_id:          a.1001\n"
        "  snapshot_time:   {}\n  setattr: {{ samples: {}, unit: reqs }}\n",
        at, at - 10, samples);
  };
  Write(dir, "s1.txt", snapshot(1498867200, 5));
  Write(dir, "s2.txt", snapshot(1509494400, 9));
  test::Run r = test::Xtfq(dir, "import -q --format jobstats -o x.xtfq s1.txt s2.txt");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  test::Run g = test::Xtfq(dir, "grid x.xtfq --by job --op setattr --cols 5 --snap");
  REQUIRE_MESSAGE(g.status == 0, g.err);
  CHECK_MESSAGE(
      g.out.find("--snap: not applied: no bin is summarised yet: the first bin of 33554432 s ends at "
                 "1509949440, after the earliest last collection of a target (1509494400)") != std::string::npos,
      g.out);
  // The one step, 4 setattr over [1498867200, 1509494400), is read from the steps.
  CHECK_MESSAGE(g.out.find("read: 1 records scanned") != std::string::npos, g.out);

  // Collected every 100 s from 1767225600 (= 6903225 * 256) to 1767226200: bins of 256 s, the
  // first two ended by the last collection, so the first column of 256 s is read from the cells
  // (the carry at its end is the second bin's). Imported with --no-grid, there are none, and
  // --snap says so.
  std::string files;
  for (int k = 0; k < 7; ++k) {
    Write(dir, fmt::format("t{}.txt", k), snapshot(1767225600 + 100 * k, 3 + 5 * k));
    files += fmt::format(" t{}.txt", k);
  }
  for (auto [flags, store, said] :
       {std::tuple{"", "y.xtfq", "1 of the 3 columns read from the job summaries' cells"},
        std::tuple{"--no-grid", "n.xtfq",
                   "--snap: not applied: the store has no job_stats summaries (import and collect make them, unless "
                   "--no-grid)"}}) {
    CAPTURE(store);
    r = test::Xtfq(dir, fmt::format("import -q {} --format jobstats -o {}{}", flags, store, files));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    g = test::Xtfq(dir, fmt::format("grid {} --by job --op setattr --cols 3 --snap", store));
    REQUIRE_MESSAGE(g.status == 0, g.err);
    CHECK_MESSAGE(g.out.find(said) != std::string::npos, g.out);
  }
}

}  // namespace
}  // namespace xtfq

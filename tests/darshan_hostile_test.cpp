// Hostile double counters in a binary Darshan log (issue 14, defect 6): NaN, infinities and
// 1e308 import, leave a store that `xtfq check` passes, print back as darshan-parser prints them,
// and give aggregates by the rule of store/summary.h (non-finite values are left out of sums and
// sums of squares, NaN out of min and max), computed here from the values written.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gen/darshan_log_writer.h"
#include "importers/darshan/darshan_module_tables.h"
#include "store/endian.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Why;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct PosixRecord {
  uint64_t id;
  int64_t rank;
  double read_time, write_time, meta_time, open_start;
};

// The POSIX counter names of the version format 3.41 writes (4): ints, then the _F_ doubles.
std::vector<std::string_view> PosixNames() {
  for (const auto& c : DarshanModuleTables::CounterNames()) {
    if (c.module == "POSIX") return c.names;
  }
  FAIL("no POSIX counter names");
  return {};
}

TEST_CASE("darshan hostile: NaN, infinite and 1e308 double counters import, check, dump and aggregate") {
  const std::vector<std::string_view> names = PosixNames();
  size_t ints = 0;
  for (std::string_view n : names) ints += n.find("_F_") == std::string_view::npos ? 1 : 0;
  auto at = [&](std::string_view name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    FAIL("no counter " << name);
    return size_t{0};
  };
  const std::vector<std::pair<uint64_t, std::string>> files = {{DarshanLogWriter::Hash("/scratch/a"), "/scratch/a"},
                                                               {DarshanLogWriter::Hash("/scratch/b"), "/scratch/b"},
                                                               {DarshanLogWriter::Hash("/scratch/c"), "/scratch/c"},
                                                               {DarshanLogWriter::Hash("/scratch/d"), "/scratch/d"},
                                                               {DarshanLogWriter::Hash("/scratch/e"), "/scratch/e"}};
  // Two records per rank (the P index compares each rank's records with its per-rank array).
  const std::vector<PosixRecord> records = {{files[0].first, 0, kNaN, 1.0, 2.0, 0.5},
                                            {files[1].first, 0, 1e308, -kInf, 1e308, kNaN},
                                            {files[2].first, 1, kInf, 1e308, -1e308, 1.0},
                                            {files[3].first, 1, 1.5, kNaN, 0.5, 3.0},
                                            {files[4].first, -1, -kNaN, 1e308, 3.0, 2.0}};
  test::TempDir dir;
  {
    auto w = DarshanLogWriter::Create(dir.File("h.darshan"));
    REQUIRE_MESSAGE(w.ok(), Why(w));
    DarshanJob job;
    job.job = 14, job.uid = 1000, job.nprocs = 2, job.start_sec = 1700000000, job.end_sec = 1700000100;
    job.exe = "/bin/hostile";
    job.metadata = "lib_ver=3.4.1\n";
    job.mounts = {{"/scratch", "lustre"}};
    REQUIRE((*w)->WriteJob(job).ok());
    REQUIRE((*w)->WriteNames(files).ok());
    REQUIRE((*w)->BeginModule(1, 4).ok());  // POSIX, version 4 (format 3.41)
    for (const PosixRecord& r : records) {
      std::vector<std::byte> b(16 + 8 * names.size());
      StoreLe<uint64_t>(b.data(), r.id);
      StoreLe<int64_t>(b.data() + 8, r.rank);
      StoreLe<int64_t>(b.data() + 16 + 8 * at("POSIX_OPENS"), 1);
      for (auto [name, v] : {std::pair{"POSIX_F_READ_TIME", r.read_time},
                             {"POSIX_F_WRITE_TIME", r.write_time},
                             {"POSIX_F_META_TIME", r.meta_time},
                             {"POSIX_F_OPEN_START_TIMESTAMP", r.open_start}}) {
        REQUIRE(at(name) >= ints);
        StoreLe<double>(b.data() + 16 + 8 * at(name), v);
      }
      REQUIRE((*w)->Write(b).ok());
    }
    REQUIRE((*w)->EndModule().ok());
    REQUIRE((*w)->Finish().ok());
  }
  test::Run imp = test::Xtfq(dir, "import h.darshan -o h.xtfq");
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  test::Run check = test::Xtfq(dir, "check h.xtfq");
  CHECK_MESSAGE(check.status == 0, std::string(check.out + check.err));

  // darshan-parser prints what the log holds (printf "%f"): the store's dump is the log's.
  test::Run log_dump = test::Xtfq(dir, "dump h.darshan");
  test::Run store_dump = test::Xtfq(dir, "dump h.xtfq");
  REQUIRE(log_dump.status == 0);
  REQUIRE(store_dump.status == 0);
  CHECK(store_dump.out == log_dump.out);
  for (const PosixRecord& r : records) {
    for (auto [name, v] : {std::pair{"POSIX_F_READ_TIME", r.read_time}, {"POSIX_F_WRITE_TIME", r.write_time}}) {
      const std::string line =
          fmt::format("POSIX\t{}\t{}\t{}\t{}\t", r.rank, r.id, name,
                      std::isnan(v) ? (std::signbit(v) ? "-nan" : "nan") : fmt::format("{:.6f}", v));
      CHECK_MESSAGE(log_dump.out.find(line) != std::string::npos, line);
    }
  }

  // Aggregates over the array, by the rule, from the values written (each field's finite values
  // summed; here every order of summing gives the same double).
  test::Run q = test::Xtfq(dir, "query h.xtfq --array darshan/0/POSIX --format json");
  REQUIRE_MESSAGE(q.status == 0, q.err);
  const nlohmann::json j = nlohmann::json::parse(q.out);
  auto expect = [&](const char* name, double PosixRecord::*field) {
    CAPTURE(name);
    double sum = 0, mn = kInf, mx = -kInf;
    for (const PosixRecord& r : records) {
      const double v = r.*field;
      if (std::isfinite(v)) sum += v;
      if (!std::isnan(v)) mn = std::min(mn, v), mx = std::max(mx, v);
    }
    const nlohmann::json& f = j.at(name);
    // JSON has no infinity: the renderer writes null for a value that is not finite.
    auto same = [](const nlohmann::json& x, double want) {
      return std::isfinite(want) ? x.is_number() && x.get<double>() == want : x.is_null();
    };
    CHECK_MESSAGE(same(f.at("sum"), sum), f.dump());
    CHECK_MESSAGE(same(f.at("min"), mn), f.dump());
    CHECK_MESSAGE(same(f.at("max"), mx), f.dump());
  };
  // READ_TIME: 1e308 + 1.5 is 1e308 in any order; WRITE_TIME: 1.0 + 1e308 + 1e308 overflows to inf.
  expect("POSIX_F_READ_TIME", &PosixRecord::read_time);
  expect("POSIX_F_WRITE_TIME", &PosixRecord::write_time);
  // The spread of values whose squares overflow cannot be computed: NaN (null), not a made-up 0.
  CHECK(j.at("POSIX_F_READ_TIME").at("std").is_null());
  CHECK(j.at("POSIX_F_META_TIME").at("std").is_null());
  // The text form tells an overflowed sum (inf) from the rest: no NaN reaches an aggregate.
  test::Run text = test::Xtfq(dir, "query h.xtfq --array darshan/0/POSIX");
  REQUIRE(text.status == 0);
  CHECK(text.out.find("POSIX_F_READ_TIME sum 1e+308 min 1.5 max inf mean 2e+307 std nan\n") != std::string::npos);
  CHECK(text.out.find("POSIX_F_WRITE_TIME sum inf min -inf max 1e+308 mean inf std nan\n") != std::string::npos);
  CHECK(text.out.find("POSIX_F_META_TIME sum ") != std::string::npos);
  // META_TIME's sum depends on the order (1e308 - 1e308 + ...); its min and max do not.
  const nlohmann::json& meta = j.at("POSIX_F_META_TIME");
  CHECK(meta.at("min").get<double>() == -1e308);
  CHECK(meta.at("max").get<double>() == 1e308);
}

}  // namespace
}  // namespace xtfq

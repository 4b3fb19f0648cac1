// Darshan's aggregate performance as a store keeps it (darshan/<log>/perf, DarshanPerf) against
// the Darshan ecosystem's own outputs for every corpus log: darshan-parser 3.5.0's --perf and
// --file lines (../shared/data/darshan/reference/DIR/NAME.darshan.{perf,file}.txt, to the digits
// it prints) and PyDarshan's job_stats rows (pydarshan/job_stats.MODULE.csv, to the last bit).
#include "query/darshan/darshan_perf.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <variant>
#include <vector>

#include "importers/darshan/darshan_importer.h"
#include "query/core/store_reader.h"
#include "query/darshan/darshan_job_summary.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_total.h"
#include "store/store_writer.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using test::Why;

fs::path Corpus() { return fs::path(XTFQ_SHARED_DIR) / "data" / "darshan"; }

// "key: value" lines of darshan-parser's output by module ("# POSIX module data" banners) and key:
// the --perf lines ("# agg_perf_by_slowest: 673.46 # MiB/s" -> "673.46") and the --file lines
// ("# read_only: 1 2 3" -> "1 2 3").
std::map<std::string, std::map<std::string, std::string>> ParserLines(const fs::path& path) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::ifstream in(path);
  std::string line, module;
  while (std::getline(in, line)) {
    if (line.ends_with(" module data") && line.starts_with("# ")) {
      module = line.substr(2, line.size() - 2 - std::string_view(" module data").size());
      continue;
    }
    if (module.empty() || !line.starts_with("# ")) continue;
    std::string body = line.substr(2);
    for (const char* prefix : {"unique files: ", "shared files: "}) {
      if (body.starts_with(prefix)) body = body.substr(std::string_view(prefix).size());
    }
    const size_t colon = body.find(": ");
    if (colon == std::string::npos) continue;
    std::string value = body.substr(colon + 2);
    if (const size_t hash = value.find(" #"); hash != std::string::npos) value.resize(hash);
    out[module][body.substr(0, colon)] = value;
  }
  return out;
}

Result<DarshanPerfAnswer> ImportAndRead(const fs::path& log, const std::string& store) {
  XTFQ_ASSIGN_OR_RETURN(auto w, StoreWriter::CreatePath(store));
  XTFQ_ASSIGN_OR_RETURN(auto l, DarshanLog::Open(log.string()));
  XTFQ_TRY(DarshanImporter::Import(*l, *w, 0, {}));
  XTFQ_TRY(w->Commit());
  XTFQ_ASSIGN_OR_RETURN(auto r, StoreReader::Open(store));
  XTFQ_ASSIGN_OR_RETURN(DarshanLogInfo info, DarshanLogs::Find(*r, 0, std::nullopt));
  return DarshanPerf::Read(*r, info);
}

// The real and generated corpus logs that have a darshan-parser reference ending in `suffix`
// (".darshan.perf.txt"): the log, the reference and the log's name. quirk-dev341-oldjob is left
// out: darshan-parser cannot allocate its accumulator and prints uninitialised memory for it.
struct Referenced {
  fs::path log, reference;
  std::string name;
};
std::vector<Referenced> ReferencedLogs(std::string_view suffix) {
  std::vector<Referenced> out;
  for (const char* d : {"real", "generated"}) {
    for (const auto& e : fs::directory_iterator(Corpus() / "reference" / d)) {
      const std::string ref = e.path().filename().string();
      if (!ref.ends_with(suffix)) continue;
      const std::string name = ref.substr(0, ref.size() - suffix.size());
      if (name == "quirk-dev341-oldjob") continue;
      out.push_back({Corpus() / d / (name + ".darshan"), e.path(), name});
    }
  }
  return out;
}

TEST_CASE("darshan perf: the store's figures are darshan-parser's --perf and --file lines for every corpus log") {
  if (test::SharedMissing(Corpus() / "reference")) return;
  test::TempDir dir;
  int logs = 0, lines = 0;
  for (const Referenced& ref : ReferencedLogs(".darshan.perf.txt")) {
    const std::string& name = ref.name;
    CAPTURE(name);
    const std::string store = dir.File(name + ".xtfq");
    auto got = ImportAndRead(ref.log, store);
    REQUIRE_MESSAGE(got.ok(), Why(got));
    CHECK(got->kept);
    auto perf = ParserLines(ref.reference);
    auto files = ParserLines(ref.reference.parent_path() / (name + ".darshan.file.txt"));
    // Every module darshan-parser prints figures for, and no other.
    size_t printed = 0;
    for (const auto& [module, kv] : perf) printed += kv.count("agg_perf_by_slowest");
    CHECK(got->modules.size() == printed);
    for (const DarshanModulePerfAnswer& m : got->modules) {
      CAPTURE(m.module);
      const auto& want = perf[m.module];
      const DarshanModulePerf& p = m.perf;
      CHECK(want.at("total_bytes") == fmt::format("{}", p.total_bytes));
      CHECK(want.at("slowest_rank") == fmt::format("{}", p.slowest_rank));
      const std::pair<const char*, double> reals[] = {{"slowest_rank_io_time", p.slowest_rank_io_time},
                                                      {"slowest_rank_meta_only_time", p.slowest_rank_meta_only_time},
                                                      {"slowest_rank_rw_only_time", p.slowest_rank_rw_only_time},
                                                      {"time_by_slowest", p.time_by_slowest},
                                                      {"agg_time_by_slowest", p.agg_time_by_slowest},
                                                      {"agg_perf_by_slowest", p.agg_perf_by_slowest}};
      for (const auto& [key, v] : reals) CHECK_MESSAGE(want.at(key) == fmt::format("{:.6f}", v), key);
      for (size_t i = 0; i < p.files.size(); ++i) {
        const DarshanFileCategory& c = p.files[i];
        CHECK(files[m.module].at(std::string(DarshanLayout::kFileLines[i])) ==
              fmt::format("{} {} {}", c.count, c.bytes, c.max_offset));
        ++lines;
      }
      lines += 8;
    }
    ++logs;
  }
  MESSAGE(logs << " logs, " << lines << " lines of darshan-parser compared");
  CHECK(logs >= 36);
}

// "total_<COUNTER>: value" lines of darshan-parser --total.
std::map<std::string, std::string> TotalLines(const fs::path& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("total_")) continue;
    const size_t colon = line.find(": ");
    if (colon != std::string::npos) out[line.substr(6, colon - 6)] = line.substr(colon + 2);
  }
  return out;
}

TEST_CASE("darshan perf: the store's --total records are darshan-parser's total_ lines for every corpus log") {
  if (test::SharedMissing(Corpus() / "reference")) return;
  test::TempDir dir;
  int logs = 0, lines = 0;
  for (const Referenced& ref : ReferencedLogs(".darshan.total.txt")) {
    const std::string& name = ref.name;
    CAPTURE(name);
    const std::string store = dir.File(name + ".xtfq");
    REQUIRE(ImportAndRead(ref.log, store).ok());
    auto r = StoreReader::Open(store);
    REQUIRE(r.ok());
    auto info = DarshanLogs::Find(**r, 0, std::nullopt);
    REQUIRE(info.ok());
    const auto want = TotalLines(ref.reference);
    size_t kept = 0;
    for (const std::string module : {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"}) {
      CAPTURE(module);
      auto t = DarshanTotal::Read(**r, *info, module);
      REQUIRE(t.ok());
      if (!*t) continue;
      for (const auto& [counter, v] : (*t)->counters) {
        const std::string got = std::holds_alternative<double>(v) ? fmt::format("{:.6f}", std::get<double>(v))
                                                                  : fmt::format("{}", std::get<int64_t>(v));
        CHECK_MESSAGE(want.at(counter) == got, counter);
        ++kept, ++lines;
      }
    }
    CHECK(kept == want.size());  // every total_ line, no other
    ++logs;
  }
  MESSAGE(logs << " logs, " << lines << " total_ lines compared");
  CHECK(logs >= 36);
}

TEST_CASE("darshan perf: the whole run's job summary against darshan-parser's totals and records") {
  if (test::SharedMissing(Corpus() / "reference")) return;
  test::TempDir dir;
  int logs = 0, counters = 0;
  for (const char* d : {"real", "generated"}) {
    for (const auto& e : fs::directory_iterator(Corpus() / d)) {
      const std::string file = e.path().filename().string();
      if (!file.ends_with(".darshan") || file.starts_with("quirk-")) continue;
      const std::string name = file.substr(0, file.size() - 8);
      const fs::path total = Corpus() / "reference" / d / (name + ".darshan.total.txt");
      if (!fs::exists(total)) continue;
      CAPTURE(name);
      const std::string store = dir.File(name + ".xtfq");
      REQUIRE(ImportAndRead(e.path(), store).ok());
      auto r = StoreReader::Open(store);
      REQUIRE(r.ok());
      auto info = DarshanLogs::Find(**r, 0, std::nullopt);
      REQUIRE(info.ok());
      // 3.41 logs: no counter set to -1 by up-conversion, so darshan-parser's sums are plain sums.
      if (info->format_minor != 41) continue;
      const auto totals = TotalLines(total);
      for (const std::string module : {"POSIX", "MPI-IO", "STDIO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR"}) {
        CAPTURE(module);
        auto s = DarshanJobSummary::Of(**r, *info, module);
        REQUIRE(s.ok());
        if (!*s) continue;
        const std::string prefix = module == "MPI-IO" ? "MPIIO_" : module + "_";
        const bool library = module.starts_with("H5") || module.starts_with("PNETCDF");
        // darshan-parser has no --total for HDF5 and PnetCDF: their records' values summed.
        std::map<std::string, std::optional<int64_t>> sums;
        if (library) {
          std::ifstream text(Corpus() / d / (name + ".darshan.txt"));
          for (std::string line; std::getline(text, line);) {
            std::vector<std::string> f;
            std::stringstream ss(line);
            for (std::string c; std::getline(ss, c, '\t');) f.push_back(c);
            if (f.size() < 5 || f[0] != module || f[3].find("_F_") != std::string::npos) continue;
            if (f[3].ends_with("_FILE_REC_ID")) continue;  // a record id, not a count
            const int64_t v = std::stoll(f[4]);
            auto [it, fresh] = sums.try_emplace(f[3], int64_t{0});
            if (v < 0) it->second.reset();
            if (it->second) *it->second += v;
          }
        }
        for (const auto& [op, n] : (*s)->operations) {
          // -1 (not monitored: darshan-parser's total stays -1) is NA, never 0.
          if (library) {
            CHECK_MESSAGE(sums.at(prefix + op) == n, op);
          } else {
            CHECK_MESSAGE(totals.at(prefix + op) == (n ? std::to_string(*n) : "-1"), op);
          }
          ++counters;
        }
        if (library) continue;  // operations only
        const double procs = static_cast<double>(info->nprocs);
        CHECK((*s)->read_time * procs == doctest::Approx(std::stod(totals.at(prefix + "F_READ_TIME"))).epsilon(1e-6));
        CHECK((*s)->meta_time * procs == doctest::Approx(std::stod(totals.at(prefix + "F_META_TIME"))).epsilon(1e-6));
        // The access sizes of darshan-parser's records, their counts summed by size.
        std::map<int64_t, int64_t> by_size;
        std::ifstream text(Corpus() / d / (name + ".darshan.txt"));
        std::map<std::pair<std::string, std::string>, std::map<std::string, int64_t>> records;
        for (std::string line; std::getline(text, line);) {
          std::vector<std::string> f;
          std::stringstream ss(line);
          for (std::string c; std::getline(ss, c, '\t');) f.push_back(c);
          if (f.size() >= 5 && f[0] == module && f[3].find("_ACCESS") != std::string::npos) {
            records[{f[1], f[2]}][f[3]] = std::stoll(f[4]);
          }
        }
        for (auto& [key, c] : records) {
          for (int k = 1; k <= 4; ++k) {
            const int64_t n = c[fmt::format("{}ACCESS{}_COUNT", prefix, k)];
            if (n > 0) by_size[c[fmt::format("{}ACCESS{}_ACCESS", prefix, k)]] += n;
          }
        }
        std::vector<std::pair<int64_t, int64_t>> want(by_size.begin(), by_size.end());
        std::stable_sort(want.begin(), want.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
        if (want.size() > 4) want.resize(4);
        CHECK((*s)->common_accesses == want);
      }
      ++logs;
    }
  }
  MESSAGE(logs << " logs of format 3.41, " << counters << " operation totals compared");
  CHECK(logs >= 10);
}

TEST_CASE("darshan perf: query and job give darshan-parser's agg_perf_by_slowest") {
  const fs::path log = Corpus() / "real" / "mpi-io-test-dxt-32rank.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, fmt::format("import -q '{}' -o m.xtfq", log.string())).status == 0);
  const std::string want = ParserLines(Corpus() / "reference/real/mpi-io-test-dxt-32rank.darshan.perf.txt")
                               .at("POSIX")
                               .at("agg_perf_by_slowest");
  const auto q = nlohmann::json::parse(test::Xtfq(dir, "query m.xtfq --format json").out);
  CHECK(fmt::format("{:.6f}", q["darshan_perf"]["agg_perf_by_slowest"].get<double>()) == want);
  const test::Run text = test::Xtfq(dir, "query m.xtfq");
  CHECK(text.out.find("agg_perf_by_slowest " + want + " MiB/s") != std::string::npos);
  const test::Run job = test::Xtfq(dir, "job 4373053 m.xtfq");
  REQUIRE_MESSAGE(job.status == 0, job.err);
  CHECK(job.out.find(fmt::format("agg_perf_by_slowest (POSIX, whole run, as darshan-parser --perf computes it): {:.2f} "
                                 "MiB/s",
                                 std::stod(want))) != std::string::npos);
}

TEST_CASE("darshan perf: the store's figures are PyDarshan's job_stats to the last bit") {
  if (test::SharedMissing(Corpus() / "reference" / "pydarshan")) return;
  test::TempDir dir;
  std::map<std::string, fs::path> where;  // log file name -> path
  for (const char* d : {"real", "generated", "large"}) {
    for (const auto& e : fs::directory_iterator(Corpus() / d)) where[e.path().filename().string()] = e.path();
  }
  std::map<std::string, DarshanPerfAnswer> perf;
  int rows = 0;
  for (const char* module : {"POSIX", "MPI-IO", "STDIO"}) {
    std::ifstream in(Corpus() / "reference" / "pydarshan" / fmt::format("job_stats.{}.csv", module));
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
      REQUIRE(f.size() == 12);
      CAPTURE(line);
      REQUIRE(where.count(f[0]) == 1);
      if (!perf.count(f[0])) {
        auto got = ImportAndRead(where[f[0]], dir.File(f[0] + ".xtfq"));
        REQUIRE_MESSAGE(got.ok(), Why(got));
        perf[f[0]] = *got;
      }
      const DarshanModulePerf* p = perf[f[0]].Find(module);
      REQUIRE(p != nullptr);
      // perf_by_slowest is agg_perf_by_slowest * 1024^2, written as Python's shortest repr.
      CHECK(std::strtod(f[7].c_str(), nullptr) == p->agg_perf_by_slowest * 1048576.0);
      CHECK(std::strtod(f[8].c_str(), nullptr) == p->agg_time_by_slowest);
      CHECK(f[9] == fmt::format("{}", p->total_bytes));
      CHECK(f[10] == fmt::format("{}", p->files[0].count));
      ++rows;
    }
  }
  MESSAGE(rows << " job_stats rows compared");
  CHECK(rows >= 85);
}

}  // namespace
}  // namespace xtfq

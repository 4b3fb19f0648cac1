// Honest answers (issue 13): a question xtfq cannot answer from what a log holds is refused with
// the reason, a window or rank range outside the job is answered with a warning that says what
// the job spans, and no number is named that the data cannot give (a slowest rank without times).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gen/darshan_generator.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Xtfq;

TEST_CASE("honest: windows and ranks outside a Darshan job are answered with a warning naming the job's span") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen darshan 5000 --ranks 16 --files 40 --duration 600 -o g.darshan").status == 0);
  REQUIRE(Xtfq(dir, "import g.darshan -o g.xtfq").status == 0);
  // Epoch seconds given where seconds from the job's start are meant.
  const test::Run epoch = Xtfq(dir, "query g.xtfq --time 1767225600:1767229200");
  REQUIRE(epoch.status == 0);
  CHECK(epoch.err.find(
            "xtfq query: warning: the window [1.7672256e+09, 1.7672292e+09) s lies outside the job's run (0 to ") == 0);
  CHECK(epoch.err.find("give @EPOCH or ISO 8601 for wall-clock times") != std::string::npos);
  CHECK(epoch.out.find("write             0                0") != std::string::npos);
  // Ranks past the job's 16.
  const test::Run ranks = Xtfq(dir, "query g.xtfq --ranks 40:50");
  REQUIRE(ranks.status == 0);
  CHECK(ranks.err == "xtfq query: warning: the ranks [40, 50) lie outside the job's 16 ranks (0 to 15)\n");
  const test::Run json = Xtfq(dir, "query g.xtfq --ranks 40:50 --format json");
  CHECK(json.out.find("\"the ranks [40, 50) lie outside the job's 16 ranks (0 to 15)\"") != std::string::npos);
  // Inside the job: no warning.
  const test::Run inside = Xtfq(dir, "query g.xtfq --time 10%:90% --ranks 0:8");
  REQUIRE(inside.status == 0);
  CHECK(inside.err.empty());
}

TEST_CASE("honest: --per-rank rows sorted and cut as a naive sort would, and a --file glob that matches nothing said") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen darshan 5000 --ranks 16 --files 40 --duration 600 -o g.darshan").status == 0);
  REQUIRE(Xtfq(dir, "import g.darshan -o g.xtfq").status == 0);
  const auto all = nlohmann::json::parse(Xtfq(dir, "query g.xtfq --time 100:300 --per-rank --format json").out);
  REQUIRE(all["per_rank"].size() == 16);
  for (const char* by : {"bytes", "busy", "ops", "bw"}) {
    CAPTURE(by);
    auto key = [&](const nlohmann::json& r) {
      const std::string k = by;
      if (k == "bytes") return r["read"]["bytes"].get<double>() + r["write"]["bytes"].get<double>();
      if (k == "busy") return r["read"]["busy_s"].get<double>() + r["write"]["busy_s"].get<double>();
      if (k == "ops") return r["read"]["ops"].get<double>() + r["write"]["ops"].get<double>();
      return r["read"]["bytes_moved"].get<double>() + r["write"]["bytes_moved"].get<double>();
    };
    std::vector<nlohmann::json> want(all["per_rank"].begin(), all["per_rank"].end());
    std::stable_sort(want.begin(), want.end(), [&](const auto& x, const auto& y) { return key(x) > key(y); });
    const auto got =
        nlohmann::json::parse(Xtfq(dir, fmt::format("query g.xtfq --time 100:300 --per-rank --sort {} --top 5 "
                                                    "--format json",
                                                    by))
                                  .out);
    REQUIRE(got["per_rank"].size() == 5);
    CHECK(got["ranks_in_window"] == 16);
    for (size_t i = 0; i < 5; ++i) CHECK(got["per_rank"][i]["rank"] == want[i]["rank"]);
  }
  CHECK(Xtfq(dir, "query g.xtfq --per-rank --sort size").status == 2);
  CHECK(Xtfq(dir, "query g.xtfq --sort bytes").status == 2);
  const test::Run none = Xtfq(dir, "query g.xtfq --file '*no-such-file*'");
  REQUIRE(none.status == 0);
  CHECK(none.err.find("--file '*no-such-file*' matches none of log 0's") != std::string::npos);
  CHECK(none.out.find("write             0                0") != std::string::npos);
}

TEST_CASE("honest: a DXT module that ran out of memory is answered with the complete counters beside it") {
  test::TempDir dir;
  DarshanGenOptions o;
  o.segments = 4000, o.ranks = 8, o.files = 20, o.duration = 300, o.dxt_segments_max = 1000;
  REQUIRE(DarshanGenerator::Write(dir.File("p.darshan"), o).ok());
  const test::Run imported = Xtfq(dir, "import p.darshan -o p.xtfq");
  REQUIRE_MESSAGE(imported.status == 0, imported.err);
  CHECK(imported.err.find("p.darshan (log 0): incomplete data (Darshan's partial flag: the runtime ran out of memory) "
                          "in DXT_POSIX, DXT_MPIIO") != std::string::npos);
  // The counters, counted independently from the store's POSIX records.
  const auto counters = nlohmann::json::parse(Xtfq(dir, "query p.xtfq --array darshan/0/POSIX --format json").out);
  const test::Run q = Xtfq(dir, "query p.xtfq --format json");
  REQUIRE_MESSAGE(q.status == 0, q.err);
  const auto j = nlohmann::json::parse(q.out);
  const auto& c = j["counters_whole_run"];
  REQUIRE(c.is_object());
  CHECK(c["read"]["ops"] == counters["POSIX_READS"]["sum"]);
  CHECK(c["write"]["bytes"] == counters["POSIX_BYTES_WRITTEN"]["sum"]);
  const int64_t dxt = j["read"]["bytes"].get<int64_t>() + j["write"]["bytes"].get<int64_t>();
  const int64_t all = c["read"]["bytes"].get<int64_t>() + c["write"]["bytes"].get<int64_t>();
  CHECK(dxt < all);  // DXT kept a part
  CHECK(q.err.find(fmt::format("segments hold {} of those bytes ({:.1f}%)", dxt, 100.0 * dxt / all)) !=
        std::string::npos);
  const test::Run sig = Xtfq(dir, "signals p.xtfq -o -");
  CHECK(sig.err.find("log 0's DXT_POSIX, DXT_MPIIO data is incomplete") != std::string::npos);
}

TEST_CASE("honest: the whole run's imbalance names the shared files' slowest ranks as darshan-parser prints them") {
  const std::string log = std::string(XTFQ_SHARED_DIR) + "/data/darshan/generated/mpi_shared_4rank.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  REQUIRE(Xtfq(dir, fmt::format("import -q '{}' -o s.xtfq", log)).status == 0);
  // darshan-parser's rank -1 POSIX records: record id -> counter -> value.
  std::map<std::string, std::map<std::string, std::string>> shared;
  std::ifstream text(log + ".txt");
  for (std::string line; std::getline(text, line);) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) f.push_back(c);
    if (f.size() >= 5 && f[0] == "POSIX" && f[1] == "-1") shared[f[2]][f[3]] = f[4];
  }
  REQUIRE(shared.size() >= 2);
  const test::Run q = Xtfq(dir, "query s.xtfq --format json");
  REQUIRE(q.status == 0);
  const auto j = nlohmann::json::parse(q.out)["shared_file_imbalance"];
  CHECK(j["shared_files"] == shared.size());
  double last = 1e300;
  for (const auto& f : j["slowest_first"]) {
    const auto& want = shared.at(std::to_string(f["id"].get<uint64_t>()));
    CHECK(fmt::format("{}", f["slowest_rank"].get<int64_t>()) == want.at("POSIX_SLOWEST_RANK"));
    CHECK(fmt::format("{}", f["fastest_rank_bytes"].get<int64_t>()) == want.at("POSIX_FASTEST_RANK_BYTES"));
    CHECK(fmt::format("{:.6f}", f["slowest_rank_time"].get<double>()) == want.at("POSIX_F_SLOWEST_RANK_TIME"));
    CHECK(fmt::format("{:.6f}", f["fastest_rank_time"].get<double>()) == want.at("POSIX_F_FASTEST_RANK_TIME"));
    CHECK(f["slowest_rank_time"].get<double>() <= last);  // slowest first
    last = f["slowest_rank_time"].get<double>();
  }
  // Inside a window Darshan has no such times: not given.
  const auto w = nlohmann::json::parse(Xtfq(dir, "query s.xtfq --time 0:0.01 --format json").out);
  CHECK_FALSE(w.contains("shared_file_imbalance"));
}

TEST_CASE("honest: flags that do not apply to the store are usage errors") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen jobstats --targets 2 --jobs 10 --samples 4 -o js").status == 0);
  REQUIRE(Xtfq(dir, "import js -o js.xtfq").status == 0);
  for (const char* flag : {"--ranks 0:4", "--buckets 10", "--per-rank", "--module POSIX"}) {
    CAPTURE(flag);
    const test::Run r = Xtfq(dir, fmt::format("query js.xtfq --jobstats {}", flag));
    CHECK(r.status == 2);
    CHECK(r.err.find("does not apply to job_stats") != std::string::npos);
  }
  // Without --jobstats the store's kind is found all the same.
  CHECK(Xtfq(dir, "query js.xtfq --by op").status == 0);
}

TEST_CASE("honest: a job_stats window outside the collections says its zeros are no data") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen jobstats --targets 2 --jobs 10 --samples 4 --start 1767225600 -o js").status == 0);
  REQUIRE(Xtfq(dir, "import js -o js.xtfq").status == 0);
  const test::Run before = Xtfq(dir, "query js.xtfq --time 10:20 --by op");
  REQUIRE(before.status == 0);
  CHECK_MESSAGE(
      before.err.find("warning: the window [10, 20) lies outside the collections (1767225600 to") != std::string::npos,
      before.err);
  const test::Run json = Xtfq(dir, "query js.xtfq --time @1867225600:@1867225700 --by op --format json");
  CHECK(json.out.find("lies outside the collections") != std::string::npos);
  // From 100% on: the empty window after the last collection, not a usage error.
  const test::Run end = Xtfq(dir, "query js.xtfq --time 100%: --by op");
  CHECK_MESSAGE(end.status == 0, end.err);
  CHECK(end.err.find("lies outside the collections") != std::string::npos);
  CHECK(end.out.find(" (0 s), ") != std::string::npos);
  // Inside the collections: no warning.
  const test::Run inside = Xtfq(dir, "query js.xtfq --by op");
  REQUIRE(inside.status == 0);
  CHECK(inside.err.empty());
  // Running past them: the seconds without data are counted, and the covered part named; the mean
  // over the long window is the covered part's total over all of its seconds.
  const test::Run past = Xtfq(dir, "query js.xtfq --time @1767225600:@1767235600 --op read_bytes --format json");
  REQUIRE_MESSAGE(past.status == 0, past.err);
  const auto p = nlohmann::json::parse(past.out);
  REQUIRE(p["warnings"].size() == 1);
  const std::string w = p["warnings"][0].get<std::string>();
  CHECK_MESSAGE(w.find("the window [1767225600, 1767235600) runs ") != std::string::npos, w);
  CHECK_MESSAGE(w.find("s past the collections (1767225600 to ") != std::string::npos, w);
  const size_t at = w.find("--time ");
  REQUIRE(at != std::string::npos);
  const std::string covered = w.substr(at + 7, w.find(' ', at + 7) - at - 7);
  const test::Run part = Xtfq(dir, fmt::format("query js.xtfq --time {} --op read_bytes --format json", covered));
  REQUIRE_MESSAGE(part.status == 0, part.err);
  const auto q = nlohmann::json::parse(part.out);
  CHECK(q["warnings"].empty());
  const auto& long_ops = p["groups"][0]["ops"]["read_bytes"];
  const auto& part_ops = q["groups"][0]["ops"]["read_bytes"];
  CHECK(long_ops["total"].get<double>() == part_ops["total"].get<double>());
  CHECK(long_ops["rate_mean"].get<double>() == doctest::Approx(part_ops["total"].get<double>() / 10000));
}

TEST_CASE("honest: a HEATMAP-only log names no slowest rank and answers files from its counter records") {
  const std::filesystem::path log =
      std::filesystem::path(XTFQ_SHARED_DIR) / "data/darshan/real/heatmap-inactive-ranks.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  REQUIRE(Xtfq(dir, fmt::format("import '{}' -o h.xtfq", log.string())).status == 0);
  const test::Run all = Xtfq(dir, "query h.xtfq --module STDIO");
  REQUIRE_MESSAGE(all.status == 0, all.err);
  CHECK(all.out.find("slowest and fastest ranks unknown (heatmaps hold no times)") != std::string::npos);
  CHECK(all.out.find("slowest rank ") == std::string::npos);
  const test::Run json = Xtfq(dir, "query h.xtfq --module STDIO --format json");
  CHECK(json.out.find("\"slowest_rank\": null") != std::string::npos);
  // Per-file rows and a file filter come from the counter records (the bins are not per file),
  // exact over the whole run: the bytes darshan-parser prints per record id, summed over ranks.
  std::map<std::string, int64_t> written;
  std::ifstream text(log.string() + ".txt");
  for (std::string line; std::getline(text, line);) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) f.push_back(c);
    if (f.size() >= 5 && f[0] == "STDIO" && f[3] == "STDIO_BYTES_WRITTEN") written[f[2]] += std::stoll(f[4]);
  }
  REQUIRE_FALSE(written.empty());
  const test::Run r = Xtfq(dir, "query h.xtfq --module STDIO --per-file --format json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto pj = nlohmann::json::parse(r.out);
  CHECK(pj["estimated"] == false);
  CHECK(pj["answered"].get<std::string>().find("the file rows and filter come from the module's counter records") !=
        std::string::npos);
  REQUIRE(pj["per_file"].size() == written.size());
  for (const auto& f : pj["per_file"]) {
    CHECK(f["write"]["bytes"].get<int64_t>() == written.at(std::to_string(f["id"].get<uint64_t>())));
  }
  const test::Run glob = Xtfq(dir, "query h.xtfq --module STDIO --file '*STDOUT*'");
  REQUIRE_MESSAGE(glob.status == 0, glob.err);
}

TEST_CASE("honest: job_stats windows list every group and answer the empty window") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen jobstats --targets 2 --jobs 10 --samples 4 -o js").status == 0);
  REQUIRE(Xtfq(dir, "import js -o js.xtfq").status == 0);
  const test::Run info = Xtfq(dir, "info js.xtfq --format json");
  const size_t series_at = info.out.find("\"series\": ");
  REQUIRE(series_at != std::string::npos);
  const long series = std::stol(info.out.substr(series_at + 10));
  // The empty window T:T is answered: every series listed, zeros, no mean rate (NA).
  const test::Run empty =
      Xtfq(dir, "query js.xtfq --time 1767225700:1767225700 --by target,id --op write_bytes --format csv");
  REQUIRE_MESSAGE(empty.status == 0, empty.err);
  CHECK(std::count(empty.out.begin(), empty.out.end(), '\n') == series + 1);
  CHECK(empty.out.find(",0,,0,0\n") !=
        std::string::npos);  // total 0, rate_mean empty (NA), rate_max 0, series_rate_max 0
  // A reversed window is a usage error, as for every store.
  CHECK(Xtfq(dir, "query js.xtfq --time 1767225700:1767225600").status == 2);
  // Over the whole run, --by target,id lists every series (a series is a target and an id), with or without rate steps.
  const test::Run all = Xtfq(dir, "query js.xtfq --by target,id --format csv");
  REQUIRE(all.status == 0);
  CHECK(std::count(all.out.begin(), all.out.end(), '\n') == series + 1);
}

TEST_CASE("honest: a single job_stats snapshot of bare Slurm job ids is listed with zeros and its ids are jobs") {
  const std::filesystem::path cap =
      std::filesystem::path(XTFQ_SHARED_DIR) / "data/jobstats/ost_lustre2.x_reqs_hpe_exporter_2017-07_OST0000.txt";
  if (test::SharedMissing(cap)) return;
  test::TempDir dir;
  const test::Run imp =
      Xtfq(dir, fmt::format("import --format jobstats --at 1500000000 --target OST0000 '{}' -o h.xtfq", cap.string()));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  // Bare numeric ids (jobid_name %j) are jobs, not malformed.
  const test::Run cls = Xtfq(dir, "query h.xtfq --by class --format csv");
  REQUIRE(cls.status == 0);
  CHECK(cls.out.find("\nmalformed,") == std::string::npos);
  CHECK(cls.out.find("\nok,") != std::string::npos);
  // One snapshot: no rate step yet, but the target and every id are listed, and the text says why.
  const test::Run target = Xtfq(dir, "query h.xtfq --by target");
  REQUIRE(target.status == 0);
  CHECK(target.out.find("\nOST0000 ") != std::string::npos);
  CHECK(target.out.find("with no rate step in the window, listed with zeros") != std::string::npos);
  const test::Run info = Xtfq(dir, "info h.xtfq");
  const size_t at = info.out.find(" series\n");
  REQUIRE(at != std::string::npos);
  const size_t from = info.out.rfind(' ', at - 1);
  const long series = std::stol(info.out.substr(from + 1, at - from - 1));
  CHECK(series > 0);
  const test::Run ids = Xtfq(dir, "query h.xtfq --by id --format csv");
  CHECK(std::count(ids.out.begin(), ids.out.end(), '\n') == series + 1);
}

TEST_CASE("honest: a directory is sniffed file by file and what is not an input is left out and said") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen jobstats --targets 2 --jobs 10 --samples 3 -o js").status == 0);
  { std::ofstream(dir.File("js/README.md")) << "# snapshots of our file system\n"; }
  { std::ofstream(dir.File("js/empty.txt")); }
  const test::Run js = Xtfq(dir, "import js -o js.xtfq");
  REQUIRE_MESSAGE(js.status == 0, js.err);
  CHECK(js.err.find("xtfq import: warning: 4 files left out:\nxtfq import:   ") == 0);
  CHECK(js.err.find("js/README.md: not an input") != std::string::npos);
  CHECK(js.err.find("js/empty.txt: empty") != std::string::npos);
  CHECK(js.err.find("js/truth_steps.csv: not an input") != std::string::npos);
  // A directory of Darshan logs is read as Darshan logs, not as job_stats.
  std::filesystem::create_directory(dir.File("logs"));
  REQUIRE(Xtfq(dir, "gen darshan 2000 --ranks 4 --files 10 -o logs/a.darshan").status == 0);
  REQUIRE(Xtfq(dir, "gen darshan 2000 --ranks 8 --files 10 --seed 7 -o logs/b.darshan").status == 0);
  { std::ofstream(dir.File("logs/notes.txt")) << "run on Tuesday\n"; }
  const test::Run logs = Xtfq(dir, "import logs -o logs.xtfq");
  REQUIRE_MESSAGE(logs.status == 0, logs.err);
  CHECK(logs.err.find("logs/a.darshan as Darshan log 0") != std::string::npos);
  CHECK(logs.err.find("logs/b.darshan as Darshan log 1") != std::string::npos);
  CHECK(logs.err.find("logs/notes.txt: not an input") != std::string::npos);
  // A directory with nothing to import is an error, not an empty store.
  std::filesystem::create_directory(dir.File("nothing"));
  { std::ofstream(dir.File("nothing/README")) << "x\n"; }
  const test::Run none = Xtfq(dir, "import nothing -o n.xtfq");
  CHECK(none.status == 1);
  CHECK(none.err.find("no input file to import") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.File("n.xtfq")));
}

// Sums of a counter over a darshan-parser text's records of a module (the reference).
double ParserSum(const std::filesystem::path& text, const std::string& module, const std::string& counter) {
  std::ifstream in(text);
  double sum = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(module + "\t")) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() >= 5 && cols[3] == counter) sum += std::stod(cols[4]);
  }
  return sum;
}

TEST_CASE("honest: counts a module does not keep are NA in text, JSON and CSV, never 0") {
  // STDIO keeps no sequential, consecutive or size-class counters; MPI-IO no sequential or
  // consecutive ones (it keeps size classes, _AGG); DXT segments give all of them for any module.
  const std::filesystem::path real = std::filesystem::path(XTFQ_SHARED_DIR) / "data/darshan/real";
  if (test::SharedMissing(real)) return;
  test::TempDir dir;
  struct Case {
    std::string log, module;
    bool seq, size_classes;
  };
  for (const Case& c :
       {Case{"stdio-only.darshan", "", false, false}, Case{"rel-3.10-x86_64.darshan", "MPI-IO", false, true},
        Case{"rel-3.10-x86_64.darshan", "POSIX", true, true},
        Case{"mpi-io-test-dxt-32rank.darshan", "MPI-IO", true, true}}) {
    CAPTURE(c.log);
    CAPTURE(c.module);
    std::filesystem::remove(dir.File("l.xtfq"));
    REQUIRE(Xtfq(dir, fmt::format("import -q '{}' -o l.xtfq", (real / c.log).string())).status == 0);
    const std::string flags = c.module.empty() ? "" : " --module " + c.module;
    const test::Run q = Xtfq(dir, "query l.xtfq --format json" + flags);
    REQUIRE_MESSAGE(q.status == 0, q.err);
    const nlohmann::json j = nlohmann::json::parse(q.out);
    const nlohmann::json& w = j["write"];
    REQUIRE(w["ops"].get<int64_t>() > 0);
    CHECK(w["seq"].is_null() == !c.seq);
    CHECK(w["consec"].is_null() == !c.seq);
    CHECK(w["seq_ratio"].is_null() == !c.seq);
    CHECK(w["size_classes"].is_null() == !c.size_classes);
    CHECK(w["small_ratio"].is_null() == !c.size_classes);
    const test::Run text = Xtfq(dir, "query l.xtfq" + flags);
    std::string write_row;
    for (std::stringstream lines(text.out); std::getline(lines, write_row);) {
      if (write_row.starts_with("write ")) break;
    }
    std::vector<std::string> words;  // op ops bytes MiB/s busy_s MiB/busy_s iops avg_size seq consec small
    std::stringstream ws(write_row);
    for (std::string x; ws >> x;) words.push_back(x);
    REQUIRE_MESSAGE(words.size() == 11, write_row);
    CHECK((words[8] == "NA") == !c.seq);
    CHECK((words[9] == "NA") == !c.seq);
    CHECK((words[10] == "NA") == !c.size_classes);
    CHECK((text.out.find("write          NA         NA") != std::string::npos) == !c.size_classes);
    const test::Run csv = Xtfq(dir, "query l.xtfq --format csv" + flags);
    const size_t at = csv.out.find("all,write,");
    REQUIRE(at != std::string::npos);
    std::vector<std::string> cols;
    std::stringstream row(csv.out.substr(at, csv.out.find('\n', at) - at));
    for (std::string col; std::getline(row, col, ',');) cols.push_back(col);
    REQUIRE(cols.size() > 10);
    CHECK((cols[10] == "NA") == !c.seq);           // seq_ratio
    CHECK((cols[12] == "NA") == !c.size_classes);  // small_ratio
  }
}

TEST_CASE("honest: HEATMAP bins that count other bytes than the counter records say both") {
  const std::filesystem::path log = std::filesystem::path(XTFQ_SHARED_DIR) / "data/darshan/real/polaris-bzip2.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  REQUIRE(Xtfq(dir, fmt::format("import '{}' -o p.xtfq", log.string())).status == 0);
  const std::filesystem::path text = log.string() + ".txt";
  // STDIO: the bins miss some of the bytes darshan-parser's counters hold.
  const test::Run stdio = Xtfq(dir, "query p.xtfq --module STDIO --format json");
  REQUIRE_MESSAGE(stdio.status == 0, stdio.err);
  const auto j = nlohmann::json::parse(stdio.out);
  const auto read = static_cast<int64_t>(ParserSum(text, "STDIO", "STDIO_BYTES_READ"));
  const auto written = static_cast<int64_t>(ParserSum(text, "STDIO", "STDIO_BYTES_WRITTEN"));
  REQUIRE(j["write"]["bytes"].get<int64_t>() != written);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0].get<std::string>() ==
        fmt::format("log 0's HEATMAP bins count {} bytes read and {} written here, its STDIO counter records {} and {} "
                    "(each record lies wholly inside or outside the window): the bins and the counters disagree; "
                    "operations and times are left unknown",
                    j["read"]["bytes"].get<int64_t>(), j["write"]["bytes"].get<int64_t>(), read, written));
  CHECK(j["write"]["ops"].is_null());
  // POSIX: they agree, and the operations are the counters'.
  const test::Run posix = Xtfq(dir, "query p.xtfq --format json");
  const auto k = nlohmann::json::parse(posix.out);
  CHECK(k["warnings"].empty());
  CHECK(k["read"]["bytes"].get<int64_t>() == static_cast<int64_t>(ParserSum(text, "POSIX", "POSIX_BYTES_READ")));
  CHECK(k["read"]["ops"].get<int64_t>() == static_cast<int64_t>(ParserSum(text, "POSIX", "POSIX_READS")));
}

TEST_CASE(
    "honest: logs without DXT or HEATMAP are answered from their counters, exactly over the run and labelled estimates "
    "inside") {
  const std::filesystem::path real = std::filesystem::path(XTFQ_SHARED_DIR) / "data/darshan/real";
  if (test::SharedMissing(real)) return;
  test::TempDir dir;
  size_t answered = 0;
  for (const auto& e : std::filesystem::directory_iterator(real)) {
    if (e.path().extension() != ".darshan") continue;
    const std::filesystem::path text = e.path().string() + ".txt";
    if (!std::filesystem::exists(text)) continue;
    CAPTURE(e.path().filename().string());
    std::filesystem::remove(dir.File("l.xtfq"));
    if (Xtfq(dir, fmt::format("import '{}' -o l.xtfq", e.path().string())).status != 0) continue;  // the mislabeled log
    const test::Run q = Xtfq(dir, "query l.xtfq --format json");
    if (q.status != 0) continue;  // no POSIX records: said, and tested above for a HEATMAP-only log
    const nlohmann::json j = nlohmann::json::parse(q.out);
    if (!j["answered"].get<std::string>().starts_with("from the counter records")) continue;
    ++answered;
    // The whole run: exactly the counters' sums, as darshan-parser prints them, of POSIX or, in a
    // log without POSIX, of the module it has (said).
    CHECK(j["estimated"] == false);
    const std::string m = j["module"].get<std::string>();
    CHECK((m == "POSIX") != j.contains("module_note"));
    if (m == "MPI-IO") continue;  // its operations are four counters each
    CHECK(j["read"]["bytes"].get<double>() == ParserSum(text, m, m + "_BYTES_READ"));
    CHECK(j["write"]["bytes"].get<double>() == ParserSum(text, m, m + "_BYTES_WRITTEN"));
    CHECK(j["read"]["ops"].get<double>() == ParserSum(text, m, m + "_READS"));
    CHECK(j["write"]["ops"].get<double>() == ParserSum(text, m, m + "_WRITES"));
  }
  CHECK(answered >= 12);  // the real logs the window query used to refuse
  // One record read 4 x 16 MiB between its read timestamps: half of that interval holds half.
  const std::filesystem::path one = real / "rel-3.00-x86_64.darshan";
  std::filesystem::remove(dir.File("l.xtfq"));
  REQUIRE(Xtfq(dir, fmt::format("import '{}' -o l.xtfq", one.string())).status == 0);
  const std::filesystem::path one_text = one.string() + ".txt";
  const double a = ParserSum(one_text, "POSIX", "POSIX_F_READ_START_TIMESTAMP"),
               b = ParserSum(one_text, "POSIX", "POSIX_F_READ_END_TIMESTAMP");
  REQUIRE(b > a);
  const test::Run half = Xtfq(dir, fmt::format("query l.xtfq --time {:.9f}:{:.9f} --format json", a, (a + b) / 2));
  REQUIRE_MESSAGE(half.status == 0, half.err);
  const nlohmann::json h = nlohmann::json::parse(half.out);
  CHECK(h["estimated"] == true);
  CHECK(h["answered"].get<std::string>().starts_with("estimated from counters"));
  // (The text's timestamps carry six decimals, the binary's full doubles: 1e-4 of an interval of 0.07 s.)
  CHECK(h["read"]["bytes"].get<double>() ==
        doctest::Approx(ParserSum(one_text, "POSIX", "POSIX_BYTES_READ") / 2).epsilon(1e-4));
  const test::Run text_out = Xtfq(dir, fmt::format("query l.xtfq --time {:.9f}:{:.9f}", a, (a + b) / 2));
  CHECK(text_out.out.find("estimated from counters") != std::string::npos);
  // CSV says so too, in its last column: every row of the half window, no row of the whole run.
  const test::Run half_csv = Xtfq(dir, fmt::format("query l.xtfq --time {:.9f}:{:.9f} --format csv", a, (a + b) / 2));
  REQUIRE(half_csv.status == 0);
  const test::Run whole_csv = Xtfq(dir, "query l.xtfq --format csv");
  REQUIRE(whole_csv.status == 0);
  for (const auto& [out, label] : {std::pair{half_csv.out, std::string("true")}, {whole_csv.out, "false"}}) {
    std::stringstream lines(out);
    std::string line;
    REQUIRE(std::getline(lines, line));
    CHECK(line.ends_with(",estimated"));
    int rows = 0;
    for (; std::getline(lines, line); ++rows) CHECK_MESSAGE(line.ends_with("," + label), line);
    CHECK(rows == 2);  // read and write
  }
  // Per file: the CSV names the file.
  const test::Run csv = Xtfq(dir, "query l.xtfq --per-file --format csv");
  CHECK(
      csv.out.starts_with("file_id,op,ops,bytes,bytes_moved,busy_s,bw_mib_s,mib_per_busy_s,iops,avg_size,seq_ratio,"
                          "consec_ratio,small_ratio,"
                          "file,estimated\n"));
  CHECK(csv.out.find(",/tmp/tmp/mpi-io-test.tmp.dat,false\n") != std::string::npos);
}

}  // namespace
}  // namespace xtfq

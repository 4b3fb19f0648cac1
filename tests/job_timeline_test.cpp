// `xtfq job` (issue 18): one job id across a generated Darshan log, generated job_stats and a Slurm
// profile (an influxdb capture written here). Its totals equal each source's own answer (`xtfq
// query` of the log, `xtfq query --jobstats --job`, and the sum of the capture's lines computed
// here), its windows partition those totals, shares lie in [0, 1], and a source with nothing for
// the job says so.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/truth_csv.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

constexpr int64_t kJob = 4000035;  // gen jobstats: job 5 of --jobs 10 is 4000000 + 5 x 7, class ok
constexpr int64_t kStart = 1795300000;

bool Near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

TEST_CASE("job: one job across Darshan, job_stats and Slurm gives each source's own totals, split by windows") {
  TempDir dir;
  REQUIRE(
      Xtfq(dir, fmt::format("gen darshan 20000 --ranks 4 --files 10 --job {} --start {} -o a.darshan", kJob, kStart))
          .status == 0);
  REQUIRE(Xtfq(dir, "import -q a.darshan -o d.xtfq").status == 0);
  REQUIRE(
      Xtfq(dir, fmt::format("gen jobstats -o js --targets 3 --jobs 10 --samples 31 --interval 120 --start {}", kStart))
          .status == 0);
  REQUIRE(Xtfq(dir, "import -q js -o j.xtfq").status == 0);
  // A Slurm profile of the job: two tasks sampled every minute, and the truth summed here.
  int64_t slurm_read = 0, slurm_write = 0;
  double slurm_cpu = 0;
  {
    std::ofstream out(dir.File("s.txt"));
    for (int k = 0; k < 60; ++k) {
      const int64_t t = kStart + k * 60 + 5;
      for (int task = 0; task < 2; ++task) {
        const double r = (k % 7) * 0.5, w = (k % 5) * 0.25, c = (k % 9) / 10.0;
        out << fmt::format(
            "ReadMB,job={0},step=0,task={1},host=n{2} value={3:.2f} {6}\n"
            "WriteMB,job={0},step=0,task={1},host=n{2} value={4:.2f} {6}\n"
            "CPUTime,job={0},step=0,task={1},host=n{2} value={5:.2f} {6}\n",
            kJob, task, task + 1, r, w, c, t);
        slurm_read += static_cast<int64_t>(r * 1048576), slurm_write += static_cast<int64_t>(w * 1048576);
        slurm_cpu += std::strtod(fmt::format("{:.2f}", c).c_str(), nullptr);
      }
    }
  }
  REQUIRE(Xtfq(dir, "import -q s.txt -o s.xtfq").status == 0);

  const Run run = Xtfq(dir, fmt::format("job {} d.xtfq j.xtfq s.xtfq --windows 8 --format json", kJob));
  REQUIRE_MESSAGE(run.status == 0, run.err);
  const nlohmann::json a = nlohmann::json::parse(run.out);
  CHECK(a["job"] == kJob);
  const int64_t t1 = a["span"]["t1"], t2 = a["span"]["t2"];
  CHECK(t1 == kStart);  // the Darshan log's start (Slurm's first sample is later)
  const auto& windows = a["windows"];
  CHECK(windows.size() == 8);
  // Darshan: the log's own whole-run totals.
  const nlohmann::json d = nlohmann::json::parse(Xtfq(dir, "query d.xtfq --format json").out);
  const auto& tot = a["totals"];
  CHECK(tot["darshan"]["read_bytes"] == d["read"]["bytes"]);
  CHECK(tot["darshan"]["write_bytes"] == d["write"]["bytes"]);
  CHECK(tot["darshan"]["ops"].get<uint64_t>() == d["read"]["ops"].get<uint64_t>() + d["write"]["ops"].get<uint64_t>());
  // job_stats: the job's own query over the same span, per target.
  const nlohmann::json js = nlohmann::json::parse(
      Xtfq(dir, fmt::format("query j.xtfq --jobstats --job {} --by target --time @{}:@{} --format json", kJob, t1, t2))
          .out);
  REQUIRE(js["groups"].size() == tot["jobstats"].size());
  for (const auto& g : js["groups"]) {
    const std::string target = g["target"];
    CAPTURE(target);
    auto it = std::find_if(tot["jobstats"].begin(), tot["jobstats"].end(),
                           [&](const nlohmann::json& x) { return x["target"] == target; });
    REQUIRE(it != tot["jobstats"].end());
    const bool steps = g.contains("ops");  // a group without rate steps in the window has none
    const double r = steps && g["ops"].contains("read_bytes") ? g["ops"]["read_bytes"]["total"].get<double>() : 0.0;
    const double w = steps && g["ops"].contains("write_bytes") ? g["ops"]["write_bytes"]["total"].get<double>() : 0.0;
    CHECK(Near((*it)["job_read_bytes"].get<double>(), r));
    CHECK(Near((*it)["job_write_bytes"].get<double>(), w));
  }
  // Stragglers: each window's slowest rank is the log's own query's over that window.
  for (size_t k : {size_t{0}, size_t{3}, size_t{7}}) {
    const auto& w = windows[k];
    const nlohmann::json q =
        nlohmann::json::parse(Xtfq(dir, fmt::format("query d.xtfq --time @{}:@{} --format json", w["t1"].get<int64_t>(),
                                                    w["t2"].get<int64_t>()))
                                  .out);
    CAPTURE(k);
    if (q["rank_imbalance"].is_null()) {
      CHECK(w["darshan"]["ranks"].is_null());
      continue;
    }
    CHECK(w["darshan"]["ranks"]["slowest_rank"] == q["rank_imbalance"]["slowest_rank"]);
    CHECK(w["darshan"]["ranks"]["slowest_rank_busy_s"] == q["rank_imbalance"]["slowest_rank_busy_s"]);
    CHECK(w["darshan"]["ranks"]["max_bytes"] == q["rank_imbalance"]["max_bytes"]);
    CHECK(w["darshan"]["ranks"]["log"] == 0);
  }
  // Slurm: the capture's own sums, and the store's own query over the span.
  const nlohmann::json sq = nlohmann::json::parse(
      Xtfq(dir, fmt::format("query s.xtfq --job {} --time @{}:@{} --format json", kJob, t1, t2)).out);
  REQUIRE(sq["groups"].size() == 1);
  CHECK(sq["groups"][0]["read_bytes"] == tot["slurm"]["read_bytes"]);
  CHECK(sq["groups"][0]["cpu_s"] == tot["slurm"]["cpu_s"]);
  CHECK(tot["slurm"]["read_bytes"] == slurm_read);
  CHECK(tot["slurm"]["write_bytes"] == slurm_write);
  CHECK(Near(tot["slurm"]["cpu_s"].get<double>(), slurm_cpu));
  CHECK(tot["slurm"]["samples"] == 120);
  // The windows tile the span and partition every source's totals.
  int64_t dr = 0, dw = 0;
  double sr = 0, sw = 0;  // Slurm windows take a share of each sample's interval: fractions
  std::map<std::string, double> jr, jw;
  int64_t at = t1;
  for (const auto& w : windows) {
    CHECK(w["t1"] == at);
    at = w["t2"];
    dr += w["darshan"]["read_bytes"].get<int64_t>(), dw += w["darshan"]["write_bytes"].get<int64_t>();
    sr += w["slurm"]["read_bytes"].get<double>(), sw += w["slurm"]["write_bytes"].get<double>();
    for (const auto& t : w["jobstats"]) {
      jr[t["target"]] += t["job_read_bytes"].get<double>(), jw[t["target"]] += t["job_write_bytes"].get<double>();
      CHECK(t["job_read_bytes"].get<double>() <= t["target_read_bytes"].get<double>() + 1e-6);
      if (!t["share"].is_null()) {
        CHECK(t["share"].get<double>() >= 0);
        CHECK(t["share"].get<double>() <= 1 + 1e-12);
      }
    }
  }
  CHECK(at == t2);
  CHECK(dr == tot["darshan"]["read_bytes"].get<int64_t>());
  CHECK(dw == tot["darshan"]["write_bytes"].get<int64_t>());
  CHECK(Near(sr, static_cast<double>(slurm_read)));
  CHECK(Near(sw, static_cast<double>(slurm_write)));
  for (const auto& t : tot["jobstats"]) {
    CHECK(Near(jr[t["target"]], t["job_read_bytes"].get<double>()));
    CHECK(Near(jw[t["target"]], t["job_write_bytes"].get<double>()));
  }
  // Text and CSV say the same totals.
  const Run text = Xtfq(dir, fmt::format("job {} d.xtfq j.xtfq s.xtfq --windows 8", kJob));
  CHECK_MESSAGE(text.out.find(fmt::format("darshan read {} B", d["read"]["bytes"].get<int64_t>())) != std::string::npos,
                text.out);
  CHECK(text.out.find(fmt::format("slurm tasks read {} B", slurm_read)) != std::string::npos);
  const Run csv = Xtfq(dir, fmt::format("job {} d.xtfq j.xtfq s.xtfq --windows 8 --format csv", kJob));
  CHECK(csv.out.find(fmt::format("total,{},{},slurm,s.xtfq,tasks,read_bytes,{},false\n", t1, t2, slurm_read)) !=
        std::string::npos);
  // Darshan rows name the store they come from.
  CHECK(csv.out.find(fmt::format("total,{},{},darshan,d.xtfq,job,read_bytes,{},false\n", t1, t2,
                                 d["read"]["bytes"].get<int64_t>())) != std::string::npos);

  // A Slurm profile of the first ten minutes only: the job's job_stats bytes after them are not
  // shown, and a note says how many, as the job's own query over every collection and over the span
  // differ.
  {
    std::ofstream out(dir.File("s2.txt"));
    for (int k = 0; k < 20; ++k)
      out << fmt::format("ReadMB,job={},step=0,task=0,host=n1 value=1.00 {}\n", kJob, kStart + k * 30);
  }
  REQUIRE(Xtfq(dir, "import -q s2.txt -o s2.xtfq").status == 0);
  const nlohmann::json short_span =
      nlohmann::json::parse(Xtfq(dir, fmt::format("job {} j.xtfq s2.xtfq --format json", kJob)).out);
  const int64_t s1 = short_span["span"]["t1"], s2 = short_span["span"]["t2"];
  auto bytes_of = [&](const std::string& time) {
    const nlohmann::json q = nlohmann::json::parse(
        Xtfq(dir, fmt::format("query j.xtfq --jobstats --job {} --by target {} --format json", kJob, time)).out);
    double b = 0;
    for (const auto& g : q["groups"]) {
      for (const char* op : {"read_bytes", "write_bytes"}) {
        if (g.contains("ops") && g["ops"].contains(op)) b += g["ops"][op]["total"].get<double>();  // none: no step
      }
    }
    return b;
  };
  const double everywhere = bytes_of(""), inside = bytes_of(fmt::format("--time @{}:@{}", s1, s2));
  std::string notes;
  for (const auto& n : short_span["notes"]) notes += n.get<std::string>() + "\n";
  if (everywhere > inside + 0.5) {
    CHECK_MESSAGE(notes.find(fmt::format("{:.0f} bytes of job {} lie outside the span shown", everywhere - inside,
                                         kJob)) != std::string::npos,
                  notes);
  } else {
    CHECK(notes.find("lie outside the span shown") == std::string::npos);
  }
  CHECK(everywhere > inside);  // the job wrote after its first ten minutes
}

TEST_CASE("job: windows of a log without DXT or HEATMAP are labelled estimates, its whole run is not") {
  const std::string log = std::string(XTFQ_SHARED_DIR) + "/data/darshan/real/h5-block-chunk-coll-256rank.darshan";
  if (SharedMissing(log)) return;
  TempDir dir;
  REQUIRE(Xtfq(dir, fmt::format("import -q '{}' -o h.xtfq", log)).status == 0);
  // Job 511919 (its header), 12 s: six windows of 2 s, each spread from the counter records.
  const Run csv = Xtfq(dir, "job 511919 h.xtfq --windows 6 --format csv");
  REQUIRE_MESSAGE(csv.status == 0, csv.err);
  CHECK(csv.out.starts_with("kind,t1,t2,source,store,entity,metric,value,estimated\n"));
  int windows = 0, totals = 0;
  double window_sum = 0, total = 0;
  std::istringstream lines(csv.out);
  for (std::string line; std::getline(lines, line);) {
    // The slowest rank only where operations are known: not in a window spread from counters.
    if (line.starts_with("window,")) CHECK_MESSAGE(line.find("slowest_rank") == std::string::npos, line);
    if (line.find(",darshan,h.xtfq,job,write_bytes,") == std::string::npos) continue;
    const size_t v = line.rfind(',', line.size() - (line.ends_with(",true") ? 6 : 7));
    const double bytes = std::stod(line.substr(v + 1));
    if (line.starts_with("window,")) {
      CHECK_MESSAGE(line.ends_with(",true"), line);
      ++windows, window_sum += bytes;
    } else if (line.starts_with("total,")) {
      CHECK_MESSAGE(line.ends_with(",false"), line);  // the whole run: the counters' sums, exact
      ++totals, total = bytes;
    }
  }
  CHECK(windows == 6);
  CHECK(totals == 1);
  CHECK(std::abs(window_sum - total) <= 6);  // each window's share, rounded to whole bytes
  const Run json = Xtfq(dir, "job 511919 h.xtfq --windows 6 --format json");
  REQUIRE(json.status == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["windows"][0]["darshan"]["estimated"] == true);
  CHECK(j["windows"][0]["darshan"]["ranks"].is_null());
  CHECK(j["windows"][0]["darshan"]["ops"].is_null());
  CHECK(j["totals"]["darshan"]["estimated"] == false);
  // The text says where its numbers come from: counters, not segments.
  const Run text = Xtfq(dir, "job 511919 h.xtfq --windows 6");
  CHECK(text.out.find("DXT_POSIX segments") == std::string::npos);
  CHECK(text.out.find("# darshan: a log with neither DXT nor HEATMAP gives estimates from its counters") !=
        std::string::npos);
}

TEST_CASE("job: a source without the job says so, and no source at all is an error") {
  TempDir dir;
  REQUIRE(Xtfq(dir, fmt::format("gen darshan 2000 --ranks 4 --files 10 --job {} -o a.darshan", kJob)).status == 0);
  REQUIRE(Xtfq(dir, "import -q a.darshan -o d.xtfq").status == 0);
  const Run one = Xtfq(dir, fmt::format("job {} d.xtfq", kJob));
  REQUIRE_MESSAGE(one.status == 0, one.err);
  CHECK(one.out.find("jobstats no store given holds job_stats") != std::string::npos);
  CHECK(one.out.find("slurm    no store given holds Slurm profiles") != std::string::npos);
  const Run none = Xtfq(dir, "job 77 d.xtfq");
  CHECK(none.status == 1);
  CHECK_MESSAGE(
      none.err.find(fmt::format("xtfq job: no store holds anything of job 77; darshan (d.xtfq): no log of job 77 "
                                "(1 log: jobs {})",
                                kJob)) != std::string::npos,
      none.err);
  // JSON readers get the answer too: found false, and each source's reason.
  const Run none_json = Xtfq(dir, "job 77 d.xtfq --format json");
  CHECK(none_json.status == 1);
  const nlohmann::json nj = nlohmann::json::parse(none_json.out);
  CHECK(nj["found"] == false);
  CHECK(nj["windows"].empty());
  CHECK(nj["error"].get<std::string>().find("no log of job 77") != std::string::npos);
  const Run bad = Xtfq(dir, "job notanumber d.xtfq");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("ID 'notanumber' is not a job id") != std::string::npos);
  // Job ids are reused: with a Slurm profile of the job a week later, the log is another job's.
  {
    std::ofstream out(dir.File("s.txt"));
    for (int k = 0; k < 10; ++k) {
      out << fmt::format("ReadMB,job={},step=0,task=0,host=n1 value=1.00 {}\n", kJob, kStart + 7 * 86400 + k * 30);
    }
  }
  REQUIRE(Xtfq(dir, "import -q s.txt -o s.xtfq").status == 0);
  const Run reused = Xtfq(dir, fmt::format("job {} d.xtfq s.xtfq --format json", kJob));
  REQUIRE_MESSAGE(reused.status == 0, reused.err);
  const nlohmann::json r = nlohmann::json::parse(reused.out);
  CHECK(r["span"]["t1"].get<int64_t>() >= kStart + 7 * 86400 - 1);
  CHECK(r["totals"]["darshan"].is_null());
  bool named = false;
  for (const auto& src : r["sources"]) {
    if (src["kind"] == "darshan") {
      CHECK_FALSE(src["found"].get<bool>());
      named = src["detail"].get<std::string>().find("another job with the same id; left out") != std::string::npos;
    }
  }
  CHECK(named);
  CHECK(r["totals"]["slurm"]["read_bytes"] == 10 * 1048576);
  CHECK(Xtfq(dir, "job 77 missing.xtfq").status == 1);
}

TEST_CASE("job: a job only job_stats holds spans the collection intervals in which its counters changed") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen jobstats -o js --targets 4 --jobs 20 --samples 40 --interval 120").status == 0);
  REQUIRE(Xtfq(dir, "import -q js -o j.xtfq").status == 0);
  // The truth: each series' job, and the steps the generator drew.
  std::map<std::pair<std::string, std::string>, std::string> job_of;
  for (const auto& r : ReadTruthCsv(dir.File("js/truth_series.csv"))) job_of[{r[0], r[1]}] = r[3];
  std::map<std::string, std::pair<int64_t, int64_t>> span;  // job: first t0, last t1 of a step with a change
  for (const auto& r : ReadTruthCsv(dir.File("js/truth_steps.csv"))) {
    const std::string& job = job_of[{r[0], r[1]}];
    if (job.empty() || std::stod(r[5]) <= 0) continue;
    auto [it, fresh] = span.try_emplace(job, int64_t{std::stoll(r[3])}, int64_t{std::stoll(r[4])});
    it->second = {std::min(it->second.first, int64_t{std::stoll(r[3])}),
                  std::max(it->second.second, int64_t{std::stoll(r[4])})};
  }
  auto all = ReadTruthCsv(dir.File("js/truth_steps.csv"));
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& r : all)
    first = std::min(first, int64_t{std::stoll(r[3])}), last = std::max(last, int64_t{std::stoll(r[4])});
  size_t shorter = 0;
  for (const auto& [job, s] : span) {
    const Run run = Xtfq(dir, fmt::format("job {} j.xtfq --format json", job));
    REQUIRE_MESSAGE(run.status == 0, run.err);
    const nlohmann::json j = nlohmann::json::parse(run.out);
    CHECK_MESSAGE(j["span"]["t1"] == s.first, job);
    CHECK_MESSAGE(j["span"]["t2"] == s.second, job);
    shorter += s.first > first || s.second < last ? 1 : 0;
    bool said = false;
    for (const auto& n : j["notes"]) {
      said |= n.get<std::string>().starts_with("the span is that of the job's job_stats rate steps");
      CHECK_MESSAGE(n.get<std::string>().find("lie outside the span shown") == std::string::npos, n);
    }
    CHECK(said);
  }
  CHECK(span.size() >= 10);
  CHECK(shorter > 0);  // jobs that come and go: not the collections' span
}

}  // namespace
}  // namespace xtfq::test

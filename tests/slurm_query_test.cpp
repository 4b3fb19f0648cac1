// Windowed queries over Slurm profiles (issue 18, `xtfq query --slurm`): every window's totals
// equal a model built from h5dump's text of the same files, independent of the store: each row's
// deltas spread over the interval since the row before it in its dataset (prorate), or counted
// whole where its EpochTime falls (sample rule). The model computes Slurm's derived values its own
// way (bytes = MB x 2^20, running totals differenced, sysfs units swapped).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "layouts/slurm_layout.h"
#include "query/core/store_reader.h"
#include "query/slurm/slurm_view.h"
#include "query/slurm/slurm_window_query.h"
#include "tests/h5dump_text.h"
#include "tests/shared_data.h"
#include "tests/slurm_stored.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;
using L = SlurmLayout;

// One row of the model: its time, interval and the metrics of SlurmWindowQuery::Metrics(kind).
struct ModelRow {
  int64_t t = 0, interval = 0;
  std::vector<double> v;
};

// One dataset of a node-step file, as the model reads h5dump's text.
struct ModelSeries {
  std::string step, node, task;  // task "node" for a node series
  uint8_t kind = 0;
  std::vector<ModelRow> rows;
};

double Num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// The datasets of node-step file `path` (<job>_<step>_<node>.h5).
std::vector<ModelSeries> Model(const std::string& path) {
  const H5DumpText d = H5DumpText::Dump(path);
  REQUIRE_MESSAGE(d.ok, path);
  const std::string name = fs::path(path).stem().string();
  const std::string step = name.substr(name.find('_') + 1, name.rfind('_') - name.find('_') - 1);
  std::vector<ModelSeries> out;
  for (const H5DumpDataset& ds : d.datasets) {
    ModelSeries m;
    m.step = step;
    m.node = ds.path.substr(1, ds.path.find('/', 1) - 1);
    auto col = [&](const std::string& f) {
      for (size_t i = 0; i < ds.fields.size(); ++i) {
        if (ds.fields[i] == f) return i;
      }
      FAIL("no field ", f, " in ", ds.path);
      return size_t{0};
    };
    const size_t epoch = col("EpochTime");
    std::vector<std::vector<double>> raw;  // the metrics before units and differencing
    if (ds.path.find("/Tasks/") != std::string::npos) {
      m.kind = L::kTasks, m.task = ds.path.substr(ds.path.rfind('/') + 1);
      for (const auto& r : ds.rows)
        raw.push_back({Num(r[col("ReadMB")]) * 1048576.0, Num(r[col("WriteMB")]) * 1048576.0, Num(r[col("CPUTime")])});
    } else if (ds.path.ends_with("/Filesystem")) {
      // Running totals (lustre before 25.11): each row's change; a fall takes the new value.
      m.kind = L::kFilesystem, m.task = "node";
      std::vector<double> prev(4, 0.0);
      for (const auto& r : ds.rows) {
        const std::vector<double> now = {Num(r[col("ReadMB")]) * 1048576.0, Num(r[col("WriteMB")]) * 1048576.0,
                                         Num(r[col("Reads")]), Num(r[col("Writes")])};
        std::vector<double> change(4);
        for (size_t k = 0; k < 4; ++k) change[k] = now[k] >= prev[k] ? now[k] - prev[k] : now[k];
        raw.push_back(change), prev = now;
      }
    } else if (ds.path.ends_with("/Network")) {
      // sysfs: bytes under PacketsIn/Out and packets / 2^16 under InMB/OutMB, when bytes exceed the MB.
      m.kind = L::kNetwork, m.task = "node";
      bool swapped = false;
      for (const auto& r : ds.rows) {
        swapped = swapped || Num(r[col("PacketsIn")]) > Num(r[col("InMB")]) * 1048576.0 ||
                  Num(r[col("PacketsOut")]) > Num(r[col("OutMB")]) * 1048576.0;
      }
      for (const auto& r : ds.rows) {
        const double pi = Num(r[col("PacketsIn")]), po = Num(r[col("PacketsOut")]);
        const double im = Num(r[col("InMB")]), om = Num(r[col("OutMB")]);
        raw.push_back(swapped ? std::vector<double>{pi, po, im * 65536.0, om * 65536.0}
                              : std::vector<double>{im * 1048576.0, om * 1048576.0, pi, po});
      }
    } else {
      continue;
    }
    for (size_t i = 0; i < ds.rows.size(); ++i) {
      ModelRow row;
      row.t = static_cast<int64_t>(Num(ds.rows[i][epoch]));
      const int64_t before = i == 0 ? row.t : static_cast<int64_t>(Num(ds.rows[i - 1][epoch]));
      row.interval = row.t > before ? row.t - before : 0;
      row.v = raw[i];
      m.rows.push_back(row);
    }
    out.push_back(std::move(m));
  }
  return out;
}

// The model's share of a row in [t1, t2): of [t - interval, t), or the point t.
double Share(const ModelRow& r, int64_t t1, int64_t t2, bool prorate) {
  if (!prorate || r.interval == 0) return r.t >= t1 && r.t < t2 ? 1.0 : 0.0;
  const int64_t lo = std::max(r.t - r.interval, t1), hi = std::min(r.t, t2);
  return hi > lo ? static_cast<double>(hi - lo) / static_cast<double>(r.interval) : 0.0;
}

bool Near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

// The job-100 files of the two-node run (node-step files only).
std::vector<std::string> Job100(const fs::path& data) {
  std::vector<std::string> files;
  for (const char* f : {"100_0_n1.h5", "100_0_n2.h5", "100_batch_n1.h5"})
    files.push_back((data / "b-two-nodes" / "profile" / "root" / f).string());
  return files;
}

TEST_CASE("slurm query: every window's totals equal the model of h5dump's rows, prorated or by sample") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  if (H5DumpMissing()) return;
  TempDir dir;
  const std::vector<std::string> files = Job100(data);
  std::vector<ModelSeries> model;
  for (const std::string& f : files) {
    for (ModelSeries& m : Model(f)) model.push_back(std::move(m));
  }
  REQUIRE(model.size() == 9);  // 3 Tasks, 3 Filesystem, 3 Network
  const Run imp = Xtfq(dir, fmt::format("import -q -o s.xtfq '{}' '{}' '{}'", files[0], files[1], files[2]));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  auto reader = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto view = SlurmView::Open(**reader);
  REQUIRE_MESSAGE(view.ok(), Why(view));
  auto span = (*view)->Span();
  REQUIRE(span.ok());
  REQUIRE(span->has_value());
  const int64_t first = (*span)->first, last = (*span)->second;
  std::map<uint8_t, int64_t> reach;  // per kind, the widest interval of a row: how far past an edge a query reads
  for (const ModelSeries& m : model) {
    for (const ModelRow& r : m.rows) {
      CHECK(r.t >= first);
      CHECK(r.t <= last);
      reach[m.kind] = std::max(reach[m.kind], r.interval);
    }
  }
  CHECK(reach[L::kTasks] >= 1);
  std::vector<char> all((*view)->series().size(), 1);
  const std::vector<SlurmKey> by = {SlurmKey::kStep, SlurmKey::kNode, SlurmKey::kTask};
  std::mt19937_64 rng(18);
  std::uniform_int_distribution<int64_t> at(first - 3, last + 3);
  int windows = 0;
  for (int i = 0; i < 60; ++i) {
    int64_t t1 = at(rng), t2 = at(rng);
    if (t1 > t2) std::swap(t1, t2);
    for (const bool prorate : {true, false}) {
      for (const bool scan : {false, true}) {
        auto w = SlurmWindowQuery::Compute(**view, t1, t2, all, by, prorate, scan);
        REQUIRE_MESSAGE(w.ok(), Why(w));
        for (const ModelSeries& m : model) {
          std::vector<double> want(m.rows.front().v.size(), 0.0);
          uint64_t rows = 0;
          for (const ModelRow& r : m.rows) {
            for (size_t k = 0; k < want.size(); ++k) want[k] += Share(r, t1, t2, prorate) * r.v[k];
            rows += r.t >= t1 && r.t < t2;
          }
          const SlurmGroup* g = nullptr;
          for (const SlurmGroup& x : w->groups) {
            if (x.kind == m.kind && x.keys == std::vector<std::string>{m.step, m.node, m.task}) g = &x;
          }
          if (rows == 0 && g == nullptr) continue;
          REQUIRE_MESSAGE(g != nullptr, fmt::format("{} {} {} {} in [{}, {})", m.kind, m.step, m.node, m.task, t1, t2));
          CHECK(g->rows == rows);
          for (size_t k = 0; k < want.size(); ++k) {
            CHECK_MESSAGE(
                Near(g->totals[k], want[k]),
                fmt::format("kind {} step {} node {} task {} metric {} in [{}, {}) prorate {} scan {}: {} vs {}",
                            m.kind, m.step, m.node, m.task, k, t1, t2, prorate, scan, g->totals[k], want[k]));
          }
        }
        // The indexed prorated path reads only the rows within its array's `reach` after each edge:
        // a deterministic count, from the model (every array of the job is read at its edges).
        if (prorate && !scan && t1 < t2) {
          uint64_t edge_rows = 0;
          for (const ModelSeries& m : model) {
            for (const ModelRow& r : m.rows) {
              const int64_t k = reach[m.kind];
              edge_rows += (r.t >= t1 && r.t < std::min(t2, t1 + k)) || (r.t >= t2 && r.t < t2 + k);
            }
          }
          CHECK(w->edge_rows == edge_rows);
        }
      }
    }
    ++windows;
  }
  CHECK(windows == 60);
}

TEST_CASE("slurm query: windows that tile a job's span partition its totals, and node-wide series count once a node") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  TempDir dir;
  const std::vector<std::string> files = Job100(data);
  const Run imp = Xtfq(dir, fmt::format("import -q -o s.xtfq '{}' '{}' '{}'", files[0], files[1], files[2]));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  const Run whole = Xtfq(dir, "query s.xtfq --job 100 --by job --format json");
  REQUIRE_MESSAGE(whole.status == 0, whole.err);
  const nlohmann::json j = nlohmann::json::parse(whole.out);
  const int64_t t1 = j["window"]["t1"], t2 = j["window"]["t2"];
  std::map<std::string, nlohmann::json> total;  // by kind
  for (const auto& g : j["groups"]) total[g["kind"]] = g;
  REQUIRE(total.size() == 3);
  // Read by hand from h5dump: the lustre counters reach 160 MiB read and 80 MiB written on each
  // node (synthetic 16 and 8 MiB/s for 10 s); the batch step's series on n1 are the same counters
  // as step 0's, so the job counts n1 and n2 once each.
  CHECK(total["Filesystem"]["read_bytes"] == 2 * 160.0 * 1048576);
  CHECK(total["Filesystem"]["write_bytes"] == 2 * 80.0 * 1048576);
  CHECK(total["Filesystem"]["series"] == 2);
  CHECK(total["Network"]["series"] == 2);
  CHECK(total["Tasks"]["series"] == 3);
  CHECK(j["notes"].size() == 3);  // the two node-wide choices, and task I/O as a lower bound
  CHECK(j["warnings"].empty());
  // A window outside the samples answers zeros and says they are no data; one that runs past them
  // says how much and gives the part they cover.
  const Run before = Xtfq(dir, "query s.xtfq --job 100 --time 0:10 --format json");
  REQUIRE_MESSAGE(before.status == 0, before.err);
  CHECK_MESSAGE(before.err.find(fmt::format("xtfq query: warning: the window [0, 10) lies outside the selected series' "
                                            "samples ({} to {}): its zeros are no data, not no I/O",
                                            t1, t2)) != std::string::npos,
                before.err);
  CHECK(nlohmann::json::parse(before.out)["warnings"].size() == 1);
  const Run past = Xtfq(dir, fmt::format("query s.xtfq --job 100 --time @{}:@{}", t1 + 1, t2 + 9));
  CHECK_MESSAGE(past.err.find(fmt::format("9 of the window's {} seconds lie outside the selected series' samples ({} "
                                          "to {}): no data there; --time @{}:@{} is the part they cover",
                                          t2 + 8 - t1, t1, t2, t1 + 1, t2)) != std::string::npos,
                past.err);
  CHECK(j["notes"][0].get<std::string>().find("the job sums one per node, step 0's (the most samples); step batch left "
                                              "out") != std::string::npos);
  // 7-second windows from t1: their sums are the whole span's.
  std::map<std::string, std::map<std::string, double>> sum;
  for (int64_t a = t1; a < t2; a += 7) {
    const Run w =
        Xtfq(dir, fmt::format("query s.xtfq --job 100 --by job --time {}:{} --format json", a, std::min(t2, a + 7)));
    REQUIRE_MESSAGE(w.status == 0, w.err);
    const nlohmann::json answer = nlohmann::json::parse(w.out);  // kept alive for the loop
    for (const auto& g : answer["groups"]) {
      for (const auto& [k, v] : g.items()) {
        if (v.is_number() && k != "rss_max_kib" && k != "vmsize_max_kib" && k != "series")
          sum[g["kind"]][k] += v.get<double>();
      }
    }
  }
  for (const auto& [kind, metrics] : sum) {
    for (const auto& [k, v] : metrics) CHECK_MESSAGE(Near(v, total[kind][k].get<double>()), kind, " ", k);
  }
  // A window without a sample has no level: null, not 0 (the first second: the tasks' row 0 is at start + 1).
  const nlohmann::json empty = nlohmann::json::parse(
      Xtfq(dir, fmt::format("query s.xtfq --job 100 --kind tasks --time {}:{} --format json", t1, t1 + 1)).out);
  CHECK(empty["groups"][0]["rows"] == 0);
  CHECK(empty["groups"][0]["rss_max_kib"].is_null());
  // Text and CSV give the same totals; the sample rule gives whole rows.
  const Run text = Xtfq(dir, "query s.xtfq --job 100 --by job");
  CHECK(text.out.find(fmt::format("{}", 2 * 160 * 1048576)) != std::string::npos);
  CHECK(text.out.find("Filesystem (node-wide") != std::string::npos);
  const Run csv = Xtfq(dir, "query s.xtfq --job 100 --by job,step --format csv --edges sample");
  CHECK_MESSAGE(csv.out.find("Filesystem,100,batch,1,24,,,,167772160,83886080,160,80") != std::string::npos, csv.out);
}

TEST_CASE("slurm grid: a sample array's grid has a column a sample interval, and its cells sum to the query's") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  TempDir dir;
  const std::vector<std::string> files = Job100(data);
  REQUIRE(Xtfq(dir, fmt::format("import -q -o s.xtfq '{}' '{}' '{}'", files[0], files[1], files[2])).status == 0);
  const Run grid = Xtfq(dir, "grid s.xtfq --array slurm/100/tasks --format json");
  REQUIRE_MESSAGE(grid.status == 0, grid.err);
  const nlohmann::json g = nlohmann::json::parse(grid.out);
  // Samples every second (task=1) over 1795319206 .. 1795319228 (h5dump): 23 one-second columns.
  CHECK(g["cols"] == 23);
  CHECK(g["time"]["unit"] == "epoch seconds");
  CHECK(g["process"] == "series");
  std::map<std::string, double> sums;
  for (const auto& m : g["metrics"]) {
    for (const auto& v : m["values"][0]) sums[m["name"]] += v.is_null() ? 0.0 : v.get<double>();
  }
  CHECK(sums.contains("rss.max"));
  // Each metric in its field's unit.
  std::map<std::string, std::string> units;
  for (const auto& m : g["metrics"]) units[m["name"]] = m["unit"];
  CHECK(units == std::map<std::string, std::string>{
                     {"read_bytes", "bytes"}, {"write_bytes", "bytes"}, {"cpu_time", "s"}, {"rss.max", "KiB"}});
  // A node-wide array says that several steps' series of one node are the same counters.
  const Run net = Xtfq(dir, "grid s.xtfq --array slurm/100/net --cols 1 --format json");
  REQUIRE_MESSAGE(net.status == 0, net.err);
  const nlohmann::json nj = nlohmann::json::parse(net.out);
  CHECK(nj["metrics"][0]["unit"] == "bytes");
  CHECK(nj["metrics"][2]["unit"] == "packets");
  CHECK_MESSAGE(nj["notes"].dump().find("count one series a node") != std::string::npos, nj["notes"].dump());
  const nlohmann::json q =
      nlohmann::json::parse(Xtfq(dir, "query s.xtfq --job 100 --kind tasks --by job --edges sample --format json").out);
  CHECK(sums["read_bytes"] == q["groups"][0]["read_bytes"].get<double>());
  CHECK(sums["write_bytes"] == q["groups"][0]["write_bytes"].get<double>());
  // Rows named as Slurm names the series; an id that is none of the array's series is refused.
  const Run rows = Xtfq(dir, "grid s.xtfq --array slurm/100/tasks --rows 3 --fit-rows --format json");
  REQUIRE_MESSAGE(rows.status == 0, rows.err);
  CHECK(nlohmann::json::parse(rows.out)["row_labels"] ==
        nlohmann::json::array({"step 0 n1 task 0", "step 0 n2 task 1", "step batch n1 task 0"}));
  const Run stray = Xtfq(dir, "grid s.xtfq --array slurm/100/net --processes 0,2");
  CHECK(stray.status == 2);
  CHECK_MESSAGE(stray.err.find("is not a series of slurm/100/net (its series: ") != std::string::npos, stray.err);
  // The wall clock's windows: @EPOCH and ISO 8601 on a Slurm array.
  const Run iso =
      Xtfq(dir, "grid s.xtfq --array slurm/100/tasks --time 2026-11-22T03:46:50Z:@1795319215 --format json");
  REQUIRE_MESSAGE(iso.status == 0, iso.err);
  CHECK(nlohmann::json::parse(iso.out)["time"]["edges"].front() == 1795319210);
}

TEST_CASE("slurm import: --slurm-version 25.11 takes Filesystem values as deltas, 22.05 differences running totals") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  if (H5DumpMissing()) return;
  TempDir dir;
  const std::string file = Job100(data)[0];
  // The raw values, summed from h5dump's text.
  const H5DumpText d = H5DumpText::Dump(file);
  REQUIRE(d.ok);
  double raw_read = 0, raw_write = 0, last_read = 0;
  for (const H5DumpDataset& ds : d.datasets) {
    if (!ds.path.ends_with("/Filesystem")) continue;
    const size_t r = std::find(ds.fields.begin(), ds.fields.end(), "ReadMB") - ds.fields.begin();
    const size_t w = std::find(ds.fields.begin(), ds.fields.end(), "WriteMB") - ds.fields.begin();
    for (const auto& row : ds.rows) raw_read += Num(row[r]) * 1048576.0, raw_write += Num(row[w]) * 1048576.0;
    last_read = Num(ds.rows.back()[r]) * 1048576.0;
  }
  REQUIRE(Xtfq(dir, fmt::format("import -q -o new.xtfq '{}' --slurm-version 25.11", file)).status == 0);
  REQUIRE(Xtfq(dir, fmt::format("import -q -o old.xtfq '{}'", file)).status == 0);
  const nlohmann::json fresh =
      nlohmann::json::parse(Xtfq(dir, "query new.xtfq --kind fs --format json").out)["groups"][0];
  const nlohmann::json old =
      nlohmann::json::parse(Xtfq(dir, "query old.xtfq --kind fs --format json").out)["groups"][0];
  CHECK(fresh["read_bytes"] == raw_read);
  CHECK(fresh["write_bytes"] == raw_write);
  CHECK(old["read_bytes"] == last_read);  // the running total's last value: 160 MiB
  CHECK(last_read == 160.0 * 1048576);
  CHECK(Xtfq(dir, fmt::format("import -q -o bad.xtfq '{}' --slurm-version 25", file)).status == 2);
}

TEST_CASE("slurm job: a profile held by two stores counts once, and says so") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm" / "b-two-nodes";
  if (SharedMissing(data)) return;
  TempDir dir;
  REQUIRE(Xtfq(dir, fmt::format("import -q -o ns.xtfq '{}'", (data / "profile").string())).status == 0);
  REQUIRE(Xtfq(dir, fmt::format("import -q -o m.xtfq '{}'", (data / "merged" / "job_100.h5").string())).status == 0);
  const Run one = Xtfq(dir, "job 100 ns.xtfq --format json");
  const Run both = Xtfq(dir, "job 100 ns.xtfq m.xtfq --format json");
  REQUIRE_MESSAGE(both.status == 0, both.err);
  const nlohmann::json a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(both.out);
  CHECK(a["totals"]["slurm"] == b["totals"]["slurm"]);
  CHECK(a["totals"]["slurm_fs"] == b["totals"]["slurm_fs"]);
  bool noted = false;
  for (const auto& n : b["notes"])
    noted = noted || n.get<std::string>().find("are the same as ns.xtfq's") != std::string::npos;
  CHECK_MESSAGE(noted, both.out);
}

TEST_CASE("slurm query: flags that do not apply, unknown kinds and bad ids are usage errors") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  TempDir dir;
  const std::vector<std::string> files = Job100(data);
  REQUIRE(Xtfq(dir, fmt::format("import -q -o s.xtfq '{}'", files[0])).status == 0);
  const Run rank = Xtfq(dir, "query s.xtfq --per-rank");
  CHECK(rank.status == 2);
  CHECK_MESSAGE(rank.err.find("--per-rank does not apply to Slurm profiles") != std::string::npos, rank.err);
  const Run kind = Xtfq(dir, "query s.xtfq --kind disk");
  CHECK(kind.status == 2);
  const Run step = Xtfq(dir, "query s.xtfq --step first");
  CHECK(step.status == 2);
  CHECK(step.err.find("--step 'first'") != std::string::npos);
  const Run job = Xtfq(dir, "query s.xtfq --job 10x");
  CHECK(job.status == 2);
  CHECK(job.err.find("--job '10x' is not a job id") != std::string::npos);
  const Run by = Xtfq(dir, "query s.xtfq --by target");
  CHECK(by.status == 2);
  CHECK(by.err.find("--by 'target': give job, step, node or task") != std::string::npos);
  const Run both = Xtfq(dir, "query s.xtfq --slurm --jobstats");
  CHECK(both.status == 2);
  // A grid without --array names the sample arrays to give.
  const Run grid = Xtfq(dir, "grid s.xtfq");
  CHECK(grid.status == 2);
  CHECK_MESSAGE(grid.err.find("and no 'events': give --array, one of slurm/100/tasks, slurm/100/fs, slurm/100/net") !=
                    std::string::npos,
                grid.err);
  // Two Darshan logs beside the profile: the ambiguous log's usage error points at --slurm too.
  REQUIRE(Xtfq(dir, "gen darshan 200 --ranks 2 --files 10 -o a.darshan").status == 0);
  REQUIRE(Xtfq(dir, "gen darshan 200 --ranks 2 --files 10 --seed 9 -o b.darshan").status == 0);
  REQUIRE(Xtfq(dir, fmt::format("import -q -o m.xtfq a.darshan b.darshan '{}'", files[0])).status == 0);
  const Run mixed = Xtfq(dir, "query m.xtfq");
  CHECK(mixed.status == 2);
  CHECK_MESSAGE(mixed.err.find("give --log N") != std::string::npos, mixed.err);
  CHECK_MESSAGE(mixed.err.find("(the store also holds Slurm profiles: give --slurm for those)") != std::string::npos,
                mixed.err);
  CHECK(Xtfq(dir, "query m.xtfq --slurm").status == 0);
  const Run node_flag = Xtfq(dir, "query m.xtfq --node n1");
  CHECK(node_flag.status == 2);
  CHECK_MESSAGE(node_flag.err.find("--node does not apply to Darshan logs") != std::string::npos, node_flag.err);
  CHECK_MESSAGE(node_flag.err.find("give --slurm for those") != std::string::npos, node_flag.err);
  // A job the store does not hold: nothing selected, said so.
  const Run none = Xtfq(dir, "query s.xtfq --job 7");
  CHECK(none.status != 0);
  CHECK_MESSAGE(none.err.find("no Slurm sample of the series selected: the store holds jobs 100, not the job given") !=
                    std::string::npos,
                none.err);
  const Run node = Xtfq(dir, "query s.xtfq --node n3");
  CHECK(node.status != 0);
  CHECK_MESSAGE(
      node.err.find("(the store holds jobs 100; they have steps 0 on nodes n1; see xtfq info)") != std::string::npos,
      node.err);
  // Lists take commas, and batch is also -5 (as the influxdb plugin prints it).
  const Run listed = Xtfq(dir, "query s.xtfq --kind fs,net --step 0,-5 --by step --format json");
  REQUIRE_MESSAGE(listed.status == 0, listed.err);
  CHECK(nlohmann::json::parse(listed.out)["groups"].size() == 2);  // step 0's Filesystem and Network on n1
  // 0%:100% is the default window: from the first start to the last sample, taken in.
  const Run all = Xtfq(dir, "query s.xtfq --format json");
  const Run pct = Xtfq(dir, "query s.xtfq --time 0%:100% --format json");
  CHECK(nlohmann::json::parse(all.out)["window"] == nlohmann::json::parse(pct.out)["window"]);
}

}  // namespace
}  // namespace xtfq::test

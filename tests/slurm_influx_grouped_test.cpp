// Slurm 26.05's influxdb plugin forms (no capture of them exists, so the lines are built here with
// the plugin's own format strings, from SchedMD/slurm src/plugins/acct_gather_profile/influxdb/
// acct_gather_profile_influxdb.c as of 26.05): the grouped form (ProfileInfluxDBFlags=
// grouped_fields: one line per sample, `task`/`network`/`filesystem`/`energy` measurements, tags
// host,job[,sluid],step,task sorted with 26.05's extra tags, integers "%PRIu64i", doubles %.9g,
// step names such as batch) and 26.05's per-field form (tags host,job,step[,task], step %u, no task
// tag on a node's series) import to the same series, rows and values as the 22.05 per-field form
// (`<Field>,job=%d,step=%d,task=%s,host=%s value=...`, as ../shared/data/slurm/c-influxdb holds) of
// the same samples, and those values are the ones in the table below. Bad grouped lines are
// refused naming the file and line.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "index/tn_tree.h"
#include "layouts/slurm_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "tests/slurm_stored.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;
using L = SlurmLayout;

constexpr int64_t kJob = 4711;
constexpr uint32_t kBatch = 0xfffffffb;  // SLURM_BATCH_SCRIPT

// One field of a sample: a u64 (PROFILE_FIELD_UINT64) or a double (PROFILE_FIELD_DOUBLE).
struct Field {
  std::string name;
  bool is_u64;
  uint64_t u = 0;
  double d = 0;
};
Field U(std::string name, uint64_t v) { return Field{std::move(name), true, v, 0}; }
Field D(std::string name, double v) { return Field{std::move(name), false, 0, v}; }

// One acct_gather_profile_p_add_sample_data call: a dataset ("task" with its task id, or the
// node's "Network", "Filesystem", "Energy") of a step on a host, at a time.
struct Sample {
  uint32_t step;  // step_id.step_id
  std::string host;
  std::string dataset;  // the name create_dataset got: the task id, or "Network", ...
  bool task;            // a per-task dataset (parent != NO_PARENT)
  uint64_t time;
  std::vector<Field> fields;
};

// The table: values chosen so that %.2f and %.9g print them exactly (0 and 20 print as "0" and "20"
// under %.9g), one u64 above INT64_MAX, a repeated sample at one time, the batch step, and a field
// no schema has (LaterField, stored in slurm/<job>/other like every Energy value).
std::vector<Sample> Table() {
  const uint64_t t = 1795400000;
  auto task = [](double cpu, uint64_t rss, uint64_t pages, double rmb, double wmb, double gutil, double later) {
    return std::vector<Field>{U("CPUFrequency", 2445),
                              D("CPUTime", cpu),
                              D("CPUUtilization", cpu * 2),
                              U("RSS", rss),
                              U("VMSize", rss * 3),
                              U("Pages", pages),
                              D("ReadMB", rmb),
                              D("WriteMB", wmb),
                              U("GPUMemMB", 1024),
                              D("GPUUtilization", gutil),
                              D("LaterField", later)};
  };
  auto net = [](uint64_t in, uint64_t out, double inmb, double outmb) {
    return std::vector<Field>{U("PacketsIn", in), U("PacketsOut", out), D("InMB", inmb), D("OutMB", outmb)};
  };
  auto fsys = [](uint64_t r, double rmb, uint64_t w, double wmb) {
    return std::vector<Field>{U("Reads", r), D("ReadMB", rmb), U("Writes", w), D("WriteMB", wmb)};
  };
  return {
      {0, "n1", "Network", false, t, net(0, 0, 0, 0)},
      {0, "n1", "0", true, t, task(0, 4644, 0, 0, 0, 0, 0)},
      {0, "n2", "1", true, t, task(0.5, 5000000000, 18446744073709551614ull, 1.25, 20, 37.5, 2.5)},
      {0, "n1", "Filesystem", false, t, fsys(0, 0, 0, 0)},
      {kBatch, "n1", "0", true, t, task(0.25, 3000, 1, 0, 0.75, 0, -1.5)},
      {kBatch, "n1", "Energy", false, t, {U("Power", 123)}},
      {0, "n1", "Network", false, t + 1, net(10754, 10750, 1.5, 0.25)},
      {0, "n1", "0", true, t + 1, task(1.5, 204800, 7, 300.75, 20, 99.5, 0)},
      {0, "n1", "0", true, t + 1, task(1.75, 204801, 8, 300.75, 20.5, 100, 3)},  // a repeat at t + 1
      {0, "n2", "1", true, t + 1, task(2, 5000000001, 3, 2.5, 40, 0, 0)},
      {0, "n1", "Filesystem", false, t + 1, fsys(20, 0, 20, 20)},
      {kBatch, "n1", "0", true, t + 2, task(3, 3100, 2, 10, 1024, 0, 0)},
      {kBatch, "n1", "Energy", false, t + 2, {U("Power", 0)}},
  };
}

// printf's text of `format` (the plugin's xstrfmtcat formats); lines here are far below 4096 bytes.
template <typename... A>
std::string Printf(const char* format, A... a) {
  std::string s(4096, '\0');
  const int n = std::snprintf(s.data(), s.size(), format, a...);
  REQUIRE((n >= 0 && static_cast<size_t>(n) < s.size()));
  s.resize(static_cast<size_t>(n));
  return s;
}

// Slurm 22.05 (and up to 25.11): a line per field, acct_gather_profile_p_add_sample_data's
// "%s,job=%d,step=%d,task=%s,host=%s value=%"PRIu64" %"PRIu64"\n" and
// "%s,job=%d,step=%d,task=%s,host=%s value=%.2f %"PRIu64"\n".
std::string PerField2205(const std::vector<Sample>& table) {
  std::string out;
  for (const Sample& s : table) {
    for (const Field& f : s.fields) {
      const int step = static_cast<int>(s.step);  // %d of a uint32_t: the batch step is -5
      out += f.is_u64 ? Printf("%s,job=%d,step=%d,task=%s,host=%s value=%" PRIu64 " %" PRIu64 "\n", f.name.c_str(),
                               static_cast<int>(kJob), step, s.dataset.c_str(), s.host.c_str(), f.u, s.time)
                      : Printf("%s,job=%d,step=%d,task=%s,host=%s value=%.2f %" PRIu64 "\n", f.name.c_str(),
                               static_cast<int>(kJob), step, s.dataset.c_str(), s.host.c_str(), f.d, s.time);
    }
  }
  return out;
}

// 26.05's tags (create_dataset): "host=%s,job=%d", ",step=%s", and ",task=%s" for a task's
// dataset only; with grouped_fields the step as log_build_step_id_str names it, else "%u".
std::string Tags2605(const Sample& s, bool grouped) {
  std::string step = s.step == kBatch && grouped ? "batch" : std::to_string(s.step);
  std::string tags = Printf("host=%s,job=%d", s.host.c_str(), static_cast<int>(kJob));
  tags += Printf(",step=%s", step.c_str());
  if (s.task) tags += Printf(",task=%s", s.dataset.c_str());
  return tags;
}

// 26.05 without grouped_fields: "%s,%s value=%"PRIu64"%s" and "%s,%s value=%.2f%s", the suffix
// " %"PRIu64"\n"; sent to "<host>/write?db=<db>&precision=s" with "&rp=<policy>" when one is set.
std::string PerField2605(const std::vector<Sample>& table) {
  std::string out = "### 1795400003.125 POST /write?db=slurm_profile&precision=s&rp=autogen\n";
  for (const Sample& s : table) {
    const std::string tags = Tags2605(s, false), suffix = Printf(" %" PRIu64 "\n", s.time);
    for (const Field& f : s.fields) {
      out += f.is_u64 ? Printf("%s,%s value=%" PRIu64 "%s", f.name.c_str(), tags.c_str(), f.u, suffix.c_str())
                      : Printf("%s,%s value=%.2f%s", f.name.c_str(), tags.c_str(), f.d, suffix.c_str());
    }
  }
  return out;
}

// 26.05 with grouped_fields: the prefix "%s,%s " (the dataset's name lowercased: "task" for a
// task's), then "%s%s=%"PRIu64"i" or "%s%s=%.9g" per field with "," between, then the suffix.
// With `extra`, ProfileInfluxDBExtraTags=cluster,sluid,uid,user on the batch step's lines (tags in
// alphabetical order: "cluster=%s," first, ",sluid=%s" after job, ",uid=%lu,user=%s" last).
std::string Grouped2605(const std::vector<Sample>& table, bool extra) {
  std::string out;
  for (const Sample& s : table) {
    std::string name = s.task ? "task" : s.dataset;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string tags = Tags2605(s, true);
    if (extra && s.step == kBatch) {
      tags = "cluster=c1," + tags;
      tags.insert(tags.find(",step="), ",sluid=s0ABC123");
      tags += Printf(",uid=%lu", 1000ul) + Printf(",user=%s", "alice");
    }
    std::string line = Printf("%s,%s ", name.c_str(), tags.c_str());
    const char* delim = "";
    for (const Field& f : s.fields) {
      line += f.is_u64 ? Printf("%s%s=%" PRIu64 "i", delim, f.name.c_str(), f.u)
                       : Printf("%s%s=%.9g", delim, f.name.c_str(), f.d);
      delim = ",";
    }
    out += line + Printf(" %" PRIu64 "\n", s.time);
  }
  return out;
}

void Write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream out(dir.File(name));
  out << text;
}

// The values of slurm/<job>/other by (series, row, field): type and bits.
std::map<std::tuple<uint32_t, uint32_t, std::string>, std::pair<uint8_t, uint64_t>> Others(const std::string& store) {
  std::map<std::tuple<uint32_t, uint32_t, std::string>, std::pair<uint8_t, uint64_t>> out;
  auto reader = StoreReader::Open(store);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto other = (*reader)->Array(L::JobArrayName(kJob, "other"));
  REQUIRE_MESSAGE(other.ok(), Why(other));
  TnTree t((*reader)->cache(), **other);
  REQUIRE(t.ForEach(0, t.size(), [&](const std::byte* p) -> Result<bool> {
             const std::string name = (*reader)->String(StringRef::Unpack(LoadLe<uint64_t>(p + L::kOtField))).value();
             out[{LoadLe<uint32_t>(p + L::kSeriesId), LoadLe<uint32_t>(p + L::kRow), name}] = {
                 LoadLe<uint8_t>(p + L::kOtType), LoadLe<uint64_t>(p + L::kOtValue)};
             return true;
           }).ok());
  return out;
}

TEST_CASE("slurm influx: the grouped and per-field forms of 26.05 import to the rows and values of 22.05's form") {
  TempDir dir;
  const std::vector<Sample> table = Table();
  Write(dir, "f2205.txt", PerField2205(table));
  Write(dir, "f2605.txt", PerField2605(table));
  Write(dir, "g2605.txt", Grouped2605(table, false));
  Write(dir, "x2605.txt", Grouped2605(table, true));
  size_t lines = 0;
  for (const Sample& s : table) lines += s.fields.size();
  Run a = Xtfq(dir, "import --format slurm-influx -o a.xtfq f2205.txt");
  REQUIRE_MESSAGE(a.status == 0, a.err);
  CHECK_MESSAGE(
      a.err.find(fmt::format("{} lines, 0 comment lines) of job 4711: 6 series, 13 rows", lines)) != std::string::npos,
      a.err);
  Run b = Xtfq(dir, "import --format slurm-influx -o b.xtfq f2605.txt");
  REQUIRE_MESSAGE(b.status == 0, b.err);
  CHECK_MESSAGE(
      b.err.find(fmt::format("{} lines, 1 comment lines) of job 4711: 6 series, 13 rows", lines)) != std::string::npos,
      b.err);
  // The grouped capture is recognised without --format (its first line, network's, has no task tag).
  Run c = Xtfq(dir, "import -o c.xtfq g2605.txt");
  REQUIRE_MESSAGE(c.status == 0, c.err);
  CHECK_MESSAGE(c.err.find(fmt::format("{} lines, 0 comment lines) of job 4711: 6 series, 13 rows", table.size())) !=
                    std::string::npos,
                c.err);
  Run x = Xtfq(dir, "import --format slurm-influx -o x.xtfq x2605.txt");
  REQUIRE_MESSAGE(x.status == 0, x.err);

  const Stored sa = Stored::Read(dir.File("a.xtfq"));
  const auto oa = Others(dir.File("a.xtfq"));
  REQUIRE(sa.series.size() == 6);
  for (const std::string store : {"b.xtfq", "c.xtfq", "x.xtfq"}) {
    CAPTURE(store);
    const Stored s = Stored::Read(dir.File(store));
    REQUIRE(s.series.size() == sa.series.size());
    for (size_t i = 0; i < s.series.size(); ++i) {
      CAPTURE(i);
      const Series &p = sa.series[i], &q = s.series[i];
      CHECK(q.job == p.job);
      CHECK(q.step == p.step);
      CHECK(q.node == p.node);
      CHECK(q.kind == p.kind);
      CHECK(q.task == p.task);
      CHECK(q.rows == p.rows);
      CHECK(q.source == L::kInflux);
      CHECK(q.flags == p.flags);
      CHECK(sa.rows.count(p.id) == s.rows.count(q.id));
      if (sa.rows.count(p.id)) CHECK(s.rows.at(q.id) == sa.rows.at(p.id));  // every stored byte
    }
    CHECK(Others(dir.File(store)) == oa);
  }
  // Paths name the series as the lines did: the step as sent, the task tag or the series' kind.
  const Stored sc = Stored::Read(dir.File("c.xtfq"));
  CHECK(sa.series[0].path == "job=4711,step=0,task=Network,host=n1");
  CHECK(sc.series[0].path == "job=4711,step=0,task=Network,host=n1");
  CHECK(sa.series[4].path == "job=4711,step=-5,task=0,host=n1");
  CHECK(sc.series[4].path == "job=4711,step=batch,task=0,host=n1");
  const Stored sb = Stored::Read(dir.File("b.xtfq"));
  CHECK(sb.series[3].path == "job=4711,step=0,task=Filesystem,host=n1");
  CHECK(sb.series[5].path == "job=4711,step=4294967291,task=Energy,host=n1");

  // Independent of the parser: every value of the table is stored, in its series' rows in order.
  const auto oc = Others(dir.File("c.xtfq"));
  std::map<std::tuple<uint32_t, std::string, std::string>, uint32_t> next_row;  // (step, host, dataset)
  for (const Sample& smp : table) {
    CAPTURE(smp.dataset);
    CAPTURE(smp.time);
    const int64_t step = smp.step == kBatch ? L::kBatchStep : static_cast<int64_t>(smp.step);
    const uint8_t kind = smp.task                      ? L::kTasks
                         : smp.dataset == "Network"    ? L::kNetwork
                         : smp.dataset == "Filesystem" ? L::kFilesystem
                                                       : L::kEnergy;
    auto it = std::find_if(sc.series.begin(), sc.series.end(), [&](const Series& x) {
      return x.job == kJob && x.step == step && x.node == smp.host && x.kind == kind &&
             (!smp.task || x.task == std::stoll(smp.dataset));
    });
    REQUIRE(it != sc.series.end());
    const uint32_t row = next_row[{smp.step, smp.host, smp.dataset}]++;
    const std::vector<std::byte>* rec = nullptr;
    if (kind != L::kEnergy) {
      REQUIRE(sc.rows.at(it->id).size() > row);
      rec = &sc.rows.at(it->id)[row];
      CHECK(LoadLe<int64_t>(rec->data() + L::kT) == static_cast<int64_t>(smp.time));
    }
    for (const Field& f : smp.fields) {
      CAPTURE(f.name);
      const auto [at, type] = kind == L::kEnergy ? std::pair<uint32_t, char>{0, 0} : Column(kind, f.name);
      if (type == 'u' || (type == 0 && (f.name == "GPUMemMB"))) {
        CHECK(LoadLe<uint64_t>(rec->data() + (type ? at : L::kTaGpuMemMb)) == f.u);
      } else if (type == 'f' || f.name == "GPUUtilization") {
        CHECK(LoadLe<double>(rec->data() + (type ? at : L::kTaGpuUtil)) == f.d);
      } else {  // LaterField and Energy's Power: one record each in slurm/<job>/other
        auto o = oc.find({it->id, row, f.name});
        REQUIRE(o != oc.end());
        if (f.is_u64) {
          CHECK(o->second.first == L::kU64);
          CHECK(o->second.second == f.u);
        } else {
          CHECK(o->second.first == L::kF64);  // %.9g's "0" is a double too
          CHECK(std::bit_cast<double>(o->second.second) == f.d);
        }
      }
    }
  }
}

TEST_CASE("slurm influx: bad grouped lines are refused, naming the file and line") {
  TempDir dir;
  const std::string good = "task,host=n1,job=7,step=batch,task=0 CPUFrequency=2445i,CPUTime=0.5,RSS=4644i 1795319309\n";
  struct Case {
    std::string line, says;
  };
  for (const Case& c : {
           Case{"task,host=n1,job=7,step=0,task=0 CPUFrequency=2445i,RSS= 1795319310", "field 'RSS': no value"},
           Case{"task,host=n1,job=7,step=0,task=0 CPUFrequency=2445i,RSS 1795319310", "field 'RSS' has no '='"},
           Case{"task,host=n1,job=7,step=0,task=0 RSS=12.5i 1795319310",
                "field 'RSS': '12.5i' is not an integer (its 'i' suffix marks one)"},
           Case{"task,host=n1,job=7,step=0,task=0 RSS=12x 1795319310", "field 'RSS': '12x' is not a number"},
           Case{"task,host=n1,job=7,step=0,task=0 RSS=-3u 1795319310",
                "field 'RSS': '-3u' is not an integer (its 'u' suffix marks one)"},
           Case{"task,host=n1,job=7,step=0,task=0 CPUTime=abc 1795319310", "field 'CPUTime': 'abc' is not a number"},
           Case{"task,host=n1,job=7,step=0,task=0 RSS=4644i", "no time"},
           Case{"task,host=n1,job=7,step=0 RSS=4644i 1795319310", "measurement 'task' has no 'task' tag"},
           Case{"network,job=7,step=0 PacketsIn=1i 1795319310", "no 'host' tag"},
           Case{"CPUTime,host=n1,job=7,step=0 value=0.50 1795319310", "no 'task' tag"},
       }) {
    CAPTURE(c.line);
    Write(dir, "g.txt", good + c.line + "\n");
    Run r = Xtfq(dir, "import -q --format slurm-influx -o g.xtfq g.txt");
    CHECK(r.status == 1);
    CHECK_MESSAGE(r.err.find("g.txt: line 2: " + c.says) != std::string::npos, r.err);
    CHECK_FALSE(fs::exists(dir.File("g.xtfq")));
  }
  // The good line alone imports.
  Write(dir, "g.txt", good);
  Run r = Xtfq(dir, "import -q --format slurm-influx -o ok.xtfq g.txt");
  CHECK_MESSAGE(r.status == 0, r.err);
}

}  // namespace
}  // namespace xtfq::test

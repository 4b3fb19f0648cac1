// `xtfq gen slurm` (gen/SlurmProfileWriter): the files it writes are what Slurm 22.05's
// acct_gather_profile/hdf5 plugin and sh5util -S write, read independently by h5dump (the values
// equal truth_rows.csv, the layout, attributes and storage are 22.05's, the quirks show on the
// rows where Slurm puts them), and `xtfq import` with `xtfq query --slurm` gives back truth.csv's
// totals, with a merged file's copies stored once as duplicates. Bad flags exit 2.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "layouts/slurm_layout.h"
#include "tests/h5dump_text.h"
#include "tests/shared_data.h"
#include "tests/slurm_stored.h"
#include "tests/temp_dir.h"
#include "tests/truth_csv.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kStart = 1795319205;  // "Sun Nov 22 03:46:45 2026"

// truth.csv's columns.
enum TruthColumn : size_t {
  kFile,
  kDataset,
  kStep,
  kNode,
  kTask,
  kKind,
  kRows,
  kStartCol,
  kReadBytes,
  kWriteBytes,
  kCpuTime,
  kReads,
  kWrites,
  kInBytes,
  kOutBytes,
  kInPackets,
  kOutPackets,
  kColumns
};
constexpr const char* kTruthHeader =
    "file,dataset,step,node,task,kind,rows,start,read_bytes,write_bytes,cpu_time,reads,writes,in_bytes,out_bytes,"
    "in_packets,out_packets";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What a shell command prints on stdout.
std::string Output(const std::string& cmd) {
  std::string text;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  ::pclose(p);
  return text;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

bool IsDouble(const std::string& field) {
  static const std::set<std::string> f = {"CPUTime", "CPUUtilization", "ReadMB", "WriteMB", "InMB", "OutMB"};
  return f.count(field) != 0;
}

uint64_t U(const std::string& s) { return s.empty() ? 0 : std::stoull(s); }
double D(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// The per-task, Filesystem and Network totals truth.csv gives for what `xtfq query --slurm --by
// task` sums: every Tasks series of a task (step 0 and batch), and the node-wide series once per
// node (step 0's: the batch step's repeat the same counters).
struct Expected {
  struct Task {
    uint64_t read = 0, write = 0, rows = 0, series = 0;
    double cpu = 0;
  };
  std::map<std::string, Task> tasks;
  uint64_t fs_read = 0, fs_write = 0, fs_reads = 0, fs_writes = 0;
  uint64_t in_bytes = 0, out_bytes = 0, in_packets = 0, out_packets = 0;
  uint64_t series = 0, rows = 0, task_series = 0, net_series = 0, fs_series = 0;

  static Expected From(const std::vector<std::vector<std::string>>& truth) {
    Expected e;
    for (const auto& t : truth) {
      REQUIRE(t.size() == kColumns);
      ++e.series, e.rows += U(t[kRows]);
      if (t[kKind] == "Tasks") {
        Task& k = e.tasks[t[kTask]];
        k.read += U(t[kReadBytes]), k.write += U(t[kWriteBytes]), k.rows += U(t[kRows]), ++k.series;
        k.cpu += D(t[kCpuTime]);
        ++e.task_series;
      } else if (t[kKind] == "Filesystem") {
        ++e.fs_series;
        if (t[kStep] != "0") continue;
        e.fs_read += U(t[kReadBytes]), e.fs_write += U(t[kWriteBytes]);
        e.fs_reads += U(t[kReads]), e.fs_writes += U(t[kWrites]);
      } else {
        REQUIRE(t[kKind] == "Network");
        ++e.net_series;
        if (t[kStep] != "0") continue;
        e.in_bytes += U(t[kInBytes]), e.out_bytes += U(t[kOutBytes]);
        e.in_packets += U(t[kInPackets]), e.out_packets += U(t[kOutPackets]);
      }
    }
    return e;
  }
};

// `xtfq query STORE --slurm --by task --edges sample --format json` against `e`.
void CheckQuery(const TempDir& dir, const std::string& store, const Expected& e) {
  const Run q = Xtfq(dir, fmt::format("query {} --slurm --by task --edges sample --format json", store));
  REQUIRE_MESSAGE(q.status == 0, q.err);
  const nlohmann::json j = nlohmann::json::parse(q.out);
  size_t tasks = 0, fs = 0, net = 0;
  for (const nlohmann::json& g : j.at("groups")) {
    const std::string kind = g.at("kind").get<std::string>(), task = g.at("task").get<std::string>();
    CAPTURE(kind);
    CAPTURE(task);
    if (kind == "Tasks") {
      ++tasks;
      REQUIRE(e.tasks.count(task) == 1);
      const Expected::Task& want = e.tasks.at(task);
      CHECK(g.at("read_bytes").get<double>() == static_cast<double>(want.read));
      CHECK(g.at("write_bytes").get<double>() == static_cast<double>(want.write));
      CHECK(std::abs(g.at("cpu_s").get<double>() - want.cpu) <= 1e-9 * want.cpu);
      CHECK(g.at("rows").get<uint64_t>() == want.rows);
      CHECK(g.at("series").get<uint64_t>() == want.series);
    } else if (kind == "Filesystem") {
      ++fs;
      CHECK(g.at("read_bytes").get<double>() == static_cast<double>(e.fs_read));
      CHECK(g.at("write_bytes").get<double>() == static_cast<double>(e.fs_write));
      CHECK(g.at("reads").get<double>() == static_cast<double>(e.fs_reads));
      CHECK(g.at("writes").get<double>() == static_cast<double>(e.fs_writes));
    } else {
      REQUIRE(kind == "Network");
      ++net;
      CHECK(g.at("in_bytes").get<double>() == static_cast<double>(e.in_bytes));
      CHECK(g.at("out_bytes").get<double>() == static_cast<double>(e.out_bytes));
      CHECK(g.at("in_packets").get<double>() == static_cast<double>(e.in_packets));
      CHECK(g.at("out_packets").get<double>() == static_cast<double>(e.out_packets));
    }
  }
  CHECK(tasks == e.tasks.size());
  CHECK(fs == 1);
  CHECK(net == 1);
}

std::vector<std::vector<std::string>> ReadTruth(const std::string& path) {
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  CHECK(header == kTruthHeader);
  return ReadTruthCsv(path);
}

TEST_CASE(
    "gen slurm: h5dump of every file prints truth_rows.csv, in Slurm 22.05's layout, the same for the same seed") {
  if (H5DumpMissing()) return;
  TempDir dir;
  const std::string g = dir.File("g");
  const std::string opts = fmt::format("--job 77 --start {} --nodes 3 --tasks 4 --samples 23 --interval 7", kStart);
  const Run gen = Xtfq(dir, fmt::format("gen slurm -o g {} --seed 5 --merged --truth-rows", opts));
  REQUIRE_MESSAGE(gen.status == 0, gen.err);
  CHECK_MESSAGE(gen.err.find("5 HDF5 files") != std::string::npos, gen.err);
  // The rows truth_rows.csv says were written, by (file, dataset).
  std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::string>>> want;
  for (auto& r : ReadTruthCsv(g + "/truth_rows.csv")) {
    REQUIRE(r.size() >= 3);
    auto& rows = want[{r[0], r[1]}];
    CHECK(std::stoull(r[2]) == rows.size());
    rows.emplace_back(r.begin() + 3, r.end());
  }
  const std::vector<std::string> node_steps = {"77_0_n1.h5", "77_0_n2.h5", "77_0_n3.h5", "77_batch_n1.h5"};
  CHECK(want.size() == 3 * (4 + 2) + 3);
  // Every dataset of the node-step files, and of the merged file (its copies), against it.
  size_t compared = 0;
  auto compare = [&](const H5DumpDataset& d, const std::vector<std::vector<std::string>>& rows) {
    CAPTURE(d.path);
    REQUIRE(d.rows.size() == rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      CAPTURE(r);
      REQUIRE(d.rows[r].size() == d.fields.size());
      REQUIRE(rows[r].size() == d.fields.size());
      for (size_t c = 0; c < d.fields.size(); ++c) {
        CAPTURE(d.fields[c]);
        if (IsDouble(d.fields[c])) {
          CHECK(D(d.rows[r][c]) == D(rows[r][c]));
        } else {
          CHECK(std::stoull(d.rows[r][c]) == std::stoull(rows[r][c]));
        }
      }
    }
    ++compared;
  };
  for (const std::string& f : node_steps) {
    CAPTURE(f);
    const H5DumpText dump = H5DumpText::Dump(g + "/" + f);
    REQUIRE(dump.ok);
    const bool batch = f.find("batch") != std::string::npos;
    const std::string node = f.substr(f.rfind('_') + 1, 2);
    const int index = node[1] - '1';
    // The node group's five attributes, as node_step_start writes them.
    const auto& a = dump.attributes.at("/" + node);
    CHECK(a.size() == 5);
    CHECK(a.at("Node Index") == std::to_string(index));
    CHECK(a.at("Node Name") == node);
    CHECK(a.at("Number of Tasks") == (batch ? "1" : "4"));
    CHECK(a.at("CPUs per Task") == (batch ? "4" : "1"));
    CHECK(a.at("Start Time") == "Sun Nov 22 03:46:45 2026");
    std::set<std::string> paths;
    for (const H5DumpDataset& d : dump.datasets) {
      paths.insert(d.path);
      REQUIRE(want.count({f, d.path}) == 1);
      compare(d, want.at({f, d.path}));
      auto col = [&](const char* n) {
        const auto it = std::find(d.fields.begin(), d.fields.end(), n);
        REQUIRE(it != d.fields.end());
        return static_cast<size_t>(it - d.fields.begin());
      };
      const size_t el = col("ElapsedTime"), ep = col("EpochTime");
      // Every row: EpochTime - ElapsedTime is the step's start.
      for (const auto& row : d.rows) CHECK(std::stoull(row[ep]) - std::stoull(row[el]) == kStart);
      const auto& rows = d.rows;
      if (d.path.find("/Tasks/") != std::string::npos) {
        CHECK(d.fields.size() == 10);
        CHECK(rows.size() == 23 + 1);
        // Row 0 at ElapsedTime 1 with zero deltas and no frequency yet; the last row again at the
        // same time (the final poll), no utilization there.
        CHECK(rows[0][el] == "1");
        for (const char* z : {"CPUFrequency", "CPUTime", "CPUUtilization", "ReadMB", "WriteMB"})
          CHECK(D(rows[0][col(z)]) == 0);
        CHECK(rows[rows.size() - 1][ep] == rows[rows.size() - 2][ep]);
        CHECK(D(rows.back()[col("CPUUtilization")]) == 0);
        for (size_t r = 1; r + 1 < rows.size(); ++r) {
          CAPTURE(r);
          CHECK(std::stoull(rows[r][el]) == 1 + 7 * r);
          const double cpu = D(rows[r][col("CPUTime")]);
          CHECK(D(rows[r][col("CPUUtilization")]) == 100.0 * cpu / 7.0);
          CHECK(std::abs(cpu * 100 - std::round(cpu * 100)) < 1e-6);  // hundredths of a second
          CHECK(std::stoull(rows[r][col("VMSize")]) >= std::stoull(rows[r - 1][col("VMSize")]));
          CHECK(std::stoull(rows[r][col("Pages")]) >= std::stoull(rows[r - 1][col("Pages")]));
        }
        for (const auto& row : rows) {
          for (const char* mb : {"ReadMB", "WriteMB"}) {
            const double bytes = D(row[col(mb)]) * 1048576.0;
            CHECK(bytes == std::floor(bytes));
          }
        }
      } else if (d.path.ends_with("/Network")) {
        // Two polls at ElapsedTime 0, the first all zero; bytes under PacketsIn (sysfs): more
        // "packets" than InMB x 2^20 "bytes" could hold.
        CHECK(rows.size() == 23 + 1);
        CHECK(rows[0][el] == "0");
        CHECK(rows[1][el] == "0");
        CHECK(rows[2][el] == "7");
        for (const std::string& v : std::vector<std::string>(rows[0].begin() + 2, rows[0].end())) CHECK(D(v) == 0);
        bool swapped = false;
        for (const auto& row : rows) {
          CHECK(D(row[col("InMB")]) * 65536 == std::floor(D(row[col("InMB")]) * 65536));
          swapped = swapped || D(row[col("PacketsIn")]) > D(row[col("InMB")]) * 1048576.0;
        }
        CHECK(swapped);
      } else {
        // Running totals from 0 at ElapsedTime 0, 7, 14, ...
        REQUIRE(d.path.ends_with("/Filesystem"));
        CHECK(rows.size() == 23);
        for (size_t r = 0; r < rows.size(); ++r) {
          CHECK(std::stoull(rows[r][el]) == 7 * r);
          for (const char* c : {"Reads", "ReadMB", "Writes", "WriteMB"}) {
            if (r == 0) CHECK(D(rows[r][col(c)]) == 0);
            if (r > 0) CHECK(D(rows[r][col(c)]) >= D(rows[r - 1][col(c)]));
          }
        }
        CHECK(D(rows.back()[col("WriteMB")]) > 0);
      }
    }
    // Global task ids: task k on node k / 4; the batch step's one task is 0.
    for (int t = 0; t < 4; ++t) {
      const int id = batch ? 0 : index * 4 + t;
      CHECK(paths.count(fmt::format("/{}/Tasks/{}", node, id)) == 1);
      if (batch) break;
    }
    CHECK(paths.size() == (batch ? 3u : 6u));
    // Storage: chunks of 10 records, deflate level 0, unlimited; superblock version 0.
    const std::string props = Output(fmt::format("h5dump -p -H '{}/{}'", g, f));
    CHECK(Count(props, "CHUNKED ( 10 )") == paths.size());
    CHECK(Count(props, "COMPRESSION DEFLATE { LEVEL 0 }") == paths.size());
    CHECK(Count(props, "/ ( H5S_UNLIMITED ) }") == paths.size());
    CHECK(Count(props, "H5T_STD_U64LE") + Count(props, "H5T_IEEE_F64LE") == (batch ? 22u : 52u));
    const std::string bytes = Slurp(g + "/" + f);
    REQUIRE(bytes.size() > 9);
    CHECK(bytes.substr(0, 8) == std::string("\x89HDF\r\n\x1a\n", 8));
    CHECK(bytes[8] == 0);
  }
  // The merged file: sh5util's form, every dataset a copy of its node-step file's.
  const H5DumpText merged = H5DumpText::Dump(g + "/job_77.h5");
  REQUIRE(merged.ok);
  CHECK(merged.attributes.at("/").at("Number of Steps") == "2");
  CHECK(merged.attributes.at("/Steps/batch").at("Number of Nodes") == "1");
  CHECK(merged.attributes.count("/Steps/0") == 0);  // the last step merged has none (sh5util's bug)
  CHECK(merged.attributes.at("/Steps/0/Nodes/n3").at("Node Index") == "2");
  CHECK(merged.attributes.at("/Steps/batch/Nodes/n1").at("CPUs per Task") == "4");
  CHECK(merged.datasets.size() == want.size());
  for (const H5DumpDataset& d : merged.datasets) {
    // /Steps/<step>/Nodes/<node>/<rest> holds /<node>/<rest> of <job>_<step>_<node>.h5.
    const size_t s = 7, n = d.path.find("/Nodes/");
    REQUIRE(n != std::string::npos);
    const std::string step = d.path.substr(s, n - s), rest = d.path.substr(n + 6);
    const std::string node = rest.substr(1, rest.find('/', 1) - 1);
    REQUIRE(want.count({fmt::format("77_{}_{}.h5", step, node), rest}) == 1);
    compare(d, want.at({fmt::format("77_{}_{}.h5", step, node), rest}));
  }
  CHECK(compared == 2 * want.size());
  CHECK(Count(Output(fmt::format("h5dump -p -H '{}/job_77.h5'", g)), "COMPRESSION DEFLATE { LEVEL 0 }") == want.size());
  // truth.csv's totals are those of the rows.
  const auto truth = ReadTruth(g + "/truth.csv");
  CHECK(truth.size() == want.size());
  for (const auto& t : truth) {
    CAPTURE(t[kDataset]);
    const auto& rows = want.at({t[kFile], t[kDataset]});
    CHECK(U(t[kRows]) == rows.size());
    CHECK(U(t[kStartCol]) == kStart);
    if (t[kKind] == "Tasks") {
      uint64_t read = 0;
      double cpu = 0;
      for (const auto& r : rows) read += static_cast<uint64_t>(D(r[8]) * 1048576.0), cpu += D(r[3]);
      CHECK(U(t[kReadBytes]) == read);
      CHECK(D(t[kCpuTime]) == cpu);
    }
  }
  // The same options give the same values; another seed others.
  REQUIRE(Xtfq(dir, fmt::format("gen slurm -o again {} --seed 5 --truth-rows", opts)).status == 0);
  REQUIRE(Xtfq(dir, fmt::format("gen slurm -o other {} --seed 6 --truth-rows", opts)).status == 0);
  CHECK(Slurp(dir.File("again/truth_rows.csv")) == Slurp(g + "/truth_rows.csv"));
  CHECK(Slurp(dir.File("other/truth_rows.csv")) != Slurp(g + "/truth_rows.csv"));
  const auto dump_of = [](const std::string& p) {
    std::string t = Output(fmt::format("h5dump -m %.17g '{}'", p));
    return t.substr(t.find('\n'));  // without the line that names the file
  };
  CHECK(dump_of(dir.File("again/77_0_n2.h5")) == dump_of(g + "/77_0_n2.h5"));
}

TEST_CASE("gen slurm: xtfq import and query --slurm by task give back truth.csv's totals") {
  TempDir dir;
  const std::string g = dir.File("g");
  const Run gen =
      Xtfq(dir, fmt::format("gen slurm -o g --job 4242 --start {} --nodes 11 --tasks 2 --samples 25 --seed 9", kStart));
  REQUIRE_MESSAGE(gen.status == 0, gen.err);
  const auto truth = ReadTruth(g + "/truth.csv");
  const Expected e = Expected::From(truth);
  CHECK(e.tasks.size() == 22);  // tasks 0..21 (n10 and n11 sort before n2, Tasks/10 before Tasks/2)
  CHECK(e.task_series == 23);   // and the batch step's task 0
  CHECK(e.net_series == 12);    // one per node and step
  CHECK(e.rows == 23 * 26 + 12 * 26 + 12 * 25);
  const Run imp = Xtfq(dir, fmt::format("import -o s.xtfq '{}'", g));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  CHECK_MESSAGE(imp.err.find("truth.csv: not an input") != std::string::npos, imp.err);  // left out, named
  // Every series stored; each flagged where Slurm's quirks put them, nothing corrected or inexact.
  CHECK_MESSAGE(
      imp.err.find(fmt::format("{} Slurm series (0 stored once as duplicates), {} rows; flagged: {} first "
                               "rows, {} repeated times, 0 rows where a process exited",
                               e.series, e.rows, e.series, e.task_series + e.net_series)) != std::string::npos,
      imp.err);
  CHECK_MESSAGE(imp.err.find("0 running-total resets, 0 inexact MB values; 12 Network series with bytes under "
                             "PacketsIn/Out (sysfs), 12 Filesystem series of running totals") != std::string::npos,
                imp.err);
  CHECK_MESSAGE(
      imp.err.find("4242_0_n11.h5: node-step file (step 0 on n11) of job 4242: 4 series, 103 rows; Start "
                   "Time \"Sun Nov 22 03:46:45 2026\" is UTC+00:00 of the samples' clock") != std::string::npos,
      imp.err);
  CheckQuery(dir, "s.xtfq", e);
}

TEST_CASE("gen slurm: a merged file beside its node-step files imports with its copies stored once as duplicates") {
  TempDir dir;
  const std::string g = dir.File("g");
  const Run gen = Xtfq(dir, fmt::format("gen slurm -o g --job 3 --start {} --merged", kStart));
  REQUIRE_MESSAGE(gen.status == 0, gen.err);
  CHECK(fs::exists(g + "/job_3.h5"));
  const Expected e = Expected::From(ReadTruth(g + "/truth.csv"));
  CHECK(e.series == 2 * (2 + 2) + 3);  // defaults: 2 nodes, 2 tasks each; the batch step on n1
  CHECK(e.rows == 5 * 61 + 3 * 61 + 3 * 60);
  const Run imp = Xtfq(dir, fmt::format("import -o s.xtfq '{}'", g));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  CHECK_MESSAGE(imp.err.find(fmt::format("{} Slurm series ({} stored once as duplicates), {} rows", 2 * e.series,
                                         e.series, e.rows)) != std::string::npos,
                imp.err);
  CHECK_MESSAGE(imp.err.find(fmt::format("job_3.h5: merged file of job 3: {} series, {} rows; {} of them the same as "
                                         "read from",
                                         e.series, e.rows, e.series)) != std::string::npos,
                imp.err);
  // Step 0, the last merged, lacks "Number of Nodes": its 8 series are flagged.
  CHECK_MESSAGE(imp.err.find("8 series of merged steps without 'Number of Nodes'") != std::string::npos, imp.err);
  CheckQuery(dir, "s.xtfq", e);
  // Every stored value equals h5dump's, the merged copies' through the series they repeat.
  if (H5DumpMissing()) return;
  const Stored s = Stored::Read(dir.File("s.xtfq"));
  size_t datasets = 0, rows = 0;
  for (const std::string& f : SlurmFiles(g)) {
    const auto [d, r] = CompareWithH5Dump(s, f);
    datasets += d, rows += r;
  }
  CHECK(datasets == 2 * e.series);
  CHECK(rows == 2 * e.rows);
  CHECK(std::count_if(s.series.begin(), s.series.end(), [](const Series& x) {
          return (x.flags & SlurmLayout::kSerDuplicate) != 0 && x.path.starts_with("/Steps/");
        }) == static_cast<long>(e.series));
}

TEST_CASE("gen slurm: bad flags exit 2 and write nothing, and a file it cannot create fails naming it") {
  TempDir dir;
  const std::string ok = fmt::format("-o g --job 1 --start {}", kStart);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--start 1795319205 -o g", "--job"},
      {"--job 1 -o g", "--start"},
      {"--job 1 --start 1795319205", "--output"},
      {ok + " --nodes 0", "--nodes"},
      {ok + " --tasks 0", "--tasks"},
      {ok + " --samples 0", "--samples"},
      {ok + " --interval 0", "--interval"},
      {ok + " --nodes two", "--nodes"},
      {"-o g --job 0 --start 1795319205", "--job"},
      {"-o g --job 1 --start 0", "--start"},
      {"-o g --job 1 --start 253402300000 --samples 100000 --interval 86400", "--start 253402300000"},
      {"-o g --job 1 --start 1 --nodes 65536 --tasks 65536", "--tasks 65536"},
      {ok + " --bogus", "--bogus"},
  };
  for (const auto& [args, says] : cases) {
    CAPTURE(args);
    const Run r = Xtfq(dir, "gen slurm " + args);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(says) != std::string::npos, r.err);
    CHECK(!fs::exists(dir.File("g")));
  }
  // I/O: exit 1, the message naming the directory or file.
  std::ofstream(dir.File("plain")) << "x";
  const Run notdir = Xtfq(dir, fmt::format("gen slurm -o plain/g --job 1 --start {}", kStart));
  CHECK(notdir.status == 1);
  CHECK_MESSAGE(notdir.err.find("xtfq gen slurm: plain/g: cannot create") != std::string::npos, notdir.err);
  fs::create_directories(dir.File("h/1_0_n2.h5"));  // a directory where node n2's file goes
  const Run blocked = Xtfq(dir, fmt::format("gen slurm -o h --job 1 --start {}", kStart));
  CHECK(blocked.status == 1);
  CHECK_MESSAGE(blocked.err.find("xtfq gen slurm: h/1_0_n2.h5: /: cannot create the file") != std::string::npos,
                blocked.err);
}

TEST_CASE("gen slurm: info on a store with a damaged data page prints what it can read and names the rest") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen slurm -o g --job 12 --start 1795300000 --nodes 2 --samples 30").status == 0);
  REQUIRE(Xtfq(dir, "import -q -o s.xtfq g").status == 0);
  const auto size = fs::file_size(dir.File("s.xtfq"));
  std::ifstream in(dir.File("s.xtfq"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A byte of each slot past the superblocks in turn: info never fails without printing the
  // header, and where the Slurm part is what broke, it says so and exits 1.
  size_t slurm_left_out = 0;
  for (uint64_t slot = 2; slot * 4096 < size; ++slot) {
    std::string bad = bytes;
    bad[slot * 4096 + 100] = static_cast<char>(bad[slot * 4096 + 100] ^ 0x5a);
    std::ofstream(dir.File("b.xtfq"), std::ios::binary) << bad;
    const Run r = Xtfq(dir, "info --brief b.xtfq");
    CAPTURE(slot);
    CAPTURE(r.err);
    CHECK((r.status == 0 || r.status == 1));
    if (r.err.find("(the Slurm jobs left out)") == std::string::npos) continue;
    ++slurm_left_out;
    CHECK(r.status == 1);
    CHECK(r.out.starts_with("store        b.xtfq\n"));
    CHECK(r.err.find("checksum mismatch") != std::string::npos);
    CHECK(r.err.find("xtfq info: the store is damaged: 'xtfq check b.xtfq'") != std::string::npos);
    const Run j = Xtfq(dir, "info b.xtfq --format json");
    CHECK(j.status == 1);
    CHECK(nlohmann::json::parse(j.out)["unreadable"].size() == 1);
  }
  CHECK(slurm_left_out > 0);
}

}  // namespace
}  // namespace xtfq::test

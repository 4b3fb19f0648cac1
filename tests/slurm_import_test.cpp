// Slurm HDF5 profiles (issue 18): every file of ../shared/data/slurm imports, and every value the
// store holds equals what h5dump prints for the same file (integers exact, doubles bit for bit
// through %.17g); the node groups' attributes too. The quirks the data README lists are checked
// on the rows where they show (docs/plan-slurm.md, section 2), against values read off h5dump by
// hand.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "index/tn_tree.h"
#include "layouts/slurm_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/store_checker.h"
#include "tests/shared_data.h"
#include "tests/slurm_stored.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;
using L = SlurmLayout;

TEST_CASE("slurm: every shared HDF5 profile imports, and every value equals h5dump's") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  if (H5DumpMissing()) return;
  const std::vector<std::string> files = SlurmFiles(data);
  CHECK(files.size() == 24);  // 15 node-step files and 9 merged ones (the data README)
  TempDir dir;
  std::string args = "import -q -o s.xtfq";
  for (const std::string& f : files) args += " '" + f + "'";
  const Run imp = Xtfq(dir, args);
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  const Stored s = Stored::Read(dir.File("s.xtfq"));
  size_t datasets = 0, rows = 0;
  for (const std::string& f : files) {
    const auto [d, r] = CompareWithH5Dump(s, f);
    datasets += d, rows += r;
  }
  const size_t dups = static_cast<size_t>(std::count_if(
      s.series.begin(), s.series.end(), [](const Series& x) { return (x.flags & L::kSerDuplicate) != 0; }));
  CHECK(datasets == 52);
  CHECK(rows == 894);
  CHECK(dups == 26);
  // xtfq info: the jobs, each dataset's rows stored once (every merged dataset repeats one).
  const Run info = Xtfq(dir, "info s.xtfq");
  CHECK_MESSAGE(
      info.out.find(fmt::format("slurm:       9 jobs, {} series, {} rows", datasets, rows / 2)) != std::string::npos,
      info.out);
  CHECK(info.out.find("  job 3: 8 series (4 duplicates), 30 rows, steps batch,0,1, nodes vm") !=
        std::string::npos);  // each merged dataset repeats one of a node-step file: one of each pair is stored
  auto reader = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE(reader.ok());
  StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
  CHECK_MESSAGE(rep.ok(), Why(rep));
}

TEST_CASE("slurm: the quirks are flagged and corrected on the rows where they show, and values stay as read") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  TempDir dir;
  const std::string a = (data / "a-one-node").string(), b = (data / "b-two-nodes").string();
  const Run imp = Xtfq(dir, fmt::format("import -o s.xtfq '{0}/profile/root' '{0}/merged' '{1}/profile/root' "
                                        "'{1}/merged'",
                                        a, b));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  const Stored s = Stored::Read(dir.File("s.xtfq"));
  auto find = [&](std::string_view file, std::string_view path) -> const Series& {
    auto it = std::find_if(s.series.begin(), s.series.end(),
                           [&](const Series& x) { return x.file.ends_with(file) && x.path == path; });
    REQUIRE_MESSAGE(it != s.series.end(), file << " " << path);
    return *it;
  };
  auto flags = [&](const Series& x, size_t row) {
    return LoadLe<uint32_t>(s.rows.at(s.Holder(x).id).at(row).data() + L::kFlags);
  };
  auto sum = [&](const Series& x, uint32_t at) {
    uint64_t t = 0;
    for (const auto& r : s.rows.at(x.id)) t += LoadLe<uint64_t>(r.data() + at);
    return t;
  };
  // Repeated last records: 3_0_vm Tasks/1 rows 4 and 5 share EpochTime; row 0 of every series is
  // Slurm's zeroed first sample.
  const Series& t31 = find("3_0_vm.h5", "/vm/Tasks/1");
  CHECK(t31.rows == 6);
  CHECK((flags(t31, 5) & L::kRowRepeat) != 0);
  CHECK((flags(t31, 4) & L::kRowRepeat) == 0);
  for (const Series& x : s.series) {
    if (x.rows > 0) CHECK((flags(x, 0) & L::kRowFirst) != 0);
  }
  // Network of the sysfs gatherer: bytes under PacketsIn, packets / 2^16 under InMB (100_0_n1
  // row 4: 134379874 and 0.0473785400390625 = 3105 / 65536), kept as read and stored by meaning.
  const Series& net = find("100_0_n1.h5", "/n1/Network");
  CHECK((net.flags & L::kSerSysfsSwap) != 0);
  const std::byte* r4 = s.rows.at(net.id).at(4).data();
  CHECK(LoadLe<uint64_t>(r4 + L::kNetPacketsIn) == 134379874);
  CHECK(LoadLe<double>(r4 + L::kNetInMb) == 0.0473785400390625);
  CHECK(LoadLe<uint64_t>(r4 + L::kNetInBytes) == 134379874);
  CHECK(LoadLe<uint64_t>(r4 + L::kNetInPackets) == 3105);
  // Filesystem (lustre) running totals: Writes/WriteMB 8, 16, ... 80 in rows 1-10, Reads/ReadMB
  // 16 ... 160 after; the changes sum to the totals, 8 MiB a row while writing.
  const Series& fsys = find("100_0_n1.h5", "/n1/Filesystem");
  CHECK((fsys.flags & L::kSerCumulative) != 0);
  CHECK(sum(fsys, L::kFsDWriteBytes) == 80ull << 20);
  CHECK(sum(fsys, L::kFsDReadBytes) == 160ull << 20);
  CHECK(sum(fsys, L::kFsDWrites) == 80);
  for (size_t r = 1; r <= 10; ++r)
    CHECK(LoadLe<uint64_t>(s.rows.at(fsys.id).at(r).data() + L::kFsDWriteBytes) == 8ull << 20);
  CHECK(LoadLe<double>(s.rows.at(fsys.id).at(10).data() + L::kFsWriteMb) == 80.0);  // as read
  // A merged step without "Number of Nodes" (job 3 step 1) is flagged; one with it is not.
  CHECK((find("job_3.h5", "/Steps/1/Nodes/vm/Tasks/0").flags & L::kSerNoStepNodes) != 0);
  const Series& s30 = find("job_3.h5", "/Steps/0/Nodes/vm/Tasks/0");
  CHECK((s30.flags & L::kSerNoStepNodes) == 0);
  CHECK(s30.step_nodes == 1);
  // A merged file repeats its node-step files: its series are duplicates, their rows stored once.
  CHECK((s30.flags & L::kSerDuplicate) != 0);
  CHECK((find("3_0_vm.h5", "/vm/Tasks/0").flags & L::kSerDuplicate) == 0);
  CHECK(s.rows.count(s30.id) == 0);
  // Steps, tasks and nodes: batch is -5; task ids are global (101: n2 holds tasks 2 and 3).
  CHECK(find("3_batch_vm.h5", "/vm/Tasks/0").step == L::kBatchStep);
  CHECK(find("101_0_n2.h5", "/n2/Tasks/3").task == 3);
  CHECK(find("101_0_n2.h5", "/n2/Tasks/3").node_index == 1);
  // A process exited (VMSize or Pages fell since the row before, not a repeat): flagged, values kept
  // (1_0_vm Tasks/0 row 8: dd exited, VMSize 11312 -> 7300, ReadMB 35.29 is the survivors' total).
  // Against the rule applied to h5dump's rows of every node-step Tasks dataset.
  const Series& t10 = find("1_0_vm.h5", "/vm/Tasks/0");
  CHECK((flags(t10, 8) & L::kRowProcExit) != 0);
  size_t want_exits = 0, got_exits = 0;
  for (const std::string& dirname : {a + "/profile/root", b + "/profile/root"}) {
    for (const std::string& f : SlurmFiles(dirname)) {
      const H5DumpText dump = H5DumpText::Dump(f);
      REQUIRE(dump.ok);
      for (const H5DumpDataset& d : dump.datasets) {
        if (d.path.find("/Tasks/") == std::string::npos) continue;
        const auto col = [&](const char* n) {
          return std::find(d.fields.begin(), d.fields.end(), n) - d.fields.begin();
        };
        const auto t = col("EpochTime"), vm = col("VMSize"), pg = col("Pages");
        const Series& x = find(fs::path(f).filename().string(), d.path);
        for (size_t r = 1; r < d.rows.size(); ++r) {
          const bool repeat = d.rows[r][t] == d.rows[r - 1][t];
          const bool fell = std::stoull(d.rows[r][vm]) < std::stoull(d.rows[r - 1][vm]) ||
                            std::stoull(d.rows[r][pg]) < std::stoull(d.rows[r - 1][pg]);
          const bool want = !repeat && fell;
          CAPTURE(f);
          CAPTURE(d.path);
          CAPTURE(r);
          CHECK(((flags(x, r) & L::kRowProcExit) != 0) == want);
          want_exits += want;
          got_exits += (flags(x, r) & L::kRowProcExit) != 0;
        }
      }
    }
  }
  CHECK(want_exits > 10);
  CHECK(got_exits == want_exits);
  // The summary counts every stored row flagged (job 5's merged file's too).
  size_t stored_exits = 0;
  for (const auto& [id, rows] : s.rows) {
    for (const auto& r : rows) stored_exits += (LoadLe<uint32_t>(r.data() + L::kFlags) & L::kRowProcExit) != 0;
  }
  CHECK(stored_exits >= want_exits);
  CHECK_MESSAGE(imp.err.find(fmt::format("{} rows where a process exited", stored_exits)) != std::string::npos,
                imp.err);
  // Start Time (local, no zone) against the samples' UTC: the writer ran at UTC+00:00 (the README).
  CHECK_MESSAGE(imp.err.find("1_0_vm.h5: node-step file (step 0 on vm) of job 1: 2 series, 61 rows; Start Time \"Sun "
                             "Nov 22 03:34:27 2026\" is UTC+00:00 of the samples' clock") != std::string::npos,
                imp.err);
  // The summary says what was flagged.
  CHECK_MESSAGE(imp.err.find("3 Network series with bytes under PacketsIn/Out (sysfs)") != std::string::npos, imp.err);
  // 25: job 5's node-step file (under profile/nobody) is not among these inputs, its merged file is.
  CHECK_MESSAGE(imp.err.find("51 Slurm series (25 stored once as duplicates), 447 rows") != std::string::npos, imp.err);
}

TEST_CASE("slurm: a job already in the store, a misnamed file and a damaged file are refused, naming them") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm";
  if (SharedMissing(data)) return;
  TempDir dir;
  const std::string one = (data / "a-one-node" / "profile" / "root" / "2_0_vm.h5").string();
  REQUIRE(Xtfq(dir, fmt::format("import -q -o s.xtfq '{}'", one)).status == 0);
  // The same job again: refused, the store stays at its generation.
  Run again =
      Xtfq(dir, fmt::format("import -q -o s.xtfq '{}'", (data / "a-one-node" / "merged" / "job_2.h5").string()));
  CHECK(again.status == 1);
  CHECK_MESSAGE(again.err.find("job 2: the store already holds its profile (slurm/2/tasks)") != std::string::npos,
                again.err);
  // Both Slurm formats in one run: refused (each numbers its series from the store's count).
  Run mixed = Xtfq(dir, fmt::format("import -q -o v.xtfq '{}' '{}'", one,
                                    (data / "c-influxdb" / "job200_line_protocol.txt").string()));
  CHECK(mixed.status == 2);
  CHECK_MESSAGE(mixed.err.find("import Slurm HDF5 files and influxdb captures in separate runs") != std::string::npos,
                mixed.err);
  // A file whose name does not say its job.
  fs::copy_file(one, dir.File("profile.h5"));
  Run named = Xtfq(dir, "import -q -o t.xtfq profile.h5");
  CHECK(named.status == 1);
  CHECK_MESSAGE(named.err.find("profile.h5: cannot tell the job from the file's name") != std::string::npos, named.err);
  // A truncated file: the HDF5 library's refusal, naming the file.
  {
    std::ifstream in(one, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(dir.File("7_0_vm.h5"), std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  Run cut = Xtfq(dir, "import -q -o u.xtfq 7_0_vm.h5");
  CHECK(cut.status == 1);
  CHECK_MESSAGE(cut.err.find("7_0_vm.h5: ") != std::string::npos, cut.err);
  CHECK_FALSE(fs::exists(dir.File("u.xtfq")));
}

TEST_CASE("slurm: a profile directory imports with its users' subdirectories, and hidden ones are named") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm" / "a-one-node" / "profile";
  if (SharedMissing(data)) return;
  TempDir dir;
  // ProfileHDF5Dir/<user>/<job>_<step>_<node>.h5: root/ holds jobs 1-4 (7 files), nobody/ job 5.
  Run imp = Xtfq(dir, fmt::format("import -o s.xtfq '{}'", data.string()));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  // 8 files: 11 Tasks datasets of 61 + 9 + 11 + 7 + 12 + 61 + 30 + 4 rows (docs/plan-slurm.md, 1.1).
  CHECK_MESSAGE(imp.err.find("import: 11 Slurm series (0 stored once as duplicates), 195 rows") != std::string::npos,
                imp.err);
  const Run info = Xtfq(dir, "info s.xtfq");
  CHECK_MESSAGE(info.out.find("  job 5: ") != std::string::npos, info.out);
  // A hidden subdirectory (a snapshot, an editor's) is left out and named, never read silently.
  fs::create_directories(dir.File("p/u")), fs::create_directories(dir.File("p/.old"));
  fs::copy_file(data / "root" / "2_0_vm.h5", dir.File("p/u/2_0_vm.h5"));
  fs::copy_file(data / "root" / "1_0_vm.h5", dir.File("p/.old/1_0_vm.h5"));
  Run hidden = Xtfq(dir, "import -o h.xtfq p");
  REQUIRE_MESSAGE(hidden.status == 0, hidden.err);
  CHECK_MESSAGE(hidden.err.find("p/.old: a hidden directory, not read") != std::string::npos, hidden.err);
  CHECK(hidden.err.find("import: 1 Slurm series") != std::string::npos);
}

}  // namespace
}  // namespace xtfq::test

namespace xtfq::test {
namespace {

TEST_CASE("slurm: an influxdb capture imports, as bodies or as logged requests, and every line's value is stored") {
  const fs::path data = fs::path(XTFQ_SHARED_DIR) / "data" / "slurm" / "c-influxdb";
  if (SharedMissing(data)) return;
  TempDir dir;
  const std::string bodies = (data / "job200_line_protocol.txt").string();
  const std::string requests = (data / "influx_requests_job200.log").string();
  Run a = Xtfq(dir, fmt::format("import -o a.xtfq '{}'", bodies));
  REQUIRE_MESSAGE(a.status == 0, a.err);
  Run b = Xtfq(dir, fmt::format("import -q --format slurm-influx -o b.xtfq '{}'", requests));
  REQUIRE_MESSAGE(b.status == 0, b.err);
  CHECK_MESSAGE(a.err.find("388 lines, 0 comment lines) of job 200: 9 series, 74 rows") != std::string::npos, a.err);
  CHECK_MESSAGE(a.err.find("1 inexact MB values") != std::string::npos, a.err);  // %.2f: 0.01 MB
  const Stored sa = Stored::Read(dir.File("a.xtfq")), sb = Stored::Read(dir.File("b.xtfq"));
  REQUIRE(sa.series.size() == 9);
  REQUIRE(sb.series.size() == 9);
  // The same rows from both forms.
  for (size_t i = 0; i < sa.series.size(); ++i) {
    CHECK(sa.series[i].path == sb.series[i].path);
    CHECK(sa.series[i].source == L::kInflux);
    CHECK(sa.rows.at(i) == sb.rows.at(i));
  }
  // Every line: a stored row of its series at its time holds its value.
  std::ifstream in(bodies);
  std::string line;
  size_t lines = 0, batch = 0;
  while (std::getline(in, line)) {
    CAPTURE(line);
    ++lines;
    // "<M>,job=200,step=<s>,task=<t>,host=<h> value=<v> <time>"
    const size_t sp = line.find(' '), sp2 = line.rfind(' ');
    std::map<std::string, std::string> tags;
    std::string m;
    {
      std::stringstream ks(line.substr(0, sp));
      std::string part;
      std::getline(ks, m, ',');
      while (std::getline(ks, part, ',')) tags[part.substr(0, part.find('='))] = part.substr(part.find('=') + 1);
    }
    const std::string value = line.substr(sp + 7, sp2 - sp - 7);
    const int64_t t = std::stoll(line.substr(sp2 + 1));
    const bool task = std::isdigit(static_cast<unsigned char>(tags["task"][0])) != 0;
    if (tags["step"] == "-5") ++batch;
    auto it = std::find_if(sa.series.begin(), sa.series.end(), [&](const Series& x) {
      return x.job == 200 && x.step == std::stoll(tags["step"]) && x.node == tags["host"] &&
             (task ? x.kind == L::kTasks && x.task == std::stoll(tags["task"])
                   : std::string(L::KindName(x.kind)) == tags["task"]);
    });
    REQUIRE(it != sa.series.end());
    const auto [at, type] = Column(it->kind, m);  // a measurement is named as the HDF5 field
    REQUIRE(type != 0);
    bool found = false;
    for (const auto& r : sa.rows.at(it->id)) {
      if (LoadLe<int64_t>(r.data() + L::kT) != t) continue;
      found = found || (type == 'f' ? LoadLe<double>(r.data() + at) == std::strtod(value.c_str(), nullptr)
                                    : LoadLe<uint64_t>(r.data() + at) == std::stoull(value));
    }
    CHECK(found);
  }
  CHECK(lines == 388);
  CHECK(batch == 136);
  // The capture cut short (a copy ending inside a body): the request is refused, naming its line
  // and its Content-Length; bodies cut inside their last line import with a warning.
  {
    std::ifstream whole(requests, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
    std::ofstream(dir.File("cut.log"), std::ios::binary) << text.substr(0, 9000);
    std::ifstream body_in(bodies, std::ios::binary);
    std::string body((std::istreambuf_iterator<char>(body_in)), std::istreambuf_iterator<char>());
    std::ofstream(dir.File("cut.txt"), std::ios::binary) << body.substr(0, body.size() - 5);
  }
  Run cut = Xtfq(dir, "import -q --format slurm-influx -o c.xtfq cut.log");
  CHECK(cut.status == 1);
  CHECK_MESSAGE(cut.err.find("cut.log: line 123: the request's Content-Length is 8596 bytes but its body has 1109 "
                             "(to line 145): the capture is cut short") != std::string::npos,
                cut.err);
  CHECK_FALSE(fs::exists(dir.File("c.xtfq")));
  Run cut_body = Xtfq(dir, "import -q --format slurm-influx -o c.xtfq cut.txt");
  CHECK(cut_body.status == 0);
  CHECK_MESSAGE(cut_body.err.find("cut.txt: line 388, the last, ends without a newline: it may be cut short") !=
                    std::string::npos,
                cut_body.err);
  CHECK(std::count_if(sa.series.begin(), sa.series.end(), [](const Series& x) { return x.step == L::kBatchStep; }) ==
        3);
}

TEST_CASE("slurm: bad influxdb lines are refused, naming the file and line") {
  TempDir dir;
  struct Case {
    std::string text, says;
  };
  for (const Case& c : {Case{"CPUTime,job=7,step=0,task=0,host=n1 value=0.5 1795319309\nCPUTime,job=7,step=0,host=n1 "
                             "value=1 1795319310\n",
                             "x.txt: line 2: no 'task' tag"},
                        Case{"RSS,job=7,step=0,task=0,host=n1 value=12x 1795319309\n",
                             "x.txt: line 1: field 'value': '12x' is not a number"},
                        Case{"RSS,job=7,step=0,task=0,host=n1 value=12\n", "x.txt: line 1: no time"},
                        Case{"### 1 POST /write?db=x&precision=h\nRSS,job=7,step=0,task=0,host=n1 value=1 5\n",
                             "x.txt: line 1: precision 'h' is not one of ns, us, ms, s"}}) {
    CAPTURE(c.text);
    {
      std::ofstream out(dir.File("x.txt"));
      out << c.text;
    }
    Run r = Xtfq(dir, "import -q --format slurm-influx -o x.xtfq x.txt");
    CHECK(r.status == 1);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK_FALSE(fs::exists(dir.File("x.xtfq")));
  }
  // Escapes and a millisecond precision: a host with a space, times kept to the second.
  {
    std::ofstream out(dir.File("y.txt"));
    out << "### 1 POST /write?db=x&precision=ms\n"
           "RSS,job=8,step=0,task=0,host=node\\ 1 value=100 1795319309000\n"
           "RSS,job=8,step=0,task=0,host=node\\ 1 value=200 1795319310500\n";
  }
  Run y = Xtfq(dir, "import --format slurm-influx -o y.xtfq y.txt");
  REQUIRE_MESSAGE(y.status == 0, y.err);
  CHECK_MESSAGE(y.err.find("1 time was not a whole second") != std::string::npos, y.err);
  const Stored s = Stored::Read(dir.File("y.xtfq"));
  REQUIRE(s.series.size() == 1);
  CHECK(s.series[0].node == "node 1");
  REQUIRE(s.rows.at(0).size() == 2);
  CHECK(LoadLe<int64_t>(s.rows.at(0)[1].data() + L::kT) == 1795319310);
  CHECK(LoadLe<uint64_t>(s.rows.at(0)[1].data() + L::kTaRss) == 200);
  // Energy series and fields no schema has go to slurm/<job>/other, one record per (row, field).
  {
    std::ofstream out(dir.File("z.txt"));
    out << "Power,job=9,step=0,task=Energy,host=n1 value=123 1795319309\n"
           "RSS,job=9,step=0,task=0,host=n1 value=5 1795319309\n"
           "NewField,job=9,step=0,task=0,host=n1 value=-2.5 1795319309\n";
  }
  Run z = Xtfq(dir, "import -q --format slurm-influx -o z.xtfq z.txt");
  REQUIRE_MESSAGE(z.status == 0, z.err);
  auto reader = StoreReader::Open(dir.File("z.xtfq"));
  REQUIRE(reader.ok());
  const ArrayDesc* other = (*reader)->Array(L::JobArrayName(9, "other")).value();
  REQUIRE(other->record_count() == 2);
  std::map<std::string, std::pair<uint8_t, uint64_t>> got;
  TnTree t((*reader)->cache(), *other);
  REQUIRE(t.ForEach(0, 2, [&](const std::byte* p) -> Result<bool> {
             const std::string name = (*reader)->String(StringRef::Unpack(LoadLe<uint64_t>(p + L::kOtField))).value();
             got[name] = {LoadLe<uint8_t>(p + L::kOtType), LoadLe<uint64_t>(p + L::kOtValue)};
             return true;
           }).ok());
  CHECK(got.at("Power").first == L::kU64);
  CHECK(got.at("Power").second == 123);
  CHECK(got.at("NewField").first == L::kF64);
  CHECK(std::bit_cast<double>(got.at("NewField").second) == -2.5);
}

}  // namespace
}  // namespace xtfq::test

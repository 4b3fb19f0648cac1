// Darshan signals inside time windows and rank ranges: the indexed answers equal a flat scan on
// random windows, the whole run equals the totals of the log's own DXT records, and the page reads
// stay within O(log N) for all ranks and O(R' log N) for R' ranks.
#include "query/darshan/darshan_window.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_dxt_reader.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_module_tables.h"
#include "importers/darshan/darshan_record_writer.h"
#include "layouts/darshan_layout.h"
#include "query/darshan/darshan_logs.h"
#include "store/endian.h"
#include "store/store_writer.h"
#include "tests/generated_darshan.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Why;

void Same(const DarshanOpStats& a, const DarshanOpStats& b) {
  CHECK(a.ops == b.ops);
  CHECK(a.bytes == b.bytes);
  CHECK(a.seq == b.seq);
  CHECK(a.consec == b.consec);
  CHECK(a.size_classes == b.size_classes);
  CHECK(std::fabs(a.busy - b.busy) <= 1e-9 * std::max(1.0, std::fabs(a.busy)));  // summed in another order
}

DarshanGenOptions Options() {
  DarshanGenOptions o;
  o.segments = 60000, o.ranks = 32, o.files = 80, o.checkpoints = 4, o.duration = 1000, o.seed = 11;
  return o;
}

struct Fixture : test::GeneratedDarshan {
  Fixture() : GeneratedDarshan(Options()) {}
};

TEST_CASE("darshan window: indexed answers equal the flat scan on random windows and rank ranges") {
  Fixture f;
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
  REQUIRE(info.ok());
  std::mt19937_64 rng(3);
  for (int i = 0; i < 60; ++i) {
    DarshanWindowSpec s;
    const int64_t a = static_cast<int64_t>(rng() % 1000'000'000'000ULL),
                  b = static_cast<int64_t>(rng() % 1000'000'000'000ULL);
    s.t1 = std::min(a, b), s.t2 = std::max(a, b);
    if (i % 3 == 0) s.t1 = INT64_MIN;
    if (i % 5 == 0) s.t2 = INT64_MAX;
    if (i % 2 == 1) {
      const int64_t p = static_cast<int64_t>(rng() % 32), q = static_cast<int64_t>(rng() % 33);
      s.p1 = std::min(p, q), s.p2 = std::max(p, q);
    }
    s.module = i % 4 == 0 ? "MPI-IO" : "POSIX";
    CAPTURE(s.t1);
    CAPTURE(s.t2);
    CAPTURE(s.p1);
    CAPTURE(s.p2);
    auto idx = DarshanWindow::Compute(**reader, *info, s);
    REQUIRE_MESSAGE(idx.ok(), Why(idx));
    CHECK(idx->indexed);
    s.scan = true;
    auto scan = DarshanWindow::Compute(**reader, *info, s);
    REQUIRE(scan.ok());
    CHECK(!scan->indexed);
    Same(idx->read, scan->read);
    Same(idx->write, scan->write);
    REQUIRE(idx->ranks.size() == scan->ranks.size());
    for (const auto& [rank, ops] : scan->ranks) {
      REQUIRE(idx->ranks.count(rank) == 1);
      Same(idx->ranks.at(rank)[0], ops[0]);
      Same(idx->ranks.at(rank)[1], ops[1]);
    }
  }
}

TEST_CASE("darshan window: the whole run equals the totals of the log's DXT records") {
  Fixture f;
  // Independent totals: the log's DXT records read directly, flags by the runtime's rule.
  auto l = DarshanLog::Open(f.log);
  REQUIRE(l.ok());
  DarshanOpStats want[2];
  DarshanDxtReader dxt(**l, DarshanDxtReader::kPosixSlot);
  DxtRecord rec;
  for (;;) {
    auto more = dxt.Next(rec);
    REQUIRE(more.ok());
    if (!*more) break;
    for (int op = 0; op < 2; ++op) {
      const bool write = op == 0;
      const size_t first = write ? 0 : static_cast<size_t>(rec.writes),
                   n = static_cast<size_t>(write ? rec.writes : rec.reads);
      int64_t last = 0;
      DarshanOpStats& s = want[write ? 1 : 0];
      for (size_t i = first; i < first + n; ++i) {
        const DxtSegment& g = rec.segments[i];
        ++s.ops, s.bytes += g.length, s.busy += g.end - g.start;
        s.seq += g.offset > last, s.consec += g.offset == last + 1;
        last = g.offset + g.length - 1;
        ++s.size_classes[static_cast<size_t>(DarshanLayout::SizeClass(g.length))];
      }
    }
  }
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
  REQUIRE(info.ok());
  auto all = DarshanWindow::Compute(**reader, *info, DarshanWindowSpec{});
  REQUIRE(all.ok());
  Same(all->read, want[0]);
  Same(all->write, want[1]);
  CHECK(want[0].ops > 1000);
  CHECK(want[1].ops > 1000);
}

TEST_CASE("darshan window: page reads are O(log N) over all ranks and O(R' log N) over R' ranks") {
  Fixture f;
  size_t height = 0;
  {
    auto r = StoreReader::Open(f.store);
    REQUIRE(r.ok());
    for (const char* op : {"read", "write"}) {
      auto a = (*r)->Array(DarshanLayout::ArrayName(0, fmt::format("DXT_POSIX.{}", op)));
      REQUIRE(a.ok());
      height = std::max(height, (*a)->levels.size());
      CHECK((*a)->record_count() > 5000);
    }
  }
  auto reads = [&](DarshanWindowSpec s) {
    auto r = StoreReader::Open(f.store);  // a cold cache
    REQUIRE(r.ok());
    auto info = DarshanLogs::Find(**r, std::nullopt, std::nullopt);
    REQUIRE(info.ok());
    const uint64_t before = (*r)->cache().stats().pages_read;
    REQUIRE(DarshanWindow::Compute(**r, *info, s).ok());
    return (*r)->cache().stats().pages_read - before;
  };
  DarshanWindowSpec s;
  s.t1 = 100'000'000'000, s.t2 = 700'000'000'000, s.per_rank = false;
  // Two arrays (read, write), each at most 2H + 2 pages.
  CHECK(reads(s) <= 2 * (2 * height + 2));
  // Four ranks: the process tree walk and four per-process trees per array.
  s.p1 = 8, s.p2 = 12;
  const uint64_t four = reads(s);
  CHECK(four <= 2 * (4 + 4 * (2 * height + 2)));
  // Per-rank rows over all 32 ranks: one descent per rank.
  s.p1 = INT64_MIN, s.p2 = INT64_MAX, s.per_rank = true;
  CHECK(reads(s) <= 2 * (2 * height + 2 + 8 + 32 * (2 * height + 2)));
}

TEST_CASE("darshan window: the query command reads seconds and filters files") {
  Fixture f;
  auto all = test::Xtfq(f.dir, "query g.xtfq --format json");
  REQUIRE_MESSAGE(all.status == 0, all.err);
  CHECK(all.out.find("\"answered\": \"from the index\"") != std::string::npos);
  auto diag = test::Xtfq(f.dir, "query g.xtfq --time 0:1000 --file '*/diag/*' --format csv");
  REQUIRE_MESSAGE(diag.status == 0, diag.err);
  // The diagnostics are small writes only: no reads, every write in the small classes.
  // (then the percentile columns: NA without reads)
  std::string na12;
  for (int k = 0; k < 12; ++k) na12 += ",NA";
  // (ops, bytes, bytes moved, busy_s and the wall-clock rate 0; per busy second and ratios NA)
  CHECK(diag.out.find("all,read,0,0,0,0,0,NA,NA,NA,NA,NA,NA" + na12 + ",false\n") != std::string::npos);
  const size_t write_row = diag.out.find("all,write,");
  REQUIRE(write_row != std::string::npos);
  std::vector<std::string> cols;
  std::stringstream row(diag.out.substr(write_row, diag.out.find('\n', write_row) - write_row));
  for (std::string c; std::getline(row, c, ',');) cols.push_back(c);
  REQUIRE(cols.size() == 26);
  CHECK(cols[12] == "1");      // small_ratio 1 on the write row
  CHECK(cols[25] == "false");  // from DXT segments: not an estimate
  // Its sizes' percentiles lie under 10 KiB (the small classes): p99's upper end.
  CHECK(std::stod(cols[18]) <= 10240);
  auto bad = test::Xtfq(f.dir, "query g.xtfq --time 5:1");
  CHECK(bad.status == 2);  // a reversed window is a usage error
  CHECK(bad.err.find("the start is after the end") != std::string::npos);
  auto none = test::Xtfq(f.dir, "query g.xtfq --per-rank --ranks 3:5");
  REQUIRE(none.status == 0);
  CHECK(none.out.find("       3 ") != std::string::npos);
  CHECK(none.out.find("       4 ") != std::string::npos);
}

TEST_CASE("darshan window: a log whose header has one second takes darshan-parser's run, reaching its segments") {
  // ior-hdf5-h5d1-dxt: start and end in the same second (run 1 s as darshan-parser counts it),
  // segments over 0.03 to 0.29 s.
  const std::string base = std::string(XTFQ_SHARED_DIR) + "/data/darshan/real/ior-hdf5-h5d1-dxt";
  if (test::SharedMissing(base + ".darshan") || test::SharedMissing(base + ".dxt.txt")) return;
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, fmt::format("import '{}.darshan' -o s.xtfq", base)).status == 0);
  // darshan-dxt-parser's segments, counted independently: each starts within the run's segments.
  std::ifstream dxt(base + ".dxt.txt");
  std::string line;
  int64_t segments = 0;
  double last_start = 0;
  while (std::getline(dxt, line)) {
    if (line.rfind(" X_POSIX", 0) != 0) continue;
    std::istringstream f(line);
    std::string module, op;
    int64_t rank = 0, seg = 0, offset = 0, length = 0;
    double start = 0, end = 0;
    f >> module >> rank >> op >> seg >> offset >> length >> start >> end;
    ++segments, last_start = std::max(last_start, start);
  }
  REQUIRE(segments == 59);
  const test::Run all = test::Xtfq(dir, "query s.xtfq --time 0%:100% --format json");
  REQUIRE_MESSAGE(all.status == 0, all.err);
  const auto j = nlohmann::json::parse(all.out);
  CHECK(j["read"]["ops"].get<int64_t>() + j["write"]["ops"].get<int64_t>() == segments);
  // 100% is the later of the run darshan-parser prints (end - start + 1 s for whole-second times:
  // "# run time: 1.0000") and the last segment's start.
  CHECK(std::fabs(j["window_s"][1].get<double>() - std::max(1.0, last_start)) < 1e-4);
  const test::Run mid = test::Xtfq(dir, "query s.xtfq --time 10%:90% --format json");
  REQUIRE_MESSAGE(mid.status == 0, mid.err);
  const auto m = nlohmann::json::parse(mid.out);
  const int64_t in_mid = m["read"]["ops"].get<int64_t>() + m["write"]["ops"].get<int64_t>();
  CHECK(in_mid > 0);
  CHECK(in_mid < segments);
}

TEST_CASE("darshan window: a log without DXT answers bytes from its HEATMAP bins") {
  const std::string log = std::string(XTFQ_SHARED_DIR) + "/data/darshan/real/rel-3.21-x86_64-heatmap.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  auto l = DarshanLog::Open(log);
  REQUIRE(l.ok());
  {
    auto w = StoreWriter::CreatePath(dir.File("h.xtfq"));
    REQUIRE(w.ok());
    REQUIRE(DarshanImporter::Import(**l, **w, 0).ok());
    REQUIRE((*w)->Commit().ok());
  }
  auto reader = StoreReader::Open(dir.File("h.xtfq"));
  REQUIRE(reader.ok());
  auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
  REQUIRE(info.ok());
  // The whole run: the bytes the POSIX records counted.
  int64_t read = 0, written = 0;
  {
    auto posix = (*reader)->Array("darshan/0/POSIX");
    REQUIRE(posix.ok());
    const Schema& s = (*posix)->schema;
    ChainCursor c = (*reader)->Records(**posix);
    for (auto more = c.First(); more.ok() && *more; more = c.Next()) {
      read += LoadLe<int64_t>(c.entry() + s.fields()[*s.Find("POSIX_BYTES_READ")].offset);
      written += LoadLe<int64_t>(c.entry() + s.fields()[*s.Find("POSIX_BYTES_WRITTEN")].offset);
    }
  }
  auto all = DarshanWindow::Compute(**reader, *info, DarshanWindowSpec{});
  REQUIRE_MESSAGE(all.ok(), Why(all));
  CHECK(all->heatmap);
  CHECK(all->heatmap_width > 0);
  CHECK(all->read.bytes == read);
  CHECK(all->write.bytes == written);
  CHECK(read + written > 0);
  // Windows from the index equal the scan, per rank too.
  for (int64_t t2 : {int64_t{100'000'000}, int64_t{300'000'000}, int64_t{1'000'000'000}}) {
    DarshanWindowSpec s;
    s.t1 = 0, s.t2 = t2;
    auto a = DarshanWindow::Compute(**reader, *info, s);
    s.scan = true;
    auto b = DarshanWindow::Compute(**reader, *info, s);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->read.bytes == b->read.bytes);
    CHECK(a->write.bytes == b->write.bytes);
    CHECK(a->ranks.size() == b->ranks.size());
  }
  // The whole run: operations, busy time and size classes from the counter records, which are
  // exact there and count the bins' bytes; per rank the bins alone (bytes only).
  int64_t reads = 0, writes = 0;
  {
    auto posix = (*reader)->Array("darshan/0/POSIX");
    const Schema& s = (*posix)->schema;
    ChainCursor c = (*reader)->Records(**posix);
    for (auto more = c.First(); more.ok() && *more; more = c.Next()) {
      reads += LoadLe<int64_t>(c.entry() + s.fields()[*s.Find("POSIX_READS")].offset);
      writes += LoadLe<int64_t>(c.entry() + s.fields()[*s.Find("POSIX_WRITES")].offset);
    }
  }
  CHECK(all->counter_ops);
  CHECK(all->read.ops == reads);
  CHECK(all->write.ops == writes);
  const test::Run json = test::Xtfq(dir, "query h.xtfq --per-rank --format json");
  REQUIRE_MESSAGE(json.status == 0, json.err);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["read"]["ops"].get<int64_t>() == reads);
  CHECK(j["write"]["ops"].get<int64_t>() == writes);
  CHECK(!j["read"]["busy_s"].is_null());
  CHECK(j["read"]["bytes"].get<int64_t>() + j["write"]["bytes"].get<int64_t>() == read + written);
  CHECK(j["answered"].get<std::string>().find("from the counter records, exact here") != std::string::npos);
  REQUIRE(!j["per_rank"].empty());
  CHECK(j["per_rank"][0]["read"]["ops"].is_null());
  // A window that cuts a record's read interval (0.024 to 0.038 s): the counters are not exact
  // there, so what a heatmap does not hold is unknown in every output, never 0: JSON null, text
  // NA, CSV empty.
  const test::Run cut = test::Xtfq(dir, "query h.xtfq --time 0.03:1 --format json");
  REQUIRE_MESSAGE(cut.status == 0, cut.err);
  const auto k = nlohmann::json::parse(cut.out);
  for (const char* op : {"read", "write"}) {
    CHECK(k[op]["ops"].is_null());
    CHECK(k[op]["busy_s"].is_null());
    CHECK(k[op]["size_classes"].is_null());
  }
  const test::Run text = test::Xtfq(dir, "query h.xtfq --time 0.03:1");
  CHECK(text.out.find("size classes (Darshan's 10): NA (heatmaps count bytes only)") != std::string::npos);
  CHECK(text.out.find("read             NA                0            0           NA") != std::string::npos);
  const test::Run csv = test::Xtfq(dir, "query h.xtfq --time 0.03:1 --format csv");
  CHECK(csv.out.find("all,read,NA,0,0,NA,") != std::string::npos);
  const test::Run whole_csv = test::Xtfq(dir, "query h.xtfq --format csv");
  CHECK(whole_csv.out.find(fmt::format("all,read,{},{},", reads, read)) != std::string::npos);
}

// A store of one POSIX record (1000 bytes written in 10 writes over [1, 2) s) and HEATMAP bins
// of one rank that count `binned` bytes over three 1 s bins, written as the importer writes them.
void WriteHeatmapLog(const std::string& path, std::array<int64_t, 3> binned) {
  auto w = StoreWriter::CreatePath(path);
  REQUIRE(w.ok());
  DarshanRecordWriter rw(**w, 0, {});
  REQUIRE(rw.BeginCounters(1, "POSIX").ok());
  DarshanCounterRecord r;
  r.id = 42, r.rank = 0;
  r.ints.assign(rw.ints(), 0);
  r.floats.assign(rw.floats(), 0.0);
  const auto& names = DarshanModuleTables::CounterNames();
  const auto posix = std::find_if(names.begin(), names.end(), [](const auto& c) { return c.module == "POSIX"; });
  auto set = [&](std::string_view name, double v) {
    const auto at =
        static_cast<size_t>(std::find(posix->names.begin(), posix->names.end(), name) - posix->names.begin());
    if (at < rw.ints())
      r.ints[at] = static_cast<int64_t>(v);
    else
      r.floats[at - rw.ints()] = v;
  };
  set("POSIX_WRITES", 10), set("POSIX_BYTES_WRITTEN", 1000), set("POSIX_OPENS", 1);
  set("POSIX_F_OPEN_START_TIMESTAMP", 1.0), set("POSIX_F_WRITE_START_TIMESTAMP", 1.0);
  set("POSIX_F_WRITE_END_TIMESTAMP", 1.5), set("POSIX_F_WRITE_TIME", 0.25);
  REQUIRE(rw.AddCounters(r).ok());
  REQUIRE(rw.EndCounters().ok());
  HeatmapRecord h;
  h.id = 7, h.rank = 0, h.width = 1.0;
  h.read = {0, 0, 0};
  h.write = {binned[0], binned[1], binned[2]};
  REQUIRE(rw.AddHeatmap(h, "heatmap:POSIX").ok());
  REQUIRE(rw.EndHeatmaps().ok());
  DarshanJob job;
  job.job = 1, job.nprocs = 1, job.start_sec = 100, job.end_sec = 103, job.format_minor = 41;
  REQUIRE(rw.Finish(job).ok());
  REQUIRE((*w)->Commit().ok());
}

TEST_CASE("darshan window: HEATMAP bins short of the counters by Darshan's rounding keep the counters' operations") {
  test::TempDir dir;
  struct Case {
    std::array<int64_t, 3> bins;
    bool counters;  // operations and times from the counters
  };
  // Equal; 2 bytes short over 3 bins (rounding); 5 short (more than a byte a bin); 1 more than the counters.
  for (const Case& c :
       {Case{{300, 700, 0}, true}, Case{{299, 699, 0}, true}, Case{{297, 698, 0}, false}, Case{{301, 700, 0}, false}}) {
    CAPTURE(c.bins[0]);
    CAPTURE(c.bins[1]);
    const std::string path = dir.File(fmt::format("h{}-{}.xtfq", c.bins[0], c.bins[1]));
    WriteHeatmapLog(path, c.bins);
    auto reader = StoreReader::Open(path);
    REQUIRE(reader.ok());
    auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
    REQUIRE(info.ok());
    auto all = DarshanWindow::Compute(**reader, *info, DarshanWindowSpec{});
    REQUIRE_MESSAGE(all.ok(), Why(all));
    CHECK(all->heatmap);
    CHECK(all->heatmap_bins == 2);  // bins with bytes only
    CHECK(all->counter_ops == c.counters);
    if (c.counters) {
      CHECK(all->write.ops == 10);
      CHECK(all->write.bytes == 1000);  // the counters'
      CHECK(all->heatmap_short_by == 1000 - c.bins[0] - c.bins[1] - c.bins[2]);
    } else {
      CHECK(all->counter_bytes.has_value());
      CHECK(all->write.bytes == c.bins[0] + c.bins[1] + c.bins[2]);  // the bins', with both said
    }
  }
}

}  // namespace
}  // namespace xtfq

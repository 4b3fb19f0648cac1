// The Darshan signal spec v2.0: every formula and NA rule against hand-computed values on records
// built for the purpose, and the signals of every corpus log computed from its binary and from its
// darshan-parser text (exact for counts and bytes; within the text's six decimals for times).
#include "query/darshan/darshan_signals.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_module_tables.h"
#include "importers/darshan/darshan_record_writer.h"
#include "importers/darshan/darshan_text_importer.h"
#include "query/darshan/darshan_logs.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "store/store_writer.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using test::Why;
using Value = DarshanSignals::Value;
using Key = std::tuple<std::string, int64_t, uint64_t, std::string>;  // module, rank, id, name

// Collects every value by (module, rank, id, name); job and module lines have rank 0 and id 0 and
// names prefixed with their kind.
class MapSink final : public DarshanSignals::Sink {
 public:
  Status Begin(const DarshanSignals::Record& r) override {
    records.push_back(r);
    return Ok();
  }
  Status Emit(const DarshanSignals::Line& l) override {
    static const char* kKind[] = {"JOB", "MODULE_AGG", "MODULE_PERF", "", ""};
    const std::string prefix = kKind[static_cast<int>(l.kind)];
    values[{l.module, l.rank, l.id, prefix.empty() ? l.name : prefix + ":" + l.name}] = l.value;
    return Ok();
  }
  std::map<Key, Value> values;
  std::vector<DarshanSignals::Record> records;
};

// A record of `module` with every counter 0 but those given.
DarshanCounterRecord Rec(std::string_view module, uint64_t id, int64_t rank, const std::map<std::string, double>& set) {
  const DarshanModuleTables::Counters* names = nullptr;
  for (const auto& c : DarshanModuleTables::CounterNames()) {
    if (c.module == module) names = &c;
  }
  REQUIRE(names != nullptr);
  DarshanCounterRecord r;
  r.id = id, r.rank = rank;
  for (std::string_view n : names->names) {
    if (n.ends_with("_FILE_REC_ID")) continue;
    const auto it = set.find(std::string(n));
    const double v = it == set.end() ? 0 : it->second;
    if (n.find("_F_") != std::string_view::npos) {
      r.floats.push_back(v);
    } else {
      r.ints.push_back(static_cast<int64_t>(v));
    }
  }
  return r;
}

MapSink Compute(const std::string& store, std::optional<std::pair<int64_t, int64_t>> ranks = std::nullopt) {
  auto reader = StoreReader::Open(store);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
  REQUIRE_MESSAGE(info.ok(), Why(info));
  MapSink sink;
  Status s = DarshanSignals::Compute(**reader, *info, sink, ranks);
  REQUIRE_MESSAGE(s.ok(), Why(s));
  return sink;
}

void Is(const MapSink& m, const Key& k, Value want) {
  CAPTURE(std::get<0>(k));
  CAPTURE(std::get<1>(k));
  CAPTURE(std::get<3>(k));
  auto it = m.values.find(k);
  REQUIRE_MESSAGE(it != m.values.end(), "no such line");
  CHECK(DarshanSignals::Format(it->second) == DarshanSignals::Format(want));
}

TEST_CASE("signals: every formula and NA rule of the spec on hand-made records") {
  test::TempDir dir;
  const std::string store = dir.File("s.xtfq");
  {
    auto w = StoreWriter::CreatePath(store);
    REQUIRE(w.ok());
    DarshanRecordWriter rw(**w, 0, {});
    REQUIRE(rw.AddName(11, "/scratch/a.dat").ok());
    REQUIRE(rw.BeginCounters(1, "POSIX").ok());
    // Rank 0: 3 MiB read in 4 reads over 0.5 s; nothing written; a seek count of -1.
    REQUIRE(rw.AddCounters(Rec("POSIX", 11, 0,
                               {{"POSIX_BYTES_READ", 3 * 1048576.0},
                                {"POSIX_READS", 4},
                                {"POSIX_F_READ_TIME", 0.5},
                                {"POSIX_SEQ_READS", 3},
                                {"POSIX_CONSEC_READS", 1},
                                {"POSIX_OPENS", 2},
                                {"POSIX_STATS", 1},
                                {"POSIX_SEEKS", -1},
                                {"POSIX_F_META_TIME", 0.5},
                                {"POSIX_FILE_NOT_ALIGNED", 1},
                                {"POSIX_SIZE_READ_0_100", 1},
                                {"POSIX_SIZE_READ_1K_10K", 1},
                                {"POSIX_SIZE_READ_1M_4M", 2},
                                {"POSIX_MAX_BYTE_READ", 1048575},
                                {"POSIX_F_OPEN_START_TIMESTAMP", 1}}))
                .ok());
    // Shared, with I/O: slowest 300 bytes, fastest 100, variance 12.5; MAX_BYTE_READ 0.
    REQUIRE(rw.AddCounters(Rec("POSIX", 12, -1,
                               {{"POSIX_BYTES_WRITTEN", 400},
                                {"POSIX_WRITES", 2},
                                {"POSIX_F_WRITE_TIME", 0.25},
                                {"POSIX_SLOWEST_RANK_BYTES", 300},
                                {"POSIX_FASTEST_RANK_BYTES", 100},
                                {"POSIX_F_VARIANCE_RANK_BYTES", 12.5},
                                {"POSIX_F_OPEN_START_TIMESTAMP", 2}}))
                .ok());
    // Shared, without I/O.
    REQUIRE(rw.AddCounters(Rec("POSIX", 13, -1,
                               {{"POSIX_SLOWEST_RANK_BYTES", 5},
                                {"POSIX_FASTEST_RANK_BYTES", 1},
                                {"POSIX_F_VARIANCE_RANK_BYTES", 2},
                                {"POSIX_F_OPEN_START_TIMESTAMP", 3}}))
                .ok());
    // Shared, I/O, fastest rank moved 0 bytes; bytes read -1 (not monitored).
    REQUIRE(rw.AddCounters(Rec("POSIX", 14, -1,
                               {{"POSIX_BYTES_WRITTEN", 8},
                                {"POSIX_BYTES_READ", -1},
                                {"POSIX_WRITES", 1},
                                {"POSIX_SLOWEST_RANK_BYTES", 8},
                                {"POSIX_F_VARIANCE_RANK_BYTES", 16},
                                {"POSIX_F_OPEN_START_TIMESTAMP", 4}}))
                .ok());
    REQUIRE(rw.EndCounters().ok());
    REQUIRE(rw.BeginCounters(2, "MPI-IO").ok());
    REQUIRE(rw.AddCounters(Rec("MPI-IO", 12, -1,
                               {{"MPIIO_INDEP_READS", 1},
                                {"MPIIO_COLL_READS", 2},
                                {"MPIIO_SPLIT_READS", 3},
                                {"MPIIO_NB_READS", 4},
                                {"MPIIO_BYTES_READ", 1048576},
                                {"MPIIO_F_READ_TIME", 0.125}}))
                .ok());
    REQUIRE(rw.EndCounters().ok());
    REQUIRE(rw.BeginCounters(9, "STDIO").ok());
    REQUIRE(rw.AddCounters(Rec("STDIO", 15, 0,
                               {{"STDIO_WRITES", 4}, {"STDIO_BYTES_WRITTEN", 64}, {"STDIO_F_WRITE_TIME", 0.0625}}))
                .ok());
    REQUIRE(rw.EndCounters().ok());
    DarshanJob job;
    job.mounts = {{"/scratch", "lustre"}, {"/", "ext4"}};
    REQUIRE(rw.Finish(job).ok());
    REQUIRE((*w)->Commit().ok());
  }
  const MapSink m = Compute(store);
  auto P = [](int64_t rank, uint64_t id, const char* n) { return Key{"POSIX", rank, id, n}; };
  // Rank 0.
  Is(m, P(0, 11, "POSIX_SEEKS"), std::nullopt);  // -1 is NA
  Is(m, P(0, 11, "SIGNAL_READ_BW"), 6.0);        // 3 MiB / 0.5 s
  Is(m, P(0, 11, "SIGNAL_READ_IOPS"), 8.0);
  Is(m, P(0, 11, "SIGNAL_AVG_READ_SIZE"), 786432.0);
  Is(m, P(0, 11, "SIGNAL_WRITE_BW"), std::nullopt);  // write time 0
  Is(m, P(0, 11, "SIGNAL_AVG_WRITE_SIZE"), std::nullopt);
  Is(m, P(0, 11, "SIGNAL_SEQ_RATIO"), 0.75);
  Is(m, P(0, 11, "SIGNAL_CONSEC_RATIO"), 0.25);
  Is(m, P(0, 11, "SIGNAL_SEQ_READ_RATIO"), 0.75);
  Is(m, P(0, 11, "SIGNAL_SEQ_WRITE_RATIO"), std::nullopt);
  Is(m, P(0, 11, "SIGNAL_META_OPS"), std::nullopt);  // from the NA seek count
  Is(m, P(0, 11, "SIGNAL_META_INTENSITY"), std::nullopt);
  Is(m, P(0, 11, "SIGNAL_META_FRACTION"), 0.5);  // 0.5 / (0.5 + 0.5 + 0)
  Is(m, P(0, 11, "SIGNAL_UNALIGNED_READ_RATIO"), 0.25);
  Is(m, P(0, 11, "SIGNAL_UNALIGNED_WRITE_RATIO"), std::nullopt);
  Is(m, P(0, 11, "SIGNAL_SMALL_READ_RATIO"), 0.5);               // 0-100 and 1K-10K of 4
  Is(m, P(0, 11, "SIGNAL_REUSE_PROXY"), 3.0);                    // 3 MiB / (1048575 + 1)
  Is(m, P(0, 11, "SIGNAL_RANK_IMBALANCE_RATIO"), std::nullopt);  // not shared
  Is(m, P(0, 11, "SIGNAL_BW_VARIANCE_PROXY"), std::nullopt);
  Is(m, P(0, 11, "SIGNAL_IS_SHARED"), 0.0);
  // Shared with I/O.
  Is(m, P(-1, 12, "SIGNAL_WRITE_BW"), 400.0 / 1048576 / 0.25);
  Is(m, P(-1, 12, "SIGNAL_RANK_IMBALANCE_RATIO"), 3.0);
  Is(m, P(-1, 12, "SIGNAL_BW_VARIANCE_PROXY"), 12.5);
  Is(m, P(-1, 12, "SIGNAL_REUSE_PROXY"), std::nullopt);  // MAX_BYTE_READ + 1 <= 1
  Is(m, P(-1, 12, "SIGNAL_IS_SHARED"), 1.0);
  Is(m, P(-1, 12, "SIGNAL_META_OPS"), 0.0);
  Is(m, P(-1, 12, "SIGNAL_META_FRACTION"), 0.0);
  // Shared without I/O.
  Is(m, P(-1, 13, "SIGNAL_RANK_IMBALANCE_RATIO"), std::nullopt);
  Is(m, P(-1, 13, "SIGNAL_BW_VARIANCE_PROXY"), std::nullopt);
  Is(m, P(-1, 13, "SIGNAL_SEQ_RATIO"), std::nullopt);  // no operations
  // Shared, fastest rank 0 bytes, bytes read NA: bytes read + written is NA, so both NA.
  Is(m, P(-1, 14, "SIGNAL_RANK_IMBALANCE_RATIO"), std::nullopt);
  Is(m, P(-1, 14, "SIGNAL_BW_VARIANCE_PROXY"), std::nullopt);
  Is(m, P(-1, 14, "SIGNAL_AVG_WRITE_SIZE"), 8.0);
  // Module aggregates skip NA: bytes read 3 MiB (record 14's -1 left out).
  Is(m, Key{"POSIX", 0, 0, "MODULE_AGG:total_bytes_read"}, 3 * 1048576.0);
  Is(m, Key{"POSIX", 0, 0, "MODULE_AGG:total_bytes_written"}, 408.0);
  Is(m, Key{"POSIX", 0, 0, "MODULE_AGG:total_writes"}, 3.0);
  Is(m, Key{"POSIX", 0, 0, "MODULE_AGG:total_write_time"}, 0.25);
  Is(m, Key{"POSIX", 0, 0, "MODULE_PERF:avg_write_size"}, 136.0);
  Is(m, Key{"POSIX", 0, 0, "MODULE_PERF:read_bw"}, 6.0);
  // MPI-IO: reads are the four kinds; no sequential counters.
  Is(m, Key{"MPI-IO", -1, 12, "SIGNAL_READ_IOPS"}, 80.0);
  Is(m, Key{"MPI-IO", -1, 12, "SIGNAL_SEQ_RATIO"}, std::nullopt);
  Is(m, Key{"MPI-IO", -1, 12, "SIGNAL_IS_SHARED"}, 1.0);
  CHECK(m.values.count(Key{"MPI-IO", -1, 12, "SIGNAL_META_OPS"}) == 0);  // POSIX only
  Is(m, Key{"MPI-IO", 0, 0, "MODULE_AGG:total_reads"}, 10.0);
  // STDIO.
  Is(m, Key{"STDIO", 0, 15, "SIGNAL_WRITE_BW"}, 64.0 / 1048576 / 0.0625);
  Is(m, Key{"STDIO", 0, 15, "SIGNAL_CONSEC_RATIO"}, std::nullopt);
  // The job adds every module: reads 4 + 10, writes 3 + 4, bytes read 3 MiB + 1 MiB.
  Is(m, Key{"", 0, 0, "JOB:total_reads"}, 14.0);
  Is(m, Key{"", 0, 0, "JOB:total_writes"}, 7.0);
  Is(m, Key{"", 0, 0, "JOB:total_bytes_read"}, 4 * 1048576.0);
  Is(m, Key{"", 0, 0, "JOB:total_bytes_written"}, 472.0);
  // Record headers: name, mount by longest prefix, and unnamed records.
  REQUIRE(m.records.size() == 6);
  CHECK(m.records[0].file_name == "/scratch/a.dat");
  CHECK(m.records[0].mount_pt == "/scratch");
  CHECK(m.records[0].fs_type == "lustre");
  CHECK(m.records[1].file_name == "(null)");
  CHECK(m.records[1].mount_pt == "UNKNOWN");
}

TEST_CASE("signals: a rank range adds up the per-rank records of those ranks from the P index") {
  test::TempDir dir;
  DarshanGenOptions o;
  o.segments = 20000, o.ranks = 16, o.files = 70, o.checkpoints = 2, o.duration = 300, o.seed = 5;
  REQUIRE(DarshanGenerator::Write(dir.File("g.darshan"), o).ok());
  {
    auto l = DarshanLog::Open(dir.File("g.darshan"));
    REQUIRE(l.ok());
    auto w = StoreWriter::CreatePath(dir.File("g.xtfq"));
    REQUIRE(w.ok());
    REQUIRE(DarshanImporter::Import(**l, **w, 0).ok());
    REQUIRE((*w)->Commit().ok());
  }
  const MapSink all = Compute(dir.File("g.xtfq"));
  const MapSink part = Compute(dir.File("g.xtfq"), std::pair<int64_t, int64_t>{3, 7});
  CHECK(part.records.empty());  // module levels only
  // The naive model: the whole run's record lines of ranks 3-6 added up.
  double bytes = 0, writes = 0, time = 0;
  for (const auto& [k, v] : all.values) {
    const auto& [mod, rank, id, name] = k;
    if (mod != "POSIX" || rank < 3 || rank >= 7 || !v) continue;
    if (name == "POSIX_BYTES_WRITTEN") bytes += *v;
    if (name == "POSIX_WRITES") writes += *v;
    if (name == "POSIX_F_WRITE_TIME") time += *v;
  }
  CHECK(writes > 0);
  Is(part, Key{"POSIX", 0, 0, "MODULE_AGG:total_bytes_written"}, bytes);
  Is(part, Key{"POSIX", 0, 0, "MODULE_AGG:total_writes"}, writes);
  const auto it = part.values.find(Key{"POSIX", 0, 0, "MODULE_AGG:total_write_time"});
  REQUIRE(it != part.values.end());
  CHECK(std::fabs(*it->second - time) <= 1e-12 * time);
  // Shared records (the input and checkpoints, rank -1) are not in any rank range.
  Is(part, Key{"MPI-IO", 0, 0, "MODULE_AGG:total_reads"}, 0.0);
}

TEST_CASE("signals: values print as the shortest decimal that reads back with a digit after the point") {
  CHECK(DarshanSignals::Format(1198.0) == "1198.0");
  CHECK(DarshanSignals::Format(0.5) == "0.5");
  CHECK(DarshanSignals::Format(1.8984375) == "1.8984375");
  CHECK(DarshanSignals::Format(0.1 + 0.2) == "0.30000000000000004");
  CHECK(DarshanSignals::Format(0.0) == "0.0");
  CHECK(DarshanSignals::Format(std::nullopt) == "NA");
  CHECK(std::stod(DarshanSignals::Format(1.0 / 3)) == 1.0 / 3);
}

// A sink that passes everything to a store, with the float counters of counter records rounded to
// the six decimals darshan-parser prints: what the text import sees.
class SixDecimals final : public RecordSink {
 public:
  explicit SixDecimals(StoreWriter& w) : w_(w) {}
  Result<ArrayId> CreateArray(std::string_view name, const Schema& schema) override {
    XTFQ_ASSIGN_OR_RETURN(ArrayId id, w_.CreateArray(name, schema));
    if (name.starts_with("darshan/") && name.find("DXT_") == std::string_view::npos) schemas_.emplace(id.value, schema);
    return id;
  }
  std::optional<ArrayId> FindArrayId(std::string_view name) const override { return w_.FindArrayId(name); }
  Result<StringRef> AddString(std::string_view s) override { return w_.AddString(s); }
  Status Append(ArrayId array, std::span<const std::byte> record) override {
    auto it = schemas_.find(array.value);
    if (it == schemas_.end()) return w_.Append(array, record);
    std::vector<std::byte> r(record.begin(), record.end());
    for (const Field& f : it->second.fields()) {
      if (f.type != FieldType::kF64) continue;
      const double v = LoadLe<double>(r.data() + f.offset);
      StoreLe<double>(r.data() + f.offset, std::stod(fmt::format("{:.6f}", v)));
    }
    return w_.Append(array, r);
  }

 private:
  StoreWriter& w_;
  std::map<uint32_t, Schema> schemas_;
};

TEST_CASE("signals: every corpus log gives the same signals from its binary and from its darshan-parser text") {
  const fs::path corpus = fs::path(XTFQ_SHARED_DIR) / "data" / "darshan";
  if (test::SharedMissing(corpus)) return;
  test::TempDir dir;
  size_t logs = 0, values = 0;
  for (const char* sub : {"generated", "real"}) {
    for (const auto& e : fs::directory_iterator(corpus / sub)) {
      if (e.path().extension() != ".darshan" || !fs::exists(e.path().string() + ".txt")) continue;
      const std::string txt = e.path().string() + ".txt";
      CAPTURE(e.path().string());
      // A text cut short by a partial module lacks records; compare only complete texts.
      std::ifstream t(txt);
      const std::string text((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
      if (text.find("contains incomplete data") != std::string::npos) continue;
      auto log = DarshanLog::Open(e.path().string());
      REQUIRE(log.ok());
      for (const char* f : {"b.xtfq", "t.xtfq"}) fs::remove(dir.File(f));
      {
        // The binary log with its doubles rounded as the text prints them...
        auto w = StoreWriter::CreatePath(dir.File("b.xtfq"));
        REQUIRE(w.ok());
        SixDecimals rounded(**w);
        REQUIRE(DarshanImporter::Import(**log, rounded, 0).ok());
        REQUIRE((*w)->Commit().ok());
        // ... and the text.
        auto w2 = StoreWriter::CreatePath(dir.File("t.xtfq"));
        REQUIRE(w2.ok());
        auto f = PosixFile::Open(txt, PosixFile::Mode::kRead);
        REQUIRE(f.ok());
        REQUIRE(DarshanTextImporter::Import(**f, **w2, 0).ok());
        REQUIRE((*w2)->Commit().ok());
      }
      // Every value equal, NA for NA: counts and bytes come through the text exactly, and times
      // as the text rounds them.
      const MapSink a = Compute(dir.File("b.xtfq")), b = Compute(dir.File("t.xtfq"));
      REQUIRE(a.values.size() == b.values.size());
      int bad = 0;
      for (const auto& [k, va] : a.values) {
        auto it = b.values.find(k);
        REQUIRE(it != b.values.end());
        ++values;
        if (DarshanSignals::Format(va) != DarshanSignals::Format(it->second) && bad++ < 5) {
          FAIL_CHECK(std::get<3>(k) << " of " << std::get<2>(k) << ": " << DarshanSignals::Format(va) << " against "
                                    << DarshanSignals::Format(it->second));
        }
      }
      ++logs;
    }
  }
  MESSAGE(logs << " logs, " << values << " values compared");
  CHECK(logs >= 25);
}

TEST_CASE(
    "signals: the command writes NAME_signals_v2.txt in the spec's layout, and json and csv with the same values") {
  const fs::path log = fs::path(XTFQ_SHARED_DIR) / "data" / "darshan" / "generated" / "dd_small.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  auto r = test::Xtfq(dir, fmt::format("signals '{}'", log.string()));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::ifstream in(dir.File("dd_small_signals_v2.txt"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.starts_with("# darshan log version: 3.41\n"));
  CHECK(text.find("# JOB LEVEL METRICS\n# "
                  "============================================================\nJOB\ttotal_bytes_read\t") !=
        std::string::npos);
  CHECK(text.find("# MODULE: POSIX\n# ============================================================\n#\n## Module-Level "
                  "Aggregates:\nPOSIX\tMODULE_AGG\ttotal_bytes_read\t") != std::string::npos);
  CHECK(text.find("\n## Module-Level Performance Metrics:\nPOSIX\tMODULE_PERF\tread_bw\tNA\n") != std::string::npos);
  CHECK(text.find("# RECORD: 8291136671211331296 (rank=0)\n# file_name: /tmp/gen/work/dd.out\n# mount_pt: /\n# "
                  "fs_type: ext4\n") != std::string::npos);
  CHECK(text.find("POSIX\t0\t8291136671211331296\tPOSIX_BYTES_WRITTEN\t1048576.0\n") != std::string::npos);
  CHECK(text.find("### Derived Signals:\n# Performance Metrics\nPOSIX\t0\t8291136671211331296\tSIGNAL_READ_BW\tNA\n") !=
        std::string::npos);
  CHECK(
      text.find("# Data Reuse (proxy from MAX_BYTE_READ+1)\nPOSIX\t0\t8291136671211331296\tSIGNAL_REUSE_PROXY\tNA\n") !=
      std::string::npos);
  // 256 writes of 4096 bytes, 255 of them sequential.
  CHECK(text.find("SIGNAL_SEQ_WRITE_RATIO\t0.99609375\n") != std::string::npos);
  auto csv = test::Xtfq(dir, fmt::format("signals '{}' --format csv -o -", log.string()));
  REQUIRE(csv.status == 0);
  CHECK(csv.out.starts_with("level,module,rank,record_id,group,name,value\n"));
  CHECK(
      csv.out.find("record_signal,POSIX,0,8291136671211331296,\"Performance Metrics\",SIGNAL_SEQ_RATIO,0.99609375\n") !=
      std::string::npos);
  auto json = test::Xtfq(dir, fmt::format("signals '{}' --format json -o -", log.string()));
  REQUIRE(json.status == 0);
  CHECK(json.out.find("\"SIGNAL_SEQ_WRITE_RATIO\":0.99609375") != std::string::npos);
  CHECK(json.out.find("\"SIGNAL_READ_BW\":null") != std::string::npos);
  // The same from a store, and from the text.
  REQUIRE(test::Xtfq(dir, fmt::format("import '{}' -o s.xtfq", log.string())).status == 0);
  auto from_store = test::Xtfq(dir, "signals s.xtfq -o -");
  CHECK(from_store.out == text);
  auto bad = test::Xtfq(dir, "signals nothing.darshan");
  CHECK(bad.status == 1);
}

}  // namespace
}  // namespace xtfq

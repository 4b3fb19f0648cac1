// Darshan logs in a store: every corpus log imported from its binary and from its darshan-parser
// text gives the same counter records; `xtfq dump STORE` prints what dumping the log prints; the
// DXT fields derived at import add up to the runtime's own counters; a generated log survives
// gen -> import -> dump -> import of the text; record ids follow Darshan's hash; the external sort
// equals a stable sort whatever spills; bad input leaves the store at its last commit.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "gen/darshan_generator.h"
#include "gen/darshan_log_writer.h"
#include "importers/common/record_sorter.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_text_importer.h"
#include "layouts/darshan_layout.h"
#include "layouts/darshan_module_perf.h"
#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "store/store_writer.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using test::Why;
using test::Xtfq;
using L = DarshanLayout;

fs::path Corpus() { return fs::path(XTFQ_SHARED_DIR) / "data" / "darshan"; }

std::vector<fs::path> CorpusLogs() {
  std::vector<fs::path> logs;
  for (const char* dir : {"generated", "real"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(Corpus() / dir, ec)) {
      if (e.path().extension() == ".darshan") logs.push_back(e.path());
    }
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Imports `input` (binary log or darshan-parser text) into a new store at `store`.
Status ImportInto(const std::string& input, const std::string& store, bool text,
                  const DarshanImportOptions& opts = {}) {
  XTFQ_ASSIGN_OR_RETURN(auto w, StoreWriter::CreatePath(store));
  if (text) {
    XTFQ_ASSIGN_OR_RETURN(auto f, PosixFile::Open(input, PosixFile::Mode::kRead));
    XTFQ_TRY(DarshanTextImporter::Import(*f, *w, 0, opts));
  } else {
    XTFQ_ASSIGN_OR_RETURN(auto log, DarshanLog::Open(input));
    XTFQ_TRY(DarshanImporter::Import(*log, *w, 0, opts));
  }
  return w->Commit();
}

// The records of every array of log 0 whose name ends in `suffix` ("" = all), by array name.
std::map<std::string, std::vector<std::vector<std::byte>>> Arrays(const std::string& store) {
  std::map<std::string, std::vector<std::vector<std::byte>>> out;
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  for (const ArrayDesc& a : (*r)->store().catalogue().arrays) {
    if (a.per_process() || !a.name.starts_with("darshan/0/")) continue;
    auto& recs = out[a.name];
    ChainCursor c = (*r)->Records(a);
    auto more = c.First();
    while (more.ok() && *more) {
      recs.emplace_back(c.entry(), c.entry() + a.schema.record_width());
      more = c.Next();
    }
    REQUIRE_MESSAGE(more.ok(), Why(more));
  }
  return out;
}

Schema SchemaOf(const std::string& store, const std::string& array) {
  auto r = StoreReader::Open(store);
  REQUIRE(r.ok());
  auto a = (*r)->Array(array);
  REQUIRE_MESSAGE(a.ok(), Why(a));
  return (*a)->schema;
}

// Counter records of two stores agree: the same (id, rank) records, ints equal, floats within
// the six decimals darshan-parser prints. `skip` names fields left out.
void SameCounters(const std::string& name, const std::string& a_store, const std::string& b_store,
                  const std::vector<std::vector<std::byte>>& a, const std::vector<std::vector<std::byte>>& b,
                  const std::vector<std::string>& skip) {
  const Schema s = SchemaOf(a_store, name);
  CHECK_MESSAGE(s == SchemaOf(b_store, name), name);
  REQUIRE_MESSAGE(a.size() == b.size(), name << ": " << a.size() << " records against " << b.size());
  // Keyed by (id, rank, position among equal keys).
  auto keyed = [&](const std::vector<std::vector<std::byte>>& recs) {
    std::map<std::tuple<uint64_t, int64_t, int>, const std::vector<std::byte>*> m;
    for (const auto& r : recs) {
      int k = 0;
      while (!m.try_emplace({LoadLe<uint64_t>(r.data()), LoadLe<int64_t>(r.data() + 8), k}, &r).second) ++k;
    }
    return m;
  };
  const auto ka = keyed(a), kb = keyed(b);
  int reported = 0;
  for (const auto& [key, ra] : ka) {
    auto it = kb.find(key);
    REQUIRE_MESSAGE(it != kb.end(),
                    name << ": record " << std::get<0>(key) << " rank " << std::get<1>(key) << " missing");
    const auto* rb = it->second;
    for (size_t f = 3; f < s.fields().size(); ++f) {
      const Field& fd = s.fields()[f];
      if (std::find(skip.begin(), skip.end(), fd.name) != skip.end() || fd.name == "tail") continue;
      if (fd.type == FieldType::kF64) {
        const double x = LoadLe<double>(ra->data() + fd.offset), y = LoadLe<double>(rb->data() + fd.offset);
        const bool same = (std::isnan(x) && std::isnan(y)) || std::fabs(x - y) <= 5.01e-7 + 1e-15 * std::fabs(x);
        if (!same && reported++ < 5)
          FAIL_CHECK(name << " " << std::get<0>(key) << " " << fd.name << ": " << x << " against " << y);
      } else if (std::memcmp(ra->data() + fd.offset, rb->data() + fd.offset, FieldWidth(fd.type)) != 0 &&
                 reported++ < 5) {
        FAIL_CHECK(name << " " << std::get<0>(key) << " " << fd.name << " differs");
      }
    }
  }
}

bool IsCounterArray(const std::string& name) {
  return name.find("DXT_") == std::string::npos && !name.ends_with("/names") && !name.ends_with("/perf") &&
         !name.ends_with(".total");
}

// A --total record of a text import against the binary's: the int counters equal, the float
// counters within the six-decimal rounding of three times (a rank's read + write + meta) of each of
// `records` records. The int counters that follow a float's winner (MAX_*_TIME_SIZE, the fastest
// and slowest rank and its bytes) may follow another record when rounding reorders the times.
void SameTotal(const std::string& name, const Schema& s, const std::vector<std::byte>& bin,
               const std::vector<std::byte>& txt, double records) {
  for (size_t f = 3; f < s.fields().size(); ++f) {
    const Field& fd = s.fields()[f];
    CAPTURE(fd.name);
    if (fd.type == FieldType::kF64) {
      const double x = LoadLe<double>(bin.data() + fd.offset), y = LoadLe<double>(txt.data() + fd.offset);
      CHECK_MESSAGE(std::fabs(x - y) <= 3 * records * 5.01e-7 + 1e-12, name);
    } else if (fd.name.find("_TIME_SIZE") == std::string::npos && fd.name.find("EST_RANK") == std::string::npos) {
      CHECK_MESSAGE(LoadLe<int64_t>(bin.data() + fd.offset) == LoadLe<int64_t>(txt.data() + fd.offset), name);
    }
  }
}

// The perf records of a text import against the binary's: the same counts, bytes and files; the
// times within what six-decimal rounding of each record's three times can add up to, and the
// rate within that relative error. (slowest_rank may differ between ranks within that error.)
void SamePerf(const std::vector<std::vector<std::byte>>& bin, const std::vector<std::vector<std::byte>>& txt) {
  std::map<int64_t, DarshanModulePerf> by_slot;
  for (const auto& r : bin) by_slot[DarshanModulePerf::Decode(r.data()).slot] = DarshanModulePerf::Decode(r.data());
  for (const auto& r : txt) {
    const DarshanModulePerf t = DarshanModulePerf::Decode(r.data());
    CAPTURE(t.slot);
    REQUIRE(by_slot.count(t.slot) == 1);
    const DarshanModulePerf& b = by_slot[t.slot];
    CHECK(t.records == b.records);
    CHECK(t.total_bytes == b.total_bytes);
    for (size_t i = 0; i < b.files.size(); ++i) {
      CHECK(t.files[i].count == b.files[i].count);
      CHECK(t.files[i].bytes == b.files[i].bytes);
      CHECK(t.files[i].max_offset == b.files[i].max_offset);
    }
    const double tol = static_cast<double>(b.records) * 3 * 5.01e-7;
    CHECK(std::fabs(t.time_by_slowest - b.time_by_slowest) <= tol);
    CHECK(std::fabs(t.agg_time_by_slowest - b.agg_time_by_slowest) <= 2 * tol);
    if (b.agg_time_by_slowest > 4 * tol) {
      CHECK(std::fabs(t.agg_perf_by_slowest - b.agg_perf_by_slowest) <=
            b.agg_perf_by_slowest * 4 * tol / b.agg_time_by_slowest);
    }
  }
}

TEST_CASE("darshan store: every corpus log imported from binary and from darshan-parser text gives the same records") {
  const auto logs = CorpusLogs();
  if (logs.empty()) {
    test::SharedAbsent("no Darshan corpus logs under " + Corpus().string());
    return;
  }
  test::TempDir dir;
  size_t compared = 0, arrays = 0;
  for (const fs::path& log : logs) {
    const fs::path txt = log.string() + ".txt";
    if (!fs::exists(txt)) continue;
    CAPTURE(log.string());
    const std::string bin_store = dir.File("bin.xtfq"), txt_store = dir.File("txt.xtfq");
    fs::remove(bin_store), fs::remove(txt_store);
    Status sb = ImportInto(log.string(), bin_store, false);
    REQUIRE_MESSAGE(sb.ok(), Why(sb));
    Status st = ImportInto(txt.string(), txt_store, true);
    REQUIRE_MESSAGE(st.ok(), Why(st));
    auto a = Arrays(bin_store), b = Arrays(txt_store);
    // The text stops at a partial module (darshan-parser exits there without --show-incomplete);
    // every module it has must be the binary's, and a complete text has them all.
    const std::string text = Slurp(txt);
    const bool stopped = text.find("contains incomplete data") != std::string::npos;
    // darshan-util prints big-endian POSIX v1-v3 logs with three doubles left unswapped.
    auto log_open = DarshanLog::Open(log.string());
    REQUIRE(log_open.ok());
    // The binary import reads big-endian POSIX v1-v3 doubles as darshan-util does (docs/signals.md):
    // no counter needs skipping.
    const std::vector<std::string> skip;
    for (const auto& [name, recs] : b) {
      if (!IsCounterArray(name)) continue;
      REQUIRE_MESSAGE(a.count(name) == 1, name << " is only in the text import");
      SameCounters(name, bin_store, txt_store, a[name], recs, skip);
      ++arrays;
    }
    if (b.count(L::ArrayName(0, "perf")) == 1) SamePerf(a[L::ArrayName(0, "perf")], b[L::ArrayName(0, "perf")]);
    for (const auto& [name, recs] : b) {
      if (!name.ends_with(".total")) continue;
      REQUIRE(a.count(name) == 1);
      REQUIRE(recs.size() == 1);
      const std::string module = name.substr(name.rfind('/') + 1, name.size() - name.rfind('/') - 1 - 6);
      SameTotal(name, SchemaOf(txt_store, name), a[name][0], recs[0],
                static_cast<double>(a[L::ArrayName(0, module)].size()));
    }
    if (!stopped) {
      for (const auto& [name, recs] : a) {
        if (IsCounterArray(name) && !recs.empty())
          CHECK_MESSAGE(b.count(name) == 1, name << " is missing from the text import");
      }
    }
    // The job, as both imports keep it.
    auto rb = StoreReader::Open(bin_store);
    auto rt = StoreReader::Open(txt_store);
    REQUIRE(rb.ok());
    REQUIRE(rt.ok());
    auto jb = DarshanLogs::List(**rb), jt = DarshanLogs::List(**rt);
    REQUIRE(jb.ok());
    REQUIRE(jt.ok());
    REQUIRE(jb->size() == 1);
    REQUIRE(jt->size() == 1);
    CHECK((*jb)[0].job == (*jt)[0].job);
    CHECK((*jb)[0].nprocs == (*jt)[0].nprocs);
    CHECK((*jb)[0].start_sec == (*jt)[0].start_sec);
    CHECK((*jb)[0].exe == (*jt)[0].exe);
    CHECK((*jb)[0].mounts == (*jt)[0].mounts);
    CHECK((*jb)[0].metadata == (*jt)[0].metadata);
    CHECK((*jt)[0].source == L::SourceKind::kParserText);
    ++compared;
  }
  MESSAGE(compared << " logs, " << arrays << " counter arrays compared");
  CHECK(compared >= 30);
}

// Every corpus log, dumped from the log and from a store four ways (plain, --dxt, --header,
// --show-incomplete); in the small tier (tests/tier.h) plain and one other way by turns, so that
// every log and every way is still dumped.
TEST_CASE("darshan store: xtfq dump of a store prints what dumping the log prints" * doctest::test_suite("long")) {
  const auto logs = CorpusLogs();
  if (logs.empty()) {
    test::SharedAbsent("no Darshan corpus logs under " + Corpus().string());
    return;
  }
  test::TempDir dir;
  int n = 0;
  for (const fs::path& log : logs) {
    CAPTURE(log.string());
    REQUIRE(Xtfq(dir, fmt::format("import '{}' -o s.xtfq", log.string())).status == 0);
    const std::vector<const char*> ways{"", "--dxt", "--header", "--show-incomplete"};
    for (size_t w = 0; w < ways.size(); ++w) {
      if (test::CurrentTier() == test::Tier::kSmall && w != 0 && w != 1 + static_cast<size_t>(n) % 3) continue;
      const char* flags = ways[w];
      const auto from_log = Xtfq(dir, fmt::format("dump {} '{}'", flags, log.string()));
      const auto from_store = Xtfq(dir, fmt::format("dump {} --log {} s.xtfq", flags, n));
      CHECK_MESSAGE(from_log.status == from_store.status, flags);
      CHECK_MESSAGE(from_log.out == from_store.out, flags);
    }
    ++n;
  }
  // A log imported from text dumps as that text.
  const fs::path txt = Corpus() / "generated" / "dd_small.darshan.txt";
  REQUIRE(Xtfq(dir, fmt::format("import '{}' -o s.xtfq", txt.string())).status == 0);
  CHECK(Xtfq(dir, fmt::format("dump --log {} s.xtfq", n)).out == Slurp(txt));
  const auto dxt = Xtfq(dir, fmt::format("dump --dxt --log {} s.xtfq", n));
  CHECK(dxt.status == 1);
  CHECK(dxt.err.find("darshan-parser text") != std::string::npos);
  // Selecting by job id: ambiguous ids are refused with the list of logs.
  const auto amb = Xtfq(dir, "dump --job 0 s.xtfq");
  CHECK(amb.status != 0);
}

// Sums of the DXT-derived fields of one (file, rank), per operation.
struct DxtSums {
  int64_t ops = 0, bytes = 0, seq = 0, consec = 0, size_classes[10] = {};
};
std::map<std::pair<uint64_t, int64_t>, DxtSums> SumDxt(const std::vector<std::vector<std::byte>>& segs) {
  std::map<std::pair<uint64_t, int64_t>, DxtSums> out;
  for (const auto& s : segs) {
    DxtSums& d = out[{LoadLe<uint64_t>(s.data() + L::kDxtOffsetFile), LoadLe<int64_t>(s.data() + L::kDxtOffsetRank)}];
    ++d.ops;
    d.bytes += LoadLe<int64_t>(s.data() + L::kDxtOffsetLength);
    d.seq += static_cast<int64_t>(s[L::kDxtOffsetSeq]);
    d.consec += static_cast<int64_t>(s[L::kDxtOffsetConsec]);
    for (int b = 0; b < 10; ++b)
      d.size_classes[b] += static_cast<int64_t>(s[L::kDxtOffsetSizeClasses + static_cast<size_t>(b)]);
  }
  return out;
}

// For every per-rank POSIX record with DXT segments: the DXT sums equal the POSIX counters.
// Returns how many records were compared.
int DxtMatchesPosix(const std::string& store) {
  auto arrays = Arrays(store);
  const Schema posix = SchemaOf(store, "darshan/0/POSIX");
  auto field = [&](const std::vector<std::byte>& r, const std::string& n) {
    return LoadLe<int64_t>(r.data() + posix.fields()[*posix.Find(n)].offset);
  };
  int compared = 0;
  for (const char* op : {"read", "write"}) {
    const bool read = std::string(op) == "read";
    const auto sums = SumDxt(arrays[fmt::format("darshan/0/DXT_POSIX.{}", op)]);
    const std::string up = read ? "READ" : "WRITE";
    for (const auto& r : arrays["darshan/0/POSIX"]) {
      const auto key = std::make_pair(LoadLe<uint64_t>(r.data()), LoadLe<int64_t>(r.data() + 8));
      auto it = sums.find(key);
      if (key.second < 0 || it == sums.end()) continue;
      CAPTURE(key.first);
      const DxtSums& d = it->second;
      CHECK(d.ops == field(r, read ? "POSIX_READS" : "POSIX_WRITES"));
      CHECK(d.bytes == field(r, "POSIX_BYTES_" + std::string(read ? "READ" : "WRITTEN")));
      CHECK(d.seq == field(r, "POSIX_SEQ_" + up + "S"));
      CHECK(d.consec == field(r, "POSIX_CONSEC_" + up + "S"));
      for (int b = 0; b < 10; ++b) {
        CHECK(d.size_classes[b] == field(r, fmt::format("POSIX_SIZE_{}_{}", up, L::SizeClassName(b))));
      }
      ++compared;
    }
  }
  return compared;
}

TEST_CASE(
    "darshan store: DXT sequential and consecutive flags and size classes add up to the runtime's POSIX counters") {
  const fs::path log = Corpus() / "generated" / "iopat_small_dxt.darshan";
  if (test::SharedMissing(log)) return;
  test::TempDir dir;
  Status s = ImportInto(log.string(), dir.File("s.xtfq"), false);
  REQUIRE_MESSAGE(s.ok(), Why(s));
  CHECK(DxtMatchesPosix(dir.File("s.xtfq")) > 0);
}

TEST_CASE("darshan store: a generated log round-trips through import and dump and text import") {
  test::TempDir dir;
  DarshanGenOptions o;
  o.segments = 30000, o.ranks = 16, o.files = 60, o.checkpoints = 3, o.duration = 600, o.seed = 7;
  auto st = DarshanGenerator::Write(dir.File("g.darshan"), o);
  REQUIRE_MESSAGE(st.ok(), Why(st));
  CHECK(st->posix_segments + st->mpiio_segments >= 27000);
  CHECK(st->posix_segments + st->mpiio_segments <= 33000);
  // Small sort memory: the DXT import spills and merges runs.
  DarshanImportOptions small;
  small.sort_memory = 64 << 10;
  small.temp_dir = dir.path().string();
  Status s = ImportInto(dir.File("g.darshan"), dir.File("g.xtfq"), false, small);
  REQUIRE_MESSAGE(s.ok(), Why(s));
  // The derived DXT fields equal the counters the generator computed for per-rank files.
  CHECK(DxtMatchesPosix(dir.File("g.xtfq")) >= 40);
  const auto dump = Xtfq(dir, "dump g.xtfq");
  REQUIRE(dump.status == 0);
  CHECK(dump.out == Xtfq(dir, "dump g.darshan").out);
  { std::ofstream(dir.File("g.txt")) << dump.out; }
  s = ImportInto(dir.File("g.txt"), dir.File("t.xtfq"), true);
  REQUIRE_MESSAGE(s.ok(), Why(s));
  auto a = Arrays(dir.File("g.xtfq")), b = Arrays(dir.File("t.xtfq"));
  for (const char* m : {"POSIX", "MPI-IO", "STDIO"}) {
    const std::string name = fmt::format("darshan/0/{}", m);
    REQUIRE(!a[name].empty());
    SameCounters(name, dir.File("g.xtfq"), dir.File("t.xtfq"), a[name], b[name], {});
  }
  // DXT arrays hold every segment, in time order, with the same total as the log.
  uint64_t segs = 0;
  for (const auto& [name, recs] : a) {
    if (name.find("DXT_") == std::string::npos || name.ends_with(".files")) continue;
    segs += recs.size();
    for (size_t i = 1; i < recs.size(); ++i)
      REQUIRE(LoadLe<int64_t>(recs[i - 1].data()) <= LoadLe<int64_t>(recs[i].data()));
  }
  CHECK(segs == st->posix_segments + st->mpiio_segments);
  // The same options give the same bytes.
  REQUIRE(DarshanGenerator::Write(dir.File("h.darshan"), o).ok());
  CHECK(Slurp(dir.File("g.darshan")) == Slurp(dir.File("h.darshan")));
}

TEST_CASE("darshan store: record ids are Darshan's hash of the name") {
  // Values from ../shared/docs/darshan-format.md, 3.2, computed by the Darshan runtime.
  CHECK(DarshanLogWriter::Hash("/tmp/gen/work/dd.out") == 8291136671211331296ULL);
  CHECK(DarshanLogWriter::Hash("<STDOUT>") == 15920181672442173319ULL);
  // And every name record of a real log.
  const fs::path log = Corpus() / "generated" / "mpi_shared_4rank.darshan";
  if (test::SharedMissing(log)) return;
  auto l = DarshanLog::Open(log.string());
  REQUIRE(l.ok());
  int checked = 0;
  for (const auto& [id, name] : (*l)->names()) {
    if (name.empty() || name.starts_with("heatmap:")) continue;
    CHECK_MESSAGE(DarshanLogWriter::Hash(name) == id, name);
    ++checked;
  }
  CHECK(checked > 3);
}

TEST_CASE("darshan store: the external sort equals a stable sort whether or not it spills") {
  test::TempDir dir;
  std::mt19937_64 rng(5);
  for (size_t memory : {size_t{1} << 30, size_t{4096}, size_t{100}}) {
    CAPTURE(memory);
    RecordSorter sorter(24, 8, memory, dir.path().string());
    std::vector<std::array<std::byte, 24>> model;
    for (int i = 0; i < 5000; ++i) {
      std::array<std::byte, 24> r{};
      StoreLe<int64_t>(r.data(), i);  // insertion order, to see stability
      StoreLe<int64_t>(r.data() + 8, static_cast<int64_t>(rng() % 300) - 150);
      StoreLe<int64_t>(r.data() + 16, static_cast<int64_t>(rng()));
      model.push_back(r);
      REQUIRE(sorter.Add(r).ok());
    }
    if (memory < 5000) CHECK(sorter.runs() > 1);
    std::stable_sort(model.begin(), model.end(), [](const auto& a, const auto& b) {
      return LoadLe<int64_t>(a.data() + 8) < LoadLe<int64_t>(b.data() + 8);
    });
    size_t i = 0;
    Status s = sorter.Drain([&](std::span<const std::byte> r) {
      REQUIRE(i < model.size());
      CHECK(std::memcmp(r.data(), model[i].data(), 24) == 0);
      ++i;
      return Ok();
    });
    REQUIRE(s.ok());
    CHECK(i == model.size());
    CHECK(sorter.size() == 0);
  }
}

TEST_CASE("darshan store: a bad log leaves an existing store at its last commit") {
  test::TempDir dir;
  REQUIRE(DarshanGenerator::Write(dir.File("g.darshan"), DarshanGenOptions{2000, 4, 10, 2, 100, 3}).ok());
  REQUIRE(Xtfq(dir, "import g.darshan -o s.xtfq").status == 0);
  auto gen = [&] {
    auto r = StoreReader::Open(dir.File("s.xtfq"));
    REQUIRE(r.ok());
    return (*r)->store().generation();
  };
  const uint64_t before = gen();
  // Corrupt the DXT_POSIX region's zlib stream in the middle.
  std::string bytes = Slurp(dir.File("g.darshan"));
  const uint64_t off = LoadLe<uint64_t>(reinterpret_cast<const std::byte*>(bytes.data()) + 48 + 16 * 10);
  const uint64_t len = LoadLe<uint64_t>(reinterpret_cast<const std::byte*>(bytes.data()) + 56 + 16 * 10);
  REQUIRE(len > 100);
  for (uint64_t i = off + len / 2; i < off + len / 2 + 16; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  std::ofstream(dir.File("bad.darshan"), std::ios::binary) << bytes;
  const auto r = Xtfq(dir, "import bad.darshan -o s.xtfq");
  CHECK(r.status == 1);
  CHECK_MESSAGE(r.err.find("bad.darshan") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("DXT_POSIX") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("byte") != std::string::npos, r.err);
  CHECK(r.err.find("stays at generation") != std::string::npos);
  CHECK(gen() == before);
  CHECK(Xtfq(dir, "check s.xtfq").status == 0);
  // A text whose counters are out of order names the line.
  std::ofstream(dir.File("bad.txt"))
      << "# darshan log version: 3.41\n# POSIX module data\nPOSIX\t0\t1\tPOSIX_READS\t3\t/x\t/\text4\n";
  const auto t = Xtfq(dir, "import bad.txt -o s.xtfq");
  CHECK(t.status == 1);
  CHECK_MESSAGE(
      t.err.find("bad.txt: line 3: counter POSIX_READS where darshan-parser prints POSIX_OPENS") != std::string::npos,
      t.err);
  CHECK(gen() == before);
}

TEST_CASE(
    "darshan store: a log imported again is skipped, and the same run of other bytes is imported with a warning") {
  test::TempDir dir;
  REQUIRE(DarshanGenerator::Write(dir.File("g1.darshan"), DarshanGenOptions{2000, 4, 10, 2, 100, 3}).ok());
  REQUIRE(DarshanGenerator::Write(dir.File("g2.darshan"), DarshanGenOptions{3000, 8, 20, 2, 100, 4}).ok());
  auto logs = [&](const std::string& store) {
    auto r = StoreReader::Open(dir.File(store));
    REQUIRE(r.ok());
    auto l = DarshanLogs::List(**r);
    REQUIRE(l.ok());
    return l->size();
  };
  REQUIRE(Xtfq(dir, "import g1.darshan g2.darshan -o s.xtfq").status == 0);
  REQUIRE(logs("s.xtfq") == 2);
  // Again: skipped, said, exit 0, nothing added.
  auto again = Xtfq(dir, "import g1.darshan -o s.xtfq");
  CHECK(again.status == 0);
  CHECK_MESSAGE(again.err.find("g1.darshan: skipped: the same bytes as Darshan log 0") != std::string::npos, again.err);
  CHECK(logs("s.xtfq") == 2);
  CHECK_MESSAGE(again.err.find("import: nothing new: s.xtfq stays at generation") != std::string::npos, again.err);
  // Twice in one run (a file and the directory that holds it, say).
  auto twice = Xtfq(dir, "import g2.darshan g2.darshan -o t.xtfq");
  CHECK(twice.status == 0);
  CHECK_MESSAGE(twice.err.find("g2.darshan: skipped: the same bytes as Darshan log 0") != std::string::npos, twice.err);
  CHECK(logs("t.xtfq") == 1);
  // The darshan-parser text of log 0: other bytes, the same run: imported, with a warning.
  auto text = Xtfq(dir, "dump g1.darshan");
  REQUIRE(text.status == 0);
  std::ofstream(dir.File("g1.txt")) << text.out;
  auto t = Xtfq(dir, "import g1.txt -o s.xtfq");
  CHECK(t.status == 0);
  CHECK(t.err.find("skipped") == std::string::npos);
  CHECK_MESSAGE(t.err.find("g1.txt (log 2) has the job id (4242003), uid, process count, start, end and executable of "
                           "Darshan log 0") != std::string::npos,
                t.err);
  CHECK(logs("s.xtfq") == 3);
  // The text with one counter changed, its length kept: as long as log 2, compared, not the same.
  std::string changed = text.out;
  const size_t at = changed.find("\tPOSIX_WRITES\t");
  REQUIRE(at != std::string::npos);
  char& digit = changed[at + std::string("\tPOSIX_WRITES\t").size()];
  REQUIRE(digit >= '0');
  REQUIRE(digit <= '9');
  digit = digit == '9' ? '8' : static_cast<char>(digit + 1);
  std::ofstream(dir.File("g1b.txt")) << changed;
  auto b = Xtfq(dir, "import g1b.txt -o s.xtfq");
  CHECK(b.status == 0);
  CHECK_MESSAGE(b.err.find("skipped") == std::string::npos, b.err);
  CHECK(b.err.find("g1b.txt (log 3) has the job id (4242003)") != std::string::npos);
  CHECK(logs("s.xtfq") == 4);
  auto c = Xtfq(dir, "import g1.txt -o s.xtfq");
  CHECK_MESSAGE(c.err.find("g1.txt: skipped: the same bytes as Darshan log 2") != std::string::npos, c.err);
  // --keep-duplicates takes it all the same.
  auto keep = Xtfq(dir, "import g1.darshan -o s.xtfq --keep-duplicates");
  CHECK(keep.status == 0);
  CHECK(keep.err.find("skipped") == std::string::npos);
  CHECK(logs("s.xtfq") == 5);
  CHECK(Xtfq(dir, "check s.xtfq").status == 0);
}

TEST_CASE(
    "darshan store: a header that cannot be right is said beside its values, and the run time is darshan-parser's") {
  const std::vector<fs::path> logs = CorpusLogs();
  if (logs.empty()) {
    test::SharedAbsent("no Darshan corpus logs under " + Corpus().string());
    return;
  }
  test::TempDir dir;
  std::string args = "import -q --no-grid -o s.xtfq";
  for (const fs::path& l : logs) args += " '" + l.string() + "'";
  REQUIRE(Xtfq(dir, args).status == 0);
  auto reader = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE(reader.ok());
  auto listed = DarshanLogs::List(**reader);
  REQUIRE(listed.ok());
  std::set<std::string> doubted;
  for (const DarshanLogInfo& l : *listed) {
    // darshan-parser's header lines of the same log.
    const std::string text = Slurp(l.file + ".txt");
    auto value = [&](const std::string& key) {
      const size_t at = text.find("# " + key + ": ");
      REQUIRE(at != std::string::npos);
      return std::stoll(text.substr(at + key.size() + 4));
    };
    const int64_t nprocs = value("nprocs"), start = value("start_time"), end = value("end_time");
    CHECK(l.nprocs == nprocs);
    // The run time `info` shows is darshan-parser's, to its four decimals.
    const size_t run = text.find("# run time: ");
    REQUIRE(run != std::string::npos);
    CHECK_MESSAGE(
        fmt::format("{:.4f}", DarshanLogs::RunSeconds(l)) == text.substr(run + 12, text.find('\n', run) - run - 12),
        l.file);
    const std::vector<std::string> doubts = DarshanLogs::HeaderDoubts(l);
    const size_t expected = (nprocs < 1 || nprocs > (int64_t{1} << 24)) + (end < start);
    CHECK_MESSAGE(doubts.size() == expected, l.file);
    if (!doubts.empty()) doubted.insert(fs::path(l.file).filename().string());
  }
  CHECK(doubted == std::set<std::string>{"killed_mmap_nocomp.darshan", "quirk-dev341-oldjob.darshan"});
  // Where a user sees them.
  auto info = Xtfq(dir, "info s.xtfq");
  CHECK(info.out.find("note: the header cannot be right: 4427712942739450220 processes (more than 2^24), an end "
                      "time before its start (run -1660838432 s)") != std::string::npos);
  CHECK(info.out.find("note: the header cannot be right: no end time (0: a job killed before it wrote its log leaves "
                      "none)") != std::string::npos);
  const auto quirk = std::find_if(listed->begin(), listed->end(), [](const DarshanLogInfo& l) {
    return l.file.ends_with("quirk-dev341-oldjob.darshan");
  });
  auto q = Xtfq(dir, fmt::format("query s.xtfq --log {}", quirk->log));
  CHECK(q.status == 0);
  CHECK_MESSAGE(q.err.find(fmt::format("xtfq query: warning: log {}'s header cannot be right: 4427712942739450220 "
                                       "processes (more than 2^24)",
                                       quirk->log)) != std::string::npos,
                q.err);
}

TEST_CASE("darshan store: a directory of logs with Darshan's texts beside them imports each log once") {
  const fs::path real = Corpus() / "real";
  if (test::SharedMissing(real / "partial-stdio.darshan")) return;
  test::TempDir dir;
  size_t logs = 0, texts = 0, others = 0;
  for (const auto& e : fs::directory_iterator(real)) {
    logs += e.path().extension() == ".darshan";
    texts += e.path().extension() == ".txt";
    others += e.path().extension() != ".darshan" && e.path().extension() != ".txt";
  }
  REQUIRE(texts > 0);
  auto r = Xtfq(dir, fmt::format("import -o d.xtfq '{}'", real.string()));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.find("the same run imported twice") == std::string::npos);
  // Every text is left out (READMEs as not inputs): the first ten named with their logs, one a
  // line, the rest counted.
  CHECK_MESSAGE(r.err.find(fmt::format("xtfq import: warning: {} files left out:\n", texts + others)) == 0, r.err);
  size_t named = 0;
  for (size_t at = r.err.find("Darshan's text of"); at != std::string::npos;
       at = r.err.find("Darshan's text of", at + 1))
    ++named;
  CHECK(named == std::min<size_t>(texts, 10));
  CHECK(r.err.find(fmt::format("xtfq import:   and {} more\n", texts + others - 10)) != std::string::npos);
  auto reader = StoreReader::Open(dir.File("d.xtfq"));
  REQUIRE(reader.ok());
  auto listed = DarshanLogs::List(**reader);
  REQUIRE(listed.ok());
  CHECK(listed->size() == logs);
  for (const DarshanLogInfo& l : *listed) CHECK(l.source == DarshanLayout::SourceKind::kBinary);
  // darshan-dxt-parser output on its own: refused at its first DXT record, not imported without them.
  auto dxt = Xtfq(dir, fmt::format("import -o x.xtfq '{}'", (real / "ior-hdf5-h5d1-dxt.dxt.txt").string()));
  CHECK(dxt.status == 1);
  CHECK_MESSAGE(dxt.err.find("ior-hdf5-h5d1-dxt.dxt.txt: line 75: darshan-dxt-parser output") != std::string::npos,
                dxt.err);
  // A log whose module ran out of memory: the answer from it says so.
  const auto partial = std::find_if(listed->begin(), listed->end(),
                                    [](const DarshanLogInfo& l) { return l.file.ends_with("partial-stdio.darshan"); });
  REQUIRE(partial != listed->end());
  auto q = Xtfq(dir, fmt::format("query d.xtfq --log {} --module STDIO", partial->log));
  CHECK(q.status == 0);
  CHECK_MESSAGE(
      q.err.find(fmt::format("warning: log {}'s STDIO data is incomplete", partial->log)) != std::string::npos, q.err);
  auto posix = Xtfq(dir, fmt::format("query d.xtfq --log {}", partial->log));
  CHECK(posix.err.find("incomplete") == std::string::npos);  // its POSIX module is whole
  // --log and --job that name different logs.
  auto both = Xtfq(dir, fmt::format("query d.xtfq --log {} --job 1", partial->log));
  CHECK(both.status == 2);  // a usage error
  // Several logs and no --log: a usage error naming a few and saying how to list them all.
  auto none = Xtfq(dir, "query d.xtfq");
  CHECK(none.status == 2);
  CHECK_MESSAGE(none.err.find("a log is ambiguous; give --log N (the store has log 0 (job ") != std::string::npos,
                none.err);
  CHECK_MESSAGE(none.err.find(" more: xtfq info --brief d.xtfq lists them)\n") != std::string::npos, none.err);
  CHECK_MESSAGE(
      both.err.find(fmt::format("log {} is job {}, not job 1", partial->log, partial->job)) != std::string::npos,
      both.err);
}

}  // namespace
}  // namespace xtfq
